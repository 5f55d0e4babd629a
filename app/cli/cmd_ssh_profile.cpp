// paraplan-cli ssh-profile list|show|set|remove ...: the user's local ssh settings (ssh_profile.h).
#include "cli/command.h"
#include "ssh/ssh_profile.h"
#include "util/input_error.h"

#include <filesystem>
#include <iostream>

namespace paraplan::cli {
namespace {

using namespace paraplan::runtime;

std::string profile_id(const Args& a) {
    const std::string id = a.positional_at(1, "ID (the profile's name)");
    if (!is_ssh_profile_id(id))
        throw UsageError("\"" + id + "\" is not a profile id (1-64 letters, digits, '.', '_' or '-')");
    return id;
}

// An absolute, normalised path for a file option; "" (clear it) for an empty value.
std::string path_option(const Args& a, const std::string& name, const std::string& current) {
    if (!a.has(name)) return current;
    const std::string v = a.get(name, "");
    if (v.empty()) return "";
    const std::string abs = std::filesystem::absolute(v).lexically_normal().string();
    if (const std::string why = local_ssh_path_problem(abs); !why.empty()) throw UsageError("--" + name + ": " + why);
    return abs;
}

void print_profile(const SshProfile& p) {
    std::cout << p.id << '\n';
    auto row = [](const char* k, const std::string& v, const char* def) {
        std::cout << "  " << k << ": " << (v.empty() ? std::string(def) : v) << '\n';
    };
    row("config file", p.config_file, "(~/.ssh/config)");
    row("known hosts file", p.known_hosts_file, "(~/.ssh/known_hosts)");
    row("identity file", p.identity_file, "(ssh's default keys and agent)");
    row("certificate file", p.certificate_file, "(none)");
    row("strict host key checking", p.strict_host_key_checking, "yes");
}

int run_ssh_profile(const Args& a) {
    const std::string verb = a.positional_at(0, "list, show, set or remove");
    const std::string file = ssh_profiles_file();
    SshProfiles profiles = load_ssh_profiles(file);
    if (verb == "list" || verb == "show") {
        SshProfiles shown = profiles;
        if (verb == "show") {
            const std::string id = profile_id(a);
            if (!profiles.count(id)) throw UsageError("no ssh profile \"" + id + "\" (paraplan-cli ssh-profile list)");
            shown = {{id, profiles.at(id)}};
        }
        if (a.flag("json")) {
            auto j = to_json(shown);
            j["file"] = file;
            print_json(j.dump(2));
        } else if (shown.empty()) {
            std::cout << "no ssh profiles in " << file
                      << " (paraplan-cli ssh-profile set ID --identity-file FILE ... defines one)\n";
        } else {
            for (const auto& [id, p] : shown) print_profile(p);
        }
        return kOk;
    }
    if (verb == "set") {
        const std::string id = profile_id(a);
        SshProfile p = profiles.count(id) ? profiles.at(id) : SshProfile{};
        p.id = id;
        p.config_file = path_option(a, "config-file", p.config_file);
        p.known_hosts_file = path_option(a, "known-hosts-file", p.known_hosts_file);
        p.identity_file = path_option(a, "identity-file", p.identity_file);
        p.certificate_file = path_option(a, "certificate-file", p.certificate_file);
        if (a.has("strict-host-key-checking")) {
            const std::string v = a.get("strict-host-key-checking", "");
            if (v != "yes" && v != "accept-new")
                throw UsageError("--strict-host-key-checking must be yes or accept-new (got \"" + v + "\")");
            p.strict_host_key_checking = v;
        }
        profiles[id] = p;
        save_ssh_profiles(profiles, file);
        if (!a.flag("json")) std::cout << "saved in " << file << '\n';
        print_profile(p);
        return kOk;
    }
    if (verb == "remove") {
        const std::string id = profile_id(a);
        if (!profiles.erase(id)) throw UsageError("no ssh profile \"" + id + "\" (paraplan-cli ssh-profile list)");
        save_ssh_profiles(profiles, file);
        std::cout << "removed " << id << " from " << file << '\n';
        return kOk;
    }
    throw UsageError("unknown ssh-profile action \"" + verb + "\" (list, show, set or remove)");
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "ssh-profile",
    .summary = "your local ssh settings (identity, known hosts, config file) that projects name by id",
    .synopsis = {"list [--json]", "show ID [--json]",
                 "set ID [--identity-file FILE] [--known-hosts-file FILE]\n"
                 "       [--config-file FILE] [--certificate-file FILE]\n"
                 "       [--strict-host-key-checking yes|accept-new]",
                 "remove ID"},
    .description = "A project file may come from anyone, so it never names a file on this computer for ssh nor\n"
                   "decides which host keys to trust: those come from your own ~/.ssh/config or from a profile\n"
                   "kept here, in $XDG_CONFIG_HOME/paraplan/ssh-profiles.json (~/.config/paraplan by default,\n"
                   "mode 0600). A project names a profile in runtime.ssh.profile; without one, the profile\n"
                   "\"default\" is used when you defined it. Paths are stored absolute and may hold only\n"
                   "letters, digits and . _ - + , @ / (ssh hands some of them to a shell). An empty value\n"
                   "(--identity-file '') clears a setting.\n",
    .options = {{"identity-file", "FILE", "with set: ssh's IdentityFile"},
                {"known-hosts-file", "FILE", "with set: ssh's UserKnownHostsFile"},
                {"config-file", "FILE", "with set: the ssh config file (ssh -F)"},
                {"certificate-file", "FILE", "with set: ssh's CertificateFile"},
                {"strict-host-key-checking", "yes|accept-new", "with set: ssh's StrictHostKeyChecking"},
                {"json", "", "with list and show: print the profiles as JSON"}},
    .run = run_ssh_profile});

}   // namespace paraplan::cli
