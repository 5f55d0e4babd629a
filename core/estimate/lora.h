#pragma once
// LoRA's trained parameters and their extra work (Hu et al. 2021, LoRA, arXiv 2106.09685). A
// targeted linear W of shape (in, out) is frozen and gets A (r x in) and B (out x r): r (in + out)
// trainable parameters (section 4.1), and per token 2 r (in + out) forward FLOPs (x A, then B).
// Which linears a layer has and how the adapters split over tensor parallelism follow
// Megatron-Bridge (megatron/bridge/peft/lora.py and utils.py ParallelLinearAdapter, 0191fc5): both
// A and B of an adapter are split tp ways (LoRAMerge.merge gathers one of them per parallel kind),
// an expert's over etp, each local expert having its own.
#include "estimate/config.h"
#include "estimate/shapes.h"

#include <vector>

namespace paraplan::estimate {

// r (in + out): the parameters of one adapter (Hu et al. section 4.1).
double lora_params(double in, double out, int rank);

// One linear of a transformer layer that an adapter can target, unsharded.
struct LoraLinear {
    LoraTarget target = LoraTarget::linear_qkv;
    double in = 0, out = 0;
    double copies = 1;     // how many such linears the layer has (experts of a MoE MLP)
    bool expert = false;   // a routed expert's (split over ep and etp, synchronised over expert dp)
    double tokens = 1;     // share of the layer's tokens it sees (top_k for routed experts)
};

// The targeted linears of one layer. fused: Megatron-core's linear_qkv (h -> hq + 2 hkv) and
// linear_fc1 (h -> 2 ffn when gated) as one adapter each (Megatron-Bridge); else one adapter per
// Hugging Face module (q, k, v; gate, up), as peft.LoraConfig adds them.
std::vector<LoraLinear> lora_linears(const LayerShapes& s, bool moe, const LoraOptions& o);

// Adapter parameters of one layer on one GPU.
ShardedCounts lora_layer_params_per_gpu(const LayerShapes& s, bool moe, const Config& c);
// Forward FLOPs per token of one layer's adapters (whole layer, before tp): 2 r (in + out) each.
double lora_fwd_flops_per_token(const LayerShapes& s, bool moe, const LoraOptions& o);
// Activation bytes one layer's adapters save per microbatch on one GPU: the r-wide output of A
// (16-bit) for B's weight gradient; A's input is the frozen linear's own input, saved once.
double lora_activation_bytes(const LayerShapes& s, bool moe, const Config& c, double tokens);

// Adapter parameters of the whole model (every layer, unsharded): LoRA's trainable parameters.
double model_adapter_params(const ModelSpec& m, const LayerShapes& s, const LoraOptions& o);

// Adapter parameters of each pipeline stage per GPU (size pp).
std::vector<ShardedCounts> stage_adapter_params(const LayerShapes& s, const Config& c);
// The parameters a stage trains, which get gradients, optimizer states, the data-parallel
// gradient reduction and the optimizer step: the adapters with LoRA, else stage_params (memory.h).
std::vector<ShardedCounts> stage_trained_params(const LayerShapes& s, const Config& c);
// The stage's frozen transformer-layer linear weights per GPU, which a LoRA base stores in
// layout.peft.base_dtype (LoraOptions::base_bytes): stage_fp8_weight_params less the layers' norms
// and routers, which stay 16-bit as QLoRA (Dettmers et al. 2023) keeps them. Memory and the ZeRO-3
// gathers (comm_terms.h zero3_volume) both count the base through this. Without LoRA nothing is
// frozen: zero on every stage.
std::vector<ShardedCounts> stage_base_linear_params(const LayerShapes& s, const Config& c);
// Of those, the FP8 linear weights whose gathers move FP8 (stage_fp8_weight_params): none with LoRA,
// whose trained adapters are 16-bit.
std::vector<ShardedCounts> stage_trained_fp8_weights(const LayerShapes& s, const Config& c);

}   // namespace paraplan::estimate
