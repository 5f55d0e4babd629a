#pragma once
// Step time: per-stage forward/backward cost of one microbatch (compute at the
// efficiency model's rate, plus the TP/CP/EP/PP communication the framework leaves
// exposed), the pipeline makespan from those costs, then the data-parallel gradient
// reduction (overlapped with the last backward where the framework overlaps it), the
// optimizer step and any CPU offload traffic.
#include "catalog/model.h"
#include "estimate/config.h"
#include "estimate/efficiency.h"
#include "estimate/flops.h"
#include "estimate/memory.h"
#include "estimate/pipeline.h"
#include "estimate/shapes.h"

#include <functional>
#include <vector>

namespace paraplan::estimate {

// Per microbatch, one stage, seconds.
struct StageTimes {
    double compute_f = 0, compute_b = 0, compute_w = 0;   // b includes w and recomputation
    double tp = 0, cp = 0, ep = 0, pp = 0, dp = 0;        // exposed communication (fwd + bwd)
    // Link sharing: seconds of one microbatch's backward in which the EP, CP and PP groups' traffic
    // holds the NICs the data-parallel reduction also crosses (reduction_shares_nics; 0 where either stays in
    // its scale-up domain). The reduction hidden behind that backward gets only the rest of it.
    double nic_b = 0;
    StageCost cost() const {
        return {compute_f + (tp + cp + ep + pp + dp) * 0.5, compute_b + (tp + cp + ep + pp + dp) * 0.5, compute_w};
    }
};

struct TimeResult {
    double step_s = 0;
    double compute_s = 0;   // m x compute of the slowest stage
    double bubble_s = 0;
    double optimizer_s = 0;
    double offload_s = 0;
    double comm_tp_s = 0, comm_cp_s = 0, comm_ep_s = 0, comm_pp_s = 0, comm_dp_s = 0;   // exposed
    // The data-parallel gradient reductions the step charges (part of comm_dp_s and step_s):
    // grad_syncs of them, after every pipeline flush where Config::grad_sync_each_flush, else one
    // after the last, each exposing grad_sync_exposed_s beyond the backward that hides it (0: all
    // hidden, or nothing to reduce). step_s = flushes x pipeline.makespan_s + grad_syncs_s() +
    // optimizer_s + offload_s.
    double grad_sync_exposed_s = 0;
    int grad_syncs = 1;
    double grad_syncs_s() const { return grad_sync_exposed_s * grad_syncs; }
    StepFlops flops;
    double mfu = 0, hfu = 0;
    double tokens_per_s = 0;
    double tflops_per_gpu = 0;   // hardware FLOP/s achieved per GPU (Narayanan's metric)
    int bottleneck_stage = 0;
    std::vector<StageTimes> stages;
    PipelineResult pipeline;
};

using PipelineFn = std::function<PipelineResult(Schedule, int p, int m, int v, const std::vector<StageCost>&)>;

std::vector<StageTimes> stage_times(const ModelSpec& m, const LayerShapes& s, const Config& c, const Hardware& hw,
                                    const Efficiency& eff, const std::vector<ShardedCounts>& params);

// The in-flight microbatches per stage estimate_time() takes from the closed form (no PipelineFn):
// peak_inflight() of each of the c.pp stages, which evaluate() then holds in memory. They do not
// depend on the stage times, so the planner checks memory with them before it estimates the time.
std::vector<double> closed_form_inflight(const Config& c);

// pipeline: the schedule simulator; empty -> simulate_closed_form.
TimeResult estimate_time(const ModelSpec& m, const LayerShapes& s, const Config& c, const Hardware& hw,
                         const Efficiency& eff, const PipelineFn& pipeline = {});

}   // namespace paraplan::estimate
