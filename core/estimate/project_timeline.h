#pragma once
// The pipeline a project's timeline view draws: the project's schedule name as the estimator
// reads it (parse_schedule(), so every name the estimate accepts draws), the microbatches of
// one step (derived_sizes()), simulated with relative pass times (pass_times.h; by default
// Qi et al.'s F = B = W = 1, a full backward B + W = 2 forwards). One place for the timeline
// view, the lessons' figures and their tests.
#include "estimate/pass_times.h"
#include "project/project.h"
#include "schedule/generate.h"
#include "schedule/timeline.h"

#include <optional>
#include <string>

namespace paraplan::estimate {

// *derived_dp (optional): the dp the microbatch count came from when the layout leaves it to
// the batch sizes, else 0.
schedule::ScheduleRequest project_schedule_request(const Project& p, int* derived_dp = nullptr);

struct ProjectTimeline {
    std::optional<schedule::Timeline> timeline;   // empty when the schedule cannot be built
    std::string problem;                          // the first error, when there is one
    PassTimes pass_times;                         // what it was drawn with (per chunk)
};
ProjectTimeline relative_timeline(const schedule::ScheduleRequest& req, const PassTimes& pass_times = {});

// The bubble a timeline shows, in its own unit.
struct TimelineBubble {
    double per_stage = 0;   // mean idle time of a stage over the span: makespan x bubble_fraction
    // per_stage over 1F1B's (p - 1)(F + B + W) for the same work per stage (chunks x the per-chunk
    // passes; Narayanan et al. 2021 section 2.2, Qi et al. 2024 Table 2); 0 when pp = 1.
    double vs_1f1b = 0;
};
TimelineBubble timeline_bubble(const schedule::Timeline& tl, const PassTimes& pass_times);

}   // namespace paraplan::estimate
