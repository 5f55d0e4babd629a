// Interleaved 1F1B (Narayanan et al. SC'21) as Megatron, ColossalAI and PyTorch order it.
// All three walk the same table of (microbatch, chunk) pairs: microbatches in groups
// of N, and for each group every chunk in turn (Megatron get_schedule_table,
// ColossalAI InterleavedSchedule.get_model_chunk_id with N = pp, PyTorch
// ScheduleInterleaved1F1B forward_stage_index with N = microbatches per round).
// Backwards walk the same table with the chunk reversed. They differ in N and in
// the warmup count.
#include "schedule/generate.h"

#include <algorithm>
#include <utility>

namespace paraplan::schedule {

// Megatron get_pp_rank_microbatches (interleaved branch):
//   warmup = (pp - rank - 1) * 2 + (v - 1) * N, capped at m * v (then all warmup).
// Legacy Megatron (core <= v0.9) ran everything as warmup when m == pp.
std::vector<int> megatron_interleaved_warmup(int pp, int m, int v, int group, MegatronRule rule) {
    const int total = m * v;
    std::vector<int> w(static_cast<std::size_t>(pp));
    for (int s = 0; s < pp; ++s) {
        int n = (pp - s - 1) * 2 + (v - 1) * group;
        if (rule == MegatronRule::Legacy && m == pp) n = total;
        w[static_cast<std::size_t>(s)] = std::min(n, total);
    }
    return w;
}

// ColossalAI InterleavedSchedule.run_forward_backward:
//   warmup = min((S - s - 1) * 2 + (C - 1) * S, M * C).
std::vector<int> colossalai_interleaved_warmup(int pp, int m, int v) {
    std::vector<int> w(static_cast<std::size_t>(pp));
    for (int s = 0; s < pp; ++s) w[static_cast<std::size_t>(s)] = std::min((pp - s - 1) * 2 + (v - 1) * pp, m * v);
    return w;
}

// PyTorch schedules.py: number_of_rounds = max(1, n // pp); microbatches_per_round = n // rounds.
int pytorch_microbatches_per_round(int pp, int m) {
    const int rounds = std::max(1, m / pp);
    return m / rounds;
}

// PyTorch _get_warmup_ops: (v - 1) * microbatches_per_round + factor * (pp - 1 - rank),
// capped at n * v. factor = 2 for Interleaved1F1B, 1 for InterleavedZeroBubble.
std::vector<int> pytorch_interleaved_warmup(int pp, int m, int v, int multiply_factor) {
    const int mpr = pytorch_microbatches_per_round(pp, m);
    std::vector<int> w(static_cast<std::size_t>(pp));
    for (int s = 0; s < pp; ++s)
        w[static_cast<std::size_t>(s)] = std::min((v - 1) * mpr + multiply_factor * (pp - 1 - s), m * v);
    return w;
}

Schedule make_interleaved(const std::string& name, int pp, int m, int v, int group, const std::vector<int>& warmup) {
    Schedule s;
    s.name = name;
    s.pp = pp;
    s.microbatches = m;
    s.chunks = v;
    s.placement = Placement::Loop;
    s.stages.resize(static_cast<std::size_t>(pp));

    // The (microbatch, chunk) table; the last group takes the remainder.
    std::vector<std::pair<int, int>> table;
    table.reserve(static_cast<std::size_t>(m * v));
    for (int start = 0; start < m; start += group) {
        const int end = std::min(start + group, m);
        for (int c = 0; c < v; ++c)
            for (int mb = start; mb < end; ++mb) table.emplace_back(mb, c);
    }
    const int total = m * v;
    auto fwd = [&](int k) {
        const auto& [mb, c] = table[static_cast<std::size_t>(k)];
        return Action{OpKind::Forward, mb, c, false};
    };
    auto bwd = [&](int k) {
        const auto& [mb, c] = table[static_cast<std::size_t>(k)];
        return Action{OpKind::FullBackward, mb, v - 1 - c, false};
    };
    for (int st = 0; st < pp; ++st) {
        auto& ops = s.stages[static_cast<std::size_t>(st)];
        ops.reserve(static_cast<std::size_t>(2 * total));
        const int w = std::min(warmup[static_cast<std::size_t>(st)], total);
        const int remaining = total - w;
        for (int k = 0; k < w; ++k) ops.push_back(fwd(k));
        for (int k = 0; k < remaining; ++k) {
            ops.push_back(fwd(w + k));
            ops.push_back(bwd(k));
        }
        for (int k = remaining; k < total; ++k) ops.push_back(bwd(k));
    }
    return s;
}

}   // namespace paraplan::schedule
