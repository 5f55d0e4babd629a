// libFuzzer target: NCCL's topology dump reader (core/topofile/nccl_topo_xml.h) must never crash,
// stays within its bounds, and what it returns is consistent: the NVLink domain is no larger than
// the node, tiers and JSON can be made from it.
#include "topofile/imported_topology.h"
#include "topofile/nccl_topo_xml.h"
#include "util/input_error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::topofile;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto doc = parse_topo_xml(text);
        if (doc.elements.empty() || doc.elements.size() > kMaxXmlElements) std::abort();
        for (const auto& e : doc.elements)
            if (e.attrs.size() > kMaxXmlAttrs || e.name.size() > kMaxXmlString) std::abort();
    } catch (const paraplan::InputError& e) {
        if (e.line() < 1) std::abort();
    }
    try {
        const auto t = read_nccl_topo_xml(text);
        if (t.nodes.empty() || t.gpus_per_node() < 1) std::abort();
        if (t.scale_up.domain_gpus < 1 || t.scale_up.domain_gpus > t.gpus_per_node()) std::abort();
        if (t.scale_out.gpus_with_local_nic > t.gpus_per_node()) std::abort();
        const auto tiers = to_tiers(t);
        if (tiers.empty() || !tiers.front().scale_up()) std::abort();
        (void)to_json(t).dump();
    } catch (const paraplan::InputError& e) {
        if (e.line() < 1) std::abort();
    }
    return 0;
}
