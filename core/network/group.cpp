#include "network/group.h"

#include <algorithm>
#include <limits>
#include <map>

namespace paraplan::network {

std::vector<int> node_offsets(const Cluster& c) {
    std::vector<int> out;
    out.reserve(c.nodes.size());
    int at = 0;
    for (const auto& n : c.nodes) {
        out.push_back(at);
        at += n.gpus;
    }
    return out;
}

GroupShape group_shape(const System& s, const std::vector<int>& offsets, std::span<const GpuSlot> placement,
                       std::span<const int> members) {
    const int per_domain = std::max(1, s.domain().domain_gpus);
    std::map<int, int> in_domain;   // domain -> members there
    int lo = std::numeric_limits<int>::max(), hi = -1;
    for (const int r : members) {
        const GpuSlot& slot = placement[static_cast<std::size_t>(r)];
        const int gpu = offsets[static_cast<std::size_t>(slot.node)] + slot.local_rank;
        ++in_domain[gpu / per_domain];
        lo = std::min(lo, gpu);
        hi = std::max(hi, gpu);
    }
    GroupShape g;
    g.ranks = static_cast<int>(members.size());
    g.domains = static_cast<int>(in_domain.size());
    g.ppn = 0;
    for (const auto& [d, n] : in_domain) g.ppn = std::max(g.ppn, n);
    g.span_gpus = hi >= lo ? hi - lo + 1 : 0;
    return g;
}

}   // namespace paraplan::network
