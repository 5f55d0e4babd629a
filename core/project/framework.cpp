// Sources of each trait (public, at the releases the rule files name):
// - ColossalAI v0.4.x colossalai/booster/plugin/{hybrid_parallel_plugin,moe_hybrid_parallel_plugin,
//   gemini_plugin,low_level_zero_plugin}.py: plugin axes, pp_style in ("1f1b", "interleaved", "zbv"),
//   zero_stage in (0, 1, 2) and <= 1 with pp, MoeHybridParallelPlugin's zero_stage 1, the
//   ProcessGroupMesh (dp, pp, sp, tp) order with dp_outside.
// - Megatron-LM core_v0.19.0 megatron/core/parallel_state.py (RankGenerator order "tp-cp-ep-dp-pp",
//   world = tp * cp * pp * dp), megatron/training/arguments.py (--use-distributed-optimizer,
//   --sequence-parallel, --transformer-impl transformer_engine default), distributed/
//   distributed_data_parallel.py (fp32 main_grad buffer).
// - torchtitan v0.2.2 torchtitan/distributed/parallel_dims.py (dp_replicate * dp_shard * cp * tp * pp,
//   FSDP over dp_shard x cp), models/llama3/infra/parallelize.py (SP with every TP, op-level SAC),
//   distributed/pipeline_parallel.py (PyTorch's interleaved schedules), components/float8 (FSDP2 fp32
//   master parameters under MixedPrecisionPolicy).
// - DeepSpeed v0.16 deepspeed/runtime/pipe/topology.py (PipeModelDataParallelTopology axes
//   pipe, data, model), runtime/pipe/engine.py (ZeRO 2/3 incompatible with pipelines),
//   runtime/zero/stage3.py (offload_param), runtime/zero/stage_1_and_2.py (fp32 gradient partition).
// - PyTorch v2.4 torch/distributed/device_mesh.py (a mesh of the named dims, product == world);
//   v2.10.0 torch/distributed/pipelining/stage.py (gradients reduced at each schedule step's last backward).
#include "project/framework.h"

#include "project/layout.h"
#include "util/input_error.h"

#include <algorithm>

