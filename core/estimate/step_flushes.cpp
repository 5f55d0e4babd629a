#include "estimate/step_flushes.h"

#include <algorithm>

namespace paraplan::estimate {

StepFlushes step_flushes(const Estimate& e) {
    const TimeResult& t = e.time;
    StepFlushes s;
    s.flushes = std::max(1, e.config.grad_accum_steps);
    s.flush_s = t.pipeline.makespan_s;
    s.sync_each_flush = e.config.grad_sync_each_flush;
    s.syncs = s.sync_each_flush ? s.flushes : 1;
    s.optimizer_s = t.optimizer_s;
    s.offload_s = t.offload_s;
    // estimate_time() charges step_s = flushes x makespan + syncs x exposed reduction +
    // optimizer + offload: the reductions are what is left of the step besides the others.
    const double syncs_s = t.step_s - s.flushes * s.flush_s - s.optimizer_s - s.offload_s;
    // (Rounding leaves a few ulps of the step where nothing is reduced: that is no reduction.)
    s.sync_s = syncs_s > 1e-9 * t.step_s ? syncs_s / s.syncs : 0;
    return s;
}

}   // namespace paraplan::estimate
