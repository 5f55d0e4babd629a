#include "estimate/placement.h"

#include "estimate/comm.h"
#include "network/group.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <algorithm>
#include <optional>

namespace paraplan::estimate {

bool apply_rank_map(const Project& p, const Hardware& hw, Config& c, std::vector<std::string>* notes,
                    const topology::RankMap* built) {
    std::optional<topology::RankMap> own;
    if (!built) own = topology::build_rank_map(topology::from_project(p), &p.cluster);
    const topology::RankMap& rm = built ? *built : *own;
    if (!rm.valid()) return false;
    const auto offsets = network::node_offsets(p.cluster);
    // On the cluster's tiers each kind is priced on its slowest group, judged by the collective
    // the estimate mostly runs on it at a size where bandwidth dominates.
    constexpr std::uint64_t kJudgeBytes = 64ull << 20;
    auto apply = [&](GroupKind k, network::Op op) {
        for (const char* kind : rank_map_kinds(k)) {
            if (!rm.has_group(kind)) continue;
            const topology::GroupSummary s = rm.summary(kind);
            if (s.group_size != c.link[k].size || s.group_size <= 1) continue;
            const int nodes = std::max(1, s.max_nodes_spanned);
            const int per_node = std::max(1, s.group_size / nodes);
            if (hw.network) {
                const topology::GroupSet& gs = *rm.group_set(kind);
                c.link[k] = system_link(hw,
                                        network::slowest_shape(*hw.network, offsets, rm.placement, gs.members,
                                                               gs.group_size, op, kJudgeBytes),
                                        nodes, per_node);
            } else {
                c.link[k] = make_link(hw, s.group_size, nodes, per_node);
            }
            return;
        }
    };
    using network::Op;
    apply(kTp, Op::AllReduce);
    apply(kCp, Op::AllGather);
    apply(kPp, Op::SendRecv);
    apply(kEp, Op::AllToAll);
    apply(kDp, Op::ReduceScatter);
    apply(kEdp, Op::ReduceScatter);
    if (notes) {
        notes->erase(std::remove_if(notes->begin(), notes->end(),
                                    [](const std::string& n) { return n.rfind("rank placement:", 0) == 0; }),
                     notes->end());
        notes->push_back(hw.network ? "rank placement: the framework's rank map, each group priced on the tiers of "
                                      "system " +
                                          hw.network->id + " it crosses"
                                    : "rank placement: the framework's rank map (nodes each group spans)");
    }
    return true;
}

// The rank map's group kinds that stand for each of the estimate's groups, first found first.
std::vector<const char*> rank_map_kinds(GroupKind k) {
    switch (k) {
    case kTp: return {"tp"};
    case kCp: return {"cp", "sp"};
    case kPp: return {"pp"};
    case kEp: return {"ep"};
    case kDp: return {"dp_cp", "mixed_dp", "dp_shard_cp", "zero", "dp"};
    case kEdp: return {"edp", "moe_dp"};
    default: break;
    }
    return {};
}

}   // namespace paraplan::estimate
