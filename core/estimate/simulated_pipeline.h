#pragma once
// The pipeline term of the estimate from the schedule simulator (core/schedule/):
// the framework's own op order for the chosen schedule, placed in time with the
// estimator's per-stage F/B/W costs (first stage with the embedding, last with the
// loss head, as stage_times() builds them) and the pipeline link's per-hop latency.
// The makespan, bubble and per-stage peak in-flight microbatches come from that
// timeline. When the schedule cannot be generated or simulated (its requirements
// fail), it falls back to simulate_closed_form() and says so in a note.
#include "estimate/pipeline.h"
#include "estimate/time.h"
#include "schedule/timeline.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan::estimate {

// Our schedule id in core/schedule's generator (schedule_names()).
std::string simulator_schedule_name(Schedule s);

// comm_s: point-to-point latency between neighbouring stages. notes (optional) gets
// one line when the closed form had to be used.
PipelineResult simulate_pipeline(Schedule s, int p, int m, int v, const std::vector<StageCost>& costs, double comm_s,
                                 std::vector<std::string>* notes = nullptr);

// The simulated timeline (seconds) simulate_pipeline() takes its figures from; nullopt, with
// *why, when the schedule cannot be generated or simulated. Also for views that draw the step.
std::optional<schedule::Timeline> pipeline_timeline(Schedule s, int p, int m, int v,
                                                    const std::vector<StageCost>& costs, double comm_s,
                                                    std::string* why = nullptr);

// A PipelineFn for estimate_time()/evaluate() that calls simulate_pipeline().
PipelineFn simulated_pipeline(double comm_s, std::vector<std::string>* notes = nullptr);

}   // namespace paraplan::estimate
