#pragma once
// The one table of framework traits: every choice that depends on which framework runs the
// job (which axes it has, how its ranks are ordered, which sequence modes and ZeRO stages it
// accepts, what it keeps per parameter, its kernel stack and exporter) is a field here.
// Code elsewhere reads these fields or dispatches on the Framework enum inside the
// framework's own files (core/rules/<framework>.cpp, core/topology/<framework>.cpp,
// core/export/{export,import}_<framework>.cpp); it does not compare framework-id strings.
// Adding a framework: docs/hacking.md, "How to add a framework".
#include "project/fp4_recipe.h"
#include "project/layout_enums.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan {

struct Layout;

enum class Framework {
    colossalai,          // HybridParallelPlugin
    colossalai_moe,      // MoeHybridParallelPlugin
    colossalai_gemini,   // GeminiPlugin
    colossalai_zero,     // LowLevelZeroPlugin
    megatron,
    torchtitan,
    deepspeed,
    devicemesh,   // a plain torch.distributed DeviceMesh
};

// The framework family: whose process-group builder, launcher and files the id belongs to.
enum class FrameworkFamily { colossalai, megatron, torchtitan, deepspeed, pytorch };

// Default rank order (fill order, innermost first) when the layout names none.
enum class RankOrder {
    megatron,     // tp-cp-ep-dp-pp (parallel_state.py RankGenerator default); torchtitan's mesh too
    colossalai,   // ProcessGroupMesh (dp, pp, sp, tp): tp innermost, dp outermost unless dp_outside is off
    deepspeed,    // PipeModelDataParallelTopology (pipe, data, model): model innermost
};

// How the layout's zero_stage is read.
enum class ZeroSemantics {
    stage,                   // ZeRO stage as written (ColossalAI hybrid, LowLevelZero, DeepSpeed, DeviceMesh)
    stage_capped_at_1,       // MoeHybridParallelPlugin forces zero_stage 1 for stage 2
    always_3,                // GeminiPlugin: parameters, gradients and optimizer states sharded
    distributed_optimizer,   // Megatron: zero_stage >= 1 means --use-distributed-optimizer
    fsdp,                    // torchtitan: FSDP2 shards whenever dp_shard x cp > 1 (zero_stage not read)
};

// Bytes per parameter the framework keeps besides the 16-bit weights (mixed precision).
enum class OptimizerBytes {
    mixed,            // 2 B grads, fp32 master + moments in the optimizer (ZeRO paper K = 12)
    fp32_main_grad,   // Megatron: fp32 main_grad buffer (4 B grads)
    fp32_grad_copy,   // DeepSpeed: 16-bit grads plus an fp32 gradient partition (+4 B)
    fsdp2_fp32,       // torchtitan FSDP2: fp32 sharded parameters are the master copy; fp32 grads
};

// Where --sequence-parallel style splitting inside the tp group comes from.
enum class TpSequenceParallel {
    switch_split_gather,   // on when sp_mode is split_gather (ColossalAI also ring), Megatron --sequence-parallel
    always,                // torchtitan applies it with every tp > 1
    none,                  // DeepSpeed, DeviceMesh: a separate mode only
};

// What layout.fp8_all_gather gathers in FP8 where the framework honours it (fp8_all_gather_recipes):
enum class Fp8AllGatherKind {
    none,              // no FP8 all-gather (DeepSpeed, DeviceMesh)
    fsdp_weights,      // FSDP2 gathers FP8 weights into FP8 buffers (torchao enable_fsdp_float8_all_gather)
    primary_weights,   // the linear weights are FP8 tensors the distributed optimizer gathers (Megatron
                       // --fp8-param-gather): no 16-bit copy or per-step FP8 weight cache
    wire_casts,        // collectives cast to FP8 for the wire and back, buffers stay 16-bit (ColossalAI
                       // fp8_communication)
};

// How the framework overlaps the tensor-parallel collectives with the GEMMs they feed, when its switch
// is on (layout.tp_comm_overlap / layout.enable_async_tensor_parallel; comm_terms.h tp_overlap_exposed):
enum class TpCommOverlapKind {
    none,             // no such switch: TP collectives are exposed
    userbuffers,      // Megatron --tp-comm-overlap: Transformer Engine userbuffers (ring exchange,
                      // pipelined and bulk overlap), needs sequence parallelism
    micro_pipeline,   // torchtitan enable_async_tensor_parallel: torch's micro-pipeline TP
                      // (symmetric-memory all-gather + matmul and matmul + reduce-scatter), needs compile
};

// How a framework adds LoRA adapters (layout.peft, project/peft.h) in the runs Paraplan exports.
enum class LoraKind {
    none,              // no LoRA that Paraplan's export for it can set up (rule peft.framework)
    hf_peft,           // Hugging Face PEFT get_peft_model over nn.Linear: q, k, v and gate, up each adapted
    megatron_bridge,   // Megatron-Bridge LoRA on Megatron-core's fused linear_qkv and linear_fc1
};

// The axes whose product with dp is the world size.
struct WorldAxes {
    bool tp = true, pp = true, cp = false, sp = false;
    bool sp_only_in_axis_mode = false;   // sp counts only for sp_mode all_to_all / ring_attn (ColossalAI)
};

