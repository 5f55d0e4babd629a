#include "calibrate/fit.h"
#include "project/project_gpu.h"

#include "catalog/catalog.h"
#include "estimate/efficiency.h"
#include "estimate/estimate.h"
#include "util/input_error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>

namespace paraplan::calibrate {

using estimate::Profile;

namespace {

const GpuSpec& gpu_of(const Run& r) {
    const std::string id = r.project.cluster.nodes.empty() ? std::string() : r.project.cluster.nodes[0].gpu;
    const GpuSpec* g = find_gpu(r.project.cluster, id);
    if (!g) throw InputError("/cluster/gpu", r.name + ": unknown GPU '" + id + "'");
    return *g;
}

// Symmetric eigenvalues (cyclic Jacobi), for the conditioning of a k x k matrix, k <= 4.
std::vector<double> eigenvalues(std::vector<std::vector<double>> a) {
    const int n = int(a.size());
    for (int sweep = 0; sweep < 50; ++sweep) {
        double off = 0;
        for (int i = 0; i < n; ++i)
            for (int j = i + 1; j < n; ++j) off += a[i][j] * a[i][j];
        if (off < 1e-24) break;
        for (int p = 0; p < n; ++p)
            for (int q = p + 1; q < n; ++q) {
                if (std::abs(a[p][q]) < 1e-30) continue;
                const double theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
                const double t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
                const double c = 1 / std::sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; ++k) {
                    const double akp = a[k][p], akq = a[k][q];
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; ++k) {
                    const double apk = a[p][k], aqk = a[q][k];
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
            }
    }
    std::vector<double> ev(n);
    for (int i = 0; i < n; ++i) ev[i] = a[i][i];
    return ev;
}

// Solves (A) x = b for small k by Gaussian elimination with partial pivoting.
std::vector<double> solve(std::vector<std::vector<double>> A, std::vector<double> b) {
    const int n = int(b.size());
    for (int c = 0; c < n; ++c) {
        int piv = c;
        for (int r = c + 1; r < n; ++r)
            if (std::abs(A[r][c]) > std::abs(A[piv][c])) piv = r;
        std::swap(A[c], A[piv]);
        std::swap(b[c], b[piv]);
        if (std::abs(A[c][c]) < 1e-300) return std::vector<double>(n, 0.0);
        for (int r = c + 1; r < n; ++r) {
            const double f = A[r][c] / A[c][c];
            for (int k = c; k < n; ++k) A[r][k] -= f * A[c][k];
            b[r] -= f * b[c];
        }
    }
    std::vector<double> x(n);
    for (int r = n - 1; r >= 0; --r) {
        double s = b[r];
        for (int k = r + 1; k < n; ++k) s -= A[r][k] * x[k];
        x[r] = s / A[r][r];
    }
    return x;
}

std::string fmt(double v, int prec = 3) {
    std::ostringstream o;
    o.precision(prec);
    o << v;
    return o.str();
}

}   // namespace

Bounds parameter_bounds(const std::string& key, const std::vector<Run>& runs) {
    if (key == "network") return {0.2, 1.0};
    if (key == "nvlink") return {0.2, 1.0};
    // The multiplier's range keeps every run's applied efficiency within the physical band.
    double lo = 0, hi = 1e9;
    for (const auto& r : runs) {
        const auto eff = estimate::efficiency_for(gpu_of(r).arch);
        const double base = key == "gemm" ? eff.gemm_max : eff.attention;
        const double emin = key == "gemm" ? 0.3 : 0.15;
        const double emax = key == "gemm" ? estimate::kMaxGemmEfficiency : estimate::kMaxAttentionEfficiency;
        lo = std::max(lo, emin / base);
        hi = std::min(hi, emax / base);
    }
    if (runs.empty()) return {0.5, 1.2};
    return {lo, hi};
}

double estimate_step(const Run& r, const Profile& p, double* peak_gib, double* allocated_gib) {
    Project proj = r.project;
    proj.extra.erase("estimate");   // the profile under test, not the project's own
    estimate::Hardware hw = estimate::hardware_for(gpu_of(r), proj.cluster, proj.training.precision);
    estimate::apply_profile(p, hw);
    const estimate::Estimate e = estimate::estimate_project(proj, hw);
    // The figure the run printed: max_memory_reserved, max_memory_allocated, or (kind unknown)
    // the whole device footprint.
    if (peak_gib)
        *peak_gib = (r.memory_kind == "reserved"    ? e.memory.reserved_peak_bytes
                     : r.memory_kind == "allocated" ? e.memory.allocated_peak_bytes
                                                    : e.memory.peak_bytes) /
                    estimate::kGiB;
    if (allocated_gib) *allocated_gib = e.memory.allocated_peak_bytes / estimate::kGiB;
    return e.time.step_s;
}

MemoryFit fit_memory_reserve(const std::vector<Run>& runs, const Profile& start) {
    MemoryFit m;
    std::vector<double> alloc, meas;
    double before = 0;
    for (const auto& r : runs) {
        if (r.memory_kind != "reserved" || r.peak_gib <= 0) continue;
        double est = 0, a = 0;
        estimate_step(r, start, &est, &a);
        if (a <= 0) continue;
        alloc.push_back(a);
        meas.push_back(r.peak_gib);
        before += std::abs(est / r.peak_gib - 1);
    }
    const int n = int(meas.size());
    m.runs = n;
    m.attempted = n > 0;
    if (n == 0) return m;
    m.mean_abs_before = m.mean_abs_after = before / n;
    if (n < 2) {
        m.refusal =
            "the allocator reserve needs at least 2 runs with a measured reserved peak "
            "(torch.cuda.max_memory_reserved, torchtitan's 'memory:'); got 1";
        return m;
    }
    // Mean |(1 + f) a_i / M_i - 1| is convex and piecewise linear in f, with its kinks where one
    // run is met exactly (f_i = M_i / a_i - 1): its minimum over the bounds lies at a kink or a
    // bound; where several tie, the whole span between them is optimal and its middle is taken.
    const double lo = estimate::kMinMemoryReserve, hi = estimate::kMaxMemoryReserve;
    auto cost = [&](double f) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += std::abs((1 + f) * alloc[i] / meas[i] - 1);
        return s / n;
    };
    std::vector<double> cand;
    for (int i = 0; i < n; ++i) cand.push_back(std::clamp(meas[i] / alloc[i] - 1, lo, hi));
    double best = 1e300;
    for (double f : cand) best = std::min(best, cost(f));
    double f_lo = hi, f_hi = lo;
    for (double f : cand)
        if (cost(f) <= best + 1e-12) {
            f_lo = std::min(f_lo, f);
            f_hi = std::max(f_hi, f);
        }
    const double f = (f_lo + f_hi) / 2;
    if (f <= lo + 1e-9 || f >= hi - 1e-9) {
        m.refusal = "memory_reserve ends at its " + std::string(f <= lo + 1e-9 ? "lower" : "upper") + " bound (" +
                    fmt(f) +
                    (f <= lo + 1e-9
                         ? "): the estimated allocated peak already exceeds the measured reserved peaks, so the "
                           "misfit lies in the memory model or the runs' layouts, not in the allocator"
                         : "): the measured reserved peaks exceed the estimated allocated peak by more than a caching "
                           "allocator holds, so the misfit lies in the memory model or the runs' layouts") +
                    "; no reserve is fitted";
        return m;
    }
    m.ok = true;
    m.reserve = f;
    m.mean_abs_after = cost(f);
    return m;
}

