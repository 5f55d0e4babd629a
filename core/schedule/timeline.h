#pragma once
// What a simulated schedule looks like in time: the flat data the timeline widget
// draws and the exports write. Times are in the caller's unit (the CLI uses the
// unit of --f/--b/--w; the estimator uses milliseconds).
#include "schedule/schedule.h"

#include <cstddef>
#include <string>
#include <vector>

namespace paraplan::schedule {

// One operation placed in time. `kind` is F, B (input grad, or the full backward
// when kind == FullBackward) or W.
struct TimelineOp {
    int stage = 0;   // pipeline stage (rank in the pipeline group)
    OpKind kind = OpKind::Forward;
    int microbatch = 0;
    int chunk = 0;   // model chunk on this stage (0 when one chunk per stage)
    double start = 0;
    double end = 0;
    bool overlapped = false;   // runs together with the neighbouring op (DualPipe F&B)
};

struct StageStats {
    int stage = 0;
    double busy = 0;          // time computing (an overlapped F&B unit counts once)
    double bubble = 0;        // makespan - busy
    double first_start = 0;   // start of the stage's first op
    double last_end = 0;      // end of its last op
    // Most microbatches whose activations the stage holds at once: a microbatch is
    // held from the start of its forward to the end of its (input) backward, per chunk.
    int peak_inflight = 0;
    std::vector<int> peak_inflight_per_chunk;
    int peak_pending_w = 0;   // most weight-grad passes waiting at once (split backward)
};

struct Timeline {
    std::string schedule;
    int pp = 0;
    int microbatches = 0;
    int chunks = 1;
    double makespan = 0;
    // 1 - sum(busy) / (pp * makespan): the share of stage-time spent idle.
    double bubble_fraction = 0;
    // Qi et al. §5.3 "bubble rate": (cost - busy) / cost with cost the longest
    // per-stage span (first start to last end), busy that stage's busy time. It leaves
    // out the fill offsets a parallelogram schedule overlaps with the next step.
    double span_bubble_rate = 0;
    // Ops grouped by stage, each stage's ops in execution order:
    // stage s owns ops[stage_begin[s] .. stage_begin[s + 1]).
    std::vector<TimelineOp> ops;
    std::vector<std::size_t> stage_begin;
    std::vector<StageStats> stages;
};

}   // namespace paraplan::schedule