struct FrameworkTraits {
    Framework id;
    const char* name;           // the id in project files and on the CLI
    const char* display_name;   // for people
    const char* mesh_source;    // where the framework builds its process groups (file and function, release)
    FrameworkFamily family;
    const char* plugin;     // ColossalAI plugin class ("" elsewhere)
    const char* exporter;   // the export format that writes its files ("torchrun" when none of its own)
    WorldAxes world;
    std::vector<std::string> axes;     // the axes one can set (advisor search order): tp pp sp cp ep
    bool ep = false;                   // mixture-of-experts expert parallelism
    bool ep_from_dp = false;           // ColossalAI carves ep out of dp; otherwise an expert grid (etp, ep, edp)
    bool etp = false;                  // honours layout.etp (Megatron expert-tensor-parallel size)
    bool moe_etp_one = false;          // experts are not tensor-parallel (torchtitan default ETP = 1)
    bool dp_shard_replicate = false;   // dp = dp_replicate x dp_shard (torchtitan)
    RankOrder rank_order;
    std::vector<SpMode> sp_modes;   // accepted sp_mode values
    TpSequenceParallel tp_sequence_parallel;
    bool seq_split_by_sp = false;    // long sequences split by the sp axis (ColossalAI) rather than cp
    bool sp_axis_with_pp = true;     // the sp axis combines with pipeline parallelism
    bool context_parallel = false;   // cp: load-balanced ring attention (Megatron --context-parallel-size, torchtitan)
    std::vector<Schedule> schedules;   // layout.schedule values it runs (with pp > 1)
    Schedule interleaved;              // the schedule layout.schedule interleaved names (resolved_schedule)
    bool zbv = false;                  // runs ZBV (ColossalAI ZeroBubbleVPipeScheduler)
    bool one_f_one_b_needs_stages_of_microbatches = false;   // ColossalAI 1F1B: microbatches >= pp
    bool layers_divisible_by_stages = false;                 // Megatron's even layer split
    bool kv_heads_divisible_by_tp = false;                   // planner: query groups split over tp
    // With pp > 1 layout.num_microbatches is the microbatch count of one pipeline flush and a batch of
    // k such flushes is k gradient-accumulation steps (project/derived_sizes.h); false: the framework
    // has no such knob and runs global / (micro x dp) microbatches in one flush (Megatron-LM, DeepSpeed).
    bool num_microbatches_knob = false;
    // The data-parallel gradient reduction runs after every gradient-accumulation flush rather than
    // once per optimizer step (torchtitan, PyTorch pipelining); false: once, after the last flush.
    bool grad_sync_each_flush = false;
    ZeroSemantics zero;
    std::vector<int> zero_stages;           // accepted without pipeline parallelism
    std::vector<int> zero_stages_pp;        // accepted with pp > 1
    bool offload_params_at_zero3 = false;   // DeepSpeed offload_param
    OptimizerBytes optimizer_bytes;
    bool overlap_grad_reduce = true;
    bool overlap_param_gather = false;      // besides ZeRO-3, which always prefetches
    bool overlap_p2p = false;               // always (torchtitan)
    bool overlap_p2p_interleaved = false;   // with the interleaved schedule (Megatron)
    KernelStack kernels;                    // kernel stack by default (te or eager)
    std::vector<Fp8Recipe> fp8_recipes;     // layout.fp8_recipe values it accepts (empty: it has no recipe choice)
    // layout.fp8_recipe values with which layout.fp8_all_gather gathers FP8 weights (empty: no FP8 all-gather)
    std::vector<Fp8Recipe> fp8_all_gather_recipes;
    bool fp8_all_gather_needs_dp_shard = false;   // only where the dp_shard degree exceeds 1 (torchtitan)
    Fp8AllGatherKind fp8_all_gather_kind = Fp8AllGatherKind::none;   // what the FP8 all-gather gathers
    bool fp8_all_gather_needs_distributed_optimizer = false;   // else 16-bit gathers (Megatron --fp8-param-gather)
    // layout.fp4_recipe values it runs (none besides "none": it has no FP4 training recipe) and, where it
    // runs none of them, what it has instead (the rule's text); the transformer layers it keeps in BF16 at
    // the start and the end of the model with an FP4 recipe (the exporter writes the switch, the
    // estimate prices those layers' GEMMs at the 16-bit peak).
    std::vector<Fp4Recipe> fp4_recipes;
    const char* fp4_missing = "";
    int fp4_bf16_layers_at_start = 0, fp4_bf16_layers_at_end = 0;
    bool fused_switches_mean_te = false;      // fused_norm + jit_fused run the fused (TE-like) stack
    bool shardformer = false;                 // runs ColossalAI ShardFormer policies
    bool op_sac = false;                      // selective recomputation is op-level SAC (torchtitan)
    bool fsdp2 = false;                       // FSDP2 fully_shard holds the parameters (its allocator pattern)
    bool fsdp_reshard_off_with_pp = false;    // parameters stay gathered between forward and backward with pp
    bool fused_vocab_parallel_loss = false;   // the loss never materialises fp32 logits (Megatron)
    bool decomposed_loss_parallel = false;    // with tp > 1 the loss runs DTensor's unfused loss parallel (torchtitan)
    bool frees_logits_before_backward = false;   // the loop drops the model's logits before backward (torchtitan)
    bool tp_saves_gathered_input = false;   // with SP, column-parallel linears save the all-gathered input (DTensor)
    // With SP the TP all-gathers and reduce-scatters run on dim 1 (the sequence) of batch-first [b, s, h]
    // activations (DTensor Shard(1)), so each pays a chunk + cat copy of the whole tensor (torchtitan)
    bool sp_collectives_copy = false;
    TpCommOverlapKind tp_comm_overlap_kind = TpCommOverlapKind::none;   // what its TP overlap switch does
    // layout.fp8_recipe values with which the sequence-parallel TP all-gathers move FP8 (torchao's Float8 TP
    // styles, torchtitan); reduce-scatters stay 16-bit
    std::vector<Fp8Recipe> fp8_tp_gather_recipes;
    // With another FP8 recipe each FP8 linear casts its own input after the 16-bit all-gather, so
    // the QKV and MLP-up casts are of the gathered [b, s, h], not the shard (torchao Float8Linear)
    bool fp8_linear_casts_gathered_input = false;
    bool reports_degrees_itself = false;   // checks degrees >= 1 with its own message (torchtitan ParallelDims)
    // LoRA (layout.peft): how the adapters are added, whether they run with tp > 1, and the frozen-base
    // dtypes (layout.peft.base_dtype) the framework cannot load, each with its source in framework.cpp.
    LoraKind lora = LoraKind::none;
    bool lora_with_tp = true;
    std::vector<std::string> lora_refused_base_dtypes;
    // Hybrid Mamba models (model.hybrid_override_pattern): the framework builds Mamba-2 mixers mixed
    // with attention, MLP and MoE layers (rule model.hybrid_framework where it does not).
    bool hybrid_mamba = false;
    // The MoE experts run as Transformer Engine's grouped MLP, each expert's GEMMs and casts launched on
    // their own after a host sync on the token counts (Megatron TEGroupedMLP; estimate/moe.h
    // moe_expert_kernels prices the launches). False where the framework's MoE layers were not read.
    bool moe_per_expert_launches = false;
};

