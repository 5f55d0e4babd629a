#pragma once
// FLOPs of one training step. Model FLOPs follow Megatron-LM's
// num_floating_point_operations (training.py): forward + backward = 3 x forward,
// GEMMs and attention (causal counted at the full s^2), GQA, gated MLPs, MoE top-k
// and the logit layer; hardware FLOPs add what recomputation runs again
// (Korthikanti et al. App. A; Narayanan et al. eq. 3 for full recomputation).
#include "estimate/config.h"
#include "estimate/shapes.h"

#include "catalog/model.h"

namespace paraplan::estimate {

struct StepFlops {
    double model = 0;      // 3 x forward
    double hardware = 0;   // model + recomputed forward work
};

// tokens: sequences x seq_len in the step (global batch). mtp_layers: multi-token-prediction
// modules trained with the model (Megatron --mtp-num-layers): each adds a layer like the last
// one, its h x 2h projection and norms, and another output-layer pass (Megatron
// num_floating_point_operations, core_v0.19.0 training.py).
// lora: with LoRA (layout.peft) the frozen weights get no weight gradients, so the backward of
// their GEMMs (and of the output layer) is the input gradient alone, 1x forward, while attention's
// core keeps 2x and the adapters' own GEMMs (lora.h) run forward + 2x backward:
// 3 (attention + adapters) + 2 (GEMMs + logits) per token.
StepFlops step_flops(const ModelSpec& m, const LayerShapes& s, double sequences, double seq, Recompute r,
                     int mtp_layers = 0, const LoraOptions& lora = {});

// Closed forms from the papers, for tests and docs.
// Narayanan et al. 2021 eq. 2: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)).
double narayanan_params(double l, double h, double V, double s);
// Narayanan et al. 2021 eq. 3 (full recomputation): 96 B s l h^2 (1 + s/(6h) + V/(16 l h)).
double narayanan_flops(double B, double s, double l, double h, double V);
// Korthikanti et al. App. A: model 72 B L s h^2 (1 + s/(6h) + V/(12 h L)),
// selective-recompute hardware 72 B L s h^2 (1 + s/(3h) + V/(12 h L)).
double korthikanti_model_flops(double B, double L, double s, double h, double V);
double korthikanti_selective_hw_flops(double B, double L, double s, double h, double V);

}   // namespace paraplan::estimate
