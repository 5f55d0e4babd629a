#include "estimate/placement.h"

#include "estimate/comm.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <algorithm>
#include <initializer_list>
#include <optional>

namespace paraplan::estimate {

bool apply_rank_map(const Project& p, const Hardware& hw, Config& c, std::vector<std::string>* notes,
                    const topology::RankMap* built) {
    std::optional<topology::RankMap> own;
    if (!built) own = topology::build_rank_map(topology::from_project(p), &p.cluster);
    const topology::RankMap& rm = built ? *built : *own;
    if (!rm.valid()) return false;
    auto apply = [&](GroupKind k, std::initializer_list<const char*> kinds) {
        for (const char* kind : kinds) {
            if (!rm.has_group(kind)) continue;
            const topology::GroupSummary s = rm.summary(kind);
            if (s.group_size != c.link[k].size || s.group_size <= 1) continue;
            const int nodes = std::max(1, s.max_nodes_spanned);
            c.link[k] = make_link(hw, s.group_size, nodes, std::max(1, s.group_size / nodes));
            return;
        }
    };
    apply(kTp, {"tp"});
    apply(kCp, {"cp", "sp"});
    apply(kPp, {"pp"});
    apply(kEp, {"ep"});
    apply(kDp, {"dp_cp", "mixed_dp", "dp_shard_cp", "zero", "dp"});
    apply(kEdp, {"edp", "moe_dp"});
    if (notes) {
        notes->erase(std::remove_if(notes->begin(), notes->end(),
                                    [](const std::string& n) { return n.rfind("rank placement:", 0) == 0; }),
                     notes->end());
        notes->push_back("rank placement: the framework's rank map (nodes each group spans)");
    }
    return true;
}

// apply_rank_map above looks up the same kinds, in the same order.
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