std::vector<RunError> compare(const std::vector<Run>& runs, const Profile& before, const Profile& after) {
    std::vector<RunError> out;
    for (const auto& r : runs) {
        RunError e;
        e.name = r.name;
        e.measured_s = r.step_s;
        e.measured_gib = r.peak_gib;
        e.memory_kind = r.memory_kind;
        e.before_s = estimate_step(r, before, &e.before_gib);
        e.after_s = estimate_step(r, after, &e.after_gib);
        out.push_back(e);
    }
    return out;
}

double mean_abs_error(const std::vector<RunError>& e, bool after) {
    if (e.empty()) return 0;
    double s = 0;
    for (const auto& x : e) s += std::abs(after ? x.error_after() : x.error_before());
    return s / double(e.size());
}

double mean_abs_memory_error(const std::vector<RunError>& e, bool after) {
    double s = 0;
    for (const auto& x : e)
        if (x.has_memory()) s += std::abs(after ? x.memory_error_after() : x.memory_error_before());
    const int n = runs_with_memory(e);
    return n ? s / n : 0;
}

int runs_with_memory(const std::vector<RunError>& e) {
    return int(std::count_if(e.begin(), e.end(), [](const RunError& x) { return x.has_memory(); }));
}

namespace {

// The step-time multipliers (Levenberg-Marquardt above).
FitResult fit_step(const std::vector<Run>& runs, const std::vector<std::string>& params, const Profile& start) {
    FitResult res;
    res.profile = start;
    res.params = params;
    const int n = int(runs.size()), k = int(params.size());
    auto refuse = [&](const std::string& why) {
        res.ok = false;
        res.refusal = why;
        res.runs = compare(runs, start, start);
        res.mean_abs_before = res.mean_abs_after = mean_abs_error(res.runs, false);
        return res;
    };
    if (k == 0) return refuse("no parameter to fit");
    for (const auto& p : params)
        if (std::find(estimate::profile_parameters().begin(), estimate::profile_parameters().end(), p) ==
            estimate::profile_parameters().end())
            return refuse("unknown parameter '" + p + "' (gemm, attention, network, nvlink)");
    if (n < k)
        return refuse(std::to_string(k) + " free parameter" + (k > 1 ? "s need" : " needs") + " at least " +
                      std::to_string(k) + " measured run" + (k > 1 ? "s" : "") + "; got " + std::to_string(n) +
                      ". Fit fewer (--fit gemm) or add runs.");
    std::vector<Bounds> b;
    for (const auto& p : params) b.push_back(parameter_bounds(p, runs));
    for (int j = 0; j < k; ++j)
        if (b[j].lo > b[j].hi) return refuse("the runs' GPUs leave no physical range for " + params[j]);

    // x = log(multiplier), clamped into the bounds.
    std::vector<double> x(k);
    for (int j = 0; j < k; ++j)
        x[j] = std::log(std::clamp(estimate::profile_value(start, params[j]), b[j].lo, b[j].hi));
    auto profile_at = [&](const std::vector<double>& xs) {
        Profile p = start;
        for (int j = 0; j < k; ++j) estimate::profile_value(p, params[j]) = std::exp(xs[j]);
        return p;
    };
    auto residuals = [&](const std::vector<double>& xs) {
        const Profile p = profile_at(xs);
        std::vector<double> r(n);
        for (int i = 0; i < n; ++i) r[i] = std::log(estimate_step(runs[i], p) / runs[i].step_s);
        return r;
    };
    auto cost = [](const std::vector<double>& r) {
        double s = 0;
        for (double v : r) s += v * v;
        return s;
    };
    auto jacobian = [&](const std::vector<double>& xs, const std::vector<double>& r0) {
        std::vector<std::vector<double>> J(n, std::vector<double>(k));
        for (int j = 0; j < k; ++j) {
            // Step inward from a bound so the difference stays physical.
            double h = 1e-3;
            if (xs[j] + h > std::log(b[j].hi)) h = -h;
            std::vector<double> xh = xs;
            xh[j] += h;
            const auto rh = residuals(xh);
            for (int i = 0; i < n; ++i) J[i][j] = (rh[i] - r0[i]) / h;
        }
        return J;
    };

    std::vector<double> r = residuals(x);
    double c = cost(r);
    double lambda = 1e-3;
    std::vector<std::vector<double>> J = jacobian(x, r);
    // Sensitivity: RMS of d log(step) / d log(multiplier) over the runs.
    for (int j = 0; j < k; ++j) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += J[i][j] * J[i][j];
        s = std::sqrt(s / n);
        if (s < 0.01)
            return refuse("the runs barely depend on " + params[j] + " (a 10% change moves their step time by " +
                          fmt(100 * s * 0.1, 2) + "% on average" +
                          (params[j] == "network" ? "; does any run cross nodes?" : "") + "); leave it out of --fit");
    }
    int it = 0;
    for (; it < 50; ++it) {
        std::vector<std::vector<double>> A(k, std::vector<double>(k, 0.0));
        std::vector<double> g(k, 0.0);
        for (int i = 0; i < n; ++i)
            for (int a = 0; a < k; ++a) {
                g[a] += J[i][a] * r[i];
                for (int bb = 0; bb < k; ++bb) A[a][bb] += J[i][a] * J[i][bb];
            }
        bool moved = false;
        for (int tries = 0; tries < 10; ++tries) {
            auto M = A;
            for (int a = 0; a < k; ++a) M[a][a] += lambda * std::max(A[a][a], 1e-12);
            std::vector<double> neg(k);
            for (int a = 0; a < k; ++a) neg[a] = -g[a];
            const auto dx = solve(M, neg);
            std::vector<double> xn = x;
            for (int a = 0; a < k; ++a) xn[a] = std::clamp(x[a] + dx[a], std::log(b[a].lo), std::log(b[a].hi));
            const auto rn = residuals(xn);
            const double cn = cost(rn);
            if (cn < c) {
                double step = 0;
                for (int a = 0; a < k; ++a) step = std::max(step, std::abs(xn[a] - x[a]));
                x = xn;
                r = rn;
                const double gain = c - cn;
                c = cn;
                lambda = std::max(1e-7, lambda / 3);
                moved = step > 1e-6 && gain > 1e-12;
                break;
            }
            lambda *= 4;
        }
        if (!moved) break;
        J = jacobian(x, r);
    }
    res.iterations = it;
    res.profile = profile_at(x);
    // Conditioning of the normalised Gauss-Newton matrix at the solution.
    {
        std::vector<std::vector<double>> A(k, std::vector<double>(k, 0.0));
        for (int i = 0; i < n; ++i)
            for (int a = 0; a < k; ++a)
                for (int bb = 0; bb < k; ++bb) A[a][bb] += J[i][a] * J[i][bb];
        std::vector<double> d(k);
        for (int a = 0; a < k; ++a) d[a] = std::sqrt(std::max(A[a][a], 1e-300));
        for (int a = 0; a < k; ++a)
            for (int bb = 0; bb < k; ++bb) A[a][bb] /= d[a] * d[bb];
        const auto ev = eigenvalues(A);
        const double mx = *std::max_element(ev.begin(), ev.end()), mn = *std::min_element(ev.begin(), ev.end());
        res.condition = mn > 0 ? mx / mn : 1e300;
    }
    res.exactly_determined = n == k;
    res.runs = compare(runs, start, res.profile);
    res.mean_abs_before = mean_abs_error(res.runs, false);
    res.mean_abs_after = mean_abs_error(res.runs, true);
    if (k > 1 && res.condition > 1e3) {
        const Profile fitted = res.profile;
        FitResult r2 = refuse("the runs cannot tell " +
                              [&] {
                                  std::string s;
                                  for (int j = 0; j < k; ++j) s += (j ? (j + 1 == k ? " and " : ", ") : "") + params[j];
                                  return s;
                              }() +
                              " apart (condition number " + fmt(res.condition, 3) +
                              "); fit fewer parameters or add runs that differ in them");
        r2.condition = res.condition;
        return r2;
    }
    for (int j = 0; j < k; ++j) {
        const double v = std::exp(x[j]);
        const bool at_lo = x[j] <= std::log(b[j].lo) + 1e-4, at_hi = x[j] >= std::log(b[j].hi) - 1e-4;
        if (at_lo || at_hi) {
            const double cond = res.condition;
            FitResult r2 = refuse(params[j] + " ends at its physical " + std::string(at_lo ? "lower" : "upper") +
                                  " bound (" + fmt(v) +
                                  "): the misfit lies elsewhere in the model, so no profile is written");
            r2.condition = cond;
            return r2;
        }
    }
    res.ok = true;
    return res;
}

}   // namespace

