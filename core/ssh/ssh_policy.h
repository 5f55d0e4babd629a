#pragma once
// What a project file may tell ssh. A project can come from anyone, and ssh runs on
// the user's computer, so options that run local programs (ProxyCommand,
// LocalCommand, KnownHostsCommand, PKCS11Provider, Match exec, Include, ...) or that
// forward local resources (agent, X11, ports) are refused: only a short allow-list
// of connection options passes, each with its value checked. Anything else belongs
// in the user's own ~/.ssh/config. Option names follow ssh_config(5) (OpenSSH).
#include <string>
#include <vector>

namespace paraplan::runtime {

// The options a project's /runtime/ssh/options may set ("Key=Value", key as in ssh_config(5)).
const std::vector<std::string>& allowed_project_ssh_options();

// Checks one "Key=Value" entry from a project file. Returns "" when allowed, else
// the reason (names the key and says where such an option belongs instead).
std::string check_project_ssh_option(const std::string& key_value);

// Checks the text of an ssh config file named by a project (/runtime/ssh/config_file):
// only Host, Match (without exec) and the allowed or Paraplan-managed options may
// appear. Returns "" when fine, else "line N: reason".
std::string check_project_ssh_config(const std::string& text);

}   // namespace paraplan::runtime
