#include "estimate/simulated_pipeline.h"

#include "estimate/pass_times.h"

#include "schedule/generate.h"
#include "schedule/simulate.h"

#include <algorithm>

namespace paraplan::estimate {

std::string simulator_schedule_name(Schedule s) { return simulator_name(s); }

std::optional<schedule::Timeline> pipeline_timeline(Schedule s, int p, int m, int v,
                                                    const std::vector<StageCost>& costs, double comm_s,
                                                    std::string* why) {
    if (p < 1 || int(costs.size()) != p) {
        if (why) *why = "one cost per pipeline stage is needed";
        return std::nullopt;
    }
    schedule::ScheduleRequest req;
    req.schedule = simulator_schedule_name(s);
    req.pp = p;
    req.microbatches = m;
    req.chunks = (is_multi_chunk(s) || is_v_shape(s)) ? std::max(1, v) : 1;
    const schedule::GenerateResult g = schedule::generate(req);
    if (!g.schedule) {
        if (why) {
            *why = "the simulator cannot build '" + req.schedule + "'";
            for (const auto& d : g.diagnostics)
                if (d.severity == Severity::Error) {
                    *why += " (" + d.rule + ": " + d.message + ")";
                    break;
                }
        }
        return std::nullopt;
    }
    const schedule::Schedule& sch = *g.schedule;
    // Per virtual stage: a chunk runs 1/chunks of its rank's layers. The simulator's
    // B is the input-gradient part; a full backward takes b + w.
    schedule::SimConfig cfg;
    cfg.comm = std::max(0.0, comm_s);
    const int chunks = std::max(1, sch.chunks);
    cfg.virtual_stage_cost.resize(std::size_t(sch.virtual_stages()));
    for (int vs = 0; vs < sch.virtual_stages(); ++vs) {
        const PassTimes t = passes_of(costs[std::size_t(sch.stage_of(vs))]);
        cfg.virtual_stage_cost[std::size_t(vs)] = {t.forward / chunks, t.backward_input / chunks,
                                                   t.backward_weight / chunks};
    }
    schedule::SimulationResult sim = schedule::simulate(sch, cfg);
    if (!sim.ok()) {
        if (why) {
            *why = "the simulation of '" + req.schedule + "' failed";
            for (const auto& d : sim.diagnostics)
                if (d.severity == Severity::Error) {
                    *why += " (" + d.rule + ": " + d.message + ")";
                    break;
                }
        }
        return std::nullopt;
    }
    return std::move(sim.timeline);
}

PipelineResult simulate_pipeline(Schedule s, int p, int m, int v, const std::vector<StageCost>& costs, double comm_s,
                                 std::vector<std::string>* notes) {
    if (p <= 1 || int(costs.size()) != p) return simulate_closed_form(s, p, m, v, costs);
    std::string why;
    const std::optional<schedule::Timeline> tl = pipeline_timeline(s, p, m, v, costs, comm_s, &why);
    if (!tl) {
        if (notes) notes->push_back("pipeline bubble and in-flight microbatches from the closed form: " + why);
        return simulate_closed_form(s, p, m, v, costs);
    }
    const int chunks = std::max(1, tl->chunks);
    PipelineResult r;
    r.makespan_s = tl->makespan;
    for (const auto& st : tl->stages) r.busy_s = std::max(r.busy_s, st.busy);
    r.bubble_s = std::max(0.0, r.makespan_s - r.busy_s);
    // In whole-stage microbatches, as peak_inflight(): a chunk-microbatch holds 1/chunks of them.
    r.inflight.assign(std::size_t(p), 0.0);
    for (const auto& st : tl->stages)
        if (st.stage >= 0 && st.stage < p) r.inflight[std::size_t(st.stage)] = double(st.peak_inflight) / chunks;
    return r;
}

PipelineFn simulated_pipeline(double comm_s, std::vector<std::string>* notes) {
    return [comm_s, notes](Schedule s, int p, int m, int v, const std::vector<StageCost>& costs) {
        return simulate_pipeline(s, p, m, v, costs, comm_s, notes);
    };
}

}   // namespace paraplan::estimate
