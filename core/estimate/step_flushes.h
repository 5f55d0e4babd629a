#pragma once
// The step along time as the estimate prices it (time.cpp, estimate_time): k pipeline
// flushes back to back (gradient accumulation, Config::grad_accum_steps), each one
// simulated makespan; the exposed data-parallel gradient reduction after every flush
// (Config::grad_sync_each_flush) or once after the last; then the optimizer step and any
// CPU offload. The views that draw a step in time (the pipeline timeline) take the flush
// count, the flush length and where the reductions fall from here.
#include "estimate/estimate.h"
#include "schedule/timeline.h"

#include <utility>
#include <vector>

namespace paraplan::estimate {

struct StepFlushes {
    int flushes = 1;                // pipeline flushes per optimizer step
    double flush_s = 0;             // one flush: the simulated schedule's makespan
    bool sync_each_flush = false;   // a gradient reduction after every flush, else once after the last
    int syncs = 1;                  // gradient reductions in the step
    double sync_s = 0;              // the exposed time of one reduction (0: hidden, or no data parallelism)
    double optimizer_s = 0;
    double offload_s = 0;

    // Flush j (0-based) starts here: the flushes before it and the reductions between them.
    double flush_start_s(int j) const { return j * (flush_s + (sync_each_flush ? sync_s : 0)); }
    // The reduction after flush j (where there is one) starts at its end.
    bool sync_after(int j) const { return sync_each_flush || j == flushes - 1; }
    // The flushes and the reductions: the step up to the optimizer.
    double pipeline_s() const { return flushes * flush_s + syncs * sync_s; }
    double step_s() const { return pipeline_s() + optimizer_s + offload_s; }
};

StepFlushes step_flushes(const Estimate& e);

// A step of k pipeline flushes: the flush's ops k times, back to back, `gap` apart (the
// gradient reduction a framework exposes after every flush), microbatches numbered on across
// flushes. Per stage the ops stay in order.
schedule::Timeline repeat_flushes(const schedule::Timeline& one, int k, double gap);

// The step `sf` laid over one simulated flush `one`, in `one`'s unit (one.makespan per flush_s:
// a reduction keeps its share of a flush, as in a relative schedule): the k flushes back to
// back and where each gradient reduction falls ([start, end), after flush j at
// flush_start(j) + flush). One flush and no reduction when `one` has no ops or sf no flush time.
struct StepLayout {
    int flushes = 1;
    schedule::Timeline timeline;
    std::vector<std::pair<double, double>> grad_syncs;   // after every flush, or one after the last
};
StepLayout lay_out_step(const StepFlushes& sf, const schedule::Timeline& one);

}   // namespace paraplan::estimate
