#pragma once
// Checks that ColossalAI's HybridParallelPlugin and MoeHybridParallelPlugin both make
// before building their meshes (colossalai/booster/plugin/hybrid_parallel_plugin.py and
// moe_hybrid_parallel_plugin.py, __init__), for the rank map builders: each returns false after
// adding its error (the one implementation, also the rules', is in topology/group_checks.h).
#include "topology/mesh_builder.h"

namespace paraplan::topology::detail {

// world_size % (tp_size * pp_size) == 0
bool check_colossalai_world_tp_pp(const MeshRequest& r, RankMap& m);
// split_gather and ring reuse the TP group, so they need tp_size > 1.
bool check_colossalai_sp_mode_tp(const MeshRequest& r, RankMap& m);

}   // namespace paraplan::topology::detail
