#include "ssh/ssh_policy.h"
#include "util/plain_name.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace paraplan::runtime {

namespace {

enum class Kind { YesNo, Port, Count, User, AlgoList, Name, AddressFamily, ProxyJump };

struct Allowed {
    const char* key;
    Kind kind;
};

// Plain connection values: options that neither run a program, nor name a file on this
// computer, nor choose which host keys to trust, nor forward a local resource (ssh_config(5),
// OpenSSH 9.x).
const Allowed kAllowed[] = {
    {"Port", Kind::Port},
    {"User", Kind::User},
    {"IdentitiesOnly", Kind::YesNo},
    {"ProxyJump", Kind::ProxyJump},   // ssh runs itself for each hop: values are checked strictly
    {"Hostname", Kind::Name},
    {"ConnectionAttempts", Kind::Count},
    {"Compression", Kind::YesNo},
    {"TCPKeepAlive", Kind::YesNo},
    {"AddressFamily", Kind::AddressFamily},
    {"Ciphers", Kind::AlgoList},
    {"MACs", Kind::AlgoList},
    {"KexAlgorithms", Kind::AlgoList},
    {"HostKeyAlgorithms", Kind::AlgoList},
    {"PubkeyAcceptedAlgorithms", Kind::AlgoList},
    {"PubkeyAcceptedKeyTypes", Kind::AlgoList},
    {"CASignatureAlgorithms", Kind::AlgoList},
    {"PreferredAuthentications", Kind::AlgoList},
    {"PubkeyAuthentication", Kind::YesNo},
    {"PasswordAuthentication", Kind::YesNo},
    {"KbdInteractiveAuthentication", Kind::YesNo},
    {"GSSAPIAuthentication", Kind::YesNo},
    {"HostbasedAuthentication", Kind::YesNo},
};

struct Managed {
    const char* key;
    const char* instead;   // the project setting that sets it, or nullptr
};

// Set on every ssh command line by Paraplan (ssh_command.cpp); a project sets them
// through its own fields.
const Managed kManaged[] = {
    {"BatchMode", nullptr},
    {"StrictHostKeyChecking", "strict_host_key_checking in your local ssh profile (paraplan-cli ssh-profile)"},
    {"UserKnownHostsFile", "known_hosts_file in your local ssh profile (paraplan-cli ssh-profile)"},
    {"ConnectTimeout", "/runtime/ssh/connect_timeout_s"},
    {"ServerAliveInterval", "/runtime/ssh/server_alive_interval_s"},
    {"ServerAliveCountMax", nullptr},
    {"ControlPath", nullptr},
    {"ControlMaster", nullptr},
    {"ControlPersist", nullptr},
    {"LogLevel", nullptr},
};

// Options that make ssh run a program or load code on this computer.
const char* const kRunsPrograms[] = {
    "ProxyCommand",   "LocalCommand",        "PermitLocalCommand", "KnownHostsCommand", "RemoteCommand",
    "PKCS11Provider", "SecurityKeyProvider", "XAuthLocation",      "ProxyUseFdpass",    "Include",
    "Match",          "SmartcardDevice",     "EnableSSHKeysign"};

// Options that name a file or socket on this computer, or decide which host keys to trust:
// they belong to the user's own settings, never to a project.
const char* const kLocalOnly[] = {"IdentityFile",
                                  "CertificateFile",
                                  "GlobalKnownHostsFile",
                                  "IdentityAgent",
                                  "RevokedHostKeys",
                                  "HostKeyAlias",
                                  "CheckHostIP",
                                  "UpdateHostKeys",
                                  "VerifyHostKeyDNS",
                                  "StreamLocalBindUnlink",
                                  "ForwardAgent",
                                  "ForwardX11",
                                  "ForwardX11Trusted",
                                  "LocalForward",
                                  "RemoteForward",
                                  "DynamicForward",
                                  "Tunnel",
                                  "TunnelDevice",
                                  "GatewayPorts",
                                  "ExitOnForwardFailure",
                                  "SessionType",
                                  "StdinNull",
                                  "ForkAfterAuthentication",
                                  "EscapeChar",
                                  "RequestTTY",
                                  "SendEnv",
                                  "SetEnv",
                                  "AddKeysToAgent",
                                  "NoHostAuthenticationForLocalhost",
                                  "CanonicalizeHostname",
                                  "ObscureKeystrokeTiming"};

bool same(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

bool all_of(std::string_view s, bool (*ok)(unsigned char)) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [ok](char c) { return ok(static_cast<unsigned char>(c)); });
}
bool algo_char(unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '@' || c == ',' || c == '+' || c == '^';
}

