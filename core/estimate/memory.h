#pragma once
// Memory per pipeline stage: parameters, gradients, optimizer states (ZeRO,
// Rajbhandari et al. SC'20; Megatron distributed optimizer), activations
// (Korthikanti et al. MLSys'23, generalised to GQA, gated MLPs, MoE, flash attention
// and context parallelism) times the microbatches each stage holds in flight, and
// an allowance for the CUDA context, NCCL buffers and allocator fragmentation.
#include "catalog/model.h"
#include "estimate/config.h"
#include "estimate/shapes.h"

#include <vector>

namespace paraplan::estimate {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Stated allowance (docs/accuracy.md): the CUDA context with cuBLAS/cuDNN workspaces
// (the Ultra-Scale Playbook puts it at 1-2 GB), NCCL communicator buffers per group kind
// in use, and fragmentation of the caching allocator as a share of activations
// (Megatron's theoretical_memory_usage.py multiplies activations by 1.05).
inline constexpr double kCudaContextGiB = 1.0;
inline constexpr double kNcclPerGroupGiB = 0.125;
inline constexpr double kFragmentation = 0.05;
// PyTorch's caching allocator under FSDP2 (torchtitan): per-parameter all-gather and
// reduce-scatter buffers of changing sizes and the loss's fp32 temporaries leave a larger
// reserve; fitted on the torchtitan tune rows' published max_reserved (docs/accuracy.md).
inline constexpr double kFragmentationFsdp = 0.10;

// Activation bytes of one layer for one microbatch, per GPU (Korthikanti Sec. 4).
struct LayerActivation {
    double replicated = 0;   // LayerNorm inputs, block inputs, dropout masks (split by t only with SP)
    double sharded = 0;      // Q/K/V, projection input, MLP intermediates (split by t)
    double scores = 0;       // softmax / dropout of the attention scores (0 with flash or selective)
    double total() const { return replicated + sharded + scores; }
};

struct ActivationInputs {
    double seq = 2048;        // full sequence length s
    double micro_batch = 1;   // b
    int tp = 1;
    int cp = 1;   // sequence split (CP ring or Ulysses)
    int etp = 1;
    int ep = 1;
    bool sequence_parallel = false;
    bool flash_attention = false;
    bool dropout = true;
    Recompute recompute = Recompute::none;
    double moe_load = 1;   // busiest EP rank's routed tokens / balanced share (moe.h)
    // torchtitan's selective recomputation (selective_ac_option "op"): instead of dropping the
    // attention scores (Korthikanti), it saves only the outputs of every other matmul, the
    // attention kernel's output and the TP reduce-scatters, and recomputes the rest.
    bool op_sac = false;
    // Bytes per element of the all-gathered inputs the column-parallel linears save with sequence
    // parallelism (FrameworkTraits::tp_saves_gathered_input: 2, or 1 where they are gathered in
    // FP8); 0 where the linears save the sequence shard and gather again in backward (Korthikanti).
    double gathered_input_bytes = 0;
};

// What a Config gives layer_activation for a microbatch of `seq` tokens: its shape and how the layer
// is split (tp, cp, etp, ep, sequence parallelism, flash attention, dropout, the busiest EP rank's
// load). Recompute none; callers set recompute, op_sac and gathered_input_bytes where they count them.
ActivationInputs activation_inputs(const Config& c, double seq);

// Without recomputation and with dense GPT shapes (hq = hkv = h, ffn = 4h, GeLU,
// dropout, no flash) this is exactly Korthikanti's Table 2:
// sbh(10 + 24/t + 5as/(ht)), with SP sbh(34/t + 5as/(ht)), selective drops the 5as/(ht) term.
// Full recomputation keeps the layer input: 2sbh (2sbh/t with SP, where the input is sharded).
LayerActivation layer_activation(const LayerShapes& s, bool moe, const ActivationInputs& in);

// Share of a dense layer's forward GEMM FLOPs that torchtitan's op-level selective
// recomputation runs again in backward: the even-numbered matmuls wk, wo and w3 (w2 without
// a gate) of torchtitan 9dec370 parallelize_llama.py _save_list / mm_count % 2.
double op_sac_recomputed_gemm_share(const LayerShapes& s);

struct StageMemory {
    int stage = 0;
    double params = 0, grads = 0, optimizer = 0, activations = 0, other = 0;   // bytes
    double params_count = 0;          // parameters held on one GPU of this stage
    double expert_params_count = 0;   // of which routed-expert parameters
    double inflight = 0;              // microbatches held at the peak
    double offloaded = 0;             // bytes moved to CPU/NVMe
    // Parts of `other`: framework buffers the allocator hands out (gathered ZeRO-3/FSDP
    // parameters and the unsharded gradient being reduce-scattered, FP8 weight copies), and
    // the caching allocator's reserve above its allocated peak (fragmentation).
    double buffers = 0, fragmentation = 0;
    double total() const { return params + grads + optimizer + activations + other; }
    // torch.cuda.max_memory_allocated: the tensors alive at the peak.
    double allocated() const { return params + grads + optimizer + activations + buffers; }
    // torch.cuda.max_memory_reserved (what torchtitan logs as "memory"): allocated + reserve.
    // total() adds the CUDA context and NCCL's own buffers, outside the caching allocator.
    double reserved() const { return allocated() + fragmentation; }
};

struct MemoryResult {
    std::vector<StageMemory> stages;
    double peak_bytes = 0;   // largest stage total (what must fit the GPU)
    int peak_stage = 0;
    double allocated_peak_bytes = 0;   // largest stage allocated()
    double reserved_peak_bytes = 0;    // largest stage reserved()
    double capacity_bytes = 0;
    bool fits = false;
};

// Per-GPU parameters of each pipeline stage (dense and expert parts).
std::vector<ShardedCounts> stage_params(const LayerShapes& s, const Config& c);

// Per-GPU parameters of each stage that Transformer Engine runs as FP8 linear weights: the
// transformer layers' own (the embedding and output layer stay 16-bit).
std::vector<ShardedCounts> stage_fp8_weight_params(const LayerShapes& s, const Config& c);

// Bytes per parameter of a Transformer Engine FP8 primary weight (Fp8Gather::primary_weights,
// Megatron --fp8-param-gather): the row-wise FP8 data (1 B, in the distributed optimizer's uint8
// param buffer) and the column-wise copy the backward GEMMs read (1 B), except for per-tensor
// scaling on a GPU with non-TN FP8 GEMMs (Blackwell), where no transpose is made.
double fp8_primary_weight_bytes(Fp8Recipe r, const std::string& arch);

// inflight[i]: peak in-flight microbatches of stage i (pipeline.h).
MemoryResult estimate_memory(const LayerShapes& s, const Config& c, const Hardware& hw,
                             const std::vector<double>& inflight);

}   // namespace paraplan::estimate
