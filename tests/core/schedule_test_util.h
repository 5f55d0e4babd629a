#pragma once
// Helpers shared by the tst_schedule_* tests.
#include "schedule/generate.h"
#include "schedule/schedule.h"

#include <string>

namespace schedule_test {

// "F0 F1 B0 ..." for one stage; with chunks > 1 each op gets its chunk ("F0c1").
// Letters are PyTorch's (F, I, W, B = full backward) unless `zb_letters`, which
// prints a split backward as B like the ZB paper and ColossalAI do.
inline std::string order(const paraplan::schedule::Schedule& s, int stage, bool zb_letters = false) {
    using paraplan::schedule::OpKind;
    std::string out;
    for (const auto& a : s.stages[static_cast<std::size_t>(stage)]) {
        if (!out.empty()) out += ' ';
        out += zb_letters && a.kind == OpKind::BackwardInput ? "B" : paraplan::schedule::pytorch_letter(a.kind);
        out += std::to_string(a.microbatch);
        if (s.chunks > 1) out += "c" + std::to_string(a.chunk);
    }
    return out;
}

inline paraplan::schedule::Schedule make(const std::string& name, int pp, int m, int v = 0) {
    paraplan::schedule::ScheduleRequest r;
    r.schedule = name;
    r.pp = pp;
    r.microbatches = m;
    r.chunks = v;
    auto g = paraplan::schedule::generate(r);
    return g.schedule ? *g.schedule : paraplan::schedule::Schedule{};
}

}   // namespace schedule_test
