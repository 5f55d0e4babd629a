#pragma once
// What to build a rank map for: the framework, the world and the parallel sizes.
// Field names follow the project file's layout section (project/layout.h).
#include "project/layout_enums.h"

#include <string>

namespace paraplan {
struct Project;
}

namespace paraplan::topology {

struct MeshRequest {
    std::string framework = "colossalai";   // one of kFrameworks (project/layout.h)
    int world = 0;
    int gpus_per_node = 8;   // used when no cluster is given (uniform nodes)
    int tp = 1;
    int pp = 1;
    int sp = 1;
    SpMode sp_mode = SpMode::none;
    int cp = 1;
    int ep = 1;
    int etp = 0;                      // Megatron: 0 = same as tp. torchtitan: 0/1 = ETP 1, tp = ETP=TP
    int dp = 0;                       // 0 = derived; when set it must match the derived size
    int dp_shard = -1;                // torchtitan data_parallel_shard_degree (-1 = infer)
    int dp_replicate = 1;             // torchtitan data_parallel_replicate_degree
    int extra_dp = 1;                 // ColossalAI Gemini / LowLevelZero extra_dp_size
    std::string order;                // Megatron order ("tp-cp-ep-dp-pp") or DeviceMesh dims outer->inner
    bool dp_outside = true;           // ColossalAI dp_outside / moe_dp_outside
    int inner_ring_size = 0;          // ColossalAI ring_attn 2D ring (0 = one ring)
    TpMode tp_mode = TpMode::one_d;   // ColossalAI legacy tensor modes: 1d 2d 2.5d 3d
    int tp_depth = 1;                 // 2.5D depth
};

// The request a project describes: world and gpus_per_node from its cluster, the
// sizes from its layout (extra_dp from layout.extra["extra_dp_size"]).
MeshRequest from_project(const Project& p);

}   // namespace paraplan::topology
