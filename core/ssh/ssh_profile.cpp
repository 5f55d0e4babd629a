#include "ssh/ssh_profile.h"
#include "util/plain_name.h"

#include "util/input_error.h"
#include "util/json_read.h"
#include "util/local_dirs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

namespace paraplan::runtime {

using json_read::Obj;

namespace {

constexpr std::size_t kMaxSettingsBytes = 1u << 20;

const char* const kPathKeys[] = {"config_file", "known_hosts_file", "identity_file", "certificate_file"};

std::string& path_field(SshProfile& p, std::string_view key) {
    if (key == "config_file") return p.config_file;
    if (key == "known_hosts_file") return p.known_hosts_file;
    if (key == "identity_file") return p.identity_file;
    return p.certificate_file;
}

SshProfile profile_from_json(const Obj& o) {
    SshProfile p;
    for (auto it = o.raw().begin(); it != o.raw().end(); ++it) {
        const bool known = it.key() == "strict_host_key_checking" ||
                           std::any_of(std::begin(kPathKeys), std::end(kPathKeys),
                                       [&](const char* k) { return it.key() == k; });
        if (!known)
            throw InputError(o.at(it.key()), "unknown ssh profile setting \"" + it.key() +
                                                 "\" (known: config_file, known_hosts_file, identity_file, "
                                                 "certificate_file, strict_host_key_checking)");
    }
    for (const char* k : kPathKeys) {
        const std::string v = o.string(k, "");
        if (v.empty()) continue;
        if (const std::string why = local_ssh_path_problem(v); !why.empty()) throw InputError(o.at(k), why);
        path_field(p, k) = v;
    }
    p.strict_host_key_checking = o.one_of("strict_host_key_checking", {"yes", "accept-new"}, "yes");
    return p;
}

}   // namespace

bool is_ssh_profile_id(const std::string& id) { return is_plain_name(id, {.leading_dot = false, .max_size = 64}); }

std::string local_ssh_path_problem(const std::string& path) {
    if (path.empty() || path.front() != '/') return "\"" + path + "\" is not an absolute path";
    for (unsigned char c : path)
        if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '+' || c == ',' || c == '@' || c == '/'))
            return "\"" + path + "\" holds the character '" + std::string(1, static_cast<char>(c)) +
                   "': a path handed to ssh may hold only letters, digits and . _ - + , @ / (a shell or ssh's "
                   "own %-tokens would read the others)";
    return "";
}

SshProfiles ssh_profiles_from_json(const nlohmann::json& doc) {
    const Obj root(doc, "");
    SshProfiles out;
    if (!root.has("profiles")) return out;
    const Obj profiles = root.object("profiles");
    for (auto it = profiles.raw().begin(); it != profiles.raw().end(); ++it) {
        if (!is_ssh_profile_id(it.key()))
            throw InputError(profiles.at(it.key()), "\"" + it.key() +
                                                        "\" is not a profile id (1-64 letters, digits, '.', '_' "
                                                        "or '-', not starting with '-' or '.')");
        out[it.key()] = profile_from_json(Obj(it.value(), profiles.at(it.key())));
        out[it.key()].id = it.key();
    }
    return out;
}

nlohmann::json to_json(const SshProfiles& profiles) {
    nlohmann::json ps = nlohmann::json::object();
    for (const auto& [id, p] : profiles) {
        nlohmann::json j = nlohmann::json::object();
        SshProfile copy = p;
        for (const char* k : kPathKeys)
            if (!path_field(copy, k).empty()) j[k] = path_field(copy, k);
        j["strict_host_key_checking"] = p.strict_host_key_checking;
        ps[id] = j;
    }
    return {{"paraplan_ssh_profiles", 1}, {"profiles", ps}};
}

std::string ssh_profiles_file() { return config_dir() + "/ssh-profiles.json"; }

SshProfiles load_ssh_profiles(const std::string& file) {
    std::string problem;
    bool missing = false;
    const auto text = read_own_file(file, kMaxSettingsBytes, &problem, &missing);
    if (!text) {
        if (missing) return {};
        throw InputError("", problem + " (ssh profiles are read only from a file of yours that others cannot write)", 0,
                         0, file);
    }
    try {
        return ssh_profiles_from_json(json_read::parse(*text));
    } catch (const InputError& e) {
        throw InputError(e.pointer(), e.message(), e.line(), e.column(), file);
    }
}

void save_ssh_profiles(const SshProfiles& profiles, const std::string& file) {
    const std::string dir = std::filesystem::path(file).parent_path().string();
    if (const std::string why = ensure_private_dir(dir); !why.empty()) throw std::runtime_error(why);
    if (const std::string why = write_own_file(file, to_json(profiles).dump(2) + "\n"); !why.empty())
        throw std::runtime_error(why);
}

std::optional<SshProfile> resolve_ssh_profile(const std::string& id, const SshProfiles& profiles) {
    if (id.empty()) {
        const auto it = profiles.find(kDefaultSshProfile);
        if (it == profiles.end()) return std::nullopt;
        return it->second;
    }
    const auto it = profiles.find(id);
    if (it == profiles.end())
        throw InputError("/runtime/ssh/profile", "the ssh profile \"" + id +
                                                     "\" is not defined on this computer (define it with "
                                                     "`paraplan-cli ssh-profile set " +
                                                     id + " --identity-file FILE ...`; profiles live in " +
                                                     ssh_profiles_file() + ")");
    return it->second;
}

void apply_ssh_profile(SshOptions& o, const SshProfile& p) {
    o.profile = p.id;
    o.config_file = p.config_file;
    o.known_hosts_file = p.known_hosts_file;
    o.identity_file = p.identity_file;
    o.certificate_file = p.certificate_file;
    o.strict_host_key_checking = p.strict_host_key_checking;
}

}   // namespace paraplan::runtime