namespace paraplan {

namespace {

const std::vector<SpMode> kColossalSpModes = {SpMode::none, SpMode::split_gather, SpMode::ring, SpMode::all_to_all,
                                              SpMode::ring_attn};
const std::vector<SpMode> kTpSpModes = {SpMode::none, SpMode::split_gather};
const std::vector<SpMode> kNoSpModes = {SpMode::none};

std::vector<FrameworkTraits> make_table() {
    std::vector<FrameworkTraits> t;
    FrameworkTraits hybrid{};
    hybrid.id = Framework::colossalai;
    hybrid.name = "colossalai";
    hybrid.display_name = "ColossalAI HybridParallelPlugin";
    hybrid.mesh_source =
        "ColossalAI v0.5.1 colossalai/booster/plugin/hybrid_parallel_plugin.py HybridParallelPlugin.__init__ and "
        "colossalai/cluster/process_group_mesh.py ProcessGroupMesh";
    hybrid.family = FrameworkFamily::colossalai;
    hybrid.plugin = "HybridParallelPlugin";
    hybrid.exporter = "colossalai";
    hybrid.world = {true, true, false, true, true};
    hybrid.axes = {"tp", "pp", "sp"};
    hybrid.ep_from_dp = true;   // every plugin's experts (MoE plugin: ep) shard over dp
    hybrid.rank_order = RankOrder::colossalai;
    hybrid.sp_modes = kColossalSpModes;
    hybrid.tp_sequence_parallel = TpSequenceParallel::switch_split_gather;
    hybrid.seq_split_by_sp = true;
    hybrid.schedules = {Schedule::one_f_one_b, Schedule::interleaved, Schedule::zbv};
    hybrid.interleaved = Schedule::interleaved_colossalai;
    hybrid.zbv = true;
    hybrid.one_f_one_b_needs_stages_of_microbatches = true;
    // v0.5.1 booster/plugin/hybrid_parallel_plugin.py HybridParallelPlugin(num_microbatches=...): one
    // execute_pipeline call is one flush of that many microbatches; execute_pipeline returns before
    // sync_dp_grads inside booster.no_sync(), so a loop accumulating k flushes reduces gradients once.
    hybrid.num_microbatches_knob = true;
    hybrid.grad_sync_each_flush = false;
    hybrid.zero = ZeroSemantics::stage;
    hybrid.zero_stages = {0, 1, 2};
    hybrid.zero_stages_pp = {0, 1};
    hybrid.optimizer_bytes = OptimizerBytes::mixed;
    hybrid.kernels = KernelStack::eager;
    // fp8_communication (every plugin): Gemini's chunk all-gathers (zero/gemini/chunk/chunk.py
    // Chunk.__gather, all_gather_fp8) and the ZeRO optimizer's parameter all-gathers
    // (zero/low_level/low_level_optim.py) in FP8, cast per tensor whatever the linear layers' recipe.
    hybrid.fp8_all_gather_recipes = enum_values<Fp8Recipe>();
    // Wire casts: v0.5.1 zero/gemini/chunk/chunk.py Chunk.__gather casts the 16-bit chunk shard with
    // all_gather_fp8 and gathers it back into the chunk's 16-bit buffer (likewise the ZeRO optimizer's
    // parameter all-gathers): the weights stay 16-bit, only the wire is FP8.
    hybrid.fp8_all_gather_kind = Fp8AllGatherKind::wire_casts;
    // use_fp8 (quantization/fp8_hook.py FP8Hook -> fp8.py linear_fp8) casts inputs, weights and
    // gradients with cast_to_fp8's per-tensor scale from the current amax; no recipe argument.
    hybrid.fp8_recipes = {Fp8Recipe::tensorwise};
    // No FP4: the plugins' low-precision switches are FP8 only (use_fp8, fp8_communication; v0.5.1
    // colossalai/quantization/fp8.py).
    hybrid.fp4_missing = "ColossalAI's plugins have FP8 switches only (use_fp8, fp8_communication)";
    hybrid.fused_switches_mean_te = true;
    hybrid.shardformer = true;
    // LoRA through Hugging Face PEFT (ColossalAI v0.5.1 booster.py Booster.enable_lora takes a
    // peft.LoraConfig; hybrid_parallel_plugin.py enable_lora calls get_peft_model and asserts
    // self.tp_size == 1). Its quantize=True loads the base in NF4 through bitsandbytes
    // (BnbQuantizationConfig load_in_4bit, bnb_4bit_quant_type "nf4", double quant); the config's
    // other form is load_in_8bit, LLM.int8, so no FP8 base (quantization/bnb_config.py).
    hybrid.lora = LoraKind::hf_peft;
    hybrid.lora_with_tp = false;
    hybrid.lora_refused_base_dtypes = {"fp8"};
    t.push_back(hybrid);

    FrameworkTraits moe = hybrid;
    moe.id = Framework::colossalai_moe;
    moe.name = "colossalai-moe";
    moe.display_name = "ColossalAI MoeHybridParallelPlugin";
    moe.mesh_source =
        "ColossalAI v0.5.1 colossalai/booster/plugin/moe_hybrid_parallel_plugin.py MoeHybridParallelPlugin.__init__ "
        "and colossalai/cluster/process_group_mesh.py ProcessGroupMesh";
    moe.plugin = "MoeHybridParallelPlugin";
    moe.axes = {"tp", "pp", "sp", "ep"};
    moe.ep = true;
    moe.zbv = false;
    moe.sp_axis_with_pp = false;   // the plugin's sequence parallelism runs without a pipeline
    moe.zero = ZeroSemantics::stage_capped_at_1;
    moe.overlap_grad_reduce = false;
    t.push_back(moe);

    FrameworkTraits gemini = hybrid;
    gemini.id = Framework::colossalai_gemini;
    gemini.name = "colossalai-gemini";
    gemini.display_name = "ColossalAI GeminiPlugin";
    gemini.mesh_source =
        "ColossalAI v0.5.1 colossalai/booster/plugin/gemini_plugin.py GeminiPlugin.__init__ (ProcessGroupMesh)";
    gemini.plugin = "GeminiPlugin";
    gemini.world = {true, false, false, false, false};
    gemini.axes = {"tp"};
    gemini.sp_modes = kNoSpModes;
    gemini.schedules = {};
    gemini.zbv = false;
    gemini.zero = ZeroSemantics::always_3;
    gemini.zero_stages = {3};
    gemini.zero_stages_pp = {3};
    gemini.lora = LoraKind::none;   // v0.5.1 gemini_plugin.py support_lora() returns False
    t.push_back(gemini);

    FrameworkTraits zero = hybrid;
    zero.id = Framework::colossalai_zero;
    zero.name = "colossalai-zero";
    zero.display_name = "ColossalAI LowLevelZeroPlugin";
    zero.mesh_source =
        "ColossalAI v0.5.1 colossalai/booster/plugin/low_level_zero_plugin.py LowLevelZeroPlugin.__init__";
    zero.plugin = "LowLevelZeroPlugin";
    zero.world = {false, false, false, false, false};
    zero.axes = {};
    zero.sp_modes = kNoSpModes;
    zero.schedules = {};
    zero.zbv = false;
    zero.zero_stages = {1, 2};
    zero.zero_stages_pp = {1, 2};
    zero.shardformer = false;
    // v0.5.1 low_level_zero_plugin.py: support_lora() True (its second definition), enable_lora as
    // HybridParallelPlugin's without the tp assertion.
    zero.lora_with_tp = true;
    t.push_back(zero);

    FrameworkTraits mg{};
    mg.id = Framework::megatron;
    mg.name = "megatron";
    mg.display_name = "Megatron-LM";
    mg.mesh_source =
        "Megatron-LM core_v0.19.0 megatron/core/parallel_state.py RankGenerator and initialize_model_parallel";
    mg.family = FrameworkFamily::megatron;
    mg.plugin = "";
    mg.exporter = "megatron";
    mg.world = {true, true, true, false, false};
    mg.axes = {"tp", "pp", "cp", "ep"};
    mg.ep = true;
    mg.etp = true;
    mg.rank_order = RankOrder::megatron;
    mg.context_parallel = true;
    mg.sp_modes = kTpSpModes;
    mg.tp_sequence_parallel = TpSequenceParallel::switch_split_gather;
    mg.schedules = {Schedule::one_f_one_b, Schedule::interleaved};
    mg.interleaved = Schedule::interleaved_megatron;
    mg.layers_divisible_by_stages = true;
    mg.kv_heads_divisible_by_tp = true;
    // No --num-microbatches (core_v0.19.0): num_microbatches_calculator.py
    // ConstantNumMicroBatchesCalculator derives global / (micro x dp), and training.py train_step runs
    // them in one forward_backward_func call (pipeline_parallel/schedules.py: no_sync_func until the
    // last microbatch, then finalize_model_grads once).
    mg.num_microbatches_knob = false;
    mg.grad_sync_each_flush = false;
    mg.zero = ZeroSemantics::distributed_optimizer;
    mg.zero_stages = {0, 1};
    mg.zero_stages_pp = {0, 1};
    mg.optimizer_bytes = OptimizerBytes::fp32_main_grad;
    mg.overlap_param_gather = true;
    mg.overlap_p2p_interleaved = true;
    // --tp-comm-overlap (off by default; arguments.py asserts sequence parallelism with it).
    mg.tp_comm_overlap_kind = TpCommOverlapKind::userbuffers;
    mg.kernels = KernelStack::te;
    // arguments.py --fp8-recipe choices (core_v0.14.0): tensorwise delayed mxfp8 blockwise.
    mg.fp8_recipes = {Fp8Recipe::tensorwise, Fp8Recipe::delayed, Fp8Recipe::mxfp8, Fp8Recipe::blockwise};
    // --fp8-param-gather with any of them (arguments.py, core_v0.14.0: it needs the distributed
    // optimizer or FSDP, and delayed scaling only together with the optimizer's CPU offload).
    mg.fp8_all_gather_recipes = mg.fp8_recipes;
    // Primary weights: --fp8-param-gather keeps the linear weights as Transformer Engine FP8 tensors
    // that the distributed optimizer gathers from its uint8 parameter buffer; core_v0.19.0
    // arguments.py validate_args accepts it only with --use-distributed-optimizer (or an FSDP,
    // which Paraplan's Megatron does not model), so without it the gathers stay 16-bit.
    mg.fp8_all_gather_kind = Fp8AllGatherKind::primary_weights;
    mg.fp8_all_gather_needs_distributed_optimizer = true;
    // --fp4-format e2m1 with --fp4-recipe nvfp4 (its one Transformer Engine recipe; "custom" takes a
    // quantizer factory): transformer_config.py fp4 / fp4_recipe, core_v0.16.0 (arguments.py in
    // core_v0.15.0); fp4_utils.py get_fp4_recipe builds TE's NVFP4BlockScaling. No MXFP4 recipe.
    mg.fp4_recipes = {Fp4Recipe::nvfp4};
    mg.fp4_missing = "Megatron-LM's --fp4-recipe runs nvfp4 only (Transformer Engine NVFP4BlockScaling)";
    // The NVFP4 pretraining recipe keeps selected layers in high precision (arXiv 2509.25149,
    // "selective high-precision layers"); Megatron's --first-last-layers-bf16 does so with
    // --num-layers-at-start-in-bf16 / --num-layers-at-end-in-bf16 at their default 1 each
    // (arguments.py core_v0.15.0; fp4_utils.py get_fp4_context leaves those layers out of FP4).
    mg.fp4_bf16_layers_at_start = 1;
    mg.fp4_bf16_layers_at_end = 1;
    mg.fused_vocab_parallel_loss = true;   // tensor_parallel/cross_entropy.py vocab_parallel_cross_entropy
    // Megatron-LM's pretrain_gpt.py has no LoRA; Megatron-Bridge's LoRA (megatron/bridge/peft/lora.py,
    // NVIDIA-NeMo/Megatron-Bridge 0191fc5) wraps the Megatron-core linears, fused linear_qkv and
    // linear_fc1 included, with TP-parallel adapters (ParallelLinearAdapter). It adds nothing that loads a
    // 4-bit base into Megatron-core's linears: its bitsandbytes branch only patches plain nn.Linear
    // modules that already carry a quant_state.
    mg.lora = LoraKind::megatron_bridge;
    mg.lora_refused_base_dtypes = {"nf4"};
    // pretrain_mamba.py builds MambaModel (megatron/core/models/mamba/mamba_model.py) whose MambaStack
    // (megatron/core/ssm/mamba_block.py) places Mamba, attention, MLP and MoE layers by
    // --hybrid-override-pattern, core_v0.16.0. The other frameworks' model code has no Mamba mixer.
    mg.hybrid_mamba = true;
    // --moe-grouped-gemm builds TEGroupedMLP (megatron/core/transformer/moe/experts.py, core_v0.19.0):
    // its forward waits for tokens_per_expert.tolist() and launches each expert's GEMMs and casts.
    mg.moe_per_expert_launches = true;
    t.push_back(mg);

    FrameworkTraits tt{};
    tt.id = Framework::torchtitan;
    tt.name = "torchtitan";
    tt.display_name = "torchtitan";
    tt.mesh_source = "torchtitan v0.2.2 torchtitan/distributed/parallel_dims.py ParallelDims.build_mesh";
    tt.family = FrameworkFamily::torchtitan;
    tt.plugin = "";
    tt.exporter = "torchtitan";
    tt.world = {true, true, true, false, false};
    tt.axes = {"tp", "pp", "cp", "ep"};
    tt.ep = true;
    tt.moe_etp_one = true;
    tt.dp_shard_replicate = true;
    tt.rank_order = RankOrder::megatron;
    tt.context_parallel = true;
    tt.sp_modes = kTpSpModes;
    tt.tp_sequence_parallel = TpSequenceParallel::always;
    tt.schedules = {Schedule::one_f_one_b, Schedule::interleaved, Schedule::zbv};
    tt.interleaved = Schedule::interleaved_pytorch;
    // v0.2.2 train.py Trainer.__init__: gradient_accumulation_steps = global_batch_size //
    // (local_batch_size x dp); train_step runs pp_schedule.step once per step on a local batch split into
    // local_batch_size / pipeline_parallel_microbatch_size microbatches, with no no_sync around the
    // steps, and each schedule step reduces gradients at its last backward (PyTorch v2.10.0
    // torch/distributed/pipelining/stage.py backward_maybe_with_nosync).
    tt.num_microbatches_knob = true;
    tt.grad_sync_each_flush = true;
    tt.zero = ZeroSemantics::fsdp;
    tt.zero_stages = {0, 3};
    tt.zero_stages_pp = {0, 3};
    tt.optimizer_bytes = OptimizerBytes::fsdp2_fp32;
    tt.overlap_param_gather = true;
    tt.overlap_p2p = true;
    tt.kernels = KernelStack::eager;
    // v0.2.2 config/job_config.py: [quantize.linear.float8] recipe_name (tensorwise, rowwise,
    // rowwise_with_gw_hp); MX formats through the separate converter "quantize.linear.mx".
    tt.fp8_recipes = {Fp8Recipe::tensorwise, Fp8Recipe::rowwise, Fp8Recipe::mxfp8};
    // torchao float8/config.py (v0.13.0 Float8LinearConfig.__post_init__): enable_fsdp_float8_all_gather
    // "only supports tensorwise scaling granularity"; torchtitan v0.2.2 components/quantization/float8.py
    // (Float8LinearConverter) refuses it with a recipe_name and turns it on only when
    // parallel_dims.dp_shard_enabled; mx.py's MXLinear has no all-gather setting.
    tt.fp8_all_gather_recipes = {Fp8Recipe::tensorwise};
    tt.fp8_all_gather_needs_dp_shard = true;
    // FSDP weights: FSDP2 all-gathers the Float8 weight shards into FP8 buffers (torchao v0.13.0
    // float8/fsdp_utils.py WeightWithDynamicFloat8CastTensor fsdp_pre_all_gather, switched on by
    // enable_fsdp_float8_all_gather through torchtitan's Float8LinearConverter).
    tt.fp8_all_gather_kind = Fp8AllGatherKind::fsdp_weights;
    // No FP4 training: [quantize.linear.mx] is documented and checked for MXFP8 (v0.2.2 job_config.py,
    // components/quantization/mx.py), and torchao's MX workflow trains in MXFP8 only, MXFP4 being an
    // inference format there (torchao v0.13.0 prototype/mx_formats/README.md).
    tt.fp4_missing = "torchtitan's MX converter trains in MXFP8 only (torchao's MXFP4 is for inference)";
    tt.op_sac = true;
    tt.fsdp2 = true;
    tt.fsdp_reshard_off_with_pp = true;       // parallelize.py apply_fsdp: reshard_after_forward False with pp
    tt.decomposed_loss_parallel = true;       // train.py: loss_parallel unless training.disable_loss_parallel
    tt.frees_logits_before_backward = true;   // 9dec370 train.py: del pred before loss.backward()
    // DTensor tensor parallelism (9dec370 apply_tp): PrepareModuleInput redistributes the
    // sequence-sharded norm output to Replicate before wq/wk/wv and w1/w3, and ColwiseParallel on
    // the output layer all-gathers its Shard(1) input; the linear's autograd then saves that
    // gathered input. Megatron (tensor_parallel/layers.py LinearWithGradAccumulationAndAsync-
    // Communication) and ColossalAI (shardformer/layer/_operation.py _LinearWithGatherForward-
    // ReduceScatterBackward, v0.4.9) save the shard and gather again in backward.
    tt.tp_saves_gathered_input = true;
    // DTensor redistributes Shard(1) <-> Replicate / Partial -> Shard(1) through funcol
    // all_gather_tensor(gather_dim=1) and reduce_scatter_tensor(scatter_dim=1), which gather or
    // reduce along dim 0 and copy (torch.cat of torch.chunk) after the all-gather and before the
    // reduce-scatter (torch/distributed/_functional_collectives.py); torchtitan keeps [b, s, h]
    // (820504e apply_tp: "we can accelerate Sequence Parallel by folding (and unfolding) the batch
    // dimension and the sequence dimension", torchtitan PR #437: "incurs an extra aten.cat after
    // each collective").
    tt.sp_collectives_copy = true;
    // [parallelism] enable_async_tensor_parallel (off by default; with compile, config_manager.py).
    tt.tp_comm_overlap_kind = TpCommOverlapKind::micro_pipeline;
    // 820504e parallelize_llama: enable_float8_tensorwise_tp (Float8ColwiseParallel,
    // Float8RowwiseParallel, PrepareFloat8ModuleInput) for tensorwise only, "for rowwise recipes
    // ... all-gather happens in high precision"; 9dec370 applies them with every float8 linear
    // (tensorwise was its only recipe).
    tt.fp8_tp_gather_recipes = {Fp8Recipe::tensorwise};
    // Rowwise: plain ColwiseParallel / PrepareModuleInput gather the 16-bit norm output and
    // torchao's Float8Linear.forward casts its input inside the linear (float8_linear.py
    // matmul_with_hp_or_float8_args, 6243040).
    tt.fp8_linear_casts_gathered_input = true;
    tt.reports_degrees_itself = true;
    // No LoRA in the v0.2 releases whose TOML Paraplan writes; torchtitan main added a LoRAConverter
    // (torchtitan/components/lora.py, 74181b1e8, May 2026) configured in its newer Python configs.
    tt.lora = LoraKind::none;
    t.push_back(tt);

    FrameworkTraits ds{};
    ds.id = Framework::deepspeed;
    ds.name = "deepspeed";
    ds.display_name = "DeepSpeed";
    ds.mesh_source = "DeepSpeed v0.16.5 deepspeed/runtime/pipe/topology.py PipeModelDataParallelTopology";
    ds.family = FrameworkFamily::deepspeed;
    ds.plugin = "";
    ds.exporter = "deepspeed";
    ds.world = {true, true, false, false, false};
    ds.axes = {"tp", "pp", "ep"};
    ds.ep = true;
    ds.rank_order = RankOrder::deepspeed;
    ds.sp_modes = kNoSpModes;
    ds.tp_sequence_parallel = TpSequenceParallel::none;
    ds.schedules = {Schedule::one_f_one_b};
    ds.interleaved = Schedule::interleaved_megatron;
    // No microbatch-count key (v0.19.5): runtime/config.py _set_batch_related_parameters derives
    // gradient_accumulation_steps = train_batch_size / (micro batch x dp), and runtime/pipe/engine.py
    // PipelineEngine sets micro_batches = gradient_accumulation_steps() for one TrainSchedule per
    // train_batch, whose ReduceGrads (runtime/pipe/schedule.py) runs once after the last microbatch.
    ds.num_microbatches_knob = false;
    ds.grad_sync_each_flush = false;
    ds.zero = ZeroSemantics::stage;
    ds.zero_stages = {0, 1, 2, 3};
    ds.zero_stages_pp = {0, 1};
    ds.offload_params_at_zero3 = true;
    ds.optimizer_bytes = OptimizerBytes::fp32_grad_copy;
    ds.kernels = KernelStack::eager;
    // No FP8 all-gather: ds_config has no FP8 switch; ZeRO++'s zero_quantized_weights
    // (runtime/zero/config.py) gathers INT8-quantized blocks, another format.
    ds.fp8_all_gather_recipes = {};
    ds.fp8_all_gather_kind = Fp8AllGatherKind::none;
    // ds_config.json has no LoRA key: the training script wraps the model (Hugging Face PEFT, or
    // deepspeed.linear.LoRAConfig / LoRAOptimizedLinear since v0.14.2) before deepspeed.initialize,
    // which trains the parameters that require grad.
    ds.lora = LoraKind::hf_peft;
    ds.fp4_missing = "DeepSpeed's ds_config has no FP4 training switch";
    t.push_back(ds);

    FrameworkTraits dm{};
    dm.id = Framework::devicemesh;
    dm.name = "devicemesh";
    dm.display_name = "PyTorch DeviceMesh";
    dm.mesh_source = "PyTorch v2.4 torch/distributed/device_mesh.py init_device_mesh";
    dm.family = FrameworkFamily::pytorch;
    dm.plugin = "";
    dm.exporter = "torchrun";
    dm.world = {true, true, true, true, false};
    dm.axes = {"tp", "pp", "sp", "cp"};
    dm.rank_order = RankOrder::megatron;
    dm.sp_modes = kColossalSpModes;
    dm.tp_sequence_parallel = TpSequenceParallel::none;
    dm.schedules = {Schedule::one_f_one_b, Schedule::interleaved, Schedule::zbv, Schedule::gpipe};
    dm.interleaved = Schedule::interleaved_megatron;
    // torch.distributed.pipelining: a schedule's n_microbatches is one step (flush); the training loop
    // accumulates by calling step again, and each step reduces gradients at its last backward
    // (PyTorch v2.10.0 torch/distributed/pipelining/stage.py backward_maybe_with_nosync).
    dm.num_microbatches_knob = true;
    dm.grad_sync_each_flush = true;
    dm.zero = ZeroSemantics::stage;
    dm.zero_stages = {0, 1, 2};
    dm.zero_stages_pp = {0, 1};
    dm.optimizer_bytes = OptimizerBytes::mixed;
    dm.kernels = KernelStack::eager;
    // No FP8 all-gather: a plain DeviceMesh job has no float8 converter or FSDP switch of its own.
    dm.fp8_all_gather_recipes = {};
    dm.fp8_all_gather_kind = Fp8AllGatherKind::none;
    // A plain PyTorch model: Hugging Face PEFT's get_peft_model wraps its nn.Linear modules.
    dm.lora = LoraKind::hf_peft;
    dm.fp4_missing = "a plain DeviceMesh job has no FP4 linear layers of its own";
    t.push_back(dm);
    return t;
}

}   // namespace

const std::vector<FrameworkTraits>& framework_table() {
    static const std::vector<FrameworkTraits> t = make_table();
    return t;
}

const std::vector<std::string>& framework_ids() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> v;
        for (const auto& t : framework_table()) v.push_back(t.name);
        return v;
    }();
    return ids;
}

