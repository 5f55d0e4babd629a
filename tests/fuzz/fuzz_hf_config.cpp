// libFuzzer target: the Hugging Face config importer must never crash.
#include "catalog/hf_import.h"
#include "util/input_error.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        auto m = paraplan::import_hf_config(std::string_view(reinterpret_cast<const char*>(data), size));
        (void)paraplan::count_params(m);
    } catch (const paraplan::InputError&) {}
    return 0;
}
