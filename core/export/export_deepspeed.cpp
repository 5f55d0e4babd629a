// DeepSpeed export (v0.16 config schema, deepspeed/runtime/config.py and
// runtime/zero/config.py): ds_config.json with the batch triple
// train_batch_size = micro * gradient_accumulation_steps * dp, zero_optimization with
// offload devices, precision, AutoTP ("tensor_parallel": {"autotp_size"}, DeepSpeed
// >= 0.16.4) and "pipeline"; a hostfile (`host slots=N`, launcher/runner.py) and the
// `deepspeed` launcher command.
#include "export/export.h"
#include "export/export_common.h"
#include "export/launch_plan.h"
#include "project/sequence_parallel.h"
#include "project/fp8.h"

#include <sstream>

namespace paraplan {

using namespace exportutil;
using nlohmann::json;

FormatOutput export_deepspeed(const Project& p, const ExportOptions& opt) {
    FormatOutput out;
    const Layout& l = p.layout;
    const Training& t = p.training;
    auto fail = [&](const std::string& what, std::vector<std::string> fields) {
        out.findings.push_back(unsupported("deepspeed", what, std::move(fields)));
    };
    // Only sequence parallelism the layout actually runs (project/sequence_parallel.h):
    // an sp_mode with tp = 1 and sp = 1 splits nothing and leaves nothing to express.
    if (l.sp > 1) fail("sequence parallelism (sp = " + std::to_string(l.sp) + ")", {"/layout/sp", "/layout/sp_mode"});
    else if (tp_sequence_parallel_on(l, traits_of(l)))
        fail("sequence parallelism (sp_mode \"" + std::string(to_string(l.sp_mode)) +
                 "\" shards activations along the sequence inside the tp = " + std::to_string(l.tp) +
                 " group, Megatron --sequence-parallel style; set sp_mode to none)",
             {"/layout/sp_mode", "/layout/tp"});
    if (l.cp > 1) fail("context parallelism", {"/layout/cp"});
    if (l.ep > 1)
        fail("expert parallelism in ds_config.json (DeepSpeed-MoE takes ep_size in model code)", {"/layout/ep"});
    if (l.chunks > 1)
        fail("virtual pipeline stages (DeepSpeed's pipeline engine runs 1F1B with one stage per rank)",
             {"/layout/chunks"});
    if (l.pp > 1 && l.schedule != Schedule::one_f_one_b)
        fail("the pipeline schedule \"" + std::string(to_string(l.schedule)) + "\" (DeepSpeed runs 1F1B)",
             {"/layout/schedule"});
    if (l.pp > 1 && l.zero_stage >= 2)
        out.findings.push_back(finding(Severity::Error, "export.deepspeed.zero_with_pipeline",
                                       "DeepSpeed's pipeline engine rejects ZeRO-2 and ZeRO-3 (\"ZeRO-2 and ZeRO-3 are "
                                       "incompatible with pipeline parallelism\", runtime/pipe/engine.py).",
                                       {"/layout/zero_stage", "/layout/pp"}));
    if (l.tp > 1 && l.zero_stage == 3)
        fail("AutoTP with ZeRO-3 (AutoTP training supports ZeRO stages 0-2)", {"/layout/tp", "/layout/zero_stage"});

    const int dp = data_parallel(p);
    const int gas = grad_accum_steps(p);
    json c = json::object();
    c["train_batch_size"] = 1LL * t.micro_batch_size * gas * dp;
    c["train_micro_batch_size_per_gpu"] = t.micro_batch_size;
    c["gradient_accumulation_steps"] = gas;
    if (1LL * t.micro_batch_size * gas * dp != t.global_batch_size)
        out.findings.push_back(finding(Severity::Error, "export.deepspeed.batch",
                                       "The global batch " + std::to_string(t.global_batch_size) +
                                           " is not micro batch × gradient accumulation × dp (" +
                                           std::to_string(t.micro_batch_size) + " × " + std::to_string(gas) + " × " +
                                           std::to_string(dp) + "); DeepSpeed asserts the equality.",
                                       {"/training/global_batch_size", "/training/micro_batch_size"}));
    if (t.precision == Precision::bf16 || t.precision == Precision::fp8) c["bf16"] = {{"enabled", true}};
    else if (t.precision == Precision::fp16) c["fp16"] = {{"enabled", true}};
    if (fp8_on(l, t))
        out.findings.push_back(finding(
            Severity::Warning, "export.deepspeed.fp8",
            "ds_config.json has no FP8 switch; it trains in bf16 (use Transformer Engine in the model for FP8).",
            {"/layout/fp8"}));
    json zero = {{"stage", l.zero_stage}};
    if (l.offload != Offload::none) {
        if (l.zero_stage == 0) fail("offload without ZeRO", {"/layout/offload", "/layout/zero_stage"});
        json opt_off = {{"device", to_string(l.offload)}, {"pin_memory", true}};
        if (l.offload == Offload::nvme) opt_off["nvme_path"] = "/local_nvme";
        if (l.offload_fraction > 0 && l.offload_fraction < 1) {
            if (l.zero_stage == 3) opt_off["ratio"] = l.offload_fraction;
            else
                fail("a partial optimizer offload below ZeRO-3 (\"ratio\" applies to stage 3)",
                     {"/layout/offload_fraction"});
        }
        zero["offload_optimizer"] = opt_off;
        if (l.zero_stage == 3) {
            json par = {{"device", to_string(l.offload)}, {"pin_memory", true}};
            if (l.offload == Offload::nvme) par["nvme_path"] = "/local_nvme";
            zero["offload_param"] = par;
        }
        if (l.offload == Offload::nvme)
            out.findings.push_back(
                finding(Severity::Warning, "export.deepspeed.nvme_path",
                        "NVMe offload writes to nvme_path \"/local_nvme\"; point it at a local NVMe drive.",
                        {"/layout/offload"}));
    }
    c["zero_optimization"] = zero;
    if (l.tp > 1) c["tensor_parallel"] = {{"autotp_size", l.tp}};
    if (l.pp > 1) {
        json pipe = {{"stages", l.pp}};
        if (l.recompute == Recompute::full) pipe["activation_checkpoint_interval"] = 1;
        c["pipeline"] = pipe;
    }
    if (l.recompute == Recompute::selective || (l.recompute == Recompute::full && l.pp == 1))
        out.findings.push_back(finding(Severity::Warning, "export.deepspeed.recompute",
                                       "Activation checkpointing outside a pipeline is turned on in model code "
                                       "(deepspeed.checkpointing); ds_config.json does not carry it.",
                                       {"/layout/recompute"}));
    out.files["ds_config.json"] = {c.dump(2) + "\n", FileSyntax::Json};

    const LaunchPlan plan = launch_plan(p, opt);
    out.findings.insert(out.findings.end(), plan.findings.begin(), plan.findings.end());
    for (const auto& n : plan.nodes)
        if (!n.devices.empty()) {
            out.findings.push_back(finding(Severity::Error, "export.deepspeed.rank_order",
                                           "The rank order permutes GPUs inside a node; the deepspeed launcher numbers "
                                           "local ranks by GPU id and cannot express it.",
                                           {"/cluster/rank_order"}));
            break;
        }
    std::string hosts = "# " + header_line(p, "deepspeed") + "\n";
    for (const auto& n : plan.nodes) hosts += n.host + " slots=" + std::to_string(plan.nproc_per_node) + "\n";
    out.files["hostfile"] = {hosts, FileSyntax::HashCommentText};

    std::ostringstream sh;
    sh << "#!/usr/bin/env bash\n# " << header_line(p, "deepspeed") << "\n"
       << "# The deepspeed launcher reaches every host of ./hostfile over pdsh/SSH.\n";
    if (l.pp > 1) {
        sh << "# The model must be the deepspeed.pipe.PipelineModule that pipeline.py's pipeline_module() builds\n"
              "# (pipe x tensor x data topology "
           << l.pp << " x " << l.tp << " x " << dp << ").\n";
        // PipelineModule(layers, num_stages=None, topology=None, ...) (deepspeed/runtime/pipe/module.py,
        // v0.16): with num_stages alone its grid factors the world into pipe x data only, so with tp > 1
        // DeepSpeed's data-parallel size (and its train_batch_size check) is wrong. The explicit
        // PipeModelDataParallelTopology(num_pp, num_mp, num_dp) (runtime/pipe/topology.py; axes
        // pipe, data, model) gives it the layout's tensor-parallel size as the model axis.
        std::ostringstream py;
        py << "# " << header_line(p, "deepspeed") << "\n"
           << "\"\"\"The DeepSpeed pipeline model for this layout: " << l.pp << " pipeline stages x " << l.tp
           << " tensor-parallel (model) ranks x " << dp << " data-parallel replicas.\"\"\"\n"
           << "from deepspeed.pipe import PipelineModule\n"
           << "from deepspeed.runtime.pipe.topology import PipeModelDataParallelTopology\n\n\n"
           << "def topology():\n"
           << "    return PipeModelDataParallelTopology(num_pp=" << l.pp << ", num_mp=" << l.tp << ", num_dp=" << dp
           << ")\n\n\n"
           << "def pipeline_module(layers, **kwargs):\n"
           << "    \"\"\"deepspeed.pipe.PipelineModule over `layers` (LayerSpecs) with the topology above.\"\"\"\n"
           << "    return PipelineModule(layers=layers, topology=topology(), **kwargs)\n";
        out.files["pipeline.py"] = {py.str(), FileSyntax::Python};
    }
    sh << "set -euo pipefail\n";
    std::vector<std::string> cmd = {"deepspeed",
                                    "--hostfile",
                                    "hostfile",
                                    "--num_nodes",
                                    std::to_string(plan.nnodes),
                                    "--num_gpus",
                                    std::to_string(plan.nproc_per_node),
                                    "--master_addr",
                                    plan.master_addr,
                                    "--master_port",
                                    std::to_string(plan.master_port),
                                    opt.script.empty() ? "train.py" : opt.script,
                                    "--deepspeed",
                                    "--deepspeed_config",
                                    "ds_config.json"};
    cmd.insert(cmd.end(), opt.script_args.begin(), opt.script_args.end());
    sh << join_shell(cmd) << "\n";
    out.files["run.sh"] = {sh.str(), FileSyntax::Shell};
    for (auto& d : peft_in_script(p, "deepspeed",
                                  "ds_config.json has no LoRA setting (DeepSpeed trains the parameters that "
                                  "require grad; deepspeed.linear.LoRAConfig, v0.14.2+, is Python API)."))
        out.findings.push_back(std::move(d));
    return out;
}

}   // namespace paraplan