// Every framework, in the order project files and menus list them.
const std::vector<FrameworkTraits>& framework_table();
const std::vector<std::string>& framework_ids();

// nullopt / nullptr for an unknown id.
std::optional<Framework> parse_framework(const std::string& id);
const FrameworkTraits* find_traits(const std::string& id);
const FrameworkTraits& traits(Framework f);
// Throws InputError at /layout/framework naming the known ids.
const FrameworkTraits& traits_of(const std::string& id);
const FrameworkTraits& traits_of(const Layout& l);

// A plugin class name -> its ColossalAI framework (nullopt when none).
std::optional<Framework> framework_for_plugin(const std::string& plugin_class);

bool is_colossalai(const std::string& id);   // one of the ColossalAI plugins
// The schedule layout.schedule names for this framework: its own interleaved 1F1B for
// Schedule::interleaved (FrameworkTraits::interleaved; Megatron's for an unknown framework), else s.
Schedule resolved_schedule(Schedule s, const std::string& framework);
// An interleaved 1F1B, whichever framework's (interleaved, interleaved-megatron, -colossalai, -pytorch):
// an exporter writes each as its own framework's interleaved schedule.
bool is_interleaved_1f1b(Schedule s);
// Whether the framework runs this schedule (FrameworkTraits::schedules, compared as resolved, so
// "interleaved-colossalai" is ColossalAI's "interleaved").
bool runs_schedule(const std::string& framework, Schedule s);
// Whether the framework accepts this layout.fp8_recipe (any recipe where it has no recipe choice):
// read by the rules and by the exporters, which write a recipe the framework refuses as tensorwise.
bool accepts_fp8_recipe(const std::string& framework, Fp8Recipe recipe);
// The recipe the framework runs for layout.fp8_recipe: that recipe where it accepts it, else
// tensorwise, as the exporters write it (the rules report the refused recipe); the estimate reads it.
Fp8Recipe fp8_recipe_run(const std::string& framework, Fp8Recipe recipe);
// Whether layout.fp8_all_gather makes the framework gather FP8 weights with this recipe (as run:
// fp8_recipe_run; FrameworkTraits::fp8_all_gather_recipes). One meaning for the switch: the estimate counts 1-byte
// gathers only then, the rules warn where the framework ignores or refuses it, and the exporters
// write it only there.
bool gathers_fp8_weights(const std::string& framework, Fp8Recipe recipe);
// Whether the framework runs this layout.fp4_recipe (FrameworkTraits::fp4_recipes; "none" always).
bool runs_fp4_recipe(const std::string& framework, Fp4Recipe recipe);
// The ZeRO stages the framework accepts with this pipeline size.
const std::vector<int>& zero_stages(const FrameworkTraits& t, int pp);

}   // namespace paraplan
