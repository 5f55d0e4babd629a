#include "schedule/timeline_json.h"

namespace paraplan::schedule {

nlohmann::ordered_json to_json(const Timeline& tl) {
    nlohmann::ordered_json j;
    j["schedule"] = tl.schedule;
    j["pp"] = tl.pp;
    j["microbatches"] = tl.microbatches;
    j["chunks"] = tl.chunks;
    j["makespan"] = tl.makespan;
    j["bubble_fraction"] = tl.bubble_fraction;
    j["span_bubble_rate"] = tl.span_bubble_rate;
    auto stages = nlohmann::ordered_json::array();
    for (std::size_t s = 0; s < tl.stages.size(); ++s) {
        const auto& st = tl.stages[s];
        nlohmann::ordered_json js;
        js["stage"] = st.stage;
        js["busy"] = st.busy;
        js["bubble"] = st.bubble;
        js["peak_inflight"] = st.peak_inflight;
        js["peak_inflight_per_chunk"] = st.peak_inflight_per_chunk;
        js["peak_pending_w"] = st.peak_pending_w;
        auto ops = nlohmann::ordered_json::array();
        for (std::size_t i = tl.stage_begin[s]; i < tl.stage_begin[s + 1]; ++i) {
            const auto& o = tl.ops[i];
            nlohmann::ordered_json jo;
            jo["kind"] = kind_letter(o.kind);
            jo["microbatch"] = o.microbatch;
            jo["chunk"] = o.chunk;
            jo["start"] = o.start;
            jo["end"] = o.end;
            if (o.kind == OpKind::FullBackward) jo["full_backward"] = true;
            if (o.overlapped) jo["overlapped"] = true;
            ops.push_back(std::move(jo));
        }
        js["ops"] = std::move(ops);
        stages.push_back(std::move(js));
    }
    j["stages"] = std::move(stages);
    return j;
}

}   // namespace paraplan::schedule