FitResult fit_profile(const std::vector<Run>& runs, const std::vector<std::string>& params, const Profile& start) {
    const bool memory_asked = std::find(params.begin(), params.end(), estimate::kMemoryReserveKey) != params.end();
    std::vector<std::string> step;
    for (const auto& p : params)
        if (p != estimate::kMemoryReserveKey) step.push_back(p);
    FitResult res;
    if (memory_asked && step.empty()) {
        // The reserve alone: the step time is only reported.
        res.ok = true;
        res.profile = start;
        res.runs = compare(runs, start, start);
        res.mean_abs_before = res.mean_abs_after = mean_abs_error(res.runs, false);
    } else {
        res = fit_step(runs, step, start);
    }
    res.params = params;
    if (!res.ok) return res;

    res.memory = fit_memory_reserve(runs, start);
    if (memory_asked && !res.memory.attempted) {
        res.memory.attempted = true;
        res.memory.refusal =
            "no run carries a measured reserved peak (torch.cuda.max_memory_reserved: a 'peak_gib' column with a "
            "torchtitan log, or the log's 'memory:'); the allocator reserve cannot be fitted";
    }
    if (res.memory.ok) {
        res.profile.memory_reserve = res.memory.reserve;
        res.runs = compare(runs, start, res.profile);
    } else if (memory_asked) {
        const MemoryFit mf = res.memory;
        res.ok = false;
        res.refusal = mf.refusal;
        res.profile = start;
        res.runs = compare(runs, start, start);
        res.mean_abs_before = res.mean_abs_after = mean_abs_error(res.runs, false);
        res.memory = mf;
        return res;
    }

    nlohmann::json fit = {{"runs", int(runs.size())},
                          {"parameters", params},
                          {"mean_abs_error_before", res.mean_abs_before},
                          {"mean_abs_error_after", res.mean_abs_after},
                          {"condition", res.condition}};
    if (res.memory.ok)
        fit["memory_reserve"] = {{"runs", res.memory.runs},
                                 {"mean_abs_error_before", res.memory.mean_abs_before},
                                 {"mean_abs_error_after", res.memory.mean_abs_after}};
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& e : res.runs) {
        nlohmann::json row = {
            {"name", e.name}, {"measured_s", e.measured_s}, {"before_s", e.before_s}, {"after_s", e.after_s}};
        if (e.has_memory()) {
            row["memory_kind"] = e.memory_kind;
            row["measured_gib"] = e.measured_gib;
            row["before_gib"] = e.before_gib;
            row["after_gib"] = e.after_gib;
        }
        rows.push_back(row);
    }
    fit["errors"] = rows;
    res.profile.fit = fit;
    if (res.profile.gpu.empty() && !runs.empty() && !runs[0].project.cluster.nodes.empty())
        res.profile.gpu = runs[0].project.cluster.nodes[0].gpu;
    return res;
}

}   // namespace paraplan::calibrate
