// libFuzzer target: one "Key=Value" entry of a project's /runtime/ssh/options, checked by
// check_project_ssh_option (ssh/ssh_policy.h). Any bytes: no crash; an option that runs a
// program on this machine is refused whatever value follows it.
#include "ssh/ssh_policy.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::runtime;
    const std::string text(reinterpret_cast<const char*>(data), size);
    (void)check_project_ssh_option(text);
    for (const char* key : {"ProxyCommand=", "LocalCommand=", "KnownHostsCommand="})
        if (check_project_ssh_option(key + text).empty()) std::abort();
    return 0;
}
