#include "cli/command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace paraplan::cli {

namespace {
std::vector<Command>& registry() {
    static std::vector<Command> r;
    return r;
}
}   // namespace

bool register_command(Command c) {
    auto& r = registry();
    r.push_back(std::move(c));
    std::sort(r.begin(), r.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
    return true;
}

const std::vector<Command>& commands() { return registry(); }

const Command* find_command(const std::string& name) {
    for (const auto& c : registry())
        if (c.name == name) return &c;
    return nullptr;
}

const Option* Command::option(const std::string& n) const {
    for (const auto& o : options)
        if (o.name == n) return &o;
    return nullptr;
}

bool Command::is_flag(const std::string& n) const {
    const Option* o = option(n);
    return o && o->value.empty();
}

const std::vector<ExitCode>& exit_codes() {
    static const std::vector<ExitCode> kCodes = {
        {kOk, "fine"},
        {kFindings, "the input has findings (for example an invalid layout, or no layout fits)"},
        {kUsage, "usage error (unknown option, missing value) or unreadable input"},
        {kRunFailed, "a run (launch, probe) failed or was stopped, or a process could not be stopped"},
        {kUnreachable, "the cluster could not be reached (ssh: host key, key, name, refused, timeout)"}};
    return kCodes;
}

bool Args::flag(const std::string& name) const {
    return std::find(flags_set.begin(), flags_set.end(), name) != flags_set.end();
}

std::optional<std::string> Args::get(const std::string& name) const {
    auto it = options.find(name);
    if (it == options.end()) return std::nullopt;
    return it->second;
}

std::string Args::get(const std::string& name, const std::string& def) const {
    auto v = get(name);
    return v ? *v : def;
}

int Args::get_int(const std::string& name, int def) const {
    auto v = get(name);
    if (!v) return def;
    try {
        std::size_t used = 0;
        long long x = std::stoll(*v, &used);
        if (used != v->size() || x < -2147483647LL || x > 2147483647LL) throw std::invalid_argument("");
        return static_cast<int>(x);
    } catch (const std::exception&) {
        throw UsageError("--" + name + ": expected an integer, got '" + *v + "'");
    }
}

int Args::get_int(const std::string& name, int def, int min, int max) const {
    const int x = get_int(name, def);
    if (has(name) && (x < min || x > max))
        throw UsageError("--" + name + ": expected an integer from " + std::to_string(min) + " to " +
                         std::to_string(max) + ", got " + *get(name));
    return x;
}

double Args::get_double(const std::string& name, double def) const {
    auto v = get(name);
    if (!v) return def;
    try {
        std::size_t used = 0;
        double x = std::stod(*v, &used);
        if (used != v->size() || !std::isfinite(x)) throw std::invalid_argument("");
        return x;
    } catch (const std::exception&) {
        throw UsageError("--" + name + ": expected a number, got '" + *v + "'");
    }
}

double Args::get_double(const std::string& name, double def, double min, double max) const {
    const double x = get_double(name, def);
    if (has(name) && (x < min || x > max)) {
        std::ostringstream range;
        range << "--" << name << ": expected a number from " << min << " to " << max << ", got " << *get(name);
        throw UsageError(range.str());
    }
    return x;
}

bool Args::get_bool(const std::string& name, bool def) const {
    auto v = get(name);
    if (!v) return def;
    if (*v == "true" || *v == "1" || *v == "yes") return true;
    if (*v == "false" || *v == "0" || *v == "no") return false;
    throw UsageError("--" + name + ": expected true or false, got '" + *v + "'");
}

std::string Args::positional_at(std::size_t i, const std::string& what) const {
    if (i >= positional.size()) throw UsageError("missing " + what);
    return positional[i];
}

std::vector<std::string> split_list(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ','))
        if (!item.empty()) out.push_back(item);
    return out;
}

void print_json(const std::string& dumped) {
    std::cout << dumped << '\n';
    std::cout.flush();
}

}   // namespace paraplan::cli
