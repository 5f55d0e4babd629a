// libFuzzer target: the GPU telemetry parsers (nvidia-smi csv lines, rocm-smi JSON) take
// whatever a node prints; they must never crash and never turn unreadable text into a reading.
#include "joblog/line_buffer.h"
#include "telemetry/nvidia_smi.h"
#include "telemetry/rocm_smi.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::runtime;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    LineBuffer buf;
    auto lines = buf.append(text);
    lines.push_back(buf.take_rest());
    for (const auto& l : lines) {
        const NvidiaSmiLine r = parse_nvidia_smi_line(l);
        // A line is either a sample or a diagnostic, never both.
        if (r.sample && !r.error.empty()) std::abort();
    }
    const RocmSmiParse rocm = parse_rocm_smi_json(text);
    if (rocm.samples.empty() && rocm.errors.empty()) std::abort();   // nothing read must say why
    return 0;
}
