#pragma once
// Hybrid Mamba models (ModelSpec::hybrid_override_pattern): forward FLOPs per token of each layer
// kind, as Megatron-LM counts them for a hybrid model (megatron/training/training.py
// num_floating_point_operations, its attn_layer_flops / mlp_layer_flops / mamba_layer_flops /
// moe_layer_flops helpers, core_v0.16.0; per token = per B*s there):
//   attention ('*')  4 h p (h + h g/H + s/2), p = head_dim H / h, g = query groups: q/k/v/o GEMMs
//                    and the causal core counted at s/2;
//   MLP ('-')        4 h ffn (x 1.5 gated);
//   Mamba ('M')      2 h (2 d_in + 2 G N + nheads) in_proj + 2 d_in h out_proj GEMMs and
//                    7 d_in N for the selective scan (d_in = 2h in Megatron's count);
//   MoE ('E')        4 h expert_ffn top_k (x 1.5 gated) + 4 h shared_ffn (x 1.5 gated).
// Each pattern character is one layer with one of these mixers; the logits add 2 h V.
#include "catalog/model.h"
#include "estimate/memory.h"
#include "estimate/shapes.h"

namespace paraplan::estimate {

struct HybridLayerFlops {
    double attention_gemm = 0, attention_core = 0;   // one '*' layer
    double mlp = 0;                                  // one '-' layer
    double mamba_gemm = 0, mamba_scan = 0;           // one 'M' layer: in_proj + out_proj, the SSM scan
    double moe = 0;                                  // one 'E' layer (routed top_k + shared)
};
HybridLayerFlops hybrid_layer_flops_per_token(const ModelSpec& m, double seq);

// Forward FLOPs per token of all pattern layers (without the logits).
double hybrid_fwd_flops_per_token(const ModelSpec& m, double seq);
// Of which the attention cores (what selective recomputation runs again).
double hybrid_attention_core_flops_per_token(const ModelSpec& m, double seq);

// Per-GPU parameters of one pattern layer of `kind` ('M', '*', '-', 'E'): its mixer split as
// Megatron splits it (Mamba heads and groups, attention heads and the MLP over tp; routed experts
// over ep x etp) and its one pre-norm.
ShardedCounts hybrid_layer_params_per_gpu(const LayerShapes& s, char kind, int tp, int ep, int etp);

// Activations one pattern layer of `kind` saves for backward (bytes, 16-bit). Attention, MLP and
// MoE layers keep what a transformer layer keeps of that block (layer_activation, Korthikanti Table
// 2) with one norm and one block input. A Mamba layer keeps its norm input and in_proj's normed
// input, the in_proj output zxBCdt (2 d_inner + 2 G N + nheads wide), which the fused
// mamba_split_conv1d_scan_combined saves and recomputes conv1d and the scan from (mamba_ssm
// ssd_combined.py MambaSplitConv1dScanCombinedFn, memory-efficient path; Megatron
// MambaMixer.forward, core_v0.16.0), its output y that the gated RMSNorm saves, and the norm's output
// (the out_proj input), each d_inner / tp wide. Full recomputation keeps the layer input only.
LayerActivation hybrid_layer_activation(const LayerShapes& s, char kind, const ActivationInputs& in);

// Pattern layers of `kind` on `stage` (Config's per-stage counts; MoE 'E' from moe_layers_per_stage).
int hybrid_stage_layers(const Config& c, int stage, char kind);
inline constexpr char kHybridKinds[] = {'M', '*', '-', 'E'};
// Sums over a stage's pattern layers: parameters per GPU, and activation bytes per microbatch.
ShardedCounts hybrid_stage_layer_params(const LayerShapes& s, const Config& c, int stage);
double hybrid_stage_activation(const LayerShapes& s, const Config& c, int stage, const ActivationInputs& in);

}   // namespace paraplan::estimate
