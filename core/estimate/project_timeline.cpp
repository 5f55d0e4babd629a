#include "estimate/project_timeline.h"

#include "estimate/config.h"
#include "project/derived_sizes.h"
#include "schedule/simulate.h"

#include <algorithm>

namespace paraplan::estimate {

schedule::ScheduleRequest project_schedule_request(const Project& p, int* derived_dp) {
    const auto& l = p.layout;
    schedule::ScheduleRequest req;
    // The name as the estimator reads it (aliases such as "zb1p", the framework's own "interleaved").
    req.schedule = simulator_name(resolved_schedule(l.schedule, l.framework));
    req.pp = l.pp;
    req.chunks = l.chunks > 1 ? l.chunks : 0;
    const DerivedSizes s = derived_sizes(l, p.training, p.world_size());
    const int dp = std::max(1, s.batch_dp);
    req.microbatches = step_microbatches(l, p.training, dp);
    if (derived_dp) *derived_dp = req.microbatches != l.num_microbatches ? dp : 0;
    return req;
}

ProjectTimeline relative_timeline(const schedule::ScheduleRequest& req, const PassTimes& pass_times) {
    ProjectTimeline out;
    out.pass_times = pass_times;
    schedule::GenerateResult gen = schedule::generate(req);
    if (gen.schedule) {
        schedule::SimConfig cfg;   // per chunk, every stage alike
        cfg.cost = {pass_times.forward, pass_times.backward_input, pass_times.backward_weight};
        schedule::SimulationResult sim = schedule::simulate(*gen.schedule, cfg);
        if (sim.ok()) out.timeline = std::move(sim.timeline);
        for (const auto& d : sim.diagnostics)
            if (d.severity == Severity::Error && out.problem.empty()) out.problem = d.message;
    }
    for (const auto& d : gen.diagnostics)
        if (d.severity == Severity::Error && out.problem.empty()) out.problem = d.message;
    return out;
}

TimelineBubble timeline_bubble(const schedule::Timeline& tl, const PassTimes& pass_times) {
    TimelineBubble b;
    b.per_stage = tl.makespan * tl.bubble_fraction;
    const double one_f_one_b = std::max(1, tl.chunks) * bubble_1f1b(tl.pp, pass_times);
    if (tl.pp > 1 && one_f_one_b > 0) b.vs_1f1b = b.per_stage / one_f_one_b;
    return b;
}

}   // namespace paraplan::estimate
