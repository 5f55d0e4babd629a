// libFuzzer target: the TOML reader (export/toml.h) behind `paraplan-cli import` of a
// torchtitan job config. Any text: an object or an InputError, never a crash; what it reads
// dumps as JSON.
#include "export/toml.h"
#include "util/input_error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan;
    try {
        const auto j = toml::parse(std::string_view(reinterpret_cast<const char*>(data), size));
        if (!j.is_object()) std::abort();
        (void)j.dump();
    } catch (const InputError&) {}
    return 0;
}