const FrameworkTraits* find_traits(const std::string& id) {
    for (const auto& t : framework_table())   // the first character first: most names differ there
        if (!id.empty() && id[0] == t.name[0] && id == t.name) return &t;
    return nullptr;
}

Schedule resolved_schedule(Schedule s, const std::string& framework) {
    if (s != Schedule::interleaved) return s;
    const FrameworkTraits* t = find_traits(framework);
    return t ? t->interleaved : Schedule::interleaved_megatron;
}

bool is_interleaved_1f1b(Schedule s) {
    return s == Schedule::interleaved || s == Schedule::interleaved_megatron || s == Schedule::interleaved_colossalai ||
           s == Schedule::interleaved_pytorch;
}

bool runs_schedule(const std::string& framework, Schedule s) {
    const FrameworkTraits* t = find_traits(framework);
    if (!t) return false;
    const Schedule r = resolved_schedule(s, framework);
    return std::any_of(t->schedules.begin(), t->schedules.end(),
                       [&](Schedule x) { return resolved_schedule(x, framework) == r; });
}

bool accepts_fp8_recipe(const std::string& framework, Fp8Recipe recipe) {
    const FrameworkTraits* t = find_traits(framework);
    if (!t || t->fp8_recipes.empty()) return true;
    return std::find(t->fp8_recipes.begin(), t->fp8_recipes.end(), recipe) != t->fp8_recipes.end();
}

