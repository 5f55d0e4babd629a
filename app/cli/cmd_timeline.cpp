// paraplan-cli timeline: generate a pipeline schedule, place it in time and show it.
#include "cli/command.h"
#include "util/local_dirs.h"
#include "util/read_file.h"
#include "schedule/generate.h"
#include "schedule/pytorch_csv.h"
#include "schedule/simulate.h"
#include "schedule/timeline_json.h"
#include "schedule/trace_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace paraplan::cli {
namespace {

using namespace paraplan::schedule;

void write_file(const std::string& path, const std::string& text) {
    if (const std::string why = write_file_replacing(path, text); !why.empty()) throw std::runtime_error(why);
}

std::string read_file(const std::string& path) { return read_input_file(path, "file"); }

// "--stage-scale 1:1:1,2:1.5:1" -> per-stage multipliers of F:B:W.
std::vector<OpCost> parse_stage_scale(const std::string& text) {
    std::vector<OpCost> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        OpCost c;
        char c1 = 0, c2 = 0;
        std::istringstream is(item);
        if (!(is >> c.f >> c1 >> c.b >> c2 >> c.w) || c1 != ':' || c2 != ':' || !(is >> std::ws).eof())
            throw UsageError("--stage-scale: '" + item + "' is not F:B:W (e.g. 1:1:1,2:1.5:1)");
        out.push_back(c);
    }
    return out;
}

int fail(bool json, const std::vector<paraplan::Diagnostic>& ds) {
    if (json) {
        print_json(nlohmann::json{{"valid", false}, {"diagnostics", paraplan::to_json(ds)}}.dump(2));
    } else {
        for (const auto& d : ds) {
            std::cerr << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
            if (!d.framework_error.empty()) std::cerr << "    framework says: " << d.framework_error << '\n';
            for (const auto& f : d.fixes) std::cerr << "    fix: " << f.label << '\n';
        }
    }
    return kFindings;
}

// One row per stage: F/B/W for chunk 0, f/b/w for other chunks, '#' an overlapped
// F&B unit, '.' idle. Each column is makespan / width of time, showing the op at its middle.
void print_ascii(const Timeline& tl) {
    double min_dur = tl.makespan;
    for (const auto& o : tl.ops)
        if (o.end > o.start) min_dur = std::min(min_dur, o.end - o.start);
    if (tl.makespan <= 0 || min_dur <= 0) return;
    const int width = static_cast<int>(std::clamp(std::ceil(tl.makespan / min_dur - 1e-9), 1.0, 120.0));
    const double col = tl.makespan / width;
    std::cout << "\ntime ->  (one column = " << col << ")\n";
    for (int s = 0; s < tl.pp; ++s) {
        std::string row(static_cast<std::size_t>(width), '.');
        std::size_t i = tl.stage_begin[static_cast<std::size_t>(s)];
        const std::size_t end = tl.stage_begin[static_cast<std::size_t>(s) + 1];
        for (int c = 0; c < width; ++c) {
            const double t = (c + 0.5) * col;
            while (i < end && tl.ops[i].end <= t) ++i;
            if (i < end && tl.ops[i].start <= t) {
                const auto& o = tl.ops[i];
                char ch = o.overlapped ? '#' : kind_letter(o.kind)[0];
                if (!o.overlapped && o.chunk > 0) ch = static_cast<char>(ch - 'A' + 'a');
                row[static_cast<std::size_t>(c)] = ch;
            }
        }
        char label[32];
        std::snprintf(label, sizeof label, "stage %2d ", s);
        std::cout << label << row << '\n';
    }
}

