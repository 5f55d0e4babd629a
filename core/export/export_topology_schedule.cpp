// layout-json (the rank map and every group, the `paraplan-cli groups --json` shape,
// from core/topology) and trace / pipeline-csv (the pipeline timeline as a
// Perfetto/Chrome trace and as PyTorch's schedule CSV, from core/schedule). The trace is the
// whole step as the estimate prices it (core/estimate/step_flushes.h): its k flushes back to
// back with the gradient reductions where the estimate places them.
#include "export/export.h"
#include "export/export_common.h"
#include "project/framework.h"

#include <exception>
#include <optional>

#include "estimate/config.h"
#include "estimate/step_flushes.h"
#include "schedule/generate.h"
#include "schedule/pytorch_csv.h"
#include "schedule/simulate.h"
#include "schedule/trace_export.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

namespace paraplan {

FormatOutput export_layout_json(const Project& p, const ExportOptions&) {
    FormatOutput out;
    const topology::RankMap m = topology::build_rank_map(topology::from_project(p), &p.cluster);
    out.findings = m.diagnostics;
    out.files["layout.json"] = {topology::to_json(m).dump(2) + "\n", FileSyntax::Json};
    return out;
}

namespace {
std::optional<schedule::Schedule> pipeline_schedule(const Project& p, std::vector<Diagnostic>& findings) {
    const Layout& l = p.layout;
    schedule::ScheduleRequest req;
    // The simulator's schedule for the layout's, as the estimate reads it; 1f1b with several chunks
    // per stage is drawn as the framework's interleaved 1F1B.
    Schedule s = resolved_schedule(l.schedule, l.framework);
    if (s == Schedule::one_f_one_b && l.chunks > 1) s = resolved_schedule(Schedule::interleaved, l.framework);
    req.schedule = estimate::simulator_name(s);
    req.pp = l.pp;
    req.microbatches = exportutil::microbatches(p);
    req.chunks = l.chunks;
    schedule::GenerateResult g = schedule::generate(req);
    findings.insert(findings.end(), g.diagnostics.begin(), g.diagnostics.end());
    return g.schedule;
}
}   // namespace

FormatOutput export_trace(const Project& p, const ExportOptions&) {
    FormatOutput out;
    const auto s = pipeline_schedule(p, out.findings);
    if (!s) return out;
    // Unit costs (F = B = W = 1 ms): the order and the bubbles, not a time estimate.
    const schedule::SimulationResult sim = schedule::simulate(*s, schedule::SimConfig{});
    out.findings.insert(out.findings.end(), sim.diagnostics.begin(), sim.diagnostics.end());
    // The flushes and reductions of the step the estimate prices, in the same unit (a reduction
    // keeps its share of a flush); one flush where the estimate cannot be had.
    estimate::StepLayout step;
    step.timeline = sim.timeline;
    try {
        const estimate::Estimate e = estimate::estimate_project(p);
        if (e.config.num_microbatches == sim.timeline.microbatches)
            step = estimate::lay_out_step(estimate::step_flushes(e), sim.timeline);
    } catch (const std::exception& ex) {
        out.findings.push_back(exportutil::finding(
            Severity::Info, "export.trace_one_flush",
            std::string("trace: one pipeline flush, no estimate of the step: ") + ex.what(), {"/layout"}));
    }
    out.files["trace.json"] = {
        schedule::to_chrome_trace(step.timeline, 1000.0, step.flushes, step.grad_syncs).dump(1) + "\n",
        FileSyntax::Json};
    return out;
}

FormatOutput export_pipeline_csv(const Project& p, const ExportOptions&) {
    FormatOutput out;
    const auto s = pipeline_schedule(p, out.findings);
    if (!s) return out;
    out.files["schedule.csv"] = {schedule::to_pytorch_csv(*s), FileSyntax::Csv};
    return out;
}

}   // namespace paraplan
