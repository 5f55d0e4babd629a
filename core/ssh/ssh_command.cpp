#include "ssh/ssh_command.h"

#include "shell/shell_quote.h"

#include <cctype>

namespace paraplan::runtime {

SshTarget ssh_target(const Node& node) {
    SshTarget t;
    t.host = node.host.empty() ? node.name : node.host;
    t.user = node.user;
    t.port = node.port;
    return t;
}

std::string check_target(const SshTarget& t) {
    // The names are the project loader's rules (project/cluster.h), checked again here because a
    // target can also come from a job record or the app.
    if (t.host.empty()) return "the SSH host is empty";
    if (t.host.front() == '-')
        return "the SSH host \"" + t.host + "\" starts with '-' (it would be read as an ssh option)";
    if (!is_host_name(t.host))
        return "the SSH host \"" + t.host +
               "\" is not a host name or address (letters, digits, '.', '_', '-' and ':' only)";
    if (!t.user.empty() && !is_user_name(t.user))
        return "the SSH user \"" + t.user +
               "\" is not a user name (letters, digits, '.', '_' and '-' only, not starting with '-')";
    if (t.port < 0 || t.port > 65535) return "the SSH port " + std::to_string(t.port) + " is out of range (1-65535)";
    return "";
}

std::string control_path(const SshOptions& o) { return o.control_dir.empty() ? std::string() : o.control_dir + "/%C"; }

std::vector<std::string> ssh_common_args(const SshTarget& t, const SshOptions& o) {
    std::vector<std::string> a;
    auto opt = [&a](const std::string& kv) {
        a.push_back("-o");
        a.push_back(kv);
    };
    if (!o.config_file.empty()) {
        a.push_back("-F");
        a.push_back(o.config_file);
    }
    opt("BatchMode=yes");
    opt("ConnectTimeout=" + std::to_string(o.connect_timeout_s));
    opt("ServerAliveInterval=" + std::to_string(o.server_alive_interval_s));
    opt("ServerAliveCountMax=" + std::to_string(o.server_alive_count_max));
    opt("StrictHostKeyChecking=" +
        (o.strict_host_key_checking == "accept-new" ? std::string("accept-new") : std::string("yes")));
    if (!o.known_hosts_file.empty()) opt("UserKnownHostsFile=" + o.known_hosts_file);
    opt("LogLevel=ERROR");
    for (const auto& e : o.extra_options) opt(e);
    if (!t.user.empty()) opt("User=" + t.user);
    if (t.port > 0) opt("Port=" + std::to_string(t.port));
    if (!o.identity_file.empty()) {
        a.push_back("-i");
        a.push_back(o.identity_file);
        opt("IdentitiesOnly=yes");
    }
    if (!o.certificate_file.empty()) opt("CertificateFile=" + o.certificate_file);
    return a;
}

std::vector<std::string> ssh_master_argv(const SshTarget& t, const SshOptions& o) {
    std::vector<std::string> a{o.ssh_program};
    auto common = ssh_common_args(t, o);
    a.insert(a.end(), common.begin(), common.end());
    for (const char* kv : {"ControlMaster=yes", "ControlPersist=no", "PermitLocalCommand=yes", "LocalCommand=echo"}) {
        a.push_back("-o");
        a.push_back(kv);
    }
    if (!o.control_dir.empty()) {
        a.push_back("-o");
        a.push_back("ControlPath=" + control_path(o));
    }
    a.push_back("-N");
    a.push_back("--");
    a.push_back(t.host);
    return a;
}

std::vector<std::string> ssh_command_argv(const SshTarget& t, const SshOptions& o, const std::string& remote_command) {
    std::vector<std::string> a{o.ssh_program};
    auto common = ssh_common_args(t, o);
    a.insert(a.end(), common.begin(), common.end());
    if (!o.control_dir.empty()) {
        // Use the node's master when it runs; without one, connect directly.
        a.push_back("-o");
        a.push_back("ControlMaster=no");
        a.push_back("-o");
        a.push_back("ControlPath=" + control_path(o));
    }
    a.push_back("-T");
    a.push_back("--");
    a.push_back(t.host);
    a.push_back(remote_command);
    return a;
}

std::vector<std::string> ssh_exit_argv(const SshTarget& t, const SshOptions& o) {
    std::vector<std::string> a{o.ssh_program};
    auto common = ssh_common_args(t, o);
    a.insert(a.end(), common.begin(), common.end());
    a.push_back("-o");
    a.push_back("ControlPath=" + control_path(o));
    a.push_back("-O");
    a.push_back("exit");
    a.push_back("--");
    a.push_back(t.host);
    return a;
}

std::string remote_sh(const std::string& script, const std::vector<std::string>& args) {
    std::string out = "exec /bin/sh -c " + sh_quote(script);
    if (!args.empty()) out += " paraplan " + sh_join(args);
    return out;
}

}   // namespace paraplan::runtime