bool is_name(std::string_view s) { return is_plain_name(s); }

bool is_number_in(std::string_view s, long lo, long hi) {
    if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    const long v = std::stol(std::string(s));
    return v >= lo && v <= hi;
}

// [user@]host[:port] hops separated by commas: no character a shell would read.
bool is_jump_list(std::string_view s) {
    if (same(s, "none")) return true;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = s.find(',', start);
        std::string_view hop = s.substr(start,
                                        comma == std::string_view::npos ? std::string_view::npos : comma - start);
        if (const auto at = hop.find('@'); at != std::string_view::npos) {
            if (!is_name(hop.substr(0, at))) return false;
            hop.remove_prefix(at + 1);
        }
        if (const auto colon = hop.rfind(':'); colon != std::string_view::npos) {
            if (!is_number_in(hop.substr(colon + 1), 1, 65535)) return false;
            hop = hop.substr(0, colon);
        }
        if (!is_name(hop)) return false;
        if (comma == std::string_view::npos) return true;
        start = comma + 1;
    }
}

std::string check_value(const Allowed& a, const std::string& value) {
    for (unsigned char c : value)
        if (c < 0x20 || c == 0x7f) return std::string(a.key) + " holds a control character";
    bool ok = true;
    std::string want;
    switch (a.kind) {
    case Kind::YesNo:
        ok = same(value, "yes") || same(value, "no");
        want = "yes or no";
        break;
    case Kind::Port:
        ok = is_number_in(value, 1, 65535);
        want = "a port number 1-65535";
        break;
    case Kind::Count:
        ok = is_number_in(value, 1, 100);
        want = "a count 1-100";
        break;
    case Kind::User:
        ok = is_name(value);
        want = "a user name (letters, digits, '.', '_', '-'; not starting with '-')";
        break;
    case Kind::AlgoList:
        ok = all_of(value, algo_char);
        want = "a comma-separated list of names (letters, digits, . _ - @ + ^)";
        break;
    case Kind::Name:
        ok = is_name(value);
        want = "a host name (letters, digits, '.', '_', '-')";
        break;
    case Kind::AddressFamily:
        ok = same(value, "any") || same(value, "inet") || same(value, "inet6");
        want = "any, inet or inet6";
        break;
    case Kind::ProxyJump:
        ok = is_jump_list(value);
        want = "[user@]host[:port] hops separated by commas, or none (host and user of letters, digits, . _ -)";
        break;
    }
    return ok ? std::string() : std::string(a.key) + "=" + value + ": expected " + want;
}

std::string allowed_list() {
    std::string s;
    for (const auto& a : kAllowed) s += (s.empty() ? "" : ", ") + std::string(a.key);
    return s;
}

// Why `key` may not come from a project file ("" when it is allowed).
std::string check_key(const std::string& key, const std::string& value) {
    for (const auto& a : kAllowed)
        if (same(key, a.key)) return check_value(a, value);
    for (const auto& m : kManaged)
        if (same(key, m.key)) {
            return std::string(m.key) + " is managed by Paraplan and cannot be set by a project" +
                   (m.instead ? std::string(" (set ") + m.instead + " instead)" : std::string());
        }
    const std::string own =
        "; if you need it, put it in your own ~/.ssh/config (a Host block for this node), "
        "which ssh reads for every connection";
    for (const char* r : kRunsPrograms)
        if (same(key, r))
            return std::string(r) +
                   " is refused in a project file: it makes ssh run a program or load code on this "
                   "computer, so opening someone else's project would run their command" +
                   own;
    for (const char* l : kLocalOnly)
        if (same(key, l))
            return std::string(l) +
                   " is refused in a project file: it names something on this computer or decides which hosts "
                   "to trust, which only you choose; set it in your ssh profile (paraplan-cli ssh-profile) or " +
                   "your own ~/.ssh/config";
    return "\"" + key + "\" is not one of the ssh options a project file may set (" + allowed_list() + ")" + own;
}

}   // namespace

const std::vector<std::string>& allowed_project_ssh_options() {
    static const std::vector<std::string> list = [] {
        std::vector<std::string> v;
        for (const auto& a : kAllowed) v.emplace_back(a.key);
        return v;
    }();
    return list;
}

std::string check_project_ssh_option(const std::string& kv) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0) return "expected \"Key=Value\", got \"" + kv + "\"";
    const std::string key = kv.substr(0, eq);
    for (unsigned char c : key)
        if (!std::isalnum(c)) return "expected \"Key=Value\" with a key of letters and digits, got \"" + kv + "\"";
    return check_key(key, kv.substr(eq + 1));
}

}   // namespace paraplan::runtime
