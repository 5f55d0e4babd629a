#include "calibrate/nccl_fit.h"

#include "calibrate/fit.h"
#include "network/efficiency.h"
#include "network/fabric.h"
#include "util/input_error.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace paraplan::calibrate {

namespace {

using network::System;

// One usable run: where its GPUs lie on the system and which tier it measures.
struct Placed {
    const NcclRun* run = nullptr;
    network::Op op = network::Op::AllReduce;
    network::GroupShape shape;
    std::string tier;
};

// Where a run's ranks lie: as its rank lines place them (ranks per host) where a scale-up domain
// lies within one host (a tray), else (multi-node NVLink: hosts are trays of one domain) the first
// N GPUs of the system, which fill trays, then domains.
network::GroupShape shape_of(const System& s, const NcclTestsOutput& o) {
    const int dom = s.domain().domain_gpus;
    if (o.hosts > 1 && dom <= s.gpus_per_tray && o.max_ranks_per_host > 0) {
        network::GroupShape g;
        g.ranks = g.span_gpus = o.ranks;
        g.ppn = std::min(o.max_ranks_per_host, dom);
        g.domains = (o.ranks + g.ppn - 1) / g.ppn;
        return g;
    }
    return network::first_gpus(s, o.ranks);
}

double model_busbw(const System& s, const Placed& p, std::uint64_t bytes, double up, double out,
                   bool* latency_bound = nullptr) {
    const System e = network::with_efficiency(s, up, out);
    const auto r = network::price(network::fabric_for(e, p.shape), p.op, bytes);
    if (latency_bound) *latency_bound = r.latency_bound;
    return r.busbw_gbs;
}

struct Point {
    const Placed* placed = nullptr;
    std::size_t row = 0;   // index into NcclFitResult::rows
    std::uint64_t bytes = 0;
    int ranks = 0;
    double measured = 0;
};

using Model = std::function<double(const Point&, double)>;   // busbw at a multiplier

double cost(const std::vector<Point>& pts, const Model& m, double x) {
    double c = 0;
    for (const auto& p : pts) {
        const double l = std::log(m(p, x) / p.measured);
        c += l * l;
    }
    return c;
}

double mean_abs(const std::vector<Point>& pts, const Model& m, double x) {
    if (pts.empty()) return 0;
    double s = 0;
    for (const auto& p : pts) s += std::abs(m(p, x) / p.measured - 1);
    return s / static_cast<double>(pts.size());
}

// The multiplier in [lo, hi] with the least cost: a log-spaced grid, then golden-section search
// between the best grid point's neighbours.
double minimise(const std::vector<Point>& pts, const Model& m, double lo, double hi) {
    constexpr int kGrid = 81;
    const double a = std::log(lo), b = std::log(hi);
    int best = 0;
    double best_c = 0;
    for (int i = 0; i < kGrid; ++i) {
        const double c = cost(pts, m, std::exp(a + (b - a) * i / (kGrid - 1)));
        if (i == 0 || c < best_c) best = i, best_c = c;
    }
    double l = a + (b - a) * std::max(0, best - 1) / (kGrid - 1);
    double h = a + (b - a) * std::min(kGrid - 1, best + 1) / (kGrid - 1);
    const double g = (std::sqrt(5.0) - 1) / 2;
    double x1 = h - g * (h - l), x2 = l + g * (h - l);
    double c1 = cost(pts, m, std::exp(x1)), c2 = cost(pts, m, std::exp(x2));
    for (int it = 0; it < 40; ++it) {
        if (c1 <= c2) {
            h = x2, x2 = x1, c2 = c1;
            x1 = h - g * (h - l);
            c1 = cost(pts, m, std::exp(x1));
        } else {
            l = x1, x1 = x2, c1 = c2;
            x2 = l + g * (h - l);
            c2 = cost(pts, m, std::exp(x2));
        }
    }
    const double x = std::exp((l + h) / 2);
    return cost(pts, m, x) <= best_c ? x : std::exp(a + (b - a) * best / (kGrid - 1));
}

// The fit of one multiplier over `pts`; "" when fitted, else why not.
std::string fit_one(const std::vector<Point>& pts, const Model& m, const Bounds& b, double& value) {
    if (pts.empty()) return "no bandwidth-bound rows";
    // A multiplier the rows barely depend on (another tier bounds them) is not fitted.
    double dep = 0;
    for (const auto& p : pts) dep += std::abs(std::log(m(p, b.hi) / m(p, b.lo)));
    if (dep / static_cast<double>(pts.size()) < 0.05)
        return "the rows barely depend on it (across its whole range the model's busbw moves by under 5%): another "
               "tier bounds them";
    value = minimise(pts, m, b.lo, b.hi);
    const double tol = 2e-3, c = cost(pts, m, value);
    // A bound that fits as well as the minimum counts as reached (the cost is flat there).
    if (cost(pts, m, b.hi) <= c * (1 + 1e-6) + 1e-12) value = b.hi;
    else if (cost(pts, m, b.lo) <= c * (1 + 1e-6) + 1e-12) value = b.lo;
    if (value <= b.lo * (1 + tol))
        return "it ends at its lower bound " + std::to_string(b.lo) +
               ": the runs are slower than the model allows; the misfit lies elsewhere (another algorithm, a "
               "degraded link, the wrong system)";
    if (value >= b.hi * (1 - tol))
        return "it ends at its upper bound (line rate): the runs are faster than the model at full line rate; "
               "the model misses what they use (e.g. NVLS/SHARP or tree on two nodes), or the system is not theirs";
    return "";
}

std::string mib(std::uint64_t bytes) {
    const double m = static_cast<double>(bytes) / (1u << 20);
    char buf[32];
    std::snprintf(buf, sizeof buf, m >= 1 ? "%.0f MiB" : "%.3g MiB", m);
    return buf;
}

HeldOut held_out(const std::string& split, const std::vector<Point>& fit_pts, const std::vector<Point>& check,
                 const Model& m, const Bounds& b, double start, std::string fitted_on, std::string checked_on) {
    HeldOut h;
    h.split = split;
    h.fitted_on = std::move(fitted_on);
    h.checked_on = std::move(checked_on);
    h.fit_rows = static_cast<int>(fit_pts.size());
    h.check_rows = static_cast<int>(check.size());
    h.refusal = fit_one(fit_pts, m, b, h.value);
    h.ok = h.refusal.empty();
    h.mean_abs_before = mean_abs(check, m, start);
    if (h.ok) h.mean_abs_after = mean_abs(check, m, h.value);
    return h;
}

void fit_tier(TierFit& t, const std::vector<Point>& pts, const Model& m, const Bounds& b) {
    t.rows = static_cast<int>(pts.size());
    t.mean_abs_before = mean_abs(pts, m, t.start);
    t.refusal = fit_one(pts, m, b, t.value);
    t.ok = t.refusal.empty();
    if (!t.ok) {
        t.refusal = "no " + t.key + " multiplier fitted: " + t.refusal;
        t.value = t.start;
    }
    t.mean_abs_after = mean_abs(pts, m, t.value);
    if (pts.empty()) return;
    // By GPU count: fitted on the smallest, checked on the others.
    std::set<int> counts;
    for (const auto& p : pts) counts.insert(p.ranks);
    if (counts.size() > 1) {
        std::vector<Point> a, c;
        for (const auto& p : pts) (p.ranks == *counts.begin() ? a : c).push_back(p);
        std::string rest;
        for (auto it = std::next(counts.begin()); it != counts.end(); ++it)
            rest += (rest.empty() ? "" : ", ") + std::to_string(*it);
        t.held_out.push_back(
            held_out("gpu_count", a, c, m, b, t.start, std::to_string(*counts.begin()) + " GPUs", rest + " GPUs"));
    }
    // By message size: every other size fitted, the sizes between checked.
    std::set<std::uint64_t> sizes;
    for (const auto& p : pts) sizes.insert(p.bytes);
    if (sizes.size() > 1) {
        std::map<std::uint64_t, int> index;
        int i = 0;
        for (auto s : sizes) index[s] = i++;
        std::vector<Point> a, c;
        for (const auto& p : pts) (index[p.bytes] % 2 == 0 ? a : c).push_back(p);
        t.held_out.push_back(held_out("message_size", a, c, m, b, t.start,
                                      "every other size from " + mib(*sizes.begin()),
                                      std::to_string(sizes.size() / 2) + " sizes between"));
    }
}

nlohmann::json held_json(const HeldOut& h) {
    nlohmann::json j = {{"split", h.split},
                        {"fitted_on", h.fitted_on},
                        {"checked_on", h.checked_on},
                        {"fit_rows", h.fit_rows},
                        {"check_rows", h.check_rows},
                        {"fitted", h.ok},
                        {"mean_abs_error_before", h.mean_abs_before}};
    if (h.ok) {
        j["value"] = h.value;
        j["mean_abs_error_after"] = h.mean_abs_after;
    } else {
        j["refusal"] = h.refusal;
    }
    return j;
}

}   // namespace

