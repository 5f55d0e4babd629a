#pragma once
// Layers per pipeline rank, from the frameworks' own split rules
// (core/topology/layer_split.h): Megatron's even split when it divides, otherwise and
// for the other frameworks ColossalAI's PipelineStageManager.distribute_layers
// (L // (S*C) per virtual stage, the remainder to the middle entries; V shape for zbv).
#include "catalog/model.h"
#include "estimate/config.h"

#include <string>
#include <vector>

namespace paraplan::estimate {

struct StageLayers {
    std::vector<int> layers;       // per pipeline rank (all its chunks)
    std::vector<int> moe_layers;   // of which MoE layers
    int embedding_stage = 0;
    int head_stage = 0;
};

// explicit_split: Layout::num_layers_per_stage (used when its size is pp and it sums to L).
StageLayers split_layers(const ModelSpec& m, int pp, int chunks, Schedule s, const std::vector<int>& explicit_split,
                         const std::string& framework = "colossalai");

}  // namespace paraplan::estimate
