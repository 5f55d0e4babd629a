#pragma once
// The pipeline a project's timeline view draws: the project's schedule name as the estimator
// reads it (parse_schedule(), so every name the estimate accepts draws), the microbatches of
// one step (derived_sizes()), simulated with relative costs F = B = W = 1 (a full backward
// B + W = 2 forwards). One place for the timeline view, the lessons' figures and their tests.
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
};
ProjectTimeline relative_timeline(const schedule::ScheduleRequest& req);

}   // namespace paraplan::estimate
