// libFuzzer target: a node's telemetry stream (nvidia-smi csv lines, rocm-smi JSON documents
// ended by their marker) arrives in whatever chunks the ssh channel delivers. Split at
// fuzzer-chosen points, joined into lines and parsed into a store, it must never crash, and
// the store stays bounded (its series and diagnostics).
#include "joblog/line_buffer.h"
#include "project/cluster.h"
#include "telemetry/smi_stream.h"
#include "telemetry/telemetry_store.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan;
    using namespace paraplan::runtime;
    if (size < 1) return 0;
    // First byte: the tool and the chunk size pattern; the rest is the stream.
    const std::uint8_t head = data[0];
    const std::string_view stream(reinterpret_cast<const char*>(data + 1), size - 1);
    Cluster cluster;
    for (int i = 0; i < 2; ++i) {
        Node n;
        n.name = "node" + std::to_string(i);
        n.gpus = 4;
        cluster.nodes.push_back(n);
    }
    constexpr std::size_t kCapacity = 4;
    TelemetryStore store(cluster, kCapacity);
    // Bit 0: rocm-smi rather than nvidia-smi; bit 1: both tools into one store.
    const bool rocm_first = head & 1, both = head & 2;
    for (const SmiTool tool : {SmiTool::Nvidia, SmiTool::Rocm}) {
        if (!both && (tool == SmiTool::Rocm) != rocm_first) continue;
        for (int node = 0; node < 2; ++node) {
            SmiStreamParser parser(tool);
            LineBuffer buf;
            std::size_t at = 0, step = 1 + ((head >> 2) & 15) * (node + 1);
            double t = 0;
            while (at < stream.size()) {
                const std::size_t n = std::min(step, stream.size() - at);
                for (const auto& l : buf.append(stream.substr(at, n))) parser.line(store, node, l, t += 0.5);
                at += n;
                step = step * 5 % 61 + 1;   // uneven chunks, as a channel delivers them
            }
            parser.line(store, node, buf.take_rest(), t + 0.5);
        }
    }
    for (const auto& [key, s] : store.series())
        if (s.samples.size() > kCapacity || s.node != key.first || s.gpu != key.second) std::abort();
    if (store.diagnostics().size() > 200) std::abort();
    (void)store.flags(1000.0, {{"tp", {{0, 1}, {2, 3}}}});
    return 0;
}
