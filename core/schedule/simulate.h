#pragma once
// Places a schedule in time. Each stage runs its actions in order; an action starts
// when the stage is free and its input has arrived:
//   F  after F of the previous virtual stage (+ latency when on another rank),
//   B  after B of the next virtual stage (+ latency), or after its own F on the last
//      virtual stage,
//   W  after its own B.
// A schedule whose stages wait on each other in a cycle is reported as a
// Diagnostic (rule "schedule.deadlock"), never a hang.
#include "schedule/schedule.h"
#include "schedule/timeline.h"
#include "util/diagnostic.h"

#include <vector>

namespace paraplan::schedule {

// Durations of one microbatch on one chunk.
struct OpCost {
    double f = 1;   // forward
    double b = 1;   // backward for inputs
    double w = 1;   // backward for weights; a full backward takes b + w
};

struct SimConfig {
    OpCost cost;       // per chunk, every stage alike unless overridden below
    double comm = 0;   // point-to-point latency between different ranks
    // Optional per-stage multipliers of `cost` (size pp), e.g. the first stage with
    // the embedding, the last with the loss head.
    std::vector<OpCost> stage_scale;
    // Optional absolute costs per virtual stage (size pp * chunks); overrides both above.
    std::vector<OpCost> virtual_stage_cost;
    // An overlapped F&B unit (DualPipe) takes fb_overlap_factor * (F + full B).
    double fb_overlap_factor = 1.0;
};

struct SimulationResult {
    Timeline timeline;   // complete when diagnostics has no error
    std::vector<paraplan::Diagnostic> diagnostics;
    bool ok() const { return !paraplan::has_errors(diagnostics); }
};

SimulationResult simulate(const Schedule& schedule, const SimConfig& config);

}   // namespace paraplan::schedule
