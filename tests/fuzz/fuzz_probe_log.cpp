// libFuzzer target: rank 0's log of a probe run comes back from a remote node (any bytes,
// any line endings, the marker anywhere). probe_result_from_log_text finds the first marker
// line and reads it, or refuses it with an InputError; never a crash, and a result only
// when the marker is in the log.
#include "probe/probe_launch.h"
#include "util/input_error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan;
    const std::string_view log(reinterpret_cast<const char*>(data), size);
    try {
        const auto r = runtime::probe_result_from_log_text(log);
        if (r) {
            if (log.find(runtime::kProbeResultMarker) == std::string_view::npos) std::abort();
            if (r->world_size < 1 || r->failed_groups() < 0 ||
                static_cast<std::size_t>(r->failed_groups()) > r->groups.size())
                std::abort();
        }
    } catch (const InputError&) {
        // Only a marker line can be malformed.
        if (log.find(runtime::kProbeResultMarker) == std::string_view::npos) std::abort();
    }
    return 0;
}
