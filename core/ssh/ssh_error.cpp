#include "ssh/ssh_error.h"

#include "shell/shell_quote.h"

#include <vector>

namespace paraplan::runtime {

std::string to_string(SshErrorKind k) {
    switch (k) {
    case SshErrorKind::None: return "none";
    case SshErrorKind::UnknownHostKey: return "unknown_host_key";
    case SshErrorKind::ChangedHostKey: return "changed_host_key";
    case SshErrorKind::AuthFailed: return "auth_failed";
    case SshErrorKind::Unresolvable: return "unresolvable_host";
    case SshErrorKind::ConnectionRefused: return "connection_refused";
    case SshErrorKind::Timeout: return "timeout";
    case SshErrorKind::Unreachable: return "unreachable";
    case SshErrorKind::ConnectionLost: return "connection_lost";
    case SshErrorKind::RemoteCommandMissing: return "remote_command_missing";
    case SshErrorKind::Other: return "other";
    }
    return "other";
}

namespace {

bool has(std::string_view text, std::string_view needle) { return text.find(needle) != std::string_view::npos; }

std::string last_line(std::string_view text) {
    std::vector<std::string> lines;
    std::string cur;
    for (char c : text) {
        if (c == '\n' || c == '\r') {
            if (!cur.empty()) lines.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) lines.push_back(cur);
    // Skip the decorative lines of the changed-key banner.
    for (auto it = lines.rbegin(); it != lines.rend(); ++it)
        if (it->find("@@@@") == std::string::npos) return *it;
    return lines.empty() ? std::string() : lines.back();
}

}   // namespace

SshError classify_ssh_failure(const std::string& host, int exit_code, std::string_view err, const HostKeyPlace& place) {
    SshError e;
    e.exit_code = exit_code;
    e.raw = last_line(err);
    if (exit_code == 0) return e;
    const std::string h = "\"" + host + "\"";
    auto set = [&e](SshErrorKind k, std::string msg, std::string fix) {
        e.kind = k;
        e.message = std::move(msg);
        e.fix = std::move(fix);
    };
    // known_hosts names a host on a non-default port "[host]:port" (sshd(8), SSH_KNOWN_HOSTS FILE FORMAT).
    const bool custom_port = place.port > 0 && place.port != 22;
    const std::string entry = custom_port ? "[" + host + "]:" + std::to_string(place.port) : host;
    const std::string kh_file = place.known_hosts_file.empty() ? std::string("~/.ssh/known_hosts")
                                                               : sh_quote(place.known_hosts_file);
    const std::string kh_name = place.known_hosts_file.empty() ? std::string("known_hosts") : place.known_hosts_file;
    const std::string port_flag = custom_port ? " -p " + std::to_string(place.port) : std::string();
    const std::string kh_opt = place.known_hosts_file.empty()
                                   ? std::string()
                                   : " -o UserKnownHostsFile=" + sh_quote(place.known_hosts_file);
    if (has(err, "REMOTE HOST IDENTIFICATION HAS CHANGED") || (has(err, "Host key for") && has(err, "has changed"))) {
        set(SshErrorKind::ChangedHostKey,
            "the host key of " + h + " has CHANGED since it was recorded in " + kh_name +
                " (the machine was reinstalled, or someone is intercepting the connection)",
            "verify the new key with the administrator, then remove the old entry with `ssh-keygen -R " +
                sh_quote(entry) + (place.known_hosts_file.empty() ? std::string() : " -f " + kh_file) + "`");
    } else if (has(err, "host key is known for") || has(err, "Host key verification failed")) {
        set(SshErrorKind::UnknownHostKey,
            "the host key of " + h + (custom_port ? " (port " + std::to_string(place.port) + ")" : std::string()) +
                " is not in " + kh_name + ", and Paraplan never accepts an unknown key on its own",
            "check the key fingerprint and add it: `ssh-keyscan -H" + port_flag + " " + sh_quote(host) + " >> " +
                kh_file + "`, or connect once with `ssh" + port_flag + kh_opt + " " + sh_quote(host) +
                "` and answer yes");
    } else if (has(err, "Permission denied") || has(err, "Too many authentication failures") ||
               has(err, "No more authentication methods")) {
        set(SshErrorKind::AuthFailed, "the SSH key was refused by " + h + " (permission denied)",
            "check the node's user and identity file, that the public key is in the remote ~/.ssh/authorized_keys, "
            "and that ssh-agent holds the key if it has a passphrase (Paraplan runs ssh in batch mode: no password "
            "prompts)");
    } else if (has(err, "Could not resolve hostname") || has(err, "Name or service not known") ||
               has(err, "Temporary failure in name resolution")) {
        set(SshErrorKind::Unresolvable, "the host name " + h + " cannot be resolved",
            "check the spelling, DNS, or add a Host alias for it in ~/.ssh/config");
    } else if (has(err, "Connection refused")) {
        set(SshErrorKind::ConnectionRefused, "connection to " + h + " was refused (no SSH server on that port)",
            "check the port and that sshd runs on the node");
    } else if (has(err, "Connection timed out") || has(err, "Operation timed out") ||
               has(err, "timed out during banner exchange")) {
        set(SshErrorKind::Timeout, "connecting to " + h + " timed out",
            "check that the node is up and reachable from here (VPN, firewall, ProxyJump)");
    } else if (has(err, "No route to host") || has(err, "Network is unreachable") || has(err, "Host is unreachable")) {
        set(SshErrorKind::Unreachable, h + " is unreachable (no route to host)",
            "check the network path to the node (VPN, firewall, ProxyJump)");
    } else if (has(err, "not responding") || has(err, "Connection closed by") || has(err, "Connection reset") ||
               has(err, "Broken pipe") || has(err, "closed by remote host") ||
               (has(err, "Connection to") && has(err, "closed"))) {
        set(SshErrorKind::ConnectionLost, "the connection to " + h + " was lost",
            "check the node and the network; the job's processes on that node were stopped by the watchdog");
    } else if (exit_code == 127) {
        set(SshErrorKind::RemoteCommandMissing,
            "a command was not found on " + h + " (exit 127)" + (e.raw.empty() ? std::string() : ": " + e.raw),
            "install it on the node or put it on the PATH of non-interactive SSH sessions");
    } else if (exit_code == 255) {
        set(SshErrorKind::Other, "ssh to " + h + " failed" + (e.raw.empty() ? std::string() : ": " + e.raw),
            "run the same ssh command in a terminal to see the full error");
    } else {
        set(SshErrorKind::Other,
            "the remote command on " + h + " exited with status " + std::to_string(exit_code) +
                (e.raw.empty() ? std::string() : ": " + e.raw),
            "see the command's output");
    }
    return e;
}

SshError connection_lost(const std::string& host, int exit_code, int signal, std::string_view err) {
    SshError e;
    e.kind = SshErrorKind::ConnectionLost;
    e.exit_code = signal > 0 ? 255 : exit_code;
    e.raw = last_line(err);
    e.message = "the connection to \"" + host + "\" was lost: its ssh control connection " +
                (signal > 0 ? "was killed (signal " + std::to_string(signal) + ")"
                            : "ended (ssh exit status " + std::to_string(exit_code) + ")") +
                (e.raw.empty() ? std::string() : ": " + e.raw);
    e.fix =
        "check the node and the network (and that nothing on this computer kills ssh processes); the job's "
        "processes on that node are stopped by their watchdog when the connection goes";
    return e;
}

bool is_unreachable(SshErrorKind k) {
    switch (k) {
    case SshErrorKind::UnknownHostKey:
    case SshErrorKind::ChangedHostKey:
    case SshErrorKind::AuthFailed:
    case SshErrorKind::Unresolvable:
    case SshErrorKind::ConnectionRefused:
    case SshErrorKind::Timeout:
    case SshErrorKind::Unreachable: return true;
    default: return false;
    }
}

}   // namespace paraplan::runtime
