#include "projectanalysis.h"

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
// The schedule request of `p` (microbatches from derived_sizes() when the layout leaves them to
// the batch sizes; then *derived_dp is the dp they came from, else 0).
schedule::ScheduleRequest pipeline_request(const Project& p, int* derived_dp) {
    const auto& l = p.layout;
    schedule::ScheduleRequest req;
    req.schedule = l.schedule;
    req.pp = l.pp;
    req.chunks = l.chunks > 1 ? l.chunks : 0;
    const DerivedSizes s = derived_sizes(l, p.training, p.world_size());
    const int dp = std::max(1, s.batch_dp);
    req.microbatches = step_microbatches(l, p.training, dp);
    // > 0 when the count came from the batch sizes
    *derived_dp = req.microbatches != l.num_microbatches ? dp : 0;
    return req;
}

bool same_request(const schedule::ScheduleRequest& a, const schedule::ScheduleRequest& b) {
    return a.schedule == b.schedule && a.pp == b.pp && a.microbatches == b.microbatches && a.chunks == b.chunks &&
           a.microbatch_group_size == b.microbatch_group_size && a.megatron_rule == b.megatron_rule;
}

PipelineSimulation simulate_request(const schedule::ScheduleRequest& req, int derived_dp) {
    PipelineSimulation out;
    out.request = req;
    out.derived_dp = derived_dp;
    schedule::GenerateResult gen = schedule::generate(req);
    if (gen.schedule) {
        schedule::SimConfig cfg;   // relative costs: F = 1, B = 1, W = 1 (a full backward is B + W = 2)
        schedule::SimulationResult sim = schedule::simulate(*gen.schedule, cfg);
        if (sim.ok()) out.timeline = std::move(sim.timeline);
        for (const auto& d : sim.diagnostics)
            if (d.severity == Severity::Error) out.problem = d.message;
    }
    for (const auto& d : gen.diagnostics)
        if (d.severity == Severity::Error && out.problem.empty()) out.problem = d.message;
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
