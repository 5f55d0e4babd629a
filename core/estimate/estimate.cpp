#include "estimate/estimate.h"

#include "project/fp8.h"
#include "estimate/lora.h"

#include "estimate/comm.h"
#include "estimate/layers.h"
#include "estimate/moe.h"
#include "estimate/pipeline.h"
#include "estimate/placement.h"
#include "estimate/profile.h"
#include "estimate/simulated_pipeline.h"
#include "network/systems.h"
#include "project/derived_sizes.h"
#include "project/framework.h"
#include "project/sequence_parallel.h"
#include "project/tp_comm_overlap.h"
#include "util/input_error.h"

#include <algorithm>
#include <cmath>

namespace paraplan::estimate {

bool is_multi_chunk(Schedule s) {
    return s == Schedule::interleaved || s == Schedule::interleaved_megatron || s == Schedule::interleaved_colossalai ||
           s == Schedule::interleaved_pytorch || s == Schedule::looped_bfs || s == Schedule::interleaved_zb;
}

bool is_v_shape(Schedule s) { return s == Schedule::zbv || s == Schedule::dualpipev; }

const char* reported_name(Schedule s) {
    const bool interleaved_1f1b = s == Schedule::interleaved || s == Schedule::interleaved_megatron ||
                                  s == Schedule::interleaved_colossalai;
    return interleaved_1f1b ? "interleaved" : to_string(s);
}

const char* simulator_name(Schedule s) {
    switch (s) {
    case Schedule::gpipe: return "gpipe";
    case Schedule::one_f_one_b: return "1f1b";
    case Schedule::interleaved:   // resolved before (resolved_schedule); Megatron's where it was not
    case Schedule::interleaved_megatron: return "interleaved-megatron";
    case Schedule::interleaved_colossalai: return "interleaved";
    case Schedule::interleaved_pytorch: return "interleaved-pytorch";
    case Schedule::looped_bfs: return "looped-bfs";
    case Schedule::zb1p: return "zbh1";   // ScheduleInterleavedZeroBubble with one chunk
    case Schedule::zbh2: return "zbh2";
    case Schedule::interleaved_zb: return "interleaved-zb";
    case Schedule::zbv: return "zbv";
    case Schedule::dualpipev: return "dualpipev";
    }
    return "1f1b";
}

const char* to_string(Fp8Gather g) {
    switch (g) {
    case Fp8Gather::none: return "none";
    case Fp8Gather::fsdp_weights: return "fsdp_weights";
    case Fp8Gather::primary_weights: return "primary_weights";
    case Fp8Gather::wire_casts: return "wire_casts";
    }
    return "none";
}

const char* to_string(TpCommOverlapKind k) {
    switch (k) {
    case TpCommOverlapKind::none: return "none";
    case TpCommOverlapKind::userbuffers: return "userbuffers";
    case TpCommOverlapKind::micro_pipeline: return "micro_pipeline";
    }
    return "none";
}

Fp8Gather fp8_gather_of(const Config& c) {
    if (!c.fp8_all_gather || !c.fp8) return Fp8Gather::none;
    // The framework's row (project/framework.h, fp8_all_gather_kind). An id outside the table
    // (a Config built by hand) gathers FSDP weights, as a plain FSDP would.
    const FrameworkTraits* ft = find_traits(c.framework);
    if (!ft) return Fp8Gather::fsdp_weights;
    if (ft->fp8_all_gather_needs_distributed_optimizer && !c.distributed_optimizer) return Fp8Gather::none;
    return ft->fp8_all_gather_kind;
}

Hardware hardware_for(const GpuSpec& gpu, const Cluster& cluster, Precision precision) {
    Hardware hw;
    hw.memory_gib = gpu.memory_gib;
    // training.precision is the 16-bit (or 32-bit) compute dtype; FP8 is layout.fp8 on top of
    // it (a legacy precision "fp8" means bf16 + FP8 linear layers).
    double peak = 0;
    if (precision == Precision::fp32) peak = gpu.tflops_fp32;
    else if (precision == Precision::tf32) peak = gpu.tflops_tf32;
    else if (precision == Precision::fp16) peak = gpu.tflops_fp16;
    else peak = gpu.tflops_bf16;
    if (peak <= 0) peak = gpu.tflops_bf16 > 0 ? gpu.tflops_bf16 : gpu.tflops_fp16;
    // A power limit below the TDP lowers the sustained clock and with it every tensor-core peak.
    hw.power_ratio = gpu.power_ratio();
    const double derate = gpu.power_derate();
    hw.peak_tflops = peak * derate;
    hw.peak_fp8_tflops = gpu.tflops_fp8 * derate;
    hw.peak_fp4_tflops = gpu.tflops_fp4 * derate;
    hw.hbm_gbps = gpu.hbm_gbps > 0 ? gpu.hbm_gbps : 1000;
    hw.intra_node_gbps = gpu.intra_node_gbps > 0 ? gpu.intra_node_gbps : 32;
    if (!cluster.nodes.empty() && cluster.nodes[0].intra_node_gbps)
        hw.intra_node_gbps = *cluster.nodes[0].intra_node_gbps;
    hw.inter_node_gbits = cluster.network.inter_node_gbps;
    hw.latency_us = cluster.network.latency_us;
    hw.gpus_per_node = std::max(1, cluster.gpus_per_node());
    hw.arch = gpu.arch;
    // Every project is priced on its tiers as paraplan-cli comm prices them (network::system_of):
    // a catalog system's, its own, or the two its nodes and network make. A system of other GPUs
    // than the nodes' is rule cluster.system_gpus, and keeps the flat network meanwhile.
    try {
        hw.network = std::make_shared<const network::System>(network::system_of(cluster));
    } catch (const InputError&) {
        hw.network = nullptr;
    }
    return hw;
}

namespace {

bool has_dropout(const ModelSpec& m) { return m.family == "gpt2" || m.family == "bert" || m.family == "t5"; }

StateBytes state_bytes(OptimizerBytes framework, const Training& t) {
    StateBytes b;
    // SGD with momentum and Lion keep one fp32 moment, Adam(W) two, Adafactor factored ones.
    const bool one_moment = t.optimizer == Optimizer::sgd || t.optimizer == Optimizer::lion;
    const bool factored = t.optimizer == Optimizer::adafactor;
    if (t.precision == Precision::fp32 || t.precision == Precision::tf32) {
        b.weight = 4;
        b.grad = 4;
        b.optimizer = one_moment ? 4 : factored ? 0.1 : 8;
        return b;
    }
    // Mixed precision: 16-bit weights; fp32 master copy + moments count as optimizer
    // (ZeRO paper K = 12 for Adam, 8 for SGD with momentum; Transformer Math 101).
    b.weight = 2;
    b.optimizer = one_moment ? 8 : factored ? 4.1 : 12;
    b.grad = 2;
    if (framework == OptimizerBytes::fp32_main_grad)
        b.grad = 4;   // fp32 main_grad buffer: 18 B/param (6 + 12/dp distributed)
    if (framework == OptimizerBytes::fp32_grad_copy) {
        // DeepSpeed keeps 16-bit grads plus an fp32 gradient partition (ZeRO estimators: 2 + 18/G ... 16 + 2).
        b.grad = 2;
        b.optimizer += 4;
    }
    if (framework == OptimizerBytes::fsdp2_fp32) {
        // FSDP2 mixed precision: sharded fp32 parameters are the master copy; fp32 gradients.
        b.weight = 4;
        b.grad = 4;
        b.optimizer = one_moment ? 4 : 8;
    }
    return b;
}

}   // namespace

Config make_config(const ModelSpec& m, const Training& t, const Layout& l, const Hardware& hw, int world,
                   std::vector<std::string>* notes) {
    auto note = [&](const std::string& s) {
        if (notes) notes->push_back(s);
    };
    auto need = [](bool ok, const char* ptr, const std::string& msg) {
        if (!ok) throw InputError(ptr, msg);
    };
    Config c;
    const std::string& fw = l.framework;
    const FrameworkTraits& ft = traits_of(l);
    need(l.tp >= 1, "/layout/tp", "tp must be at least 1");
    need(l.pp >= 1, "/layout/pp", "pp must be at least 1");
    need(l.cp >= 1 && l.sp >= 1 && l.ep >= 1, "/layout", "cp, sp and ep must be at least 1");
    need(t.micro_batch_size >= 1, "/training/micro_batch_size", "micro_batch_size must be at least 1");
    need(t.seq_len >= 1, "/training/seq_len", "seq_len must be at least 1");
    need(m.layers >= 1 && m.hidden >= 1 && m.heads >= 1, "/model", "the model needs layers, hidden and heads");
    c.tp = l.tp;
    c.pp = l.pp;
    c.ep = m.experts > 0 ? l.ep : 1;
    c.schedule = l.pp > 1 ? resolved_schedule(l.schedule, fw) : Schedule::one_f_one_b;
    c.chunks = is_multi_chunk(c.schedule) ? std::max(2, l.chunks) : is_v_shape(c.schedule) ? 2 : 1;
    c.recompute = l.recompute;
    c.flash_attention = l.flash_attention;
    c.framework = fw;
    c.kernels = kernel_stack(l);
    c.compile_loss = l.compile_loss && c.kernels == KernelStack::compile;
    c.loss_logits = l.loss_logits;
    if (fp8_on(l, t)) {
        // A recipe the framework does not have is written as tensorwise by every exporter (the rules
        // report it), so it is estimated as tensorwise too.
        const Fp8Recipe run = fp8_recipe_run(fw, l.fp8_recipe);
        c.fp8 = run;
        if (run != l.fp8_recipe)
            note(ft.display_name + std::string(" has no ") + to_string(l.fp8_recipe) +
                 " FP8 recipe; estimated as tensorwise, as the exporters write it");
        // FP8 all-gathers only where the framework gathers FP8 weights with this recipe (framework.h).
        c.fp8_all_gather = l.fp8_all_gather && gathers_fp8_weights(fw, l.fp8_recipe);
        if (l.fp8_all_gather && !c.fp8_all_gather)
            note(ft.display_name + std::string(" gathers no FP8 weights with the ") + to_string(run) +
                 " recipe; fp8_all_gather is ignored and the all-gathers are estimated in 16-bit");
        if (hw.peak_fp8_tflops <= 0) note("FP8 requested but the GPU has no FP8 tensor cores; estimated in 16-bit");
    }
    if (l.peft) {
        // LoRA (estimate/lora.h): the adapters as the framework adds them (FrameworkTraits::lora).
        c.lora.rank = l.peft->rank;
        c.lora.targets = l.peft->targets;
        c.lora.base_bytes = base_weight_bytes(l.peft->base_dtype);
        c.lora.fused = ft.lora != LoraKind::hf_peft;
        if (ft.lora == LoraKind::none)
            note(ft.display_name + std::string(" has no LoRA that Paraplan can export (rule peft.framework); "
                                               "estimated as Megatron-Bridge would run it"));
        if (m.kv_lora_rank > 0 && l.peft->has_target(LoraTarget::linear_qkv))
            note(
                "multi-latent attention has no fused linear_qkv; its adapter is counted as one over h -> "
                "q + k + v widths");
    }
    if (l.fp4_recipe != Fp4Recipe::none) {
        // By mechanism, as the recipe runs on the GPU: where the framework or the GPU cannot run it the
        // rules refuse the project (kernel.fp4_recipe, kernel.fp4_gpu) and the figures are a what-if.
        c.fp4 = l.fp4_recipe;
        c.fp4_bf16_layers_at_start = ft.fp4_bf16_layers_at_start;
        c.fp4_bf16_layers_at_end = ft.fp4_bf16_layers_at_end;
        if (c.fp8) {
            c.fp8.reset();
            c.fp8_all_gather = false;
            note("fp4_recipe and FP8 are both set; estimated in FP4 alone (kernel.fp4_fp8)");
        }
        if (!runs_fp4_recipe(fw, l.fp4_recipe))
            note(ft.display_name + std::string(" cannot train with the ") + to_string(l.fp4_recipe) +
                 " recipe (kernel.fp4_recipe); estimated as the recipe would run");
        if (hw.peak_fp4_tflops <= 0) note("FP4 requested but the GPU has no FP4 tensor cores; estimated in 16-bit");
    }
    c.dropout = has_dropout(m);
    c.bytes = state_bytes(ft.optimizer_bytes, t);
    c.grad_reduce_bytes = c.bytes.grad >= 4 ? 4 : 2;
    c.seq_len = t.seq_len;
    c.micro_batch = t.micro_batch_size;

    // Sequence split and the groups ZeRO shards over.
    int seq_split = 1;
    const bool colossal = ft.seq_split_by_sp;   // ColossalAI: the sequence splits over sp, not cp
    c.sequence_parallel = tp_sequence_parallel_on(l, ft);
    if (colossal) {
        if (sp_axis_mode(l.sp_mode)) {
            seq_split = l.sp;
            c.seq_split = l.sp_mode == SpMode::ring_attn ? SeqSplit::ring : SeqSplit::ulysses;
        }
        if (l.sp_mode == SpMode::ring_attn) c.flash_attention = true;
    } else {
        seq_split = l.cp;
        if (l.cp > 1) c.seq_split = (l.sp_mode == SpMode::all_to_all) ? SeqSplit::ulysses : SeqSplit::ring;
    }
    c.cp = std::max(1, seq_split);
    const long long model_size = 1LL * c.tp * c.pp * c.cp;
    need(world > 0 && world % model_size == 0, "/layout",
         "the world size (" + std::to_string(world) + ") is not divisible by tp x pp x " +
             std::string(colossal ? "sp" : "cp") + " = " + std::to_string(model_size));
    const DerivedSizes ds = derived_sizes(l, t, world);
    c.dp = l.dp > 0 ? l.dp : ds.dp;
    need(1LL * c.dp * model_size == world, "/layout/dp",
         "dp (" + std::to_string(c.dp) + ") x tp x pp x cp does not equal the world size " + std::to_string(world));
    const long long per_replica = 1LL * t.micro_batch_size * c.dp;
    // The training section's global batch is what an optimizer step processes. Where the
    // framework reads layout.num_microbatches as one pipeline flush (layout_microbatches,
    // project/derived_sizes.h) and the batch holds k whole flushes, the step is k flushes of
    // that many microbatches (gradient accumulation), as the rules accept it; otherwise the
    // batch gives the count (the rules report a count the framework does not run).
    const long long from_batch = microbatches_from_batch(t.global_batch_size, t.micro_batch_size, c.dp);
    const long long per_flush = layout_microbatches(l);
    if (from_batch && per_flush > 0 && from_batch % per_flush == 0) {
        c.num_microbatches = int(per_flush);
        c.grad_accum_steps = int(from_batch / per_flush);
        c.grad_sync_each_flush = ft.grad_sync_each_flush;
        if (c.grad_accum_steps > 1)
            note("global_batch_size / (micro_batch_size x dp x num_microbatches) = " +
                 std::to_string(c.grad_accum_steps) + ": each optimizer step runs " +
                 std::to_string(c.grad_accum_steps) + " pipeline flushes of " + std::to_string(per_flush) +
                 " microbatches (gradient accumulation), each with its own bubble; the gradient reduction runs " +
                 (c.grad_sync_each_flush ? "after every flush" : "once, after the last flush"));
    } else if (from_batch) {
        c.num_microbatches = int(from_batch);
        if (l.num_microbatches > 0 && l.num_microbatches != c.num_microbatches) {
            const std::string why =
                per_flush > 0 ? "is not a whole number of flushes in global_batch_size / (micro_batch_size x dp) = "
                : l.pp > 1    ? "is not read by " + std::string(ft.display_name) +
                                 ", which runs global_batch_size / (micro_batch_size x dp) = "
                           : "is not read without a pipeline (pp 1); the step runs global_batch_size / "
                             "(micro_batch_size x dp) = ";
            note("layout.num_microbatches (" + std::to_string(l.num_microbatches) + ") " + why +
                 std::to_string(c.num_microbatches) + " microbatches per step; estimated with " +
                 std::to_string(c.num_microbatches));
        }
    } else if (l.num_microbatches > 0) {
        c.num_microbatches = l.num_microbatches;
        note("global_batch_size is not divisible by micro_batch_size x dp; using layout.num_microbatches");
    } else {
        need(false, "/training/global_batch_size",
             "global_batch_size (" + std::to_string(t.global_batch_size) +
                 ") is not divisible by micro_batch_size x dp = " + std::to_string(per_replica));
    }
    need(c.num_microbatches >= 1, "/training/global_batch_size",
         "the batch gives no microbatch per data-parallel rank");

    // Expert grid: ColossalAI carves ep out of dp (moe_dp = dp / ep) and shards experts with tp;
    // Megatron's expert grid has etp (default tp), ep and edp = world / (etp ep pp).
    c.etp = (ft.etp && l.etp > 0) ? l.etp : (m.experts > 0 && ft.moe_etp_one ? 1 : c.tp);
    if (m.experts > 0) {
        const long long eg = 1LL * c.etp * c.ep * c.pp;
        need(world % eg == 0, "/layout/ep", "the world size is not divisible by etp x ep x pp = " + std::to_string(eg));
        c.expert_dp = int(world / eg);
    }

    // ZeRO group per framework.
    int zero = l.zero_stage;
    c.zero_group = c.dp;
    if (colossal && sp_axis_mode(l.sp_mode)) c.zero_group = c.dp * c.cp;   // mixed_dp_group = DP x SP
    if (ft.zero == ZeroSemantics::distributed_optimizer) {
        c.distributed_optimizer = l.distributed_optimizer || zero >= 1;
        zero = 0;
        c.zero_group = c.dp * c.cp;   // distributed optimizer shards over DP x CP
        if (c.fp8_all_gather && ft.fp8_all_gather_needs_distributed_optimizer && !c.distributed_optimizer) {
            c.fp8_all_gather = false;
            note(
                "--fp8-param-gather runs only with the distributed optimizer (rule megatron.fp8_param_gather); "
                "the weights and their all-gathers are estimated in 16-bit");
        }
    }
    if (ft.zero == ZeroSemantics::always_3) {
        zero = 3;
        c.offload_optimizer = l.offload_fraction;
    }
    if (ft.zero == ZeroSemantics::fsdp) {
        const int shard = l.dp_shard > 0 ? l.dp_shard : std::max(1, c.dp / std::max(1, l.dp_replicate));
        // torchtitan folds the CP mesh into FSDP's (dp_shard_cp): parameters are sharded over
        // dp_shard x cp, so FSDP is on whenever that product exceeds one.
        zero = shard * c.cp > 1 ? 3 : 0;
        c.zero_group = shard * c.cp;
        if (c.fp8_all_gather && ft.fp8_all_gather_needs_dp_shard && shard <= 1) {
            c.fp8_all_gather = false;
            note("fp8_all_gather needs dp_shard > 1 in " + std::string(ft.display_name) +
                 "; the all-gathers are estimated in 16-bit");
        }
    }
    if (ft.zero == ZeroSemantics::stage_capped_at_1 && zero == 2) {
        zero = 1;
        note("colossalai-moe runs ZeRO-2 as ZeRO-1 (MoeHybridParallelPlugin forces zero_stage=1)");
    }
    c.zero_stage = zero;
    c.expert_zero_group = m.experts > 0 ? (ft.ep_from_dp ? std::max(1, c.dp / c.ep) : c.expert_dp) : 1;
    if (l.offload != Offload::none) {
        c.offload_optimizer = l.offload_fraction > 0 ? l.offload_fraction : 1.0;
        c.offload_nvme = l.offload == Offload::nvme;
        c.offload_params = zero >= 3 && ft.offload_params_at_zero3;
    }
    // Overlap the frameworks do by default.
    c.overlap_grad_reduce = ft.overlap_grad_reduce;
    c.overlap_param_gather = ft.overlap_param_gather || zero >= 3;
    c.overlap_p2p = (ft.overlap_p2p_interleaved && is_multi_chunk(c.schedule)) || ft.overlap_p2p;
    // TP communication overlap, under each framework's own switch (off by default in both), in the
    // meaning the rule kernel.tp_comm_overlap reports (project/tp_comm_overlap.h).
    const TpOverlapState tpo = tp_comm_overlap_state(l, ft);
    c.tp_comm_overlap = tpo.runs;
    if (const std::string why = tp_overlap_block_reason(tpo.block); !why.empty())
        note(why + "; the TP collectives are estimated exposed");
    if (tpo.runs != TpCommOverlapKind::none) {
        auto ring = [&](const char* gemm) {
            const auto* g = l.tp_comm_overlap_cfg.find(gemm);
            return g && g->is_object() && g->value("method", std::string()) == "ring_exchange";
        };
        c.tp_overlap_proj_ring = ring("proj_fprop");
        c.tp_overlap_fc2_ring = ring("fc2_fprop");
    }

    // Mixture of experts: dispatcher, routing load, overlap and MTP as the layout says (moe.h).
    if (m.experts > 0) {
        c.moe.dispatcher = l.moe_dispatcher;
        c.moe.capacity_factor = l.moe_capacity_factor;
        c.moe.imbalance = l.moe_imbalance;
        // DeepEP dispatches FP8 when the run trains in FP8 (DeepSeek-V3 Sec. 3.3.2; Megatron's flex
        // dispatcher quantizes before dispatch under --fp8); combine stays BF16.
        c.moe.fp8_dispatch = c.moe.dispatcher == MoeDispatcher::deepep && fp8_on(l, t);
        // DualPipe(V) overlaps the all-to-alls of a forward and a backward chunk by design.
        c.moe.overlap = l.moe_overlap || c.schedule == Schedule::dualpipev;
    }
    c.moe.mtp_layers = m.mtp_layers;

    // Layers per stage.
    const StageLayers sl = split_layers(m, c.pp, c.chunks, c.schedule, l.num_layers_per_stage, fw,
                                        l.account_for_embedding_in_pipeline_split,
                                        l.account_for_loss_in_pipeline_split);
    c.layers_per_stage = sl.layers;
    c.moe_layers_per_stage = sl.moe_layers;
    c.hybrid = m.is_hybrid();
    c.mamba_layers_per_stage = sl.mamba_layers;
    c.attention_layers_per_stage = sl.attention_layers;
    c.mlp_layers_per_stage = sl.mlp_layers;
    c.embedding_stage = sl.embedding_stage;
    c.head_stage = sl.head_stage;

    // Placement fallback (fill order): the strides of each axis in the framework's mesh.
    const int tp = c.tp, pp = c.pp, cp = c.cp, dp = c.dp;
    int s_tp = 1, s_cp = tp, s_dp = tp * cp, s_pp = tp * cp * dp;   // Megatron tp-cp-ep-dp-pp, torchtitan
    if (ft.rank_order == RankOrder::colossalai) {
        // ColossalAI mesh (dp, pp, sp, tp) with dp_outside: tp innermost, then sp, pp, dp.
        s_tp = 1;
        s_cp = tp;
        s_pp = tp * cp;
        s_dp = tp * cp * pp;
        if (!l.dp_outside) {
            s_dp = tp * cp;
            s_pp = tp * cp * dp;
        }
    }
    if (ft.rank_order == RankOrder::deepspeed) {
        s_tp = 1;
        s_dp = tp;
        s_pp = tp * dp;
    }
    c.link[kTp] = strided_link(hw, tp, s_tp);
    c.link[kCp] = strided_link(hw, cp, s_cp);
    c.link[kPp] = strided_link(hw, pp, s_pp);
    // The gradient group: dp (x cp when ZeRO/distributed optimizer spans it), contiguous after cp
    // in Megatron/torchtitan order, so it starts at stride tp when cp is inside.
    const int grad_group = (c.zero_group > dp) ? c.zero_group : dp;
    c.link[kDp] = strided_link(hw, grad_group, grad_group > dp ? s_cp : s_dp);
    c.link[kEp] = strided_link(hw, c.ep, ft.ep_from_dp ? tp : c.etp);
    c.link[kEdp] = strided_link(hw, m.experts > 0 ? c.expert_zero_group : 1, c.ep * c.etp);
    if (ft.rank_order == RankOrder::colossalai && dp >= 1)
        c.link[kDp] = strided_link(hw, grad_group, grad_group > dp ? s_cp : s_dp);
    if (c.link[kDp].size != grad_group) c.link[kDp].size = grad_group;
    note("rank placement: fill order with the framework's default axis order (topology fallback)");
    return c;
}

Estimate evaluate(const ModelSpec& m, const LayerShapes& s, const Config& c, const Hardware& hw,
                  const PipelineFn& pipeline) {
    Estimate e;
    e.config = c;
    e.hardware = hw;
    Efficiency eff = efficiency_for(hw.arch, c.kernels, c.fp8, c.fp4);
    // A cluster profile (profile.h) scales the model within physical bounds.
    eff.gemm_max = std::min(kMaxGemmEfficiency, eff.gemm_max * hw.gemm_scale);
    eff.gemm_max_fp8 = std::min(kMaxGemmEfficiency, eff.gemm_max_fp8 * hw.gemm_scale);
    eff.attention = std::min(kMaxAttentionEfficiency, eff.attention * hw.attention_scale);
    e.time = estimate_time(m, s, c, hw, eff, pipeline);
    e.memory = estimate_memory(s, c, hw, e.time.pipeline.inflight);
    if (c.lora.on()) {
        e.peft.present = true;
        e.peft.trainable_params = model_adapter_params(m, s, c.lora);
        for (const ShardedCounts& a : stage_adapter_params(s, c))
            e.peft.adapter_params_per_gpu = std::max(e.peft.adapter_params_per_gpu, a.dense + a.expert);
    }
    if (s.experts > 0) {
        MoeSummary& x = e.moe;
        x.present = true;
        x.experts = s.experts;
        x.top_k = s.top_k;
        x.ep = c.ep;
        x.etp = c.etp;
        for (int n : c.moe_layers_per_stage) x.moe_layers += n;
        x.mtp_layers = c.moe.mtp_layers;
        x.dispatcher = c.moe.dispatcher;
        x.capacity_factor = c.moe.capacity_factor;
        x.imbalance = c.moe.imbalance > 0 ? c.moe.imbalance : kDefaultMoeImbalance;
        x.load = moe_load_factor(c.moe);
        x.overlap = c.moe.overlap;
        x.fp8_dispatch = c.moe.fp8_dispatch;
        x.tokens_in = moe_tokens_in(c);
        x.tokens_per_expert = tokens_per_expert(s, c);
        x.busiest_tokens_per_expert = x.load * x.tokens_per_expert;
        // The ceiling the expert GEMMs run at (FP8 / FP4 when the linear layers are, as expert_gemm_fwd_s).
        Efficiency ge = eff;
        if (linear_format(c, hw) != LinearFormat::wide) ge.gemm_max = eff.gemm_max_fp8;
        x.grouped_gemm_efficiency = grouped_gemm_efficiency(ge, x.busiest_tokens_per_expert);
        const MoeComm mc = moe_comm(s, c, hw);
        x.a2a_fwd_s = mc.fwd_s;
        x.a2a_bwd_s = mc.bwd_s;
        const MoeKernels mk = moe_expert_kernels(c, s);
        x.expert_kernels = mk.fwd + mk.bwd;
        x.expert_kernel_s = mk.fwd_s + mk.bwd_s;
    }
    return e;
}

Estimate estimate_project(const Project& p, const GpuSpec& gpu) {
    return estimate_project(p, project_hardware(p, gpu));   // with the project's profile, if any
}

Estimate estimate_project(const Project& p, const Hardware& hw, const topology::RankMap* map) {
    std::vector<std::string> notes;
    Config c = make_config(p.model, p.training, p.layout, hw, p.world_size(), &notes);
    apply_rank_map(p, hw, c, &notes, map);
    // A single project gets the simulated schedule (core/schedule/): its makespan,
    // bubble and per-stage peak in-flight microbatches, with the pipeline link's
    // per-hop latency between stages (the transfer itself is in the stage costs as
    // the exposed p2p time). The planner calls evaluate() without a PipelineFn and
    // keeps the closed forms, to stay fast over thousands of candidates.
    Estimate e = evaluate(p.model, layer_shapes(p.model), c, hw, simulated_pipeline(c.link[kPp].latency_s, &notes));
    e.notes = std::move(notes);
    double shared = 0;
    for (const auto& st : e.time.stages) shared = std::max(shared, st.nic_b);
    if (shared > 0 && c.overlap_grad_reduce)
        e.notes.push_back(
            "link sharing: the data-parallel reduction shares the GPUs' NICs with the expert "
            "all-to-alls, CP steps and pipeline sends of the backward it hides behind (" +
            std::to_string(int(std::lround(shared * 1e3))) + " ms of that backward's time)");
    e.train_tokens = double(p.training.train_tokens);
    if (e.train_tokens > 0 && e.time.tokens_per_s > 0) e.time_to_train_s = e.train_tokens / e.time.tokens_per_s;
    e.step_band = step_band(e.time.step_s, run_kind(c, p.model.is_moe(), hw.arch), held_out_errors());
    return e;
}

nlohmann::json to_json(const Estimate& e) {
    using nlohmann::json;
    json stages = json::array();
    for (const auto& s : e.memory.stages) {
        stages.push_back(
            {{"stage", s.stage},
             {"params_gib", s.params / kGiB},
             {"grads_gib", s.grads / kGiB},
             {"optimizer_gib", s.optimizer / kGiB},
             {"activations_gib", s.activations / kGiB},
             {"other_gib", s.other / kGiB},
             {"buffers_gib", s.buffers / kGiB},
             {"fragmentation_gib", s.fragmentation / kGiB},
             {"allocated_gib", s.allocated() / kGiB},
             {"reserved_gib", s.reserved() / kGiB},
             {"total_gib", s.total() / kGiB},
             {"offloaded_gib", s.offloaded / kGiB},
             {"params_per_gpu", s.params_count},
             {"inflight_microbatches", s.inflight},
             {"layers", s.stage < int(e.config.layers_per_stage.size()) ? e.config.layers_per_stage[s.stage] : 0}});
    }
    const auto& t = e.time;
    json st = json::array();
    for (std::size_t i = 0; i < t.stages.size(); ++i) {
        const auto& x = t.stages[i];
        st.push_back({{"stage", int(i)},
                      {"forward_s", x.compute_f},
                      {"backward_s", x.compute_b},
                      {"tp_s", x.tp},
                      {"cp_s", x.cp},
                      {"ep_s", x.ep},
                      {"pp_s", x.pp},
                      {"dp_s", x.dp},
                      {"nic_shared_s", x.nic_b}});
    }
    const auto& c = e.config;
    json j = {
        {"memory",
         {{"stages", stages},
          {"peak_gib", e.memory.peak_bytes / kGiB},
          {"allocated_peak_gib", e.memory.allocated_peak_bytes / kGiB},
          {"reserved_peak_gib", e.memory.reserved_peak_bytes / kGiB},
          {"peak_stage", e.memory.peak_stage},
          {"capacity_gib", e.memory.capacity_bytes / kGiB},
          {"fits", e.memory.fits}}},
        {"time",
         {{"step_s", t.step_s},
          {"compute_s", t.compute_s},
          {"bubble_s", t.bubble_s},
          {"flush_s", t.pipeline.makespan_s},
          {"flushes", c.grad_accum_steps},
          {"optimizer_s", t.optimizer_s},
          {"offload_s", t.offload_s},
          {"grad_sync_exposed_s", t.grad_sync_exposed_s},
          {"grad_syncs", t.grad_syncs},
          {"comm_s",
           {{"tp", t.comm_tp_s}, {"cp", t.comm_cp_s}, {"ep", t.comm_ep_s}, {"pp", t.comm_pp_s}, {"dp", t.comm_dp_s}}},
          {"bottleneck_stage", t.bottleneck_stage},
          {"per_microbatch", st},
          {"step_s_band", {e.step_band.low_s, e.step_band.high_s}},
          {"step_s_band_basis",
           {{"runs", e.step_band.runs},
            {"alike", e.step_band.alike},
            {"kind",
             {{"family", e.step_band.kind.family},
              {"precision", e.step_band.kind.precision},
              {"framework", e.step_band.kind.framework},
              {"arch", e.step_band.kind.arch}}},
            {"coverage", e.step_band.coverage},
            {"error_range", {e.step_band.low_error, e.step_band.high_error}},
            {"source", "held-out published runs (docs/accuracy.md), predicted / published step - 1"}}}}},
        {"flops_per_step", t.flops.model},
        {"hardware_flops_per_step", t.flops.hardware},
        {"mfu", t.mfu},
        {"hfu", t.hfu},
        {"tokens_per_s", t.tokens_per_s},
        {"tflops_per_gpu", t.tflops_per_gpu},
        {"layout",
         {{"tp", c.tp},
          {"pp", c.pp},
          {"cp", c.cp},
          {"ep", c.ep},
          {"etp", c.etp},
          {"dp", c.dp},
          {"zero_stage", c.zero_stage},
          {"zero_group", c.zero_group},
          {"distributed_optimizer", c.distributed_optimizer},
          {"sequence_parallel", c.sequence_parallel},
          {"micro_batch_size", c.micro_batch},
          {"num_microbatches", c.num_microbatches},
          {"grad_accum_steps", c.grad_accum_steps},
          {"grad_sync_each_flush", c.grad_sync_each_flush},
          {"schedule", reported_name(c.schedule)},
          {"schedule_simulated", simulator_name(c.schedule)},
          {"chunks", c.chunks},
          {"recompute", to_string(c.recompute)},
          {"fp8_recipe", c.fp8 ? to_string(*c.fp8) : "none"},
          {"fp8_all_gather", c.fp8_all_gather},
          {"fp8_all_gather_kind", to_string(fp8_gather_of(c))},
          {"fp4_recipe", to_string(c.fp4)},
          {"fp4_bf16_layers", c.fp4 != Fp4Recipe::none ? c.fp4_bf16_layers_at_start + c.fp4_bf16_layers_at_end : 0},
          {"tp_comm_overlap", to_string(c.tp_comm_overlap)},
          {"kernels", to_string(c.kernels)},
          {"compile_loss", c.compile_loss},
          {"loss_logits", to_string(c.loss_logits)}}},
        {"hardware",
         {{"peak_tflops", e.hardware.peak_tflops},
          {"peak_fp8_tflops", e.hardware.peak_fp8_tflops},
          {"peak_fp4_tflops", e.hardware.peak_fp4_tflops},
          {"power_ratio", e.hardware.power_ratio}}},
        {"notes", e.notes},
    };
    if (e.moe.present) {
        // Mixture of experts (docs/accuracy.md, "Mixture of experts"): the dispatcher and routing
        // the estimate assumed, the rows each expert GEMM sees, and the dispatch/combine time.
        const MoeSummary& x = e.moe;
        j["moe"] = {{"experts", x.experts},
                    {"top_k", x.top_k},
                    {"ep", x.ep},
                    {"etp", x.etp},
                    {"moe_layers", x.moe_layers},
                    {"mtp_layers", x.mtp_layers},
                    {"moe_dispatcher", to_string(x.dispatcher)},
                    {"capacity_factor", x.capacity_factor},
                    {"dropless", x.capacity_factor <= 0},
                    {"imbalance", x.imbalance},
                    {"load", x.load},
                    {"overlap", x.overlap},
                    {"fp8_dispatch", x.fp8_dispatch},
                    {"tokens_in_per_microbatch", x.tokens_in},
                    {"tokens_per_expert", x.tokens_per_expert},
                    {"busiest_tokens_per_expert", x.busiest_tokens_per_expert},
                    {"grouped_gemm_efficiency", x.grouped_gemm_efficiency},
                    {"a2a_fwd_s_per_layer", x.a2a_fwd_s},
                    {"a2a_bwd_s_per_layer", x.a2a_bwd_s},
                    {"expert_kernels_per_layer", x.expert_kernels},
                    {"expert_kernel_s_per_layer", x.expert_kernel_s},
                    {"a2a_exposed_s", t.comm_ep_s}};
    }
    if (e.peft.present) {
        // LoRA (layout.peft; docs/project-format.md): what the estimate trained and stored.
        const LoraOptions& o = e.config.lora;
        json targets = json::array();
        for (LoraTarget t : o.targets) targets.push_back(to_string(t));
        j["peft"] = {{"method", "lora"},
                     {"rank", o.rank},
                     {"targets", targets},
                     {"fused_adapters", o.fused},
                     {"base_bytes_per_weight", o.base_bytes},
                     {"trainable_params", e.peft.trainable_params},
                     {"adapter_params_per_gpu", e.peft.adapter_params_per_gpu}};
    }
    if (e.train_tokens > 0) {
        j["train_tokens"] = e.train_tokens;
        j["time_to_train_s"] = e.time_to_train_s;
        j["time_to_train_days"] = e.time_to_train_s / 86400.0;
    }
    return j;
}

}   // namespace paraplan::estimate
