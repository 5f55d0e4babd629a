#include "document/projectanalysis.h"

#include "estimate/project_timeline.h"
#include "estimate/profile.h"
#include "project/derived_sizes.h"
#include "rules/validate.h"
#include "schedule/generate.h"
#include "schedule/simulate.h"
#include "topology/build_rank_map.h"
#include "util/input_error.h"

#include <algorithm>

using namespace paraplan;

namespace {
// The project's schedule as the estimator reads it (core/estimate/project_timeline.h).
schedule::ScheduleRequest pipeline_request(const Project& p, int* derived_dp) {
    return estimate::project_schedule_request(p, derived_dp);
}

bool same_request(const schedule::ScheduleRequest& a, const schedule::ScheduleRequest& b) {
    return a.schedule == b.schedule && a.pp == b.pp && a.microbatches == b.microbatches && a.chunks == b.chunks &&
           a.microbatch_group_size == b.microbatch_group_size && a.megatron_rule == b.megatron_rule;
}

PipelineSimulation simulate_request(const schedule::ScheduleRequest& req, int derived_dp) {
    PipelineSimulation out;
    out.request = req;
    out.derived_dp = derived_dp;
    estimate::ProjectTimeline t = estimate::relative_timeline(req);
    out.timeline = std::move(t.timeline);
    out.problem = std::move(t.problem);
    return out;
}
}   // namespace

PipelineSimulation simulate_pipeline(const Project& p) {
    int derived_dp = 0;
    const schedule::ScheduleRequest req = pipeline_request(p, &derived_dp);
    return simulate_request(req, derived_dp);
}

std::shared_ptr<const ProjectAnalysis> analyse(std::shared_ptr<const Project> project, std::uint64_t project_id,
                                               std::uint64_t revision, const std::atomic<bool>* cancel,
                                               std::shared_ptr<const ProjectAnalysis> previous) {
    const auto stale = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
    auto a = std::make_shared<ProjectAnalysis>();
    a->project_id = project_id;
    a->revision = revision;
    a->project = std::move(project);
    const Project& p = *a->project;
    // The rank map once, for every view and the estimate (it is the costly part at scale).
    a->rank_map = std::make_shared<const topology::RankMap>(
        topology::build_rank_map(topology::from_project(p), &p.cluster));
    if (stale()) return nullptr;
    a->diagnostics = validate(p);
    if (stale()) return nullptr;
    try {
        a->estimate = estimate::estimate_project(p, *a->rank_map);
    } catch (const InputError& e) {
        a->estimate_error = e.what();
        // A cluster profile that cannot be read is never replaced by none in silence: the
        // findings say which file and why, and offer to estimate without one.
        if (e.pointer() == "/estimate/profile") {
            Diagnostic d;
            d.severity = Severity::Warning;
            d.rule = "estimate.profile";
            d.message = "No estimate: the cluster profile cannot be used. " + e.message();
            d.fields = {"/estimate/profile"};
            d.fixes = {Fix{"Estimate without a cluster profile", {{"/estimate/profile", ""}}}};
            a->diagnostics.push_back(std::move(d));
        }
    } catch (const std::exception& e) {
        a->estimate_error = e.what();
    }
    if (stale()) return nullptr;
    int derived_dp = 0;
    const schedule::ScheduleRequest req = pipeline_request(p, &derived_dp);
    if (previous && previous->pipeline && same_request(previous->pipeline->request, req) &&
        previous->pipeline->derived_dp == derived_dp)
        a->pipeline = previous->pipeline;   // the edit left the schedule as it was
    else a->pipeline = std::make_shared<const PipelineSimulation>(simulate_request(req, derived_dp));
    return a;
}
