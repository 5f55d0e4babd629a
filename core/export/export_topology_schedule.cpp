// layout-json (the rank map and every group, the `paraplan-cli groups --json` shape,
// from core/topology) and trace / pipeline-csv (the pipeline timeline as a
// Perfetto/Chrome trace and as PyTorch's schedule CSV, from core/schedule).
#include "export/export.h"
#include "export/export_common.h"

#include <optional>

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
    req.schedule = schedule::find_schedule(l.schedule) ? l.schedule : exportutil::canonical_schedule(l.schedule);
    if (req.schedule == "1f1b" && l.chunks > 1) req.schedule = "interleaved";
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
    out.files["trace.json"] = {schedule::to_chrome_trace(sim.timeline, 1000.0).dump(1) + "\n", FileSyntax::Json};
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