Fp8Recipe fp8_recipe_run(const std::string& framework, Fp8Recipe recipe) {
    return accepts_fp8_recipe(framework, recipe) ? recipe : Fp8Recipe::tensorwise;
}

bool gathers_fp8_weights(const std::string& framework, Fp8Recipe recipe) {
    const FrameworkTraits* t = find_traits(framework);
    if (!t) return false;
    const auto& r = t->fp8_all_gather_recipes;
    return std::find(r.begin(), r.end(), fp8_recipe_run(framework, recipe)) != r.end();
}

bool runs_fp4_recipe(const std::string& framework, Fp4Recipe recipe) {
    if (recipe == Fp4Recipe::none) return true;
    const FrameworkTraits* t = find_traits(framework);
    return t && std::find(t->fp4_recipes.begin(), t->fp4_recipes.end(), recipe) != t->fp4_recipes.end();
}

std::optional<Framework> parse_framework(const std::string& id) {
    const FrameworkTraits* t = find_traits(id);
    return t ? std::optional<Framework>(t->id) : std::nullopt;
}

const FrameworkTraits& traits(Framework f) { return framework_table()[static_cast<std::size_t>(f)]; }

const FrameworkTraits& traits_of(const std::string& id) {
    if (const FrameworkTraits* t = find_traits(id)) return *t;
    std::string known;
    for (const auto& n : framework_ids()) known += (known.empty() ? "" : ", ") + n;
    throw InputError("/layout/framework", "unknown framework '" + id + "': expected one of " + known);
}

const FrameworkTraits& traits_of(const Layout& l) { return traits_of(l.framework); }

std::optional<Framework> framework_for_plugin(const std::string& plugin_class) {
    for (const auto& t : framework_table())
        if (!plugin_class.empty() && plugin_class == t.plugin) return t.id;
    return std::nullopt;
}

bool is_colossalai(const std::string& id) {
    const FrameworkTraits* t = find_traits(id);
    return t && t->family == FrameworkFamily::colossalai;
}

const std::vector<int>& zero_stages(const FrameworkTraits& t, int pp) {
    return pp > 1 ? t.zero_stages_pp : t.zero_stages;
}

}   // namespace paraplan
