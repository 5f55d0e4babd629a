#pragma once
// Command lines for the system OpenSSH client (run through QProcess; options as in
// ssh(1) and ssh_config(5) of OpenSSH 9.2p1). One ControlMaster per node, shared by every
// command to that node; host keys always checked (never silently accepted).
#include "project/cluster.h"

#include <string>
#include <vector>

namespace paraplan::runtime {

// Where one node is reached: a host name, address or ~/.ssh/config alias.
struct SshTarget {
    std::string host;
    std::string user;   // "" = ssh's default (config or local user)
    int port = 0;       // 0 = ssh's default
};

// The SSH target of a cluster node (Node::host, or the node name when host is empty).
SshTarget ssh_target(const Node& node);

// Checks a target before it reaches ssh: the host must be a name or address (letters, digits,
// '.', '_', '-', ':' for IPv6, not starting with '-'), the user a plain name, the port 0-65535;
// ssh expands the host into the ProxyCommand it runs for a ProxyJump, so nothing a shell reads
// may pass. Returns "" when fine, else why.
std::string check_target(const SshTarget& t);

struct SshOptions {
    // Local values: from Paraplan itself or the user's ssh profile (ssh_profile.h), never a project.
    std::string ssh_program = "ssh";
    std::string config_file;        // -F FILE ("" = the user's ~/.ssh/config)
    std::string identity_file;      // -i FILE with IdentitiesOnly=yes ("" = ssh's default keys / agent)
    std::string certificate_file;   // CertificateFile ("" = none)
    std::string profile;            // id of the ssh profile these local values came from ("" = none)
    int connect_timeout_s = 10;
    int server_alive_interval_s = 15;
    int server_alive_count_max = 3;
    std::string strict_host_key_checking = "yes";   // "yes" or "accept-new"; never "no"
    std::string known_hosts_file;                   // app-owned UserKnownHostsFile ("" = the user's)
    std::string control_dir;                        // private folder for ControlPath sockets ("" = no sharing)
    // The project's plain connection values (ssh_policy.h), "-o Key=Value" each, e.g. "ProxyJump=bastion".
    std::vector<std::string> extra_options;
};

// "-o ..." options and target flags common to every ssh invocation (without the host).
std::vector<std::string> ssh_common_args(const SshTarget& t, const SshOptions& o);

// ControlPath for the node (%C: a hash of local host, remote host, port and user).
std::string control_path(const SshOptions& o);

// The master: authenticates once, prints one newline (LocalCommand=echo) when ready,
// then holds the connection until it is stopped or `ssh -O exit` is sent.
std::vector<std::string> ssh_master_argv(const SshTarget& t, const SshOptions& o);

// One remote command over the master (if any). `remote_command` is shell text for the
// remote login shell, built with sh_quote/sh_join.
std::vector<std::string> ssh_command_argv(const SshTarget& t, const SshOptions& o, const std::string& remote_command);

// Asks a running master to exit.
std::vector<std::string> ssh_exit_argv(const SshTarget& t, const SshOptions& o);

// Remote text that runs a POSIX sh script whatever the login shell is:
// exec /bin/sh -c '<script>' [name args...].
std::string remote_sh(const std::string& script, const std::vector<std::string>& args = {});

}   // namespace paraplan::runtime
