#pragma once
// Local ssh settings: the values that name a file on this computer or decide which host keys
// to trust (config file, known-hosts file, identity and certificate files, accepting new host
// keys). They come only from the user: from ~/.ssh/config, which ssh reads by itself, or from a
// profile kept in Paraplan's own settings folder (config_dir()/ssh-profiles.json), which the user
// edits with `paraplan-cli ssh-profile` or in the app and which is never written into a project.
// A project names at most a profile id (/runtime/ssh/profile). Every path that reaches ssh holds
// only characters that neither a shell nor ssh's own %-token and environment expansion reads
// (OpenSSH hands the -F path to /bin/sh when it runs a ProxyJump; ssh_config(5) TOKENS).
#include "ssh/ssh_command.h"

#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace paraplan::runtime {

struct SshProfile {
    std::string id;                                 // its key in the settings file
    std::string config_file;                        // ssh -F ("" = ~/.ssh/config)
    std::string known_hosts_file;                   // UserKnownHostsFile ("" = ~/.ssh/known_hosts)
    std::string identity_file;                      // ssh -i, with IdentitiesOnly=yes ("" = ssh's default keys / agent)
    std::string certificate_file;                   // CertificateFile ("" = none)
    std::string strict_host_key_checking = "yes";   // "yes" or "accept-new"; never "no"
    bool operator==(const SshProfile&) const = default;
};

using SshProfiles = std::map<std::string, SshProfile>;

// The profile used when a project names none, if the user defined it.
inline constexpr const char* kDefaultSshProfile = "default";

// A profile id: 1-64 letters, digits, '.', '_' or '-', not starting with '-' or '.'.
bool is_ssh_profile_id(const std::string& id);

// Why `path` cannot be handed to ssh ("" when it can): it must be absolute and hold only
// letters, digits and . _ - + , @ / (no space, quote, $, %, ~, backslash or control character).
std::string local_ssh_path_problem(const std::string& path);

// The profiles of a settings document {"paraplan_ssh_profiles": 1, "profiles": {ID: {...}}}.
// Throws InputError naming the JSON pointer of a bad id, key or path.
SshProfiles ssh_profiles_from_json(const nlohmann::json& doc);
nlohmann::json to_json(const SshProfiles& profiles);

// config_dir()/ssh-profiles.json.
std::string ssh_profiles_file();

// The profiles in `file` (none when it does not exist). Throws InputError naming the file when
// it cannot be trusted (not a regular file of this user, writable by others) or is malformed.
SshProfiles load_ssh_profiles(const std::string& file = ssh_profiles_file());

// Writes the profiles to `file` (0600, its folder created 0700). Throws std::runtime_error.
void save_ssh_profiles(const SshProfiles& profiles, const std::string& file = ssh_profiles_file());

// The profile a launch uses: `id` when given (InputError at /runtime/ssh/profile when the user
// has not defined it, saying how to), else the "default" profile when defined, else none.
std::optional<SshProfile> resolve_ssh_profile(const std::string& id, const SshProfiles& profiles);

// Sets the profile's local values on `o` (config file, known hosts, identity, certificate,
// host-key policy) and o.profile to its id.
void apply_ssh_profile(SshOptions& o, const SshProfile& p);

}   // namespace paraplan::runtime
