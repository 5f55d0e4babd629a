#pragma once
// Group links from the framework's real rank map (core/topology): for each kind of
// group, its size and the nodes it spans decide the bandwidth its collectives get.
// make_config() starts from the framework's default axis order in fill order; this
// replaces those links for a whole project (honouring the cluster's rank_order).
#include "estimate/config.h"
#include "project/project.h"

#include <string>
#include <vector>

namespace paraplan::topology {
struct RankMap;
}

namespace paraplan::estimate {

// The rank map's group kinds that stand for the estimate's group `k`, in the order they are
// looked up (the first the map has, of the group's size, is priced): {"tp"}, {"cp", "sp"},
// {"pp"}, {"ep"}, {"dp_cp", "mixed_dp", "dp_shard_cp", "zero", "dp"}, {"edp", "moe_dp"}.
std::vector<const char*> rank_map_kinds(GroupKind k);

// Returns false (and leaves c alone) when the rank map cannot be built. `built`: the
// project's rank map when the caller already has it (build_rank_map(from_project(p),
// &p.cluster)), so it is not built again; null builds it here.
bool apply_rank_map(const Project& p, const Hardware& hw, Config& c, std::vector<std::string>* notes = nullptr,
                    const topology::RankMap* built = nullptr);

}   // namespace paraplan::estimate
