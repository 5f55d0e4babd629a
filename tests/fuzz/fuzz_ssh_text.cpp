// libFuzzer target: what ssh prints on stderr (read into an error kind, message and fix) and
// each line taken as a project's "Key=Value" ssh option (checked against the allow-list) must
// never crash the readers; an option that runs a local program is always refused.
#include "ssh/ssh_error.h"
#include "ssh/ssh_policy.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::runtime;
    if (size == 0) return 0;
    // The first byte picks the exit status (ssh's own 255, a missing command's 127, ...).
    const int codes[] = {0, 1, 2, 3, 127, 130, 255, 137};
    const int code = codes[data[0] % 8];
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const SshError e = classify_ssh_failure("node-1", code, text, {data[0] % 2 ? 2222 : 0, data[0] % 4 ? "" : "/k h"});
    if ((code == 0) != (e.kind == SshErrorKind::None)) std::abort();
    if (code != 0 && (e.message.empty() || e.fix.empty())) std::abort();
    if (e.raw.find('\n') != std::string::npos) std::abort();
    if (connection_lost("node-1", code, data[0] % 3, text).kind != SshErrorKind::ConnectionLost) std::abort();
    if (check_project_ssh_option("ProxyCommand=" + text).empty()) std::abort();
    if (check_project_ssh_option("LocalCommand=" + text).empty()) std::abort();
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t nl = std::min(text.find('\n', start), text.size());
        (void)check_project_ssh_option(text.substr(start, nl - start));
        start = nl + 1;
    }
    return 0;
}
