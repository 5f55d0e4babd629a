#pragma once
// What went wrong with an ssh command, from its exit status and stderr (messages of
// OpenSSH 9.2p1: sshconnect.c, sshconnect2.c, ssh.c; exit 255 per ssh(1) EXIT STATUS).
// Each kind has its own message and fix.
#include <string>
#include <string_view>

namespace paraplan::runtime {

enum class SshErrorKind {
    None,
    UnknownHostKey,         // not in known_hosts and StrictHostKeyChecking=yes
    ChangedHostKey,         // known_hosts holds a different key
    AuthFailed,             // Permission denied (publickey, ...)
    Unresolvable,           // Could not resolve hostname
    ConnectionRefused,      // nothing listens on the port
    Timeout,                // connect timed out
    Unreachable,            // no route / network unreachable
    ConnectionLost,         // the connection dropped while running
    RemoteCommandMissing,   // exit 127: the remote shell found no such command
    Other,
};

struct SshError {
    SshErrorKind kind = SshErrorKind::None;
    int exit_code = 0;
    std::string message;   // what happened, naming the host
    std::string fix;       // what the user can do
    std::string raw;       // the last meaningful stderr line, as ssh printed it
};

// "unknown_host_key", "changed_host_key", ... (stable ids for JSON).
std::string to_string(SshErrorKind k);

// The host could not be reached or would not let us in (host key, key, name, refused, timeout,
// no route): nothing ran there. ConnectionLost, a missing remote command and Other are not.
bool is_unreachable(SshErrorKind k);

// Where the host's key is looked up, for the fix commands of host-key errors: a
// non-default port is recorded in known_hosts as "[host]:port", and a project may
// name its own known_hosts file.
struct HostKeyPlace {
    int port = 0;                   // 0 or 22 = ssh's default
    std::string known_hosts_file;   // "" = ~/.ssh/known_hosts
};

// Classifies a finished ssh invocation. exit_code 0 gives kind None. A non-zero exit
// that is not 255 or 127 is the remote program's own status: kind Other with a
// message naming it, unless stderr shows an ssh failure.
SshError classify_ssh_failure(const std::string& host, int exit_code, std::string_view stderr_text,
                              const HostKeyPlace& place = {});

// The connection's own ssh process (the ControlMaster) ended while in use: killed by
// a signal (`signal` > 0) or exited with `exit_code`. Always kind ConnectionLost; the
// message says so instead of reading the status as a remote command's.
SshError connection_lost(const std::string& host, int exit_code, int signal, std::string_view stderr_text);

}   // namespace paraplan::runtime
