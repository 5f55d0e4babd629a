#include "schedule/trace_export.h"

#include <string>

namespace paraplan::schedule {
namespace {

const char* category(OpKind k) {
    switch (k) {
    case OpKind::Forward: return "forward";
    case OpKind::BackwardInput: return "backward_input";
    case OpKind::BackwardWeight: return "backward_weight";
    case OpKind::FullBackward: return "backward";
    }
    return "compute";
}

}   // namespace

nlohmann::ordered_json to_chrome_trace(const Timeline& tl, double us_per_unit, int flushes,
                                       const std::vector<std::pair<double, double>>& grad_syncs) {
    auto events = nlohmann::ordered_json::array();
    for (int s = 0; s < tl.pp; ++s) {
        events.push_back({{"name", "process_name"},
                          {"ph", "M"},
                          {"pid", s},
                          {"tid", 0},
                          {"args", {{"name", "stage " + std::to_string(s)}}}});
        events.push_back(
            {{"name", "process_sort_index"}, {"ph", "M"}, {"pid", s}, {"tid", 0}, {"args", {{"sort_index", s}}}});
        for (int c = 0; c < tl.chunks; ++c) {
            events.push_back({{"name", "thread_name"},
                              {"ph", "M"},
                              {"pid", s},
                              {"tid", c},
                              {"args", {{"name", "chunk " + std::to_string(c)}}}});
            events.push_back(
                {{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", s}, {"tid", c}, {"args", {{"sort_index", c}}}});
        }
        if (!grad_syncs.empty()) {
            events.push_back({{"name", "thread_name"},
                              {"ph", "M"},
                              {"pid", s},
                              {"tid", tl.chunks},
                              {"args", {{"name", "gradient sync"}}}});
            events.push_back({{"name", "thread_sort_index"},
                              {"ph", "M"},
                              {"pid", s},
                              {"tid", tl.chunks},
                              {"args", {{"sort_index", tl.chunks}}}});
        }
    }
    for (const auto& o : tl.ops) {
        nlohmann::ordered_json e;
        e["name"] = std::string(pytorch_letter(o.kind)) + std::to_string(o.microbatch) +
                    (tl.chunks > 1 ? " c" + std::to_string(o.chunk) : std::string());
        e["cat"] = category(o.kind);
        e["ph"] = "X";
        e["ts"] = o.start * us_per_unit;
        e["dur"] = (o.end - o.start) * us_per_unit;
        e["pid"] = o.stage;
        e["tid"] = o.chunk;
        nlohmann::ordered_json args = {{"microbatch", o.microbatch}, {"chunk", o.chunk}, {"stage", o.stage}};
        if (o.overlapped) args["overlapped"] = true;
        e["args"] = std::move(args);
        events.push_back(std::move(e));
    }
    const bool each = int(grad_syncs.size()) == flushes;
    for (int s = 0; s < tl.pp; ++s)
        for (std::size_t i = 0; i < grad_syncs.size(); ++i) {
            const auto& [start, end] = grad_syncs[i];
            events.push_back({{"name", "grad sync"},
                              {"cat", "grad_sync"},
                              {"ph", "X"},
                              {"ts", start * us_per_unit},
                              {"dur", (end - start) * us_per_unit},
                              {"pid", s},
                              {"tid", tl.chunks},
                              {"args", {{"after_flush", each ? int(i) + 1 : flushes}, {"stage", s}}}});
        }
    nlohmann::ordered_json j;
    j["traceEvents"] = std::move(events);
    j["displayTimeUnit"] = "ms";
    j["otherData"] = {{"generator", "paraplan"},
                      {"schedule", tl.schedule},
                      {"pp", tl.pp},
                      {"microbatches", tl.microbatches},
                      {"chunks", tl.chunks},
                      {"us_per_unit", us_per_unit},
                      {"makespan", tl.makespan},
                      {"bubble_fraction", tl.bubble_fraction}};
    if (flushes > 1 || !grad_syncs.empty()) {
        j["otherData"]["flushes"] = flushes;
        j["otherData"]["grad_syncs"] = grad_syncs.size();
        if (!grad_syncs.empty()) j["otherData"]["step_end"] = grad_syncs.back().second;
    }
    return j;
}

}   // namespace paraplan::schedule
