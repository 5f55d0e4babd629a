#include "estimate/step_flushes.h"

#include <algorithm>

namespace paraplan::estimate {

StepFlushes step_flushes(const Estimate& e) {
    const TimeResult& t = e.time;
    StepFlushes s;
    s.flushes = std::max(1, e.config.grad_accum_steps);
    s.flush_s = t.pipeline.makespan_s;
    s.sync_each_flush = e.config.grad_sync_each_flush;
    // The reductions as estimate_time() charged them (TimeResult::grad_syncs, grad_sync_exposed_s).
    s.syncs = t.grad_syncs;
    s.sync_s = t.grad_sync_exposed_s;
    s.optimizer_s = t.optimizer_s;
    s.offload_s = t.offload_s;
    return s;
}

// A step of k pipeline flushes (gradient accumulation, Config::grad_accum_steps): the flush's
// ops k times, back to back, `gap` apart (the gradient reduction a framework exposes after
// every flush), microbatches numbered on across flushes. Per stage the ops stay in order.
schedule::Timeline repeat_flushes(const schedule::Timeline& one, int k, double gap) {
    schedule::Timeline tl = one;
    const double every = one.makespan + gap;
    const int pp = int(one.stages.size());
    tl.microbatches = one.microbatches * k;
    tl.makespan = k * one.makespan + (k - 1) * gap;
    tl.ops.clear();
    tl.stage_begin.clear();
    for (int st = 0; st < pp; ++st) {
        tl.stage_begin.push_back(tl.ops.size());
        for (int j = 0; j < k; ++j)
            for (std::size_t i = one.stage_begin[std::size_t(st)]; i < one.stage_begin[std::size_t(st) + 1]; ++i) {
                schedule::TimelineOp op = one.ops[i];
                op.start += j * every;
                op.end += j * every;
                op.microbatch += j * one.microbatches;
                tl.ops.push_back(op);
            }
        schedule::StageStats& x = tl.stages[std::size_t(st)];
        x.busy = k * one.stages[std::size_t(st)].busy;
        x.bubble = tl.makespan - x.busy;
        x.last_end += (k - 1) * every;
    }
    tl.stage_begin.push_back(tl.ops.size());
    double busy = 0;
    for (const auto& x : tl.stages) busy += x.busy;
    if (pp > 0 && tl.makespan > 0) tl.bubble_fraction = 1 - busy / (pp * tl.makespan);
    return tl;
}

StepLayout lay_out_step(const StepFlushes& sf, const schedule::Timeline& one) {
    StepLayout out;
    if (one.ops.empty() || sf.flush_s <= 0 || one.makespan <= 0) {
        out.timeline = one;
        return out;
    }
    const double per_s = one.makespan / sf.flush_s;
    const double sync = sf.sync_s * per_s;
    const int k = std::max(1, sf.flushes);
    out.flushes = k;
    out.timeline = k > 1 ? repeat_flushes(one, k, sf.sync_each_flush ? sync : 0) : one;
    if (sync > 0)
        for (int j = 0; j < k; ++j)
            if (sf.sync_after(j)) {
                const double start = j * (one.makespan + (sf.sync_each_flush ? sync : 0)) + one.makespan;
                out.grad_syncs.emplace_back(start, start + sync);
            }
    return out;
}

}   // namespace paraplan::estimate
