#include "topofile/slurm_placement.h"

#include "estimate/placement.h"
#include "project/project.h"
#include "topology/build_rank_map.h"

#include <algorithm>

namespace paraplan::topofile {

namespace {

// The smallest divisor B of `job_nodes` with every group in one aligned run of B nodes.
int block_of(const topology::GroupSet& gs, const std::vector<int>& job_index, const std::vector<GpuSlot>& placement,
             int job_nodes) {
    std::vector<std::pair<int, int>> spans;   // per group: lowest and highest job node index
    for (int g = 0; g < gs.num_groups(); ++g) {
        int lo = job_nodes, hi = -1;
        for (int r : gs.group(g)) {
            const int n = job_index[static_cast<std::size_t>(placement[static_cast<std::size_t>(r)].node)];
            lo = std::min(lo, n);
            hi = std::max(hi, n);
        }
        spans.emplace_back(lo, hi);
    }
    for (int b = 1; b < job_nodes; ++b) {
        if (job_nodes % b) continue;
        if (std::all_of(spans.begin(), spans.end(), [b](const auto& s) { return s.first / b == s.second / b; }))
            return b;
    }
    return job_nodes;
}

}   // namespace

JobPlacement job_placement(const SlurmTopology& t, const topology::RankMap& m) {
    JobPlacement jp;
    // The job's nodes in cluster order, numbered 0.. as Slurm numbers the allocation.
    int max_node = -1;
    for (const auto& s : m.placement) max_node = std::max(max_node, s.node);
    std::vector<int> job_index(static_cast<std::size_t>(max_node + 1), -1);
    for (const auto& s : m.placement) job_index[static_cast<std::size_t>(s.node)] = 0;
    for (auto& i : job_index)
        if (i == 0) i = jp.job_nodes++;
    // The groups the estimate prices, one kind per estimate group, as it looks them up.
    for (int k = 0; k < estimate::kGroupKinds; ++k)
        for (const char* kind : estimate::rank_map_kinds(static_cast<estimate::GroupKind>(k))) {
            const topology::GroupSet* gs = m.group_set(kind);
            if (!gs || gs->group_size <= 1 || gs->num_groups() == 0) continue;
            bool crosses = false;
            for (int n : gs->nodes_spanned) crosses = crosses || n > 1;
            if (crosses) jp.kinds.push_back({kind, block_of(*gs, job_index, m.placement, jp.job_nodes)});
            break;
        }
    std::stable_sort(jp.kinds.begin(), jp.kinds.end(),
                     [](const KindSpan& a, const KindSpan& b) { return a.block_nodes > b.block_nodes; });
    jp.needed = !jp.kinds.empty();
    for (std::size_t i = 0; i < jp.kinds.size(); ++i) {
        const KindSpan& k = jp.kinds[i];
        Placement p = placement_options(t, jp.job_nodes, k.block_nodes);
        if (!p.ok) {
            if (i == 0) jp.placement = p;   // the largest kind's reason, kept if none fits
            continue;
        }
        jp.kind = k.kind;
        jp.group_nodes = k.block_nodes;
        jp.placement = std::move(p);
        break;
    }
    return jp;
}

std::optional<JobPlacement> project_placement(const Project& p) {
    if (!p.cluster.network.slurm_topology) return std::nullopt;
    const topology::RankMap m = topology::build_rank_map(topology::from_project(p), &p.cluster);
    if (!m.valid()) return std::nullopt;
    return job_placement(*p.cluster.network.slurm_topology, m);
}

}   // namespace paraplan::topofile
