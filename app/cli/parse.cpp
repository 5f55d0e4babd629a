#include "cli/parse.h"
#include "util/edit_distance.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <utility>

namespace paraplan::cli {

namespace {

// Of `items`, the name (name_of; "" skips an item) nearest `typed` within two edits, or "".
template <typename Items, typename NameOf>
std::string nearest_name(const std::string& typed, const Items& items, NameOf name_of) {
    std::vector<std::string> names;
    for (const auto& item : items) names.push_back(name_of(item));
    return nearest_within(typed, std::vector<std::string_view>(names.begin(), names.end()));
}

// The declared option nearest an unknown --key (-o has no --o spelling), or "".
std::string nearest_option(const Command& cmd, const std::string& key) {
    return nearest_name(key, cmd.options, [](const Option& o) { return o.short_name ? std::string() : o.name; });
}

[[noreturn]] void refuse_extra(const Command& cmd, const std::string& word) {
    if (word.size() > 2 && word.compare(0, 2, "--") == 0) {
        const std::string key = word.substr(2, word.find('=') - 2);
        const std::string near = nearest_option(cmd, key);
        throw UsageError("unknown option --" + key + (near.empty() ? "" : "; did you mean --" + near + "?"));
    }
    if (word.size() > 1 && word[0] == '-' && word != "--") throw UsageError("unknown option " + word);
    throw UsageError("unexpected argument '" + word + "'");
}

// `--flag=x` is refused (a flag takes no value) and `--key=` is an empty value, as before
// CLI11; CLI11 itself would read the first as a flag value and refuse the second.
std::vector<std::string> normalise(const Command& cmd, const std::vector<std::string>& words) {
    std::vector<std::string> out;
    for (const auto& w : words) {
        const std::size_t eq = w.find('=');
        if (w.compare(0, 2, "--") == 0 && eq != std::string::npos && eq > 2) {
            const std::string key = w.substr(2, eq - 2);
            const Option* o = cmd.option(key);
            if (o && o->short_name) o = nullptr;   // -o is no --o
            if (o && o->value.empty()) throw UsageError("--" + key + " takes no value");
            if (o && eq + 1 == w.size()) {
                out.push_back("--" + key);
                out.emplace_back();
                continue;
            }
        }
        out.push_back(w);
    }
    return out;
}

}   // namespace

Args parse_command_line(const Command& cmd, const std::vector<std::string>& words) {
    // One CLI::App per command, holding only what the command declares. Help is not CLI11's:
    // main prints usage(cmd), generated from the same declarations.
    CLI::App app{cmd.summary, "paraplan-cli " + cmd.name};
    app.set_help_flag();
    app.allow_extras();   // unknown words come back in remaining(), refused below with a hint
    std::vector<std::string> positional;
    app.add_option("args", positional);
    std::vector<std::pair<const Option*, CLI::Option*>> bound;
    for (const auto& o : cmd.options) {
        CLI::Option* opt = o.value.empty() ? app.add_flag(o.spelled())
                                           : app.add_option(o.spelled())->type_name(o.value)->expected(1);
        // A repeated option: the last one counts, as before (CLI11 refuses a repeat by default).
        opt->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
        bound.emplace_back(&o, opt);
    }
    // CLI11 wants argv in reverse order (CLI::App::parse(std::vector<std::string>&)).
    std::vector<std::string> args = normalise(cmd, words);
    std::reverse(args.begin(), args.end());
    try {
        app.parse(args);
    } catch (const CLI::ArgumentMismatch& e) {
        // "--gpu: 1 required ID missing": the option's value is missing (last word, or `--gpu=`).
        const std::string what = e.what();
        const std::string name = what.substr(0, what.find(':'));
        const std::string key = name.substr(name.find_first_not_of('-'));
        const Option* o = cmd.option(key);
        throw UsageError(name + " needs a value" + (o ? " (" + o->value + ")" : std::string()));
    } catch (const CLI::ParseError& e) {
        throw UsageError(e.what());
    }
    if (!app.remaining().empty()) refuse_extra(cmd, app.remaining().front());
    Args a;
    a.positional = std::move(positional);
    for (const auto& [decl, opt] : bound) {
        if (opt->count() == 0) continue;
        if (decl->value.empty()) a.flags_set.push_back(decl->name);
        else a.options[decl->name] = opt->as<std::string>();
    }
    return a;
}

std::string nearest_command(const std::string& typed) {
    // Names users reach for that the CLI calls otherwise.
    static const std::pair<const char*, const char*> kSynonyms[] = {
        {"check", "validate"}, {"lint", "validate"}, {"verify", "validate"}, {"search", "plan"},
        {"fit", "calibrate"},  {"diff", "compare"},  {"run", "launch"}};
    for (const auto& [from, to] : kSynonyms)
        if (typed == from) return to;
    // Else the command within two edits of it.
    return nearest_name(typed, commands(), [](const Command& c) { return c.name; });
}

}   // namespace paraplan::cli
