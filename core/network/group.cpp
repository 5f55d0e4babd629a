#include "network/group.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

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
    std::vector<int> domain;   // of each member, sorted below: a run is one domain's members
    domain.reserve(members.size());
    int lo = std::numeric_limits<int>::max(), hi = -1;
    for (const int r : members) {
        const GpuSlot& slot = placement[static_cast<std::size_t>(r)];
        const int gpu = offsets[static_cast<std::size_t>(slot.node)] + slot.local_rank;
        domain.push_back(gpu / per_domain);
        lo = std::min(lo, gpu);
        hi = std::max(hi, gpu);
    }
    if (!std::is_sorted(domain.begin(), domain.end())) std::sort(domain.begin(), domain.end());
    GroupShape g;
    g.ranks = static_cast<int>(members.size());
    g.domains = 0;
    g.ppn = 0;
    for (std::size_t i = 0; i < domain.size();) {
        std::size_t j = i;
        while (j < domain.size() && domain[j] == domain[i]) ++j;
        ++g.domains;
        g.ppn = std::max(g.ppn, static_cast<int>(j - i));
        i = j;
    }
    g.span_gpus = hi >= lo ? hi - lo + 1 : 0;
    return g;
}

GroupShape strided_shape(const System& s, int size, int stride) {
    const int d = std::max(1, s.domain().domain_gpus);
    size = std::max(1, size);
    stride = std::max(1, stride);
    GroupShape g;
    g.ranks = size;
    g.span_gpus = (size - 1) * stride + 1;
    if (stride >= d || d % stride == 0) {   // every domain holds the same number of members
        g.ppn = std::min(size, stride >= d ? 1 : d / stride);
        g.domains = (size + g.ppn - 1) / g.ppn;
        return g;
    }
    std::map<int, int> in_domain;
    for (int i = 0; i < size; ++i) ++in_domain[i * stride / d];
    g.domains = static_cast<int>(in_domain.size());
    for (const auto& [dom, n] : in_domain) g.ppn = std::max(g.ppn, n);
    return g;
}

GroupShape slowest_shape(const System& s, const std::vector<int>& offsets, std::span<const GpuSlot> placement,
                         std::span<const int> members, int group_size, Op op, std::uint64_t bytes, Algorithm algo) {
    GroupShape worst;
    if (group_size < 1) return worst;
    std::set<std::tuple<int, int, int>> seen;
    double worst_s = -1;
    for (std::size_t at = 0; at + static_cast<std::size_t>(group_size) <= members.size(); at += group_size) {
        const GroupShape g = group_shape(s, offsets, placement, members.subspan(at, group_size));
        if (!seen.insert({g.domains, g.ppn, g.span_gpus}).second) continue;
        const double t = g.ranks < 2 ? 0 : price(fabric_for(s, g), op, bytes, algo).time_s;
        if (t > worst_s) worst_s = t, worst = g;
    }
    return worst;
}

}   // namespace paraplan::network
