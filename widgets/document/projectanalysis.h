#pragma once
// What the views show of one state of the project, worked out once per edit off the GUI
// thread (ProjectDocument runs analyse() on a worker) and then shared, read-only, by every
// view: the framework's rank map, the rule findings, the estimate and the pipeline
// schedule's simulation. Everything in it is immutable once built, so a view on the GUI
// thread and a worker building the next one never touch the same object.
#include "estimate/estimate.h"
#include "project/project.h"
#include "schedule/generate.h"
#include "schedule/timeline.h"
#include "topology/rank_map.h"
#include "util/diagnostic.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// The schedule the timeline view draws, simulated with relative costs (F = B = W = 1).
struct PipelineSimulation {
    paraplan::schedule::ScheduleRequest request;   // what was simulated
    std::optional<paraplan::schedule::Timeline> timeline;
    std::string problem;   // why there is no timeline (an error of the simulation, else of the generator)
    int derived_dp =
        0;   // > 0: the microbatch count came from the batch sizes (not layout.num_microbatches) with this dp
};

struct ProjectAnalysis {
    std::uint64_t project_id = 0;   // ProjectEditor::projectId() it was computed for
    std::uint64_t revision = 0;     // ProjectEditor::revision() it was computed for
    std::shared_ptr<const paraplan::Project> project;
    std::shared_ptr<const paraplan::topology::RankMap> rank_map;
    std::vector<paraplan::Diagnostic> diagnostics;   // validate(*project)
    std::optional<paraplan::estimate::Estimate> estimate;
    std::string estimate_error;   // why there is no estimate
    // Never null. Shared with the previous state's analysis when the edit left the schedule as
    // it was (same schedule, pp, chunks and microbatches): most layout edits (tp, dp, the
    // cluster) do, and the timeline view then has nothing to redraw.
    std::shared_ptr<const PipelineSimulation> pipeline;
};

// The schedule simulation of `p` (microbatches from derived_sizes() when the layout leaves them to the batch sizes).
PipelineSimulation simulate_pipeline(const paraplan::Project& p);

// Everything above for `project`; null when `cancel` became true on the way (a newer edit
// made it stale). `previous` (the analysis of the state shown before, or null) lends what the
// edit did not change: its schedule simulation when the schedule request is the same. Safe to
// run on any thread: it reads only `project` and `previous`, both immutable.
std::shared_ptr<const ProjectAnalysis> analyse(std::shared_ptr<const paraplan::Project> project,
                                               std::uint64_t project_id, std::uint64_t revision,
                                               const std::atomic<bool>* cancel = nullptr,
                                               std::shared_ptr<const ProjectAnalysis> previous = nullptr);
