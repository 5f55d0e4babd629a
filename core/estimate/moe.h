#pragma once
// Mixture-of-experts terms of the step time: the tokens each expert's GEMM really sees
// per microbatch (not the microbatch's token count), routing imbalance and capacity
// dropping, and the dispatch/combine traffic over the links the EP group spans.
//
//   Expert GEMM rows: a GPU routes its T tokens (microbatch x seq / cp) to top_k of E
//   experts; its E/ep local experts receive from the ep ranks of its EP group, and with
//   expert tensor parallelism the tokens are all-gathered over etp while each rank holds
//   ffn/etp of every local expert (Megatron-core MoEAlltoAllTokenDispatcher, core_v0.19.0
//   token_dispatcher.py: all-to-all over EP, then gather_from_sequence_parallel_region over
//   the expert-TP group). With sequence parallelism T/tp tokens enter the MoE layer, so each
//   local expert sees  m = T x top_k x ep x etp / (E x tp)  rows (balanced routing).
//   Load: the step waits for the busiest EP rank, which holds `imbalance` x its balanced
//   share; a capacity factor C drops what exceeds C x the share (Switch Transformer, Fedus et
//   al. 2022 Sec. 2.2: expert capacity = tokens per batch / experts x capacity factor;
//   GShard, Lepikhin et al. 2021 Sec. 2.2), so the load is min(imbalance, C).
//   Dispatch/combine bytes: T_in x top_k x hidden x bytes per element each way (DeepSeek-V3
//   technical report Sec. 3.3.2 / DeepEP: FP8 dispatch with one fp32 scale per 128 values,
//   BF16 combine); backward moves the same volume in BF16.
#include "estimate/config.h"
#include "estimate/efficiency.h"
#include "estimate/shapes.h"

