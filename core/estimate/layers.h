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
    // Hybrid Mamba models: of which pattern layers 'M', '*' and '-' (MoE 'E' in moe_layers);
    // empty for other models.
    std::vector<int> mamba_layers, attention_layers, mlp_layers;
    int embedding_stage = 0;
    int head_stage = 0;
};

// explicit_split: Layout::num_layers_per_stage (used when its size is pp and it sums to L).
// account_embedding / account_loss: Megatron's --account-for-embedding-in-pipeline-split and
// --account-for-loss-in-pipeline-split (megatron/core/transformer/transformer_block.py
// get_num_layers_to_build, core_v0.12.0): the split counts L + 1 (+ 1) layers evenly over the
// pp x vp model chunks, and the first chunk of the first stage (the embedding's) and the last
// chunk of the last stage (the loss's) build one decoder layer fewer. Megatron only; a split
// that does not divide falls back to the rules without them (the rules report it).
StageLayers split_layers(const ModelSpec& m, int pp, int chunks, Schedule s, const std::vector<int>& explicit_split,
                         const std::string& framework = "colossalai", bool account_embedding = false,
                         bool account_loss = false);

}   // namespace paraplan::estimate
