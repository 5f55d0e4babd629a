// libFuzzer target: the project loader must never crash, whatever the bytes.
#include "project/project.h"
#include "util/input_error.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        auto p = paraplan::project_from_text(std::string_view(reinterpret_cast<const char*>(data), size));
        // A loaded project must save and load again.
        auto again = paraplan::project_from_text(paraplan::project_to_text(p));
        (void)again;
    } catch (const paraplan::InputError&) {}
    return 0;
}