NcclFitResult fit_nccl_tests(const std::vector<NcclRun>& runs, const System& system, const estimate::Profile& start) {
    NcclFitResult res;
    res.profile = start;
    const Bounds bu = parameter_bounds("nvlink", {}), bn = parameter_bounds("network", {});
    const double up0 = std::clamp(start.nvlink, bu.lo, bu.hi), out0 = std::clamp(start.network, bn.lo, bn.hi);
    res.nvlink.key = "nvlink";
    res.network.key = "network";
    res.nvlink.start = res.nvlink.value = up0;
    res.network.start = res.network.value = out0;

    std::vector<Placed> placed;
    placed.reserve(runs.size());
    for (const auto& r : runs) {
        const auto& o = r.output;
        if (!o.op) {
            res.skipped.push_back(r.name + ": " +
                                  (o.collective.empty()
                                       ? std::string("the collective is not named (no '# Collective test starting:' "
                                                     "line) and the table cannot tell it; add that line with the "
                                                     "binary's name, e.g. all_gather_perf")
                                       : "the network model has no " + o.collective));
            continue;
        }
        if (o.ranks < 2) {
            res.skipped.push_back(r.name + (o.ranks == 0 ? ": no '#  Rank' lines, so the GPU count is not known"
                                                         : ": one rank, nothing crosses a link"));
            continue;
        }
        Placed p{&r, *o.op, {}, ""};
        try {
            p.shape = shape_of(system, o);
            const auto f = network::fabric_for(system, p.shape);
            p.tier = f.nodes > 1 ? "network" : "nvlink";
        } catch (const InputError& e) {
            res.skipped.push_back(r.name + ": " + e.message());
            continue;
        }
        placed.push_back(p);
    }
    if (placed.empty()) {
        std::string why;
        for (const auto& s : res.skipped) why += "\n  " + s;
        throw InputError("", "no nccl-tests run the network model can price:" + why);
    }

    // Every row, with the rows each tier fits on.
    std::vector<Point> up_pts, out_pts;
    for (const auto& p : placed) {
        for (const auto& row : p.run->output.rows) {
            NcclRowError e;
            e.run = p.run->name;
            e.line = row.line;
            e.op = network::op_name(p.op);
            e.ranks = p.run->output.ranks;
            e.bytes = row.bytes;
            e.tier = p.tier;
            e.measured_gbs = row.out_of_place.busbw_gbs;
            if (row.bytes == 0) continue;
            e.before_gbs = model_busbw(system, p, row.bytes, up0, out0);
            bool quarter_latency_bound = true;
            model_busbw(system, p, std::max<std::uint64_t>(1, row.bytes / 4), up0, out0, &quarter_latency_bound);
            e.fitted = !quarter_latency_bound && e.measured_gbs > 0 && !(row.out_of_place.wrong.value_or(0) > 0);
            res.rows.push_back(e);
            if (e.fitted)
                (p.tier == "nvlink" ? up_pts : out_pts)
                    .push_back({&p, res.rows.size() - 1, row.bytes, e.ranks, e.measured_gbs});
        }
    }

    // nvlink on the runs inside one domain, then the network given nvlink.
    const auto up_model = [&](const Point& pt, double x) { return model_busbw(system, *pt.placed, pt.bytes, x, out0); };
    res.nvlink.attempted = std::any_of(placed.begin(), placed.end(),
                                       [](const Placed& p) { return p.tier == "nvlink"; });
    if (res.nvlink.attempted) fit_tier(res.nvlink, up_pts, up_model, bu);
    else res.nvlink.refusal = "no run lies inside one scale-up domain: nvlink left at " + std::to_string(up0);
    const double up = res.nvlink.value;
    const auto out_model = [&](const Point& pt, double x) { return model_busbw(system, *pt.placed, pt.bytes, up, x); };
    res.network.attempted = std::any_of(placed.begin(), placed.end(),
                                        [](const Placed& p) { return p.tier == "network"; });
    if (res.network.attempted) fit_tier(res.network, out_pts, out_model, bn);
    else res.network.refusal = "no run crosses scale-up domains: network left at " + std::to_string(out0);

    for (auto& e : res.rows) {
        const Placed* p = nullptr;
        for (const auto& q : placed)
            if (q.run->name == e.run) p = &q;
        e.after_gbs = model_busbw(system, *p, e.bytes, res.nvlink.value, res.network.value);
    }
    if (res.nvlink.ok) res.profile.nvlink = res.nvlink.value;
    if (res.network.ok) res.profile.network = res.network.value;
    if (res.profile.gpu.empty()) res.profile.gpu = system.gpu;
    if (!res.profile.fit.is_object()) res.profile.fit = nlohmann::json::object();
    res.profile.fit["nccl_tests"] = nccl_fit_json(res, system);
    return res;
}

