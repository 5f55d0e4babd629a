// libFuzzer target: the reader of Python calls (export/python_call.h) that imports a
// ColossalAI script without running it. Any source text: no crash, no unbounded recursion;
// in UTF-8 source (the importer refuses any other, util/utf8.h) every literal it reads is
// JSON that dumps.
#include "export/python_call.h"
#include "util/input_error.h"
#include "util/utf8.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const bool dumps = !utf8::first_invalid(text);
    try {
        if (const auto call = pycall::find_call(text, {"HybridParallelPlugin", "Plugin"})) {
            if (call->line < 1) std::abort();
            for (const auto& a : call->args)
                if (a.literal && dumps) (void)a.literal->dump();
        }
        if (const auto lit = pycall::literal(text); lit && dumps) (void)lit->dump();
    } catch (const InputError&) {}
    return 0;
}
