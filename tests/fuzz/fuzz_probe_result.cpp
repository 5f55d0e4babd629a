// libFuzzer target: the probe's result line is printed by a script on a remote node (any
// bytes may come back). It is read or refused with an InputError, never a crash, and the
// marker search finds only what follows the marker.
#include "probe/probe_result.h"
#include "util/input_error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::string line = runtime::find_probe_result_line(text);
    if (!line.empty() && text.find(runtime::kProbeResultMarker) == std::string_view::npos) std::abort();
    for (std::string_view doc : {text, std::string_view(line)}) {
        try {
            const runtime::ProbeResult r = runtime::probe_result_from_text(doc);
            if (r.world_size < 1 || r.failed_groups() < 0 ||
                static_cast<std::size_t>(r.failed_groups()) > r.groups.size())
                std::abort();
        } catch (const InputError&) {}
    }
    return 0;
}