nlohmann::json nccl_fit_json(const NcclFitResult& r, const System& system) {
    nlohmann::json runs = nlohmann::json::array();
    std::map<std::string, std::pair<int, std::string>> seen;   // run -> rows, tier
    for (const auto& e : r.rows) {
        auto& s = seen[e.run];
        ++s.first;
        s.second = e.tier;
    }
    for (const auto& [name, s] : seen) runs.push_back({{"file", name}, {"rows", s.first}, {"tier", s.second}});
    nlohmann::json j = {{"system", system.id}, {"runs", runs}, {"skipped", r.skipped}};
    for (const TierFit* t : {&r.nvlink, &r.network}) {
        nlohmann::json tj = {{"attempted", t->attempted},
                             {"fitted", t->ok},
                             {"start", t->start},
                             {"value", t->value},
                             {"rows", t->rows}};
        if (t->attempted) {
            tj["mean_abs_error_before"] = t->mean_abs_before;
            tj["mean_abs_error_after"] = t->mean_abs_after;
            nlohmann::json h = nlohmann::json::array();
            for (const auto& x : t->held_out) h.push_back(held_json(x));
            tj["held_out"] = h;
        }
        if (!t->ok) tj["refusal"] = t->refusal;
        j[t->key] = tj;
    }
    return j;
}

}   // namespace paraplan::calibrate
