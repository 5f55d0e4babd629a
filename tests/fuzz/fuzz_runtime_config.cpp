// libFuzzer target: the project's "runtime" section (how a job is launched) comes from a
// project file anyone may hand over. Whatever the bytes, it is read or refused with an
// InputError, and what is read must read again from its own JSON (to_json).
#include "launch/runtime_config.h"
#include "ssh/ssh_policy.h"
#include "util/input_error.h"
#include "util/json_read.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan;
    const auto j = json_read::try_parse(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!j) return 0;
    try {
        const runtime::RuntimeConfig c = runtime::runtime_config_from_json(*j);
        const runtime::RuntimeConfig again = runtime::runtime_config_from_json(runtime::to_json(c));
        if (again.mode != c.mode || again.script != c.script || again.args != c.args || again.env != c.env ||
            again.path_prepend != c.path_prepend || again.master_port != c.master_port)
            std::abort();
        // Every option that survives is on the allow-list; nothing else reaches ssh.
        for (const auto& o : c.ssh_options)
            if (!runtime::check_project_ssh_option(o).empty()) std::abort();
    } catch (const InputError&) {}
    return 0;
}
