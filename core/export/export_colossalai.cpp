// ColossalAI export: plugin.py (the Booster plugin with every chosen argument),
// hostfile (one host per line: colossalai/cli/launcher/hostinfo.py has no slots= and
// no comment syntax) and run.sh (`colossalai run`, colossalai/cli/launcher/run.py).
// Argument names and defaults: colossalai/booster/plugin/{hybrid_parallel,
// moe_hybrid_parallel,gemini,low_level_zero}_plugin.py.
#include "export/export.h"
#include "export/export_common.h"
#include "export/launch_plan.h"
#include "project/framework.h"
#include "project/fp8.h"

#include <sstream>

namespace paraplan {

using namespace exportutil;

namespace {

std::string py_bool(bool b) { return b ? "True" : "False"; }

std::string plugin_class(const std::string& framework) {
    const FrameworkTraits* t = find_traits(framework);
    return t && *t->plugin ? t->plugin : traits(Framework::colossalai).plugin;
}

std::string precision_arg(const Project& p) {
    const Precision pr = p.training.precision;
    if (pr == Precision::bf16 || pr == Precision::fp8) return "bf16";
    if (pr == Precision::fp16) return "fp16";
    return "fp32";
}

struct Arg {
    std::string key, value;
};

}   // namespace

std::string colossalai_framework(const Project& p) {
    const std::string& f = p.layout.framework;
    if (is_colossalai(f)) return f;
    return traits(p.layout.ep > 1 ? Framework::colossalai_moe : Framework::colossalai).name;
}

FormatOutput export_colossalai(const Project& p, const ExportOptions& opt) {
    FormatOutput out;
    const Layout& l = p.layout;
    const std::string fw = colossalai_framework(p);
    const std::string cls = plugin_class(fw);
    const bool hybrid = cls == "HybridParallelPlugin" || cls == "MoeHybridParallelPlugin";
    const bool moe = cls == "MoeHybridParallelPlugin";
    auto fail = [&](const std::string& what, std::vector<std::string> fields) {
        out.findings.push_back(unsupported("colossalai", what, std::move(fields)));
    };

    std::vector<Arg> args;
    std::vector<std::string> preamble;   // Python lines before the plugin call
    std::vector<std::string> imports = {"from colossalai.booster import Booster",
                                        "from colossalai.booster.plugin import " + cls};
    const std::string precision = precision_arg(p);
    const bool use_fp8 = fp8_on(l, p.training);
    // Kernel stack (layout.kernels): the plugins have no Transformer Engine or torch.compile switch.
    // "te" means ColossalAI's fused kernels, ShardFormer's enable_fused_normalization + enable_jit_fused
    // (FrameworkTraits::fused_switches_mean_te), so both are written on; LowLevelZeroPlugin has neither.
    const KernelStack stack = kernel_stack(l);
    const bool fused_norm = l.fused_norm || stack == KernelStack::te;
    const bool jit_fused = l.jit_fused || stack == KernelStack::te;
    if (stack == KernelStack::te && !(l.fused_norm && l.jit_fused) && cls != "LowLevelZeroPlugin")
        out.findings.push_back(finding(Severity::Warning, "export.colossalai.kernels",
                                       "ColossalAI has no Transformer Engine; kernels \"te\" is written as its fused "
                                       "kernels: enable_fused_normalization=True, enable_jit_fused=True.",
                                       {"/layout/kernels"}));
    if (stack == KernelStack::compile)
        out.findings.push_back(finding(Severity::Warning, "export.colossalai.kernels",
                                       cls + " has no torch.compile switch: plugin.py leaves the model eager; "
                                             "compile it in the training script (kernels \"compile\").",
                                       {"/layout/kernels"}));
    if (stack == KernelStack::eager && l.fused_norm && l.jit_fused && cls != "LowLevelZeroPlugin")
        out.findings.push_back(finding(Severity::Warning, "export.colossalai.kernels",
                                       "kernels \"eager\" with fused_norm and jit_fused on: plugin.py turns the fused "
                                       "kernels on, as those fields say, but the estimate counts eager kernels.",
                                       {"/layout/kernels", "/layout/fused_norm", "/layout/jit_fused"}));
    // FP8 all-gather (layout.fp8_all_gather): every plugin's fp8_communication. The estimate counts
    // what it casts (core/estimate/comm_terms.cpp fp8_wire_bytes, v0.5.1 quantization/fp8.py):
    // parameter all-gathers, sequence-parallel all-gathers, Ulysses and forward expert all-to-alls in
    // FP8 across nodes, pipeline sends on any link; all_reduce_fp8 / reduce_scatter_fp8 fall back to
    // 16-bit. So no warning.
    const bool fp8_comm = use_fp8 && l.fp8_all_gather && gathers_fp8_weights(fw, l.fp8_recipe);
    // use_fp8 (FP8Hook -> quantization/fp8.py linear_fp8) casts per tensor from the current amax:
    // ColossalAI has no other FP8 recipe (FrameworkTraits::fp8_recipes; rule colossalai.fp8_recipe).
    if (use_fp8 && !accepts_fp8_recipe(fw, l.fp8_recipe))
        out.findings.push_back(finding(Severity::Warning, "export.colossalai.fp8_recipe",
                                       "ColossalAI's use_fp8 scales per tensor from the current amax; the " +
                                           std::string(to_string(l.fp8_recipe)) +
                                           " recipe has no ColossalAI switch and runs as tensorwise.",
                                       {"/layout/fp8_recipe"}));

    if (l.cp > 1)
        fail("context parallelism (cp > 1); ColossalAI's context parallelism is sp_mode \"ring_attn\"", {"/layout/cp"});
    if (l.tp_mode != TpMode::one_d)
        fail("the legacy " + std::string(to_string(l.tp_mode)) + " tensor mode; the Booster plugins shard 1D only",
             {"/layout/tp_mode"});
    if (l.etp > 0 && l.etp != l.tp) fail("an expert tensor-parallel size different from tp", {"/layout/etp"});
    if (!moe && l.ep > 1) fail("expert parallelism with " + cls, {"/layout/ep", "/layout/framework"});
    if (l.recompute == Recompute::selective)
        out.findings.push_back(
            finding(Severity::Warning, "export.colossalai.selective_recompute",
                    "ColossalAI has no selective recomputation; plugin.py sets no gradient checkpointing "
                    "(use recompute \"full\" to checkpoint every layer).",
                    {"/layout/recompute"}));

    if (hybrid) {
        args.push_back({"tp_size", std::to_string(l.tp)});
        args.push_back({"pp_size", std::to_string(l.pp)});
        if (moe) args.push_back({"ep_size", std::to_string(l.ep)});
        const bool sp_on = l.sp_mode != SpMode::none;
        if (!sp_on && l.sp > 1) fail("sp > 1 without a sequence-parallel mode", {"/layout/sp", "/layout/sp_mode"});
        if (sp_on && sp_axis_mode(l.sp_mode)) args.push_back({"sp_size", std::to_string(l.sp)});
        args.push_back({"precision", py_string(precision)});
        args.push_back({"zero_stage", std::to_string(l.zero_stage)});
        args.push_back({"enable_flash_attention", py_bool(l.flash_attention)});
        args.push_back({"enable_fused_normalization", py_bool(fused_norm)});
        args.push_back({"enable_jit_fused", py_bool(jit_fused)});
        args.push_back({"enable_sequence_parallelism", py_bool(sp_on)});
        // Always explicit when SP is on: left unset the plugin builds all_to_all
        // groups while ShardConfig shards as split_gather (hybrid_parallel_plugin.py).
        if (sp_on) args.push_back({"sequence_parallelism_mode", py_string(to_string(l.sp_mode))});
        if (l.pp > 1) {
            const Schedule sched = l.schedule;
            std::string style;
            if (sched == Schedule::one_f_one_b && l.chunks == 1) style = "1f1b";
            else if (is_interleaved_1f1b(sched) || (sched == Schedule::one_f_one_b && l.chunks > 1))
                style = "interleaved";
            else if (sched == Schedule::zbv) style = "zbv";
            else
                fail("the pipeline schedule \"" + std::string(to_string(l.schedule)) +
                         "\" (pp_style is one of 1f1b, interleaved, zbv)",
                     {"/layout/schedule"});
            if (!style.empty()) args.push_back({"pp_style", py_string(style)});
            args.push_back({"num_model_chunks", std::to_string(l.chunks)});
            args.push_back({"num_microbatches", std::to_string(microbatches(p))});
            args.push_back({"microbatch_size", std::to_string(p.training.micro_batch_size)});
            if (style == "zbv") {
                // scheduler_nodes from ColossalAI's own V-schedule generator, with the
                // memory costs its docs and tests use: mem_f = 34h + 5as, mem_w = -32h,
                // mem_b = -mem_w - mem_f (h hidden, a heads, s sequence length).
                imports.push_back("from colossalai.pipeline.schedule.v_schedule import PipelineGraph");
                preamble.push_back("hidden_size = " + std::to_string(p.model.hidden));
                preamble.push_back("num_heads = " + std::to_string(p.model.heads));
                preamble.push_back("seq_len = " + std::to_string(p.training.seq_len));
                preamble.push_back("mem_f = 34 * hidden_size + 5 * num_heads * seq_len");
                preamble.push_back("mem_w = -32 * hidden_size");
                preamble.push_back("mem_b = -mem_w - mem_f");
                preamble.push_back("scheduler_nodes = PipelineGraph(n_stage=" + std::to_string(l.pp) +
                                   ", n_micro=" + std::to_string(microbatches(p)) +
                                   ", f_cost=1, b_cost=1, w_cost=1, c_cost=1, f_mem=mem_f, b_mem=mem_b, w_mem=mem_w)"
                                   ".get_v_schedule()");
                args.push_back({"scheduler_nodes", "scheduler_nodes"});
            }
            if (!l.num_layers_per_stage.empty()) {
                std::string list = "[";
                for (std::size_t i = 0; i < l.num_layers_per_stage.size(); ++i)
                    list += (i ? ", " : "") + std::to_string(l.num_layers_per_stage[i]);
                args.push_back({"num_layers_per_stage", list + "]"});
            }
        }
        if (l.recompute == Recompute::full) {
            const std::string cfg = l.pp > 1 ? "PipelineGradientCheckpointConfig" : "GradientCheckpointConfig";
            imports.push_back("from colossalai.shardformer.shard.grad_ckpt_config import " + cfg);
            args.push_back({"gradient_checkpoint_config", cfg + "(gradient_checkpointing_ratio=1.0)"});
        }
        args.push_back({"cpu_offload", py_bool(l.offload != Offload::none)});
        args.push_back({moe ? "moe_dp_outside" : "dp_outside", py_bool(l.dp_outside)});
        if (!moe && l.inner_ring_size > 0) args.push_back({"inner_ring_size", std::to_string(l.inner_ring_size)});
        if (moe && l.inner_ring_size > 0)
            fail("inner_ring_size with MoeHybridParallelPlugin", {"/layout/inner_ring_size"});
        if (use_fp8) args.push_back({"use_fp8", "True"});
        if (fp8_comm) args.push_back({"fp8_communication", "True"});
    } else if (cls == "GeminiPlugin") {
        if (l.pp > 1) fail("pipeline parallelism with GeminiPlugin", {"/layout/pp"});
        if (l.sp > 1 || l.cp > 1) fail("sp or cp > 1 with GeminiPlugin", {"/layout/sp"});
        args.push_back({"precision", py_string(precision == "fp32" ? "bf16" : precision)});
        args.push_back({"placement_policy", py_string("static")});
        args.push_back({"shard_param_frac", "1.0"});
        const double optim_frac = l.offload == Offload::none ? 0.0
                                                             : (l.offload_fraction > 0 ? l.offload_fraction : 1.0);
        std::ostringstream f;
        f << optim_frac;
        args.push_back({"offload_optim_frac", f.str().find('.') == std::string::npos ? f.str() + ".0" : f.str()});
        args.push_back({"tp_size", std::to_string(l.tp)});
        args.push_back({"enable_flash_attention", py_bool(l.flash_attention)});
        args.push_back({"enable_fused_normalization", py_bool(fused_norm)});
        args.push_back({"enable_jit_fused", py_bool(jit_fused)});
        if (use_fp8) args.push_back({"use_fp8", "True"});
        if (fp8_comm) args.push_back({"fp8_communication", "True"});
    } else {
        if (l.tp > 1 || l.pp > 1 || l.sp > 1)
            fail("tp, pp or sp > 1 with LowLevelZeroPlugin", {"/layout/tp", "/layout/pp"});
        if (l.zero_stage != 1 && l.zero_stage != 2)
            fail("ZeRO stage " + std::to_string(l.zero_stage) + " with LowLevelZeroPlugin (1 or 2)",
                 {"/layout/zero_stage"});
        args.push_back({"stage", std::to_string(l.zero_stage == 2 ? 2 : 1)});
        args.push_back({"precision", py_string(precision)});
        args.push_back({"cpu_offload", py_bool(l.offload != Offload::none)});
        if (use_fp8) args.push_back({"use_fp8", "True"});
        if (fp8_comm) args.push_back({"fp8_communication", "True"});
        // No ShardFormer, so no kernel switches (rule colossalai.kernels).
        if (stack == KernelStack::te || l.fused_norm || l.jit_fused)
            out.findings.push_back(finding(Severity::Warning, "export.colossalai.kernels",
                                           "LowLevelZeroPlugin has no kernel switches (no enable_fused_normalization "
                                           "or enable_jit_fused); plugin.py leaves the kernels to the model's code.",
                                           {"/layout/kernels", "/layout/fused_norm", "/layout/jit_fused"}));
    }
    if (l.offload == Offload::nvme)
        out.findings.push_back(
            finding(Severity::Warning, "export.colossalai.nvme_offload",
                    "NVMe offload is an argument of the optimizer (HybridAdam nvme_offload_fraction, "
                    "nvme_offload_dir), not of the plugin; plugin.py turns on cpu_offload and defines "
                    "HYBRID_ADAM_NVME_KWARGS for the optimizer.",
                    {"/layout/offload"}));

    std::ostringstream py;
    py << "# " << header_line(p, "colossalai") << "\n"
       << "# Build the plugin and booster, then in the training script:\n"
       << "#   model, optimizer, criterion, dataloader, lr_scheduler = booster.boost(model, optimizer, ...)\n";
    if (l.pp > 1) {
        // The plugin's num_microbatches is one execute_pipeline call (one flush); a global batch of
        // k flushes per replica is k calls per optimizer step, the first k - 1 under
        // booster.no_sync(), where HybridParallelPlugin.execute_pipeline skips sync_dp_grads (v0.5.1).
        const long long per_flush = 1LL * p.training.micro_batch_size * microbatches(p) * data_parallel(p);
        const long long k = per_flush > 0 && p.training.global_batch_size % per_flush == 0
                                ? p.training.global_batch_size / per_flush
                                : 0;
        if (k > 1)
            py << "# Gradient accumulation: global batch " << p.training.global_batch_size << " = " << k
               << " flushes x " << per_flush << " per step; per optimizer step run booster.execute_pipeline " << k
               << " times on per-rank batches of " << 1LL * p.training.micro_batch_size * microbatches(p)
               << " samples, the first " << k - 1 << " inside booster.no_sync(model, optimizer).\n";
    }
    if (p.training.precision == Precision::tf32) py << "import torch\n";
    for (const auto& i : imports) py << i << "\n";
    py << "\n";
    if (p.training.precision == Precision::tf32) py << "torch.backends.cuda.matmul.allow_tf32 = True\n\n";
    if (l.offload == Offload::nvme) {
        std::ostringstream f;
        f << (l.offload_fraction > 0 ? l.offload_fraction : 1.0);
        py << "HYBRID_ADAM_NVME_KWARGS = dict(nvme_offload_fraction=" << f.str()
           << ", nvme_offload_dir=\"/tmp/nvme_offload\")\n\n";
    }
    for (const auto& line : preamble) py << line << "\n";
    if (!preamble.empty()) py << "\n";
    if (p.layout.peft) {
        // LoRA through the booster (ColossalAI v0.5.1 booster.py Booster.enable_lora(model, lora_config=
        // peft.LoraConfig, quantize=...)): before booster.boost; quantize=True loads the base in NF4
        // through bitsandbytes (its default BnbQuantizationConfig, bnb_4bit_quant_type "nf4").
        const bool nf4 = p.layout.peft->base_dtype == PeftBaseDtype::nf4;
        py << "from peft import LoraConfig\n\n"
           << "# LoRA (layout.peft): in the training script, before booster.boost,\n"
           << "#   model = booster.enable_lora(model, lora_config=lora_config" << (nf4 ? ", quantize=True" : "")
           << ")\n"
           << "lora_config = " << hf_lora_config(p) << "\n\n";
    }
    py << "plugin = " << cls << "(\n";
    for (const auto& a : args) py << "    " << a.key << "=" << a.value << ",\n";
    py << ")\n"
       << "booster = Booster(plugin=plugin)\n";
    out.files["plugin.py"] = {py.str(), FileSyntax::Python};

    const LaunchPlan plan = launch_plan(p, opt);
    out.findings.insert(out.findings.end(), plan.findings.begin(), plan.findings.end());
    std::string hosts;
    for (const auto& n : plan.nodes) hosts += n.host + "\n";
    out.files["hostfile"] = {hosts, FileSyntax::PlainText};

    std::ostringstream sh;
    sh << "#!/usr/bin/env bash\n# " << header_line(p, "colossalai") << "\n"
       << "# colossalai run starts torchrun on every host of ./hostfile over SSH (node rank = line order).\n"
       << "set -euo pipefail\n";
    if (!plan.nodes.empty() && !plan.nodes.front().devices.empty()) {
        if (plan.same_devices_everywhere())
            sh << "export CUDA_VISIBLE_DEVICES=" << plan.nodes.front().cuda_visible_devices() << "\n";
        else
            out.findings.push_back(
                finding(Severity::Error, "export.colossalai.rank_order",
                        "The rank order permutes GPUs differently on different nodes; colossalai run "
                        "exports one environment to all hosts, so it cannot pin them.",
                        {"/cluster/rank_order"}));
    }
    std::vector<std::string> cmd = {"colossalai",
                                    "run",
                                    "--nproc_per_node",
                                    std::to_string(plan.nproc_per_node),
                                    "--hostfile",
                                    "hostfile",
                                    "--master_addr",
                                    plan.master_addr,
                                    "--master_port",
                                    std::to_string(plan.master_port),
                                    opt.script.empty() ? "train.py" : opt.script,
                                    "--"};
    cmd.insert(cmd.end(), opt.script_args.begin(), opt.script_args.end());
    sh << join_shell(cmd) << "\n";
    out.files["run.sh"] = {sh.str(), FileSyntax::Shell};
    return out;
}

}   // namespace paraplan
