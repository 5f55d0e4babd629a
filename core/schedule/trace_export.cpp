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

nlohmann::ordered_json to_chrome_trace(const Timeline& tl, double us_per_unit) {
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
    return j;
}

}   // namespace paraplan::schedule
