// torchtitan export, TOML job config of the v0.2 releases
// (torchtitan/config/job_config.py at v0.2.2): [parallelism] degrees with
// data_parallel_shard_degree = -1 where inferred, pipeline_parallel_schedule with the
// names of torch.distributed.pipelining's get_schedule_class, [training] batch and
// sequence; launched with `torchrun ... -m torchtitan.train --job.config_file`.
#include "export/export.h"
#include "export/export_common.h"
#include "export/launch_plan.h"
#include "project/framework.h"
#include "project/fp8.h"

#include <cctype>
#include <sstream>

namespace paraplan {

using namespace exportutil;

// PyTorch schedule class names (torch/distributed/pipelining/schedules.py).
std::string torchtitan_schedule_name(Schedule s, int chunks) {
    if (s == Schedule::one_f_one_b) return chunks > 1 ? "Interleaved1F1B" : "1F1B";
    if (s == Schedule::gpipe) return chunks > 1 ? "LoopedBFS" : "GPipe";
    if (is_interleaved_1f1b(s)) return "Interleaved1F1B";
    switch (s) {
    case Schedule::looped_bfs: return "LoopedBFS";
    case Schedule::interleaved_zb: return "InterleavedZeroBubble";
    case Schedule::zbv: return "ZBVZeroBubble";
    case Schedule::dualpipev: return "DualPipeV";
    default: return "";   // ZB-H1, ZB-H2: no class of its own (schedule.csv)
    }
}

FormatOutput export_torchtitan(const Project& p, const ExportOptions& opt) {
    FormatOutput out;
    const Layout& l = p.layout;
    const Training& t = p.training;
    const ModelSpec& m = p.model;
    auto fail = [&](const std::string& what, std::vector<std::string> fields) {
        out.findings.push_back(unsupported("torchtitan", what, std::move(fields)));
    };
    if (l.sp > 1 || sp_axis_mode(l.sp_mode))
        fail("sequence parallelism \"" + std::string(to_string(l.sp_mode)) +
                 "\" with sp > 1 (torchtitan shards sequences through cp; "
                 "sequence parallelism inside TP is implied)",
             {"/layout/sp", "/layout/sp_mode"});
    if (l.etp > 0 && l.etp != 1 && l.etp != l.tp)
        fail("an expert tensor-parallel size other than 1 or tp", {"/layout/etp"});
    if (l.offload != Offload::none) fail("optimizer offload", {"/layout/offload"});
    if (l.tp_mode != TpMode::one_d)
        fail("the " + std::string(to_string(l.tp_mode)) + " tensor mode", {"/layout/tp_mode"});

    std::ostringstream toml;
    toml << "# " << header_line(p, "torchtitan") << "\n"
         << "# torchtitan v0.2 job config: torchrun ... -m torchtitan.train --job.config_file job.toml\n\n"
         << "[job]\ndescription = " << toml_string(p.name) << "\n\n";

    // [model]: torchtitan names its Llama 3 family "llama3" with flavors "8B", "70B", "405B".
    std::string name, flavor;
    if (m.family == "llama") {
        const auto dash = m.id.rfind('-');
        if (m.id.rfind("llama3", 0) == 0 && dash != std::string::npos) {
            name = "llama3";
            for (char c : m.id.substr(dash + 1))
                flavor += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        }
    }
    if (name.empty()) {
        name = m.family.empty() ? "custom" : m.family;
        flavor = m.id.empty() ? m.name : m.id;
        out.findings.push_back(finding(Severity::Warning, "export.torchtitan.model",
                                       "torchtitan has no flavor known to Paraplan for model \"" +
                                           (m.id.empty() ? m.name : m.id) + "\"; job.toml names it " + name + "/" +
                                           flavor + ", register that model with torchtitan or edit [model].",
                                       {"/model"}));
    }
    // FP8 linear layers (layout.fp8): torchtitan v0.2 applies them as model converters
    // (job_config.py Model.converters, Float8Linear / MXLinear under [quantize.linear]).
    const bool use_fp8 = fp8_on(l, t);
    const bool mx = use_fp8 && l.fp8_recipe == Fp8Recipe::mxfp8;
    toml << "[model]\nname = " << toml_string(name) << "\nflavor = " << toml_string(flavor) << "\n";
    if (use_fp8) toml << "converters = [" << toml_string(mx ? "quantize.linear.mx" : "quantize.linear.float8") << "]\n";
    toml << "\n";

    const int mbs = t.micro_batch_size;
    const int local = l.pp > 1 ? mbs * microbatches(p) : mbs;
    toml << "[training]\nlocal_batch_size = " << local << "\nglobal_batch_size = " << t.global_batch_size
         << "\nseq_len = " << t.seq_len << "\n";
    if (t.precision == Precision::bf16 || t.precision == Precision::fp8)
        toml << "mixed_precision_param = \"bfloat16\"\n";
    else if (t.precision == Precision::fp32 || t.precision == Precision::tf32)
        toml << "mixed_precision_param = \"float32\"\n";
    else
        fail("the precision \"" + std::string(to_string(t.precision)) +
                 "\" (mixed_precision_param is bfloat16 or float32)",
             {"/training/precision"});
    toml << "\n";

    // FSDP2 over dp_shard shards parameters, gradients and optimizer state; keeping
    // the parameters gathered after forward ("never") leaves ZeRO-2's footprint,
    // resharding ("always") is ZeRO-3. There is no optimizer-only (ZeRO-1) mode.
    const std::string reshard = l.zero_stage >= 3 ? "always" : l.zero_stage >= 1 ? "never" : "default";
    if (l.zero_stage == 1)
        out.findings.push_back(finding(Severity::Warning, "export.torchtitan.zero1",
                                       "torchtitan's FSDP has no optimizer-only sharding; ZeRO-1 runs as ZeRO-2 "
                                       "(fsdp_reshard_after_forward = \"never\").",
                                       {"/layout/zero_stage"}));
    toml << "[parallelism]\n"
         << "data_parallel_replicate_degree = " << l.dp_replicate << "\n"
         << "data_parallel_shard_degree = " << l.dp_shard << "\n"
         << "fsdp_reshard_after_forward = " << toml_string(reshard) << "\n"
         << "tensor_parallel_degree = " << l.tp << "\n"
         << "context_parallel_degree = " << l.cp << "\n"
         << "pipeline_parallel_degree = " << l.pp << "\n";
    // Async TP (torch's micro-pipeline TP; torchtitan needs compile for it).
    if (l.enable_async_tensor_parallel && l.tp > 1) toml << "enable_async_tensor_parallel = true\n";
    if (l.pp > 1) {
        std::string sched = torchtitan_schedule_name(l.schedule, l.chunks);
        if (sched.empty()) {
            // No built-in PyTorch schedule: write the schedule as PyTorch's compute-only
            // CSV and run it through pipeline_parallel_schedule_csv (torchtitan v0.2
            // job_config.py; build_pipeline_schedule then uses _PipelineScheduleRuntime
            // and _load_csv). pipeline_parallel_schedule still decides how the model is
            // split into stages, so it names the plain schedule with the same number of
            // stages per rank. The path is relative to the working directory, like
            // --job.config_file job.toml in run.sh.
            FormatOutput csv = export_pipeline_csv(p, opt);
            out.findings.insert(out.findings.end(), csv.findings.begin(), csv.findings.end());
            const auto it = csv.files.find("schedule.csv");
            if (it == csv.files.end()) {
                fail("the pipeline schedule \"" + std::string(to_string(l.schedule)) + "\"", {"/layout/schedule"});
            } else {
                sched = l.chunks > 1 ? "Interleaved1F1B" : "1F1B";
                out.files["schedule.csv"] = it->second;
                toml << "pipeline_parallel_schedule_csv = " << toml_string("schedule.csv") << "\n";
            }
        }
        toml << "pipeline_parallel_schedule = " << toml_string(sched) << "\n"
             << "pipeline_parallel_microbatch_size = " << mbs << "\n";
        const bool multi = sched != "1F1B" && sched != "GPipe";
        if (multi != (l.chunks > 1))
            fail("schedule " + sched + " with " + std::to_string(l.chunks) + " stage(s) per rank",
                 {"/layout/schedule", "/layout/chunks"});
        if (l.chunks > 1) {
            const int stages = l.pp * l.chunks;
            if (m.layers % stages != 0)
                fail(std::to_string(m.layers) + " layers over " + std::to_string(stages) + " virtual stages (uneven)",
                     {"/layout/chunks"});
            else toml << "pipeline_parallel_layers_per_stage = " << m.layers / stages << "\n";
        }
    }
    if (l.ep > 1 || m.is_moe()) {
        toml << "expert_parallel_degree = " << l.ep << "\n"
             << "expert_tensor_parallel_degree = " << (l.etp > 0 ? l.etp : l.tp) << "\n";
    }
    toml << "\n[activation_checkpoint]\nmode = " << toml_string(to_string(l.recompute)) << "\n";
    // torchtitan has no Transformer Engine path (v0.2.2; rule torchtitan.kernels): job.toml runs eager.
    if (kernel_stack(l) == KernelStack::te)
        out.findings.push_back(finding(Severity::Warning, "export.torchtitan.kernels",
                                       "torchtitan has no Transformer Engine kernels; job.toml runs eager PyTorch "
                                       "(set kernels \"compile\" for [compile] enable = true).",
                                       {"/layout/kernels"}));
    // The loss is compiled only where the project says so (layout.compile_loss), so that the run
    // holds what the memory estimate counts (a compiled loss keeps no fp32 copy of the logits).
    if (kernel_stack(l) == KernelStack::compile)
        toml << "\n[compile]\nenable = true\ncomponents = "
             << (l.compile_loss ? "[\"model\", \"loss\"]" : "[\"model\"]") << "\n";
    if (mx) {
        toml << "\n[quantize.linear.mx]\nrecipe_name = \"mxfp8_cublas\"\n";
        // MXLinear (job_config.py, v0.2.0) has no all-gather setting: FSDP gathers 16-bit weights.
        if (l.fp8_all_gather)
            out.findings.push_back(finding(Severity::Warning, "export.torchtitan.fp8_all_gather",
                                           "torchtitan's MX linear layers have no FP8 all-gather; FSDP gathers "
                                           "the weights in 16-bit.",
                                           {"/layout/fp8_all_gather"}));
    } else if (use_fp8) {
        // Float8Linear.recipe_name: tensorwise (dynamic per-tensor scaling, the default) or rowwise.
        // torchtitan v0.2.0 components/quantization/float8.py asserts that a recipe_name is not
        // combined with enable_fsdp_float8_all_gather: the FP8 all-gather is tensorwise only.
        const bool rowwise = l.fp8_recipe == Fp8Recipe::rowwise;
        // One meaning with the rules and the estimate: FP8 gathers with the tensorwise recipe only
        // (gathers_fp8_weights; a delayed / blockwise project runs as the tensorwise it is written as).
        const bool gather = l.fp8_all_gather && gathers_fp8_weights("torchtitan", l.fp8_recipe);
        toml << "\n[quantize.linear.float8]\nenable_fsdp_float8_all_gather = " << (gather ? "true" : "false") << "\n";
        if (gather) toml << "precompute_float8_dynamic_scale_for_fsdp = true\n";
        if (rowwise) toml << "recipe_name = \"rowwise\"\n";
        if (rowwise && l.fp8_all_gather)
            out.findings.push_back(finding(Severity::Warning, "export.torchtitan.fp8_all_gather",
                                           "torchtitan gathers FP8 weights with the tensorwise recipe only (its "
                                           "Float8 converter refuses recipe_name with "
                                           "enable_fsdp_float8_all_gather); the rowwise run gathers in 16-bit.",
                                           {"/layout/fp8_all_gather", "/layout/fp8_recipe"}));
        if (!accepts_fp8_recipe("torchtitan", l.fp8_recipe))   // delayed, blockwise (FrameworkTraits::fp8_recipes)
            out.findings.push_back(finding(Severity::Warning, "export.torchtitan.fp8_recipe",
                                           "torchtitan's Float8Linear scales per tensor or per row; the " +
                                               std::string(to_string(l.fp8_recipe)) +
                                               " recipe is written as tensorwise.",
                                           {"/layout/fp8_recipe"}));
    }
    out.files["job.toml"] = {toml.str(), FileSyntax::Toml};

    const LaunchPlan plan = launch_plan(p, opt);
    out.findings.insert(out.findings.end(), plan.findings.begin(), plan.findings.end());
    std::ostringstream sh;
    sh << "#!/usr/bin/env bash\n# " << header_line(p, "torchtitan") << "\n"
       << "# Run once on every node, from a torchtitan checkout: NODE_RANK=<k> bash run.sh\n";
    for (std::size_t k = 0; k < plan.nodes.size(); ++k)
        sh << "#   node rank " << k << ": " << plan.nodes[k].host << "\n";
    sh << "set -euo pipefail\nNODE_RANK=${NODE_RANK:-0}\n"
       << "MASTER_ADDR=${MASTER_ADDR:-" << shell_quote(plan.master_addr) << "}\n"
       << "MASTER_PORT=${MASTER_PORT:-" << plan.master_port << "}\n";
    bool pinned = false;
    for (const auto& n : plan.nodes) pinned = pinned || !n.devices.empty();
    if (pinned) {
        sh << "case \"$NODE_RANK\" in\n";
        for (std::size_t k = 0; k < plan.nodes.size(); ++k)
            if (!plan.nodes[k].devices.empty())
                sh << "    " << k << ") export CUDA_VISIBLE_DEVICES=" << plan.nodes[k].cuda_visible_devices()
                   << " ;;\n";
        sh << "esac\n";
    }
    std::vector<std::string> tail = {"-m", "torchtitan.train", "--job.config_file", "job.toml"};
    tail.insert(tail.end(), opt.script_args.begin(), opt.script_args.end());
    sh << "torchrun --nnodes " << plan.nnodes << " --nproc_per_node " << plan.nproc_per_node
       << " --node_rank \"$NODE_RANK\" --master_addr \"$MASTER_ADDR\" --master_port \"$MASTER_PORT\" \\\n    "
       << join_shell(tail) << "\n";
    out.files["run.sh"] = {sh.str(), FileSyntax::Shell};
    return out;
}

}   // namespace paraplan
