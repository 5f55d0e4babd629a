#pragma once
// Which decoder layers each pipeline stage holds.
//
// ColossalAI: PipelineStageManager.distribute_layers / get_stage_index
// (colossalai/pipeline/stage_manager.py): L layers over pp_size * num_model_chunks
// entries, the remainder going to the middle entries; 1f1b maps entry s to stage
// s, interleaved maps entry s + c*S to (stage s, chunk c), zbv (V shape) maps
// entries s and 2S-1-s to stage s.
// Megatron: an even split, L / (pp * vp) layers per model chunk, chunk c of rank r
// holding global chunk c*pp + r (megatron/core/transformer/transformer_block.py).
#include "project/layout_enums.h"

#include <string>
#include <vector>

namespace paraplan {

// Half-open range of layer indices [begin, end).
struct LayerRange {
    int begin = 0;
    int end = 0;
    int size() const { return end - begin; }
    bool operator==(const LayerRange&) const = default;
};

// stages[s][c]: the layers of model chunk c on pipeline stage s.
using StageLayers = std::vector<std::vector<LayerRange>>;

// ColossalAI's automatic split: pp_size * num_model_chunks entries (no check
// that L >= entries: entries may be 0, as in ColossalAI).
std::vector<int> colossalai_distribute_layers(int num_layers, int pp_size, int num_model_chunks);

// ColossalAI stage -> layer ranges for pp_style 1f1b, interleaved (or interleaved-colossalai, the
// same) or zbv (HybridParallelPlugin pp_style, v0.5.1 booster/plugin/hybrid_parallel_plugin.py).
// num_layers_per_stage (optional) is the manual split; like ColossalAI it needs
// pp_size entries summing to num_layers, which works for 1f1b only.
// Throws std::invalid_argument (message says why) for impossible inputs.
StageLayers colossalai_stage_layers(int num_layers, int pp_size, Schedule pp_style, int num_model_chunks,
                                    const std::vector<int>& num_layers_per_stage = {});

// Megatron's even split with vp virtual stages (model chunks) per pipeline rank.
// Throws std::invalid_argument when num_layers % (pp * vp) != 0, which
// Megatron's validate_args refuses.
StageLayers megatron_stage_layers(int num_layers, int pp_size, int vp_size);

// Total layers held by stage s (all chunks).
int layers_on_stage(const StageLayers& split, int stage);

}   // namespace paraplan
