#include "schedule/simulate.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace paraplan::schedule {
namespace {

constexpr double kNotYet = -1.0;

std::string op_name(const Action& a) {
    return std::string(pytorch_letter(a.kind)) + " of microbatch " + std::to_string(a.microbatch) + " on chunk " +
           std::to_string(a.chunk);
}

bool valid_cost(const OpCost& c) {
    return std::isfinite(c.f) && std::isfinite(c.b) && std::isfinite(c.w) && c.f >= 0 && c.b >= 0 && c.w >= 0;
}

paraplan::Diagnostic error(std::string rule, std::string message, std::vector<std::string> fields = {}) {
    paraplan::Diagnostic d;
    d.severity = paraplan::Severity::Error;
    d.rule = std::move(rule);
    d.message = std::move(message);
    d.fields = std::move(fields);
    return d;
}

}   // namespace

SimulationResult simulate(const Schedule& sch, const SimConfig& cfg) {
    SimulationResult res;
    auto& ds = res.diagnostics;
    const int pp = sch.pp, m = sch.microbatches, v = sch.chunks;
    const int V = sch.virtual_stages();
    if (pp < 1 || m < 1 || v < 1 || static_cast<int>(sch.stages.size()) != pp) {
        ds.push_back(error("schedule.shape", "The schedule has " + std::to_string(sch.stages.size()) +
                                                 " stage lists for pp = " + std::to_string(pp) + ", microbatches = " +
                                                 std::to_string(m) + ", chunks = " + std::to_string(v) + "."));
        return res;
    }
    if (sch.placement == Placement::V && v != 2) {
        ds.push_back(error("schedule.shape", "A V placement needs exactly 2 chunks, got " + std::to_string(v) + "."));
        return res;
    }
    if (!valid_cost(cfg.cost) || !std::isfinite(cfg.comm) || cfg.comm < 0 || !std::isfinite(cfg.fb_overlap_factor) ||
        cfg.fb_overlap_factor <= 0) {
        ds.push_back(error("schedule.costs",
                           "Durations and latency must be finite and not negative (the F&B "
                           "overlap factor positive).",
                           {"/costs"}));
        return res;
    }
    if (!cfg.stage_scale.empty() && static_cast<int>(cfg.stage_scale.size()) != pp) {
        ds.push_back(error("schedule.costs",
                           "Per-stage costs list " + std::to_string(cfg.stage_scale.size()) +
                               " stages, the pipeline has " + std::to_string(pp) + ".",
                           {"/stage_costs"}));
        return res;
    }
    if (!cfg.virtual_stage_cost.empty() && static_cast<int>(cfg.virtual_stage_cost.size()) != V) {
        ds.push_back(error("schedule.costs",
                           "Per-virtual-stage costs list " + std::to_string(cfg.virtual_stage_cost.size()) +
                               " entries, expected pp * chunks = " + std::to_string(V) + ".",
                           {"/virtual_stage_costs"}));
        return res;
    }
    for (const auto& c : cfg.stage_scale)
        if (!valid_cost(c)) {
            ds.push_back(
                error("schedule.costs", "Per-stage cost factors must be finite and not negative.", {"/stage_costs"}));
            return res;
        }
    for (const auto& c : cfg.virtual_stage_cost)
        if (!valid_cost(c)) {
            ds.push_back(error("schedule.costs", "Per-virtual-stage costs must be finite and not negative.",
                               {"/virtual_stage_costs"}));
            return res;
        }

    // Cost of each virtual stage.
    std::vector<OpCost> vcost(static_cast<std::size_t>(V), cfg.cost);
    for (int vs = 0; vs < V; ++vs) {
        auto& c = vcost[static_cast<std::size_t>(vs)];
        if (!cfg.virtual_stage_cost.empty()) {
            c = cfg.virtual_stage_cost[static_cast<std::size_t>(vs)];
        } else if (!cfg.stage_scale.empty()) {
            const auto& k = cfg.stage_scale[static_cast<std::size_t>(sch.stage_of(vs))];
            c = {cfg.cost.f * k.f, cfg.cost.b * k.b, cfg.cost.w * k.w};
        }
    }
    auto duration = [&](const Action& a, int vs) {
        const auto& c = vcost[static_cast<std::size_t>(vs)];
        switch (a.kind) {
        case OpKind::Forward: return c.f;
        case OpKind::BackwardInput: return c.b;
        case OpKind::BackwardWeight: return c.w;
        case OpKind::FullBackward: return c.b + c.w;
        }
        return 0.0;
    };

    // Reject actions that point outside the schedule before indexing with them.
    for (int s = 0; s < pp; ++s)
        for (const auto& a : sch.stages[static_cast<std::size_t>(s)])
            if (a.microbatch < 0 || a.microbatch >= m || a.chunk < 0 || a.chunk >= v) {
                ds.push_back(error("schedule.action_range", "Stage " + std::to_string(s) + " lists " + op_name(a) +
                                                                ", outside microbatches [0, " + std::to_string(m) +
                                                                ") or chunks [0, " + std::to_string(v) + ")."));
                return res;
            }

    Timeline& tl = res.timeline;
    tl.schedule = sch.name;
    tl.pp = pp;
    tl.microbatches = m;
    tl.chunks = v;
    tl.stage_begin.resize(static_cast<std::size_t>(pp) + 1, 0);
    for (int s = 0; s < pp; ++s)
        tl.stage_begin[static_cast<std::size_t>(s) + 1] = tl.stage_begin[static_cast<std::size_t>(s)] +
                                                          sch.stages[static_cast<std::size_t>(s)].size();
    tl.ops.resize(tl.stage_begin.back());
    tl.stages.resize(static_cast<std::size_t>(pp));

    const auto M = static_cast<std::size_t>(m);
    std::vector<double> f_end(static_cast<std::size_t>(V) * M, kNotYet),
        b_end(static_cast<std::size_t>(V) * M, kNotYet);
    std::vector<std::size_t> ptr(static_cast<std::size_t>(pp), 0);
    std::vector<double> free_at(static_cast<std::size_t>(pp), 0.0);
    std::vector<int> inflight(static_cast<std::size_t>(pp) * static_cast<std::size_t>(v), 0);
    std::vector<int> inflight_total(static_cast<std::size_t>(pp), 0), pending_w(static_cast<std::size_t>(pp), 0);
    for (int s = 0; s < pp; ++s)
        tl.stages[static_cast<std::size_t>(s)].peak_inflight_per_chunk.assign(static_cast<std::size_t>(v), 0);

    // Rank of each virtual stage, looked up for every op.
    std::vector<int> owner(static_cast<std::size_t>(V));
    for (int vs = 0; vs < V; ++vs) owner[static_cast<std::size_t>(vs)] = sch.stage_of(vs);

    std::vector<int> queue;
    std::vector<char> queued(static_cast<std::size_t>(pp), 1);
    queue.reserve(static_cast<std::size_t>(pp) * 2);
    for (int s = pp - 1; s >= 0; --s) queue.push_back(s);
    auto wake = [&](int s) {
        if (!queued[static_cast<std::size_t>(s)]) {
            queued[static_cast<std::size_t>(s)] = 1;
            queue.push_back(s);
        }
    };

    // Ready time of an action's input on stage s, or kNotYet.
    auto ready_time = [&](const Action& a, int s, int vs) -> double {
        const std::size_t mb = static_cast<std::size_t>(a.microbatch);
        switch (a.kind) {
        case OpKind::Forward: {
            if (vs == 0) return 0.0;
            const double e = f_end[static_cast<std::size_t>(vs - 1) * M + mb];
            if (e == kNotYet) return kNotYet;
            return e + (owner[static_cast<std::size_t>(vs - 1)] != s ? cfg.comm : 0.0);
        }
        case OpKind::BackwardInput:
        case OpKind::FullBackward: {
            if (vs == V - 1) return f_end[static_cast<std::size_t>(vs) * M + mb];
            const double e = b_end[static_cast<std::size_t>(vs + 1) * M + mb];
            if (e == kNotYet) return kNotYet;
            return e + (owner[static_cast<std::size_t>(vs + 1)] != s ? cfg.comm : 0.0);
        }
        case OpKind::BackwardWeight: return b_end[static_cast<std::size_t>(vs) * M + mb];
        }
        return kNotYet;
    };

    auto account = [&](int s, const Action& a, int vs) {
        auto& st = tl.stages[static_cast<std::size_t>(s)];
        const std::size_t ci = static_cast<std::size_t>(s) * static_cast<std::size_t>(v) +
                               static_cast<std::size_t>(a.chunk);
        if (a.kind == OpKind::Forward) {
            ++inflight[ci];
            ++inflight_total[static_cast<std::size_t>(s)];
            st.peak_inflight = std::max(st.peak_inflight, inflight_total[static_cast<std::size_t>(s)]);
            auto& pc = st.peak_inflight_per_chunk[static_cast<std::size_t>(a.chunk)];
            pc = std::max(pc, inflight[ci]);
            if (vs + 1 < V) wake(owner[static_cast<std::size_t>(vs + 1)]);
        } else if (is_backward(a.kind)) {
            --inflight[ci];
            --inflight_total[static_cast<std::size_t>(s)];
            if (a.kind == OpKind::BackwardInput) {
                ++pending_w[static_cast<std::size_t>(s)];
                st.peak_pending_w = std::max(st.peak_pending_w, pending_w[static_cast<std::size_t>(s)]);
            }
            if (vs > 0) wake(owner[static_cast<std::size_t>(vs - 1)]);
        } else {
            --pending_w[static_cast<std::size_t>(s)];
        }
    };

    while (!queue.empty()) {
        const int s = queue.back();
        queue.pop_back();
        queued[static_cast<std::size_t>(s)] = 0;
        const auto& ops = sch.stages[static_cast<std::size_t>(s)];
        std::size_t& p = ptr[static_cast<std::size_t>(s)];
        while (p < ops.size()) {
            const Action& a = ops[p];
            const bool pair = a.overlap_with_next && p + 1 < ops.size();
            const int vs_a = sch.virtual_stage(s, a.chunk);
            double ready = ready_time(a, s, vs_a);
            if (ready == kNotYet) break;
            double dur = duration(a, vs_a);
            int vs_b = -1;
            if (pair) {
                const Action& b = ops[p + 1];
                vs_b = sch.virtual_stage(s, b.chunk);
                const double rb = ready_time(b, s, vs_b);
                if (rb == kNotYet) break;
                ready = std::max(ready, rb);
                dur = cfg.fb_overlap_factor * (dur + duration(b, vs_b));
            }
            const double start = std::max(free_at[static_cast<std::size_t>(s)], ready);
            const double end = start + dur;
            const std::size_t n = pair ? 2 : 1;
            for (std::size_t k = 0; k < n; ++k) {
                const Action& x = ops[p + k];
                const int vs = k == 0 ? vs_a : vs_b;
                TimelineOp& o = tl.ops[tl.stage_begin[static_cast<std::size_t>(s)] + p + k];
                o = TimelineOp{s, x.kind, x.microbatch, x.chunk, start, end, pair};
                const std::size_t key = static_cast<std::size_t>(vs) * M + static_cast<std::size_t>(x.microbatch);
                if (x.kind == OpKind::Forward) f_end[key] = end;
                else if (is_backward(x.kind)) b_end[key] = end;
                account(s, x, vs);
            }
            auto& st = tl.stages[static_cast<std::size_t>(s)];
            if (p == 0) st.first_start = start;
            st.last_end = end;
            st.busy += dur;
            free_at[static_cast<std::size_t>(s)] = end;
            p += n;
        }
    }

    // Anything left is waiting on an input that never comes: a cyclic wait or a missing op.
    std::string stuck;
    int n_stuck = 0;
    for (int s = 0; s < pp; ++s) {
        const auto& ops = sch.stages[static_cast<std::size_t>(s)];
        if (ptr[static_cast<std::size_t>(s)] < ops.size()) {
            if (n_stuck < 8)
                stuck += (stuck.empty() ? "" : "; ") + std::string("stage ") + std::to_string(s) + " waits at " +
                         op_name(ops[ptr[static_cast<std::size_t>(s)]]) + " (op " +
                         std::to_string(ptr[static_cast<std::size_t>(s)]) + ")";
            ++n_stuck;
        }
    }
    if (n_stuck > 0) {
        ds.push_back(
            error("schedule.deadlock", "The schedule cannot finish: " + std::to_string(n_stuck) +
                                           " stage(s) wait for an input that is never produced (" + stuck +
                                           "). Their orders wait on each other in a cycle, or an op is missing."));
        return res;
    }

    double makespan = 0, busy_sum = 0, max_span = 0, busy_of_max_span = 0;
    for (auto& st : tl.stages) makespan = std::max(makespan, st.last_end);
    for (int s = 0; s < pp; ++s) {
        auto& st = tl.stages[static_cast<std::size_t>(s)];
        st.stage = s;
        st.bubble = makespan - st.busy;
        busy_sum += st.busy;
        const double span = st.last_end - st.first_start;
        if (span > max_span) {
            max_span = span;
            busy_of_max_span = st.busy;
        }
    }
    tl.makespan = makespan;
    tl.bubble_fraction = makespan > 0 ? 1.0 - busy_sum / (static_cast<double>(pp) * makespan) : 0.0;
    tl.span_bubble_rate = max_span > 0 ? (max_span - busy_of_max_span) / max_span : 0.0;
    return res;
}

}   // namespace paraplan::schedule
