#include "estimate/pipeline.h"

#include <algorithm>

namespace paraplan::estimate {

namespace {

// Interleaved warmup forwards on `rank`, in chunk-microbatches, as the framework counts them.
long long interleaved_warmup(Schedule s, int p, int m, int v, int rank) {
    if (s == Schedule::interleaved_pytorch || s == Schedule::interleaved_zb) {
        // PyTorch _get_warmup_ops: (v - 1) * microbatches_per_round + factor * (pp - 1 - rank),
        // factor 2 for Interleaved1F1B, 1 for InterleavedZeroBubble; rounds = max(1, m // pp).
        const int rounds = std::max(1, m / p);
        const long long mpr = m / rounds;
        return (v - 1) * mpr + (s == Schedule::interleaved_zb ? 1LL : 2LL) * (p - 1 - rank);
    }
    // Megatron get_pp_rank_microbatches / ColossalAI InterleavedSchedule: (p - r - 1) * 2 + (v - 1) * p.
    return 2LL * (p - rank - 1) + 1LL * (v - 1) * p;
}

}   // namespace

double peak_inflight(Schedule s, int p, int m, int v, int rank) {
    p = std::max(1, p);
    m = std::max(1, m);
    v = std::max(1, v);
    switch (s) {
    case Schedule::gpipe:
    case Schedule::looped_bfs:
        // Every forward (of every chunk, for looped BFS) runs before the first backward.
        return m;
    case Schedule::interleaved:   // resolved before the estimate; as Megatron's
    case Schedule::interleaved_megatron:
    case Schedule::interleaved_colossalai:
    case Schedule::interleaved_pytorch:
    case Schedule::interleaved_zb: {
        if (p == 1) return std::min(m, 1);
        const long long total = 1LL * m * v;
        return double(std::min(total, interleaved_warmup(s, p, m, v, rank) + 1)) / v;
    }
    case Schedule::zbh2:
        // Qi et al. 2024 Table 2 / Sec. 3.2: worker i holds (2p - 2i + 1) M_B (i = rank + 1).
        return std::min(m, 2 * (p - rank) - 1);
    case Schedule::zbv: return std::min(p, m);
    case Schedule::dualpipev:
        // PP + 1 chunks of half a rank's layers, PP = 2p chunks in the V: p + 1/2 stage-microbatches.
        return std::min<double>(m, p + 0.5);
    case Schedule::zb1p:
    case Schedule::one_f_one_b: break;
    }
    return std::min(p - rank, m);
}

double bubble_fraction(int p, int m, int v) { return double(p - 1) / (double(std::max(1, v)) * std::max(1, m)); }

double bubble_cost(Schedule s, const StageCost& c) {
    const double w = std::clamp(c.w, 0.0, c.b);
    switch (s) {
    case Schedule::zb1p:
    case Schedule::interleaved_zb:
        // Qi et al. 2024 Table 2, ZB-H1: (p - 1)(T_F + T_B - T_W), T_B = b - w here.
        return std::max(c.f, c.f + c.b - 2 * w);
    case Schedule::zbh2:
        // Table 2, ZB-H2: (p - 1)(T_F + T_B - 2 T_W).
        return std::max(c.f, c.f + c.b - 3 * w);
    case Schedule::zbv: return 0.5 * std::max(c.f, c.f + c.b - 2 * w);
    case Schedule::dualpipev:
        // DualPipe README: (PP/2 - 1)(F&B + B - 3W) with PP = 2p chunks of half a rank's layers
        // (F = f/2, full B = b/2, W = w/2, F&B = F + B when not overlapped).
        return std::max(c.f, 0.5 * (c.f + 2 * c.b - 3 * w));
    default: return c.f + c.b;
    }
}

std::vector<double> closed_form_inflight(Schedule s, int p, int m, int v, int stages) {
    std::vector<double> out(static_cast<std::size_t>(std::max(stages, 0)));
    for (int i = 0; i < stages; ++i) out[static_cast<std::size_t>(i)] = peak_inflight(s, p, m, v, i);
    return out;
}

PipelineResult simulate_closed_form(Schedule s, int p, int m, int v, const std::vector<StageCost>& costs) {
    PipelineResult r;
    const int n = int(costs.size());
    r.inflight = closed_form_inflight(s, p, m, v, n);
    if (n == 0) return r;
    m = std::max(1, m);
    int worst = 0;
    double tmax = 0, sum_other = 0;
    for (int i = 0; i < n; ++i) {
        const double t = costs[i].f + costs[i].b;
        if (t > tmax) {
            tmax = t;
            worst = i;
        }
    }
    const double vv = is_multi_chunk(s) ? std::max(1, v) : 1;
    for (int i = 0; i < n; ++i)
        if (i != worst) sum_other += bubble_cost(s, costs[i]);
    r.busy_s = m * tmax;
    r.makespan_s = r.busy_s + sum_other / vv;
    // Looped BFS with fewer microbatches than stages: each of the v - 1 chunk turns waits
    // for the first microbatch to come round the loop (p chunk-steps instead of m).
    if (s == Schedule::looped_bfs && m < n) r.makespan_s += (vv - 1) * (n - m) * tmax / vv;
    r.bubble_s = r.makespan_s - r.busy_s;
    return r;
}

}   // namespace paraplan::estimate
