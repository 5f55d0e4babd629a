#pragma once
// How a job is split over GPUs: the "layout" and "training" sections of a project.
#include "project/fp4_recipe.h"
#include "project/layout_enums.h"
#include "project/peft.h"
#include "util/cow_json.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace paraplan {

// Framework ids as written in project files and on the CLI.
// "colossalai" (HybridParallelPlugin), "colossalai-moe" (MoeHybridParallelPlugin),
// "colossalai-gemini" (GeminiPlugin), "colossalai-zero" (LowLevelZeroPlugin),
// "megatron", "torchtitan", "deepspeed", "devicemesh".
extern const std::vector<std::string> kFrameworks;
// The names of the typed fields' values, from their tables (project/layout_enums.h).
extern const std::vector<std::string> kSpModes;          // none split_gather ring all_to_all ring_attn
extern const std::vector<std::string> kRecompute;        // none selective full
extern const std::vector<std::string> kOffload;          // none cpu nvme
extern const std::vector<std::string> kPrecisions;       // fp32 tf32 fp16 bf16 fp8
extern const std::vector<std::string> kOptimizers;       // adamw adam sgd lion adafactor
extern const std::vector<std::string> kFp8Recipes;       // tensorwise delayed rowwise mxfp8 blockwise
extern const std::vector<std::string> kKernelStacks;     // auto te compile eager
extern const std::vector<std::string> kLossLogits;       // auto freed kept kept_fp32
extern const std::vector<std::string> kTpModes;          // 1d 2d 2.5d 3d
extern const std::vector<std::string> kMoeDispatchers;   // alltoall allgather deepep