int run_timeline(const Args& a) {
    const bool json = a.flag("json");
    std::optional<schedule::Schedule> schedule;
    std::vector<paraplan::Diagnostic> warnings;
    if (auto csv = a.get("import-csv")) {
        auto imported = from_pytorch_csv(read_file(*csv));
        if (!imported.schedule) return fail(json, imported.diagnostics);
        schedule = std::move(imported.schedule);
    } else {
        ScheduleRequest req;
        if (!a.has("schedule")) throw UsageError("--schedule is required (or --import-csv FILE)");
        if (!a.has("pp")) throw UsageError("--pp is required");
        if (!a.has("microbatches")) throw UsageError("--microbatches is required");
        req.schedule = *a.get("schedule");
        req.pp = a.get_int("pp", 1);
        req.microbatches = a.get_int("microbatches", 1);
        req.chunks = a.get_int("chunks", 0);
        req.microbatch_group_size = a.get_int("group-size", 0);
        const std::string rule = a.get("megatron-rule", "current");
        if (rule != "current" && rule != "legacy") throw UsageError("--megatron-rule is current or legacy");
        req.megatron_rule = rule == "legacy" ? MegatronRule::Legacy : MegatronRule::Current;
        auto g = generate(req);
        if (!g.schedule) return fail(json, g.diagnostics);
        schedule = std::move(g.schedule);
        warnings = std::move(g.diagnostics);
    }

    SimConfig cfg;
    cfg.cost = {a.get_double("f", 1.0), a.get_double("b", 1.0), a.get_double("w", 1.0)};
    cfg.comm = a.get_double("comm", 0.0);
    cfg.fb_overlap_factor = a.get_double("overlap-factor", 1.0);
    if (auto sc = a.get("stage-scale")) cfg.stage_scale = parse_stage_scale(*sc);
    auto sim = simulate(*schedule, cfg);
    if (!sim.ok()) return fail(json, sim.diagnostics);
    const Timeline& tl = sim.timeline;

    if (auto trace = a.get("trace"))
        write_file(*trace, to_chrome_trace(tl, a.get_double("us-per-unit", 1000.0)).dump());
    if (auto csv = a.get("csv")) write_file(*csv, to_pytorch_csv(*schedule));

    if (json) {
        auto j = to_json(tl);
        j["valid"] = true;
        j["diagnostics"] = paraplan::to_json(warnings);
        print_json(j.dump(2));
        return kOk;
    }
    for (const auto& d : warnings) {
        std::cerr << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
        if (!d.framework_error.empty()) std::cerr << "    framework says: " << d.framework_error << '\n';
    }
    const ScheduleInfo* info = find_schedule(tl.schedule);
    std::cout << (info ? info->title : tl.schedule) << ": pp " << tl.pp << ", " << tl.microbatches << " microbatches, "
              << tl.chunks << " chunk" << (tl.chunks == 1 ? "" : "s") << " per stage, " << tl.ops.size() << " ops\n";
    char line[160];
    std::snprintf(line, sizeof line, "makespan %.4g, bubble fraction %.4f (span bubble rate %.4f)\n", tl.makespan,
                  tl.bubble_fraction, tl.span_bubble_rate);
    std::cout << line;
    for (const auto& st : tl.stages) {
        std::snprintf(line, sizeof line, "  stage %2d  busy %-8.4g bubble %-8.4g peak in-flight %d", st.stage, st.busy,
                      st.bubble, st.peak_inflight);
        std::cout << line;
        if (tl.chunks > 1) {
            std::cout << " (per chunk";
            for (int c : st.peak_inflight_per_chunk) std::cout << ' ' << c;
            std::cout << ')';
        }
        std::cout << '\n';
    }
    print_ascii(tl);
    return kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "timeline",
    .summary = "simulate a pipeline schedule: op order per stage, bubble, peak activations",
    .synopsis = {"--schedule NAME --pp P --microbatches M [--chunks V]\n"
                 "[--f F] [--b B] [--w W] [--comm C] [--json]\n"
                 "[--trace FILE] [--csv FILE]",
                 "--import-csv FILE [...]"},
    .description = "Builds the schedule the way its framework orders it, places every op in time\n"
                   "(each starts once its input has arrived) and reports makespan, bubble and the\n"
                   "microbatches whose activations each stage holds at its peak.\n",
    .options = {{"schedule", "NAME",
                 "gpipe | 1f1b | interleaved (ColossalAI) | interleaved-megatron |\n"
                 "interleaved-pytorch | looped-bfs | zbh1 | zbh2 | interleaved-zb |\n"
                 "zbv | dualpipev"},
                {"pp", "P", "pipeline stages"},
                {"microbatches", "M", "microbatches per step"},
                {"chunks", "V", "model chunks per stage (interleaved: default 2; V schedules: 2)"},
                {"f", "F", "forward time per chunk (default 1)"},
                {"b", "B", "input-backward time per chunk (default 1; a schedule without split backward runs B + W)"},
                {"w", "W", "weight-backward time per chunk (default 1)"},
                {"comm", "C", "point-to-point latency between stages (default 0)"},
                {"stage-scale", "L", "per-stage F:B:W multipliers, e.g. 1.2:1:1,1:1:1,1:1:1,1.5:1.4:1"},
                {"overlap-factor", "X", "an overlapped F&B unit (DualPipeV) takes X * (F + B + W); default 1"},
                {"group-size", "N", "Megatron microbatch group size per virtual stage (default pp)"},
                {"megatron-rule", "R", "current (core >= 0.10) or legacy (m % pp == 0)"},
                {"json", "",
                 "print the timeline as JSON; an impossible request prints\n"
                 "{\"valid\": false, \"diagnostics\": [...]} and exits 1"},
                {"trace", "FILE", "write a Perfetto / chrome://tracing JSON trace (1 unit = --us-per-unit us)"},
                {"us-per-unit", "X", "microseconds per time unit in --trace (default 1000: 1 unit = 1 ms)"},
                {"csv", "FILE", "write PyTorch's pipeline CSV (torchtitan pipeline_parallel_schedule_csv)"},
                {"import-csv", "FILE", "read such a CSV instead of generating a schedule"}},
    .run = run_timeline});

}   // namespace paraplan::cli