namespace paraplan::estimate {

// Busiest EP rank's routed tokens over its balanced share when the project does not say
// (layout.moe_imbalance). Dropless routing with an auxiliary load-balancing loss leaves the
// busiest rank above its share; the value is fitted in docs/accuracy.md to the one public
// pair that isolates it: Megatron-MoE-ModelZoo best_practice/Qwen3 (commit c1ad0b5), Qwen3-235B
// on 32 H100 nodes, TP4 PP8 VPP4 EP8, 16K sequence, forced balance 295 vs dropless 237
// TFLOP/s/GPU; its 32K-128K pairs are held out (tests/core/tst_estimate_moe.cpp).
inline constexpr double kDefaultMoeImbalance = 1.5;

// Grouped GEMMs (one GEMM per local expert, Megatron --moe-grouped-gemm / torchtitan and
// Automodel "gmm") reach the architecture's GEMM ceiling e_max only when every expert gets
// many rows: e_max x m / (m + m0), m the rows of one expert (the dimension that varies per
// group; the expert's width and the hidden size are shared). m0 is fitted on the tune rows of
// docs/accuracy.md (MoE section); no public grouped-GEMM sweep states it.
inline constexpr double kGroupedGemmHalfRows = 1024;

// Share of peak of the grouped expert GEMMs at `rows` rows per expert.
double grouped_gemm_efficiency(const Efficiency& eff, double rows);

// min(imbalance, capacity factor) (>= 1; dropless when the capacity factor is 0).
double moe_load_factor(const MoeOptions& o);

// Tokens entering one MoE layer on one GPU per microbatch (T/tp with sequence parallelism).
double moe_tokens_in(const Config& c);

// Rows of one local expert's GEMM per microbatch under balanced routing:
// T x top_k x ep x etp / (E x tp).
double tokens_per_expert(const LayerShapes& s, const Config& c);

// Forward seconds of the routed experts of one MoE layer for one microbatch on the busiest GPU:
// load x T x top_k x 2 x expert parameters / tp FLOPs at the grouped-GEMM efficiency of
// load x m rows per expert.
double expert_gemm_fwd_s(const LayerShapes& s, const Config& c, const Hardware& hw, const Efficiency& eff);
// The same with the expert GEMMs in format f (a layer kept in BF16 with FP4 runs them wide).
double expert_gemm_fwd_s(const LayerShapes& s, const Config& c, const Hardware& hw, const Efficiency& eff,
                         LinearFormat f);

// Per-expert kernels of a Megatron-Core MoE layer (Megatron-LM at 4415119, package version
// 0.18.0, the commit Megatron-Bridge 26.04.01 pins; Transformer Engine release_v2.16). The grouped GEMMs and
// FP8 casts are not one kernel per layer but one per local expert:
//   - 6 GEMMs per expert: TE GroupedLinear's general_grouped_gemm -> nvte_multi_tensor_gemm runs
//     one cuBLAS GEMM per expert (multi_stream_cublas_gemm in common/gemm/cublaslt_gemm.cu; a
//     CUTLASS grouped GEMM only on Hopper behind NVTE_USE_CUTLASS_GROUPED_GEMM) for fc1 and fc2,
//     forward, dgrad and wgrad;
//   - with FP8, 4 quantizations per expert (fc1 and fc2 inputs forward, their output gradients
//     backward): tex.split_quantize -> multi_tensor_quantize_impl (csrc/extensions/cast.cpp) fuses
//     the experts into one multi_cast_transpose only for delayed scaling and otherwise quantizes
//     each expert's slice on its own: current scaling 3 kernels (compute_amax,
//     compute_scale_from_amax, quantize; quantizer.cpp Float8CurrentScalingQuantizer), MXFP8 and
//     blockwise 1.
// They are not hidden behind other work: dropless routing makes each expert's token count
// data-dependent and the host waits for it once per MoE layer before launching the dispatch and
// the experts (MoEAlltoAllTokenDispatcher._maybe_dtoh_and_synchronize at "before_ep_alltoall",
// _HybridEPManager.dispatch's tokens_per_expert.sum(), TEGroupedMLP.forward's
// tokens_per_expert.tolist()), so the GPU's queue is drained and the per-expert launches and
// small-grid tails land on the step. Each costs kMoeKernelS beyond its FLOPs and bytes, fitted on
// the Megatron MoE tune rows (docs/accuracy.md: mean |error| is flat between 22 and 35 us and
// lowest at 22.5 us; a separate fixed cost per layer fitted to zero). Megatron only: the other
// frameworks' MoE layers were not read.
inline constexpr double kMoeKernelS = 22.5e-6;

struct MoeKernels {
    double fwd = 0, bwd = 0;       // per-expert kernels of one MoE layer and microbatch
    double fwd_s = 0, bwd_s = 0;   // the time they add to its forward and backward
};
MoeKernels moe_expert_kernels(const Config& c, const LayerShapes& s);

// Expected nodes a token's top_k experts fall on when the E experts are spread evenly over
// `nodes` nodes and chosen uniformly: nodes x (1 - C(E - E/nodes, k) / C(E, k)).
double nodes_reached(int experts, int top_k, int nodes);

// Bytes of one MoE layer's token movement for one microbatch on the busiest GPU: what
// moe_comm() times and what the step playback draws (estimate/step_playback.h), so the two
// cannot disagree. Over the EP group (ep > 1): the alltoall and deepep dispatchers move
// routed = T_in x top_k x hidden x load values each way (dispatch in FP8 + scales when
// fp8_dispatch, else BF16; combine and the backward pair in BF16); the allgather dispatcher
// all-gathers the T_in x hidden BF16 states of the ep x etp ranks and reduce-scatters the
// outputs, both ways. With expert tensor parallelism (etp > 1, not allgather) the received
// tokens are all-gathered over etp and the outputs reduce-scattered, each call etp_gathered bytes.
struct MoeBytes {
    double dispatch_fwd = 0, combine_fwd = 0;   // forward: dispatch, then combine
    double dispatch_bwd = 0, combine_bwd = 0;   // backward: the gradients of both
    double etp_gathered = 0;                    // per ETP call; 2 calls each way (0: no ETP)
    double fwd() const { return dispatch_fwd + combine_fwd + 2 * etp_gathered; }
    double bwd() const { return dispatch_bwd + combine_bwd + 2 * etp_gathered; }
};
MoeBytes moe_bytes(const LayerShapes& s, const Config& c);

// Dispatch + combine of one MoE layer, one microbatch, forward and backward, on the busiest
// GPU (EP link from the placement model; ETP all-gather / reduce-scatter when etp > 1), the
// bytes of moe_bytes() over those links.
struct MoeComm {
    double fwd_s = 0, bwd_s = 0;
};
MoeComm moe_comm(const LayerShapes& s, const Config& c, const Hardware& hw);

}   // namespace paraplan::estimate
