// paraplan-cli plan --model ID|FILE --gpu ID --nodes N --gpus-per-node G --global-batch B --seq S ... [--json]
#include "catalog/catalog.h"
#include "project/project_gpu.h"
#include "util/read_file.h"
#include "catalog/hf_import.h"
#include "cli/command.h"
#include "estimate/estimate.h"
#include "estimate/profile.h"
#include "project/limits.h"
#include "project/project.h"
#include "search/apply_plan.h"
#include "search/planner.h"
#include "util/input_error.h"
#include "util/json_read.h"

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace paraplan::cli {
namespace {

ModelSpec model_arg(const std::string& v) {
    if (const ModelSpec* m = catalog::find_model(v)) return *m;
    std::error_code ec;
    if (!std::filesystem::exists(v, ec))
        throw UsageError("--model '" + v + "' is neither a catalog model id nor a readable file");
    const std::string text = read_input_file(v, "model");
    nlohmann::json j;
    try {
        j = json_read::parse(text);   // nesting bounded
    } catch (const InputError& e) {
        throw InputError("", v + ": not JSON (" + e.message() + ")", e.line(), e.column());
    }
    if (j.contains("model_type")) return import_hf_config(j);   // a Hugging Face config.json
    return model_from_json(j);
}

int run_plan(const Args& a) {
    search::PlanRequest req;
    Project& base = req.base;
    if (auto proj = a.get("project")) {
        base = load_project(*proj);
    } else {
        for (const char* k : {"model", "gpu", "nodes", "global-batch", "seq"})
            if (!a.has(k)) throw UsageError(std::string("--") + k + " is required (or --project FILE)");
        base.model = model_arg(*a.get("model"));
        const std::string gpu = *a.get("gpu");
        if (!catalog::find_gpu(gpu))
            throw UsageError("--gpu '" + gpu + "' is not in the catalog (paraplan-cli catalog gpus)");
        // The project file's limits (project/limits.h), checked before any node is made.
        const int nodes = a.get_int("nodes", 1, 1, kMaxNodes);
        const int gpn = a.get_int("gpus-per-node", 8, 1, kMaxGpusPerNode);
        if (static_cast<long long>(nodes) * gpn > kMaxWorldSize)
            throw UsageError("--nodes x --gpus-per-node: " + std::to_string(static_cast<long long>(nodes) * gpn) +
                             " GPUs; Paraplan plans up to " + std::to_string(kMaxWorldSize));
        for (int i = 0; i < nodes; ++i) {
            Node n;
            n.name = "node" + std::to_string(i);
            n.gpu = gpu;
            n.gpus = gpn;
            base.cluster.nodes.push_back(n);
        }
        base.cluster.network.inter_node_gbps = a.get_double("inter-node-gbps", base.cluster.network.inter_node_gbps,
                                                            1e-3, 1e9);
        base.training.global_batch_size = a.get_int("global-batch", 0);
        base.training.seq_len = a.get_int("seq", 0);
        if (base.training.global_batch_size < 1 || base.training.seq_len < 1)
            throw UsageError("--global-batch and --seq must be positive");
        base.training.precision = a.get_enum("precision", Precision::bf16);
        base.training.optimizer = a.get_enum("optimizer", Optimizer::adamw);
        base.layout.framework = "megatron";
    }
    if (base.cluster.nodes.empty()) throw UsageError("the cluster has no nodes");
    const GpuSpec* g = find_gpu(base.cluster, base.cluster.nodes[0].gpu);
    if (!g)
        throw UsageError("GPU '" + base.cluster.nodes[0].gpu + "' is not in the catalog or the project's gpu_specs");
    if (auto prof = a.get("profile")) estimate::set_project_profile(base, *prof);
    req.hardware = estimate::project_hardware(base, *g);   // with the cluster profile, if any
    if (auto fw = a.get("framework")) req.frameworks = split_list(*fw);
    for (const auto& f : req.frameworks)
        if (std::find(kFrameworks.begin(), kFrameworks.end(), f) == kFrameworks.end())
            throw UsageError("unknown framework '" + f + "'");
    try {
        req.constraints = search::Constraints::parse(a.get("fix", ""));
    } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--fix: ") + e.what());
    }
    const std::string obj = a.get("objective", "time");
    if (obj == "time") req.objective = search::Objective::time;
    else if (obj == "memory") req.objective = search::Objective::memory;
    else if (obj == "throughput") req.objective = search::Objective::throughput;
    else throw UsageError("--objective must be time, memory or throughput");
    req.top = a.get_int("top", 10, 1, 100000);
    req.threads = a.get_int("threads", 0, 0, 4096);
    const search::PlanResult r = search::plan(req);
    if (auto out = a.get("apply")) {
        // The best layout written as a project: the base with the entry's layout and microbatch size.
        if (r.results.empty()) {
            std::fprintf(stderr, "plan: no layout fits, so nothing was written to %s\n", out->c_str());
        } else {
            Project applied = base;
            search::apply_entry(r.results.front(), applied);
            save_project(applied, *out);
            std::fprintf(stderr, "plan: wrote %s (%s)\n", out->c_str(), search::describe(r.results.front()).c_str());
        }
    }
    if (a.flag("json")) {
        nlohmann::json j = search::to_json(r);
        j["model"] = base.model.name;
        j["world_size"] = base.world_size();
        print_json(j.dump(2));
    } else {
        std::printf("%lld layouts, %lld valid, %lld fit, %.3f s\n", r.evaluated, r.valid, r.fitting, r.seconds);
        std::printf("%-18s %3s %3s %3s %3s %3s %4s %4s %4s %-12s %3s %4s %-9s %9s %6s %8s\n", "framework", "tp", "pp",
                    "cp", "sp", "ep", "dp", "zero", "mbs", "schedule", "v", "m", "recompute", "step s", "MFU%",
                    "peak GiB");
        for (const auto& e : r.results) {
            const Layout& l = e.layout;
            std::printf("%-18s %3d %3d %3d %3d %3d %4d %4d %4d %-12s %3d %4d %-9s %9.3f %6.1f %8.1f\n",
                        l.framework.c_str(), l.tp, l.pp, l.cp, l.sp, l.ep, e.dp,
                        l.distributed_optimizer ? 1 : l.zero_stage, e.micro_batch_size, to_string(l.schedule), l.chunks,
                        l.num_microbatches, to_string(l.recompute), e.step_s, 100 * e.mfu, e.peak_gib);
        }
    }
    if (r.results.empty() && !r.cancelled) {
        // Why the table is empty, and what to change.
        const int world = base.world_size();
        if (r.evaluated == 0)
            std::fprintf(
                stderr,
                "plan: no layout to try: the --fix bounds leave no split of the %d GPUs (tp, pp, cp, sp and ep "
                "must each divide %d; paraplan-cli advise --world %d lists the splits)\n",
                world, world, world);
        else if (r.valid == 0)
            std::fprintf(stderr,
                         "plan: none of the %lld layouts tried passes the framework's rules (paraplan-cli validate "
                         "names the rule a layout breaks)\n",
                         r.evaluated);
        else
            std::fprintf(stderr,
                         "plan: none of the %lld valid layouts fits in the %.0f GiB of one %s; more GPUs, a smaller "
                         "--seq or microbatch, or --fix recompute=full may make one fit\n",
                         r.valid, g->memory_gib, g->id.c_str());
    }
    return r.results.empty() ? kFindings : kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "plan",
    .summary = "search every valid layout and rank those that fit by step time or memory",
    .synopsis = {"--model ID|FILE --gpu ID --nodes N [--gpus-per-node G] --global-batch B --seq S\n"
                 "[--framework F[,F...]] [--top K] [--fix KNOB=V,...] [--objective time|memory|throughput]\n"
                 "[--inter-node-gbps X] [--precision P] [--threads T] [--profile NAME|FILE]\n"
                 "[--optimizer O] [--apply OUT] [--json]",
                 "--project FILE [options]"},
    .description = "Enumerates tp, pp, sp/cp, ep, dp, ZeRO stage, microbatch size and count, schedule and\n"
                   "chunks, recomputation (and offload when fixed) under each framework's rules, drops\n"
                   "layouts that do not fit, and prints the best K plus the memory/time Pareto front.\n"
                   "Exit 0 when some layout fits, 1 when none does, 2 on usage errors.\n",
    .options = {{"model", "ID|FILE", "catalog id, a model JSON file or a Hugging Face config.json"},
                {"gpu", "ID", "catalog GPU id (paraplan-cli catalog gpus)"},
                {"nodes", "N", "number of nodes"},
                {"gpus-per-node", "G", "GPUs per node (default 8)"},
                {"global-batch", "B", "global batch size in samples"},
                {"seq", "S", "sequence length"},
                {"project", "FILE", "plan for this project's cluster, model and training instead"},
                {"framework", "F[,F...]", "megatron (default), colossalai, colossalai-moe, deepspeed, torchtitan, ..."},
                {"top", "K", "how many layouts to print (default 10)"},
                {"fix", "KNOB=V,...",
                 "bounds and fixed values: tp=8,pp=2..16,mbs=..4,schedule=interleaved,recompute=none"},
                {"objective", "time|memory|throughput", "what to rank by (default time)"},
                {"inter-node-gbps", "X", "inter-node bandwidth per node in Gbit/s"},
                {"precision", "P", "training precision (default bf16)"},
                {"threads", "T", "search threads (default 0: one per core)"},
                {"profile", "NAME|FILE",
                 "a cluster profile from paraplan-cli calibrate (overrides the project's estimate.profile)"},
                {"optimizer", "O", "adamw (default), adam, sgd, lion or adafactor (its state per parameter)"},
                {"apply", "OUT", "also write the project with the best layout applied to OUT (a .paraplan.json)"},
                {"json", "",
                 "print {\"evaluated\", \"valid\", \"fitting\", \"seconds\", \"results\": [{\"layout\", \"step_s\",\n"
                 "\"mfu\", \"peak_gib\"}], \"pareto\"}"}},
    .run = run_plan});

}   // namespace paraplan::cli
