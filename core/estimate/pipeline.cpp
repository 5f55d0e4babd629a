#include "estimate/pipeline.h"

#include <algorithm>

namespace paraplan::estimate {

double peak_inflight(Schedule s, int p, int m, int v, int rank) {
    p = std::max(1, p);
    m = std::max(1, m);
    v = std::max(1, v);
    switch (s) {
    case Schedule::gpipe:
        return m;
    case Schedule::interleaved: {
        if (p == 1) return std::min(m, 1);
        const long long total = 1LL * m * v;
        const long long warm = 2LL * (p - rank - 1) + 1LL * (v - 1) * p;
        return double(std::min(total, warm + 1)) / v;
    }
    case Schedule::zbv:
        return std::min(p, m);
    case Schedule::dualpipev:
        // PP + 1 chunks of half a rank's layers, PP = 2p chunks in the V: p + 1/2 stage-microbatches.
        return std::min<double>(m, p + 0.5);
    case Schedule::zb1p:
    case Schedule::one_f_one_b:
        break;
    }
    return std::min(p - rank, m);
}

double bubble_fraction(int p, int m, int v) { return double(p - 1) / (double(std::max(1, v)) * std::max(1, m)); }

PipelineResult simulate_closed_form(Schedule s, int p, int m, int v, const std::vector<StageCost>& costs) {
    PipelineResult r;
    const int n = int(costs.size());
    r.inflight.resize(std::max(n, 0));
    for (int i = 0; i < n; ++i) r.inflight[i] = peak_inflight(s, p, m, v, i);
    if (n == 0) return r;
    int worst = 0;
    double tmax = 0, sum_other = 0;
    for (int i = 0; i < n; ++i) {
        const double t = costs[i].f + costs[i].b;
        if (t > tmax) {
            tmax = t;
            worst = i;
        }
    }
    const double vv = (s == Schedule::interleaved) ? std::max(1, v) : 1;
    for (int i = 0; i < n; ++i) {
        if (i == worst) continue;
        const auto& c = costs[i];
        double t = c.f + c.b;
        if (s == Schedule::zb1p) t = std::max(0.0, c.f + c.b - 2 * c.w);
        if (s == Schedule::zbv || s == Schedule::dualpipev) t = 0.5 * std::max(0.0, c.f + c.b - 2 * c.w);
        sum_other += t;
    }
    r.busy_s = m * tmax;
    r.makespan_s = r.busy_s + sum_other / vv;
    r.bubble_s = r.makespan_s - r.busy_s;
    return r;
}

}  // namespace paraplan::estimate
