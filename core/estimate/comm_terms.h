#pragma once
// The communication the step-time model charges, term by term: per layer and
// microbatch (TP collectives, CP ring steps or Ulysses all-to-alls, the PP send/recv;
// EP dispatch and combine are moe.h's), per stage and microbatch (ZeRO-3 parameter gathers),
// and per stage per step (the data-parallel gradient reduction). stage_times() and
// estimate_time() add these up; the step playback (step_playback.h) shows the same
// terms as events, so the picture and the estimate cannot disagree.
#include "estimate/config.h"
#include "estimate/memory.h"
#include "estimate/pipeline.h"
#include "estimate/shapes.h"

#include <vector>

namespace paraplan::estimate {

enum class CollectiveOp { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };
const char* to_string(CollectiveOp op);

// How many bytes cross the links per byte of buffer for each GPU of a group of n
// (NCCL ring algorithms): all-reduce 2(n-1)/n, all-gather / reduce-scatter (n-1)/n,
// all-to-all (n-1)/n (each peer gets 1/n), send/recv 1.
double wire_factor(CollectiveOp op, int n);

// One layer, one microbatch, per GPU. *_bytes: the buffer of one collective; *_s: the
// seconds stage_times() charges (exposed, after what the framework overlaps).
struct LayerComm {
    // TP: all-reduce of the layer's activations, or with sequence parallelism an
    // all-gather + reduce-scatter pair of the same buffer; two forward, two backward
    // (four with full recomputation) per layer.
    double tp_bytes = 0;
    double tp_gather_bytes = 0;   // one SP all-gather's gathered buffer: tp_bytes, or half where it moves FP8
    bool tp_sequence_parallel = false;
    int tp_fwd_count = 0, tp_bwd_count = 0;   // all-reduces (or AG+RS pairs)
    int tp_bwd_regathers = 0;                 // SP all-gathers backward runs again (torchtitan op-level SAC)
    // The chunk + cat copy of each SP collective on the sequence dim of [b, s, h] (DTensor
    // Shard(1), FrameworkTraits::sp_collectives_copy): one after an all-gather, one before a
    // reduce-scatter, a read and a write of the whole tensor at the HBM rate; inside *_s.
    double tp_gather_copy_s = 0, tp_scatter_copy_s = 0;
    double tp_fwd_s = 0, tp_bwd_s = 0;   // seconds of all the collectives and their copies
    // The attention block's share of tp_fwd_s + tp_bwd_s (what a MoE layer without a shared expert
    // keeps): half of it, unless the overlap (Config::tp_comm_overlap) hides the two blocks unequally.
    double tp_attn_s = 0;
    // What the TP overlap hid of one layer's collectives, forward + backward (0 without it).
    double tp_hidden_s = 0;
    // CP: ring attention sends the K,V block (cp - 1) times forward and 2 (cp - 1) times
    // backward; Ulysses one all-to-all of q, k, v and the output each way.
    double cp_bytes = 0;
    bool cp_ring = false;
    double cp_call_s = 0;   // one ring step or one all-to-all on the cp link
    int cp_fwd_count = 0, cp_bwd_count = 0;
    double cp_fwd_s = 0, cp_bwd_s = 0;
    // EP (MoE layers only): dispatch and combine are the MoE model's (moe.h: moe_bytes, moe_comm).
    // PP: the activation (forward) or its gradient (backward) to the neighbour stage.
    double pp_bytes = 0;
    int pp_count = 0;       // sends per direction per microbatch (chunks when interleaved)
    double pp_wire_s = 0;   // one direction, per microbatch, on the pp link
    double pp_s = 0;        // what of it is exposed: pp_wire_s, or 0 where the framework overlaps the sends
};

// Forward GEMM seconds of one dense layer's four TP linears, per microbatch and GPU: the
// column-parallel QKV and MLP-up (fc1) after the sequence-parallel all-gathers, the row-parallel
// attention output (proj) and MLP-down (fc2) before the reduce-scatters. A backward dgrad or wgrad
// GEMM takes as long as its forward GEMM. What the TP overlap hides the collectives behind.
struct TpGemms {
    double qkv = 0, proj = 0, fc1 = 0, fc2 = 0;
};
// The four linears' shares of the layer's GEMM time dense_gemm_s (their shares of its parameters).
TpGemms tp_gemms(const LayerShapes& s, double dense_gemm_s);

// attention_fwd_s: one dense layer's forward attention time (ring attention overlaps with it);
// gemms: the layer's TP linears, for Config::tp_comm_overlap (without them nothing is hidden).
LayerComm layer_comm(const LayerShapes& s, const Config& c, const Hardware& hw, double attention_fwd_s,
                     const TpGemms& gemms = {});

// One collective call (or `count` identical ones) over one kind of group.
struct CommCall {
    GroupKind group = kTp;
    CollectiveOp op = CollectiveOp::all_reduce;
    double bytes = 0;   // buffer of one call, per GPU
    int count = 1;
    double seconds = 0;   // all `count` calls, on the group's link
};

// What one stage's ZeRO-3 / FSDP collectives move per microbatch and GPU (the dense parameters;
// expert weights are not gathered here).
struct Zero3Volume {
    double gather_bytes = 0;   // one all-gather of the stage's weights as they are gathered
    double grad_bytes = 0;     // the reduce-scatter of the trained parameters' gradients
};
// params: stage_params; trained: stage_trained_params (lora.h); base_linears:
// stage_base_linear_params (lora.h), the frozen linears a LoRA base stores in base_bytes. Without
// LoRA every parameter is gathered (16-bit, or FP8 as the framework gathers it) and reduce-scattered;
// with LoRA the frozen base is gathered in its stored dtype besides the 16-bit norms and adapters,
// and only the adapters, which alone have gradients, are reduce-scattered.
Zero3Volume zero3_volume(const ShardedCounts& params, const ShardedCounts& trained, const ShardedCounts& base_linears,
                         const Config& c);

// ZeRO-3 per stage and microbatch: parameters gathered for forward and backward, gradients
// reduce-scattered. exposed_s: what stays after the prefetch behind compute_s (f + b).
struct Zero3Comm {
    std::vector<CommCall> calls;
    double exposed_s = 0;
};
Zero3Comm zero3_comm(const Zero3Volume& v, const Config& c, double compute_s);

// The data-parallel gradient reduction of one stage per step (ZeRO < 3): all-reduce, or
// reduce-scatter (+ all-gather of the updated parameters unless overlapped) when the
// optimizer is sharded; dense over the dp link, expert weights over the edp link.
// fp8_weights: the stage's FP8 linear weights (stage_fp8_weight_params), which FP8 primary
// weights (Fp8Gather::primary_weights) gather at 1 B.
std::vector<CommCall> grad_sync(const ShardedCounts& params, const ShardedCounts& fp8_weights, const Config& c);

// Bytes per element ColossalAI's fp8_communication (Fp8Gather::wire_casts) puts on the wire for an
// all-gather or all-to-all over link l: FP8 (1) where the group spans nodes, else the 16-bit
// buffer's 2; 2 without it.
double fp8_wire_bytes(const Config& c, const GroupLink& l);

// Whether a group's collectives leave its scale-up domain, through its GPUs' NICs.
bool crosses_scale_out(const GroupLink& l);

// Link sharing between groups that run at once. Each GPU reaches the scale-out fabric through its
// own NICs (one rail each), which every group it belongs to uses: the data-parallel reduction (or
// ZeRO-3's gathers) hidden behind a backward shares them with that backward's expert all-to-alls, CP
// ring steps and pipeline sends. The NIC moves one collective's bytes at a time at its line rate
// (two at once each get half), so the seconds the others hold it (each such group's whole
// collective time where it crosses the scale-out: its bandwidth term is the NIC's) are taken from
// the time the data-parallel traffic has to hide in. True where the data-parallel groups (dp or
// expert dp) cross the scale-out, so that there is a NIC to share.
bool reduction_shares_nics(const Config& c);

// How much of stage `stage`'s gradient reduction hides behind the end of the pipeline:
// the stage finishes its last backward about `stage` backward steps before stage 0 does,
// plus one more backward when the framework overlaps the reduction with it, less the seconds of
// that backward other groups hold the shared NICs (`nic_b`, reduction_shares_nics). The drain after it is
// the stage's own: its other groups are done.
double grad_sync_window_s(const Config& c, const StageCost& cost, int stage, double nic_b = 0);

}   // namespace paraplan::estimate
