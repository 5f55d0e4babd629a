// Zero-bubble schedules (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR'24,
// arXiv:2401.10241): the backward is split into B (input grad) and W (weight grad),
// and W passes fill what would be bubbles.
#include "schedule/generate.h"

#include <algorithm>
#include <deque>
#include <utility>

namespace paraplan::schedule {

// PyTorch ScheduleInterleavedZeroBubble (ZB1P), as _get_1f1b_rank_ops builds it with
// enable_zero_bubble: warmup = (v - 1) * microbatches_per_round + (pp - 1 - rank);
// then F + B per step; rank r starts emitting W (oldest pending first) once r
// backwards have run, so rank r keeps r weight passes pending (ZB-H1's
// "(i - 1) M_W" on worker i); the leftover Ws close the step.
// With v = 1 this is the paper's handcrafted ZB-H1 (Table 2: bubble (p-1)(F+B-W)).
Schedule make_interleaved_zb(const std::string& name, int pp, int m, int v) {
    Schedule s;
    s.name = name;
    s.pp = pp;
    s.microbatches = m;
    s.chunks = v;
    s.placement = Placement::Loop;
    s.stages.resize(static_cast<std::size_t>(pp));
    const int mpr = pytorch_microbatches_per_round(pp, m);
    const auto warmups = pytorch_interleaved_warmup(pp, m, v, 1);
    const int total = m * v;
    for (int rank = 0; rank < pp; ++rank) {
        auto& ops = s.stages[static_cast<std::size_t>(rank)];
        ops.reserve(static_cast<std::size_t>(3 * total));
        const int warmup = warmups[static_cast<std::size_t>(rank)];
        std::vector<int> f_mb(static_cast<std::size_t>(v), 0), b_mb(static_cast<std::size_t>(v), 0);
        std::deque<std::pair<int, int>> pending_w;   // (microbatch, chunk) in B order
        auto fwd_chunk = [&](int step) { return (step / mpr) % v; };
        auto bwd_chunk = [&](int step) { return v - 1 - ((step - warmup) / mpr) % v; };
        auto emit_f = [&](int step) {
            const int c = fwd_chunk(step);
            ops.push_back({OpKind::Forward, f_mb[static_cast<std::size_t>(c)]++, c, false});
        };
        auto emit_b = [&](int step) {
            const int c = bwd_chunk(step);
            const int mb = b_mb[static_cast<std::size_t>(c)]++;
            ops.push_back({OpKind::BackwardInput, mb, c, false});
            pending_w.emplace_back(mb, c);
        };
        auto emit_w = [&] {
            const auto [mb, c] = pending_w.front();
            pending_w.pop_front();
            ops.push_back({OpKind::BackwardWeight, mb, c, false});
        };
        for (int step = 0; step < total + warmup; ++step) {
            if (step < warmup) {
                emit_f(step);
                continue;
            }
            if (step < total) emit_f(step);
            emit_b(step);
            if (step - warmup >= rank) emit_w();
        }
        while (!pending_w.empty()) emit_w();
    }
    return s;
}

// ZB-H2 (Qi et al. §3, Figure 3 bottom; Table 2: bubble (p-1)(F+B-2W), peak
// activations (2p-1) M_B, worker i holding (2p-2i+1) M_B). The paper draws it by hand
// for equal F, B, W: extra warmup forwards fill the bubble before the first B, and W
// passes are moved to the tail, turning the trapezoid into a parallelogram. We build
// that order by playing the pipeline in unit time steps: each step, each stage runs
// a ready F while fewer than 2(pp - s) - 1 microbatches hold activations on it, else
// the ready B (oldest first), else the oldest pending W; a W runs first
// when more than 2s are pending (worker i = s + 1 holds (2i - 2) M_W in the paper).
Schedule make_zbh2(int pp, int m) {
    Schedule s;
    s.name = "zbh2";
    s.pp = pp;
    s.microbatches = m;
    s.chunks = 1;
    s.placement = Placement::Loop;
    s.stages.resize(static_cast<std::size_t>(pp));
    const auto P = static_cast<std::size_t>(pp);
    const auto M = static_cast<std::size_t>(m);
    constexpr int kNotDone = -1;
    // Step at which F / B of (stage, microbatch) ran.
    std::vector<int> f_step(P * M, kNotDone), b_step(P * M, kNotDone);
    std::vector<int> nf(P, 0), nb(P, 0);
    std::vector<std::deque<int>> pending_w(P);
    std::vector<int> left(P, 3 * m);
    int remaining = 3 * m * pp;
    const int step_limit = 8 * (m + pp) + 16;   // generous: the schedule needs ~3m + 2pp steps
    for (int t = 0; remaining > 0 && t < step_limit; ++t) {
        for (int st = 0; st < pp; ++st) {
            const auto S = static_cast<std::size_t>(st);
            auto& ops = s.stages[S];
            const int cap = 2 * (pp - st) - 1;
            const int w_cap = 2 * st;
            auto ran_before = [&](const std::vector<int>& steps, std::size_t stage, int mb) {
                const int x = steps[stage * M + static_cast<std::size_t>(mb)];
                return x != kNotDone && x < t;
            };
            const int b = nb[S];
            const bool b_ready = b < nf[S] && (st == pp - 1 ? ran_before(f_step, S, b) : ran_before(b_step, S + 1, b));
            const int f = nf[S];
            const bool f_ready = f < m && f - nb[S] < cap && (st == 0 || ran_before(f_step, S - 1, f));
            if (static_cast<int>(pending_w[S].size()) > w_cap) {
                ops.push_back({OpKind::BackwardWeight, pending_w[S].front(), 0, false});
                pending_w[S].pop_front();
            } else if (f_ready) {
                ops.push_back({OpKind::Forward, f, 0, false});
                f_step[S * M + static_cast<std::size_t>(f)] = t;
                ++nf[S];
            } else if (b_ready) {
                ops.push_back({OpKind::BackwardInput, b, 0, false});
                b_step[S * M + static_cast<std::size_t>(b)] = t;
                pending_w[S].push_back(b);
                ++nb[S];
            } else if (!pending_w[S].empty()) {
                ops.push_back({OpKind::BackwardWeight, pending_w[S].front(), 0, false});
                pending_w[S].pop_front();
            } else {
                continue;
            }
            --remaining;
        }
    }
    return s;
}

}   // namespace paraplan::schedule