struct Layout {
    std::string framework = "colossalai";
    int tp = 1;
    int pp = 1;
    int sp = 1;
    SpMode sp_mode = SpMode::none;
    int cp = 1;
    int ep = 1;
    int etp = 0;   // Megatron expert-tensor-parallel size (0 = same as tp)
    int dp = 0;    // 0 = derived from the world size
    int zero_stage = 0;
    Schedule schedule = Schedule::one_f_one_b;
    int chunks = 1;             // model chunks per pipeline stage (virtual stages)
    int num_microbatches = 0;   // 0 = derived from batch sizes
    Recompute recompute = Recompute::none;
    Offload offload = Offload::none;
    double offload_fraction = 0;   // Gemini offload_optim_frac / DeepSpeed ratio
    // Kernel switches.
    bool flash_attention = true;
    bool fused_norm = false;
    bool jit_fused = false;
    // FP8 (one meaning everywhere): the linear layers' GEMMs run in FP8 on top of the 16-bit
    // training.precision; attention, norms, the optimizer and communication stay 16/32-bit.
    bool fp8 = false;
    Fp8Recipe fp8_recipe = Fp8Recipe::tensorwise;   // scaling (layout_enums.h)
    bool fp8_all_gather = false;                    // FSDP2 float8 all-gather / Megatron --fp8-param-gather
    // FP4 (project/fp4_recipe.h): the linear layers' GEMMs in a 4-bit recipe instead of FP8; the
    // framework's row says which recipes it runs and which layers stay 16-bit (FrameworkTraits).
    Fp4Recipe fp4_recipe = Fp4Recipe::none;
    // Kernel stack: te (Transformer Engine / fused kernels), compile (torch.compile), eager;
    // auto = the framework's default (FrameworkTraits::kernels: Megatron te; the others eager, ColossalAI te
    // when both fused_norm and jit_fused are on).
    KernelStack kernels = KernelStack::framework;   // "auto"
    // The loss compiled with the model (kernels compile): torchtitan's components/loss.py
    // build_cross_entropy_loss compiles it under training.compile (e7c0cae, June 2025; the
    // [compile] components "loss" of later versions); at 9dec370 train.py left it eager.
    bool compile_loss = false;
    // What the training loop holds of the model's logits while the eager loss runs its backward
    // (the memory estimate's loss peak): freed (the loop drops the model output before backward:
    // torchtitan 9dec370 train.py `del pred`, ColossalAI's llama benchmark `del outputs`), kept
    // (it keeps the output, whose logits are 16-bit), kept_fp32 (the model upcasts the logits and
    // returns them in fp32, as Hugging Face LlamaForCausalLM.forward's `logits = logits.float()`, and
    // the loop keeps them); auto: freed for torchtitan, else by the kernel stack (docs/accuracy.md).
    LossLogits loss_logits = LossLogits::framework;   // "auto"
    // Framework-specific knobs.
    std::string order;                       // Megatron order ("tp-cp-ep-dp-pp") or DeviceMesh dim order
    bool dp_outside = true;                  // ColossalAI dp_outside / moe_dp_outside
    int inner_ring_size = 0;                 // ColossalAI ring_attn (0 = default)
    int dp_shard = -1;                       // torchtitan data_parallel_shard_degree (-1 = infer)
    int dp_replicate = 1;                    // torchtitan data_parallel_replicate_degree
    TpMode tp_mode = TpMode::one_d;          // ColossalAI legacy tensor modes: 1d 2d 2.5d 3d
    int tp_depth = 1;                        // 2.5D depth d
    std::vector<int> num_layers_per_stage;   // explicit layer split (ColossalAI)
    bool distributed_optimizer = false;      // Megatron --use-distributed-optimizer
    // Mixture of experts: how the framework routes and moves tokens (docs/project-format.md).
    MoeDispatcher moe_dispatcher = MoeDispatcher::alltoall;   // alltoall | allgather | deepep
    double moe_capacity_factor = 0;   // 0: dropless; > 0: tokens per expert capped at C x average
    double moe_imbalance = 0;         // busiest EP rank's routed tokens / average (1: forced balance); 0: default
    bool moe_overlap = false;         // EP all-to-alls overlapped with another microbatch's compute
    // TP collectives overlapped with the GEMMs they feed, each under its framework's name (both off by
    // default): Megatron --tp-comm-overlap (Transformer Engine userbuffers), torchtitan
    // [parallelism] enable_async_tensor_parallel (micro-pipeline TP). Ignored by other frameworks.
    bool tp_comm_overlap = false;
    bool enable_async_tensor_parallel = false;
    // Megatron / NeMo tp_comm_overlap_cfg (--tp-comm-overlap-cfg): per GEMM, Transformer Engine's
    // userbuffers settings, {"proj_fprop": {"method": "ring_exchange"}, ...}; the estimate reads the
    // method of the forward reduce-scatters (proj_fprop, fc2_fprop: "pipeline" by default, TE's
    // initialize_ub). Unset: TE's defaults.
    CowJson tp_comm_overlap_cfg;
    // Megatron (core 0.11+) --account-for-embedding-in-pipeline-split / --account-for-loss-in-pipeline-split:
    // the embedding / the loss count as one layer each when the layers are split over pipeline stages.
    bool account_for_embedding_in_pipeline_split = false;
    bool account_for_loss_in_pipeline_split = false;
    // Parameter-efficient fine-tuning (project/peft.h); absent: full training.
    std::optional<Peft> peft;
    CowJson extra;   // unknown keys, kept on save (shared between copies)

    bool operator==(const Layout&) const = default;
};

struct Training {
    int global_batch_size = 8;
    int micro_batch_size = 1;
    int seq_len = 2048;
    Precision precision = Precision::bf16;   // compute dtype: fp32 tf32 fp16 bf16 (a legacy "fp8": migrate.h)
    Optimizer optimizer = Optimizer::adamw;
    long long train_tokens = 0;   // for "time to train" (0 = unset)
    CowJson extra;

    bool operator==(const Training&) const = default;
};

// The kernel stack the layout runs: layout.kernels, or for "auto" the framework's default (never
// KernelStack::framework).
KernelStack kernel_stack(const Layout& l);

}   // namespace paraplan
