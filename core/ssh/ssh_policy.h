#pragma once
// What a project file may tell ssh. A project can come from anyone, and ssh runs on the
// user's computer, so a project sets only plain connection values: port, user, ProxyJump hops,
// the algorithm lists and a few yes/no switches, each with its value checked. Options that run
// local programs (ProxyCommand, LocalCommand, KnownHostsCommand, PKCS11Provider, Match exec,
// Include, ...), name a file on this computer (IdentityFile, CertificateFile, UserKnownHostsFile,
// ...), decide which host keys to trust, or forward local resources are refused: they belong in
// the user's own ~/.ssh/config or ssh profile (ssh_profile.h). Option names follow ssh_config(5).
#include <string>
#include <vector>

namespace paraplan::runtime {

// The options a project's /runtime/ssh/options may set ("Key=Value", key as in ssh_config(5)).
const std::vector<std::string>& allowed_project_ssh_options();

// Checks one "Key=Value" entry from a project file. Returns "" when allowed, else
// the reason (names the key and says where such an option belongs instead).
std::string check_project_ssh_option(const std::string& key_value);

}   // namespace paraplan::runtime
