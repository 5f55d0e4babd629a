// GPipe, 1F1B and Looped BFS: the schedules with one backward pass per microbatch
// and a fixed per-stage order.
#include "schedule/generate.h"

#include <algorithm>

namespace paraplan::schedule {
namespace {

Schedule blank(const char* name, int pp, int m, int v) {
    Schedule s;
    s.name = name;
    s.pp = pp;
    s.microbatches = m;
    s.chunks = v;
    s.placement = Placement::Loop;
    s.stages.resize(static_cast<std::size_t>(pp));
    return s;
}

Action act(OpKind k, int mb, int chunk = 0) { return Action{k, mb, chunk, false}; }

}   // namespace

// GPipe (Huang et al. 2019; PyTorch ScheduleGPipe._step_microbatches): every stage
// runs all forwards, then all backwards in microbatch order.
Schedule make_gpipe(int pp, int m) {
    Schedule s = blank("gpipe", pp, m, 1);
    for (auto& ops : s.stages) {
        ops.reserve(static_cast<std::size_t>(2 * m));
        for (int i = 0; i < m; ++i) ops.push_back(act(OpKind::Forward, i));
        for (int i = 0; i < m; ++i) ops.push_back(act(OpKind::FullBackward, i));
    }
    return s;
}

// Megatron forward_backward_pipelining_without_interleaving / get_pp_rank_microbatches:
// num_warmup = min(pp - rank - 1, m). ColossalAI OneForwardOneBackwardSchedule uses the
// same count.
std::vector<int> megatron_1f1b_warmup(int pp, int m) {
    std::vector<int> w(static_cast<std::size_t>(pp));
    for (int s = 0; s < pp; ++s) w[static_cast<std::size_t>(s)] = std::min(pp - s - 1, m);
    return w;
}

// 1F1B / PipeDream-flush: warmup forwards, then one forward + one backward per step,
// then the cooldown backwards.
Schedule make_1f1b(int pp, int m) {
    Schedule s = blank("1f1b", pp, m, 1);
    const auto warmup = megatron_1f1b_warmup(pp, m);
    for (int st = 0; st < pp; ++st) {
        auto& ops = s.stages[static_cast<std::size_t>(st)];
        ops.reserve(static_cast<std::size_t>(2 * m));
        const int w = warmup[static_cast<std::size_t>(st)];
        const int remaining = m - w;
        for (int i = 0; i < w; ++i) ops.push_back(act(OpKind::Forward, i));
        for (int i = 0; i < remaining; ++i) {
            ops.push_back(act(OpKind::Forward, w + i));
            ops.push_back(act(OpKind::FullBackward, i));
        }
        for (int i = remaining; i < m; ++i) ops.push_back(act(OpKind::FullBackward, i));
    }
    return s;
}

// PyTorch ScheduleLoopedBFS (Lamy-Poirier 2022, arXiv:2211.05953): all microbatches of
// chunk 0, then chunk 1, ...; backwards chunk by chunk in reverse, microbatches in reverse.
Schedule make_looped_bfs(int pp, int m, int v) {
    Schedule s = blank("looped-bfs", pp, m, v);
    for (auto& ops : s.stages) {
        ops.reserve(static_cast<std::size_t>(2 * m * v));
        for (int c = 0; c < v; ++c)
            for (int i = 0; i < m; ++i) ops.push_back(act(OpKind::Forward, i, c));
        for (int c = v - 1; c >= 0; --c)
            for (int i = m - 1; i >= 0; --i) ops.push_back(act(OpKind::FullBackward, i, c));
    }
    return s;
}

}   // namespace paraplan::schedule
