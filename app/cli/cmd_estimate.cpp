// paraplan-cli estimate FILE [--profile NAME|FILE] [--json]
#include "cli/command.h"
#include "compare/report.h"
#include "estimate/estimate.h"
#include "estimate/profile.h"
#include "project/project.h"
#include "util/input_error.h"

#include <cstdio>
#include <iostream>

namespace paraplan::cli {
namespace {

int run_estimate(const Args& a) {
    const std::string file = a.positional_at(0, "project FILE");
    Project p = load_project(file);
    if (auto prof = a.get("profile")) {
        // A profile named on the command line that cannot be read is bad input (exit 2), not a
        // finding of the project's.
        (void)estimate::load_profile(*prof);
        estimate::set_project_profile(p, *prof);
    }
    // The report (and its JSON) is shared with `paraplan-cli compare` (core/compare/report.h).
    const compare::ProjectReport report = compare::report_project(p, file);
    const auto& diags = report.diagnostics;
    if (a.flag("json")) {
        nlohmann::json j = compare::to_json(report);
        if (auto prof = estimate::project_profile(p)) j["profile"] = *prof;
        print_json(j.dump(2));
        return report.ok() ? kOk : kFindings;
    }
    if (!report.estimate) {
        // The layout itself does not divide: a finding, not unreadable input.
        std::cerr << "paraplan-cli estimate: "
                  << InputError(report.error->field, report.error->message, 0, 0, file).what()
                  << "\n(paraplan-cli validate " << file << " lists the rules it breaks, with fixes)\n";
        return kFindings;
    }
    const estimate::Estimate& e = *report.estimate;
    const bool ok = report.ok();
    using estimate::kGiB;
    std::printf("%s: %s on %d GPUs\n", file.c_str(), p.model.name.c_str(), p.world_size());
    if (auto prof = estimate::project_profile(p)) std::printf("cluster profile: %s\n", prof->c_str());
    std::printf("memory per GPU (GiB), capacity %.1f:\n", e.memory.capacity_bytes / kGiB);
    std::printf("  %5s %8s %8s %9s %11s %7s %8s\n", "stage", "params", "grads", "optimizer", "activations", "other",
                "total");
    for (const auto& s : e.memory.stages)
        std::printf("  %5d %8.2f %8.2f %9.2f %11.2f %7.2f %8.2f%s\n", s.stage, s.params / kGiB, s.grads / kGiB,
                    s.optimizer / kGiB, s.activations / kGiB, s.other / kGiB, s.total() / kGiB,
                    s.total() > e.memory.capacity_bytes ? "  does not fit" : "");
    const auto& t = e.time;
    std::printf(
        "step %.3f s = compute %.3f + bubble %.3f + comm (tp %.3f, cp %.3f, ep %.3f, pp %.3f, dp %.3f) + optimizer "
        "%.3f + offload %.3f\n",
        t.step_s, t.compute_s, t.bubble_s, t.comm_tp_s, t.comm_cp_s, t.comm_ep_s, t.comm_pp_s, t.comm_dp_s,
        t.optimizer_s, t.offload_s);
    if (const auto& b = e.step_band; b.high_s > b.low_s)
        std::printf(
            "likely %.3f-%.3f s (%.0f%% band): the errors of %d held-out published runs (%s) applied to "
            "this step; docs/accuracy.md\n",
            b.low_s, b.high_s, 100 * b.coverage, b.runs, estimate::alike_text(b).c_str());
    std::printf("%.4g model FLOPs/step, MFU %.1f%%, HFU %.1f%%, %.0f tokens/s\n", t.flops.model, 100 * t.mfu,
                100 * t.hfu, t.tokens_per_s);
    if (e.time_to_train_s > 0)
        std::printf("time to train %.3g tokens: %.1f days\n", e.train_tokens, e.time_to_train_s / 86400);
    for (const auto& d : diags) std::cout << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
    std::printf("%s\n", e.memory.fits ? "fits" : "does not fit");
    return ok ? kOk : kFindings;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "estimate",
    .summary = "estimate memory per pipeline stage, step time, MFU and throughput of a project",
    .synopsis = {"FILE [--profile NAME|FILE] [--json]"},
    .description = "Estimates the project's memory per pipeline stage (parameters, gradients, optimizer\n"
                   "states, activations, allowance), step time with its breakdown (compute, bubble,\n"
                   "TP/CP/EP/PP/DP communication), FLOPs per step, MFU, HFU and tokens/s.\n"
                   "Exit 0 when it fits, 1 when a stage does not fit or the layout is invalid, 2 when FILE\n"
                   "cannot be read. Method and accuracy: docs/accuracy.md.\n",
    .options =
        {{"profile", "NAME|FILE",
          "a cluster profile from paraplan-cli calibrate (overrides the project's\n"
          "estimate.profile)"},
         {"json", "",
          "print {\"memory\": {...}, \"time\": {...}, \"flops_per_step\", \"mfu\", \"hfu\", \"tokens_per_s\", ...};\n"
          "MoE models add \"moe\": {moe_dispatcher, capacity_factor, imbalance, load, overlap,\n"
          "tokens_per_expert, busiest_tokens_per_expert, a2a_fwd_s_per_layer, a2a_exposed_s, ...}\n"
          "A LoRA project (layout.peft) adds \"peft\": {method, rank, targets, fused_adapters,\n"
          "base_bytes_per_weight, trainable_params, adapter_params_per_gpu}\n"
          "A step of k pipeline flushes (global batch = micro x dp x num_microbatches x k, where the\n"
          "framework runs num_microbatches per flush) shows k in layout.grad_accum_steps and\n"
          "time.flushes, one flush's makespan in time.flush_s; the exposed gradient reductions in\n"
          "time.grad_syncs (one after every flush where the framework reduces then, else one) of\n"
          "time.grad_sync_exposed_s each: step_s = flushes x flush_s + grad_syncs x\n"
          "grad_sync_exposed_s + optimizer_s + offload_s.\n"
          "time.step_s_band [low, high]: the step errors of the held-out published runs alike in\n"
          "family, precision, framework and GPU (time.step_s_band_basis: runs, alike, kind,\n"
          "error_range, coverage) applied to step_s; docs/accuracy.md, \"The error band\"."}},
    .run = run_estimate});

}   // namespace paraplan::cli
