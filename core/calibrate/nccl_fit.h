#pragma once
// A cluster profile's link multipliers (estimate/profile.h: nvlink, network) fitted to the
// user's own nccl-tests runs (calibrate/nccl_tests_output.h) on one system (network/system.h).
//
// Each row's measured busbw (out-of-place, as nccl-tests reports it first) is compared with the
// network model's (network/collective.h price() on fabric_for() of the system with the
// multipliers applied, network/efficiency.h). Runs whose GPUs lie in one scale-up domain fit
// `nvlink`; runs that cross domains fit `network`, with nvlink at its fitted value (or the start
// profile's). Each multiplier minimises sum(log(model busbw / measured busbw)^2) over its rows,
// within parameter_bounds() (0.2 .. 1 of the line rate), by a grid over log(multiplier) then a
// golden-section search around the best grid point (the model is not smooth in the multiplier:
// NCCL's channel count is a rounded bandwidth ratio).
//
// Rows: only those the bandwidth decides. A row is fitted when the model prices a quarter of its
// size as not latency-bound (CollectiveResult::latency_bound: latency term <= bandwidth term), so
// at its own size the latency term is at most a quarter of the bandwidth term; smaller rows
// measure latencies, not link efficiency. Rows with #wrong > 0 are left out too.
//
// A tier with no such rows is refused (named), and so is a multiplier the rows barely depend on
// (over its whole range their modelled busbw moves by under 5% on average: another tier bounds
// them) or one that ends at a bound (the misfit then lies elsewhere in the model); a refused
// multiplier keeps the start profile's value.
//
// Held-out check, per tier: the multiplier fitted again on part of the rows and its error
// reported on the rest: split by GPU count where the tier's rows span several (fitted on the
// smallest count, checked on the larger ones), and split by message size (fitted on every other
// size, checked on the sizes between).
#include "calibrate/nccl_tests_output.h"
#include "estimate/profile.h"
#include "network/system.h"

#include <cstdint>
#include <string>
#include <vector>

namespace paraplan::calibrate {

struct NcclRun {
    std::string name;   // the file, as given
    NcclTestsOutput output;
};

struct NcclRowError {
    std::string run;
    int line = 0;
    std::string op;
    int ranks = 0;
    std::uint64_t bytes = 0;
    std::string tier;                                         // "nvlink" (one scale-up domain) or "network"
    bool fitted = false;                                      // used by the fit (bandwidth-bound, no #wrong)
    double measured_gbs = 0, before_gbs = 0, after_gbs = 0;   // busbw
    double error_before() const { return before_gbs / measured_gbs - 1; }
    double error_after() const { return after_gbs / measured_gbs - 1; }
};

struct HeldOut {
    std::string split;                   // "gpu_count" | "message_size"
    std::string fitted_on, checked_on;   // in words ("16 GPUs", "every other size from 64 MiB")
    bool ok = false;
    std::string refusal;
    double value = 0;   // the multiplier fitted on the subset
    int fit_rows = 0, check_rows = 0;
    double mean_abs_before = 0, mean_abs_after = 0;   // on the check rows: start profile, subset fit
};

struct TierFit {
    std::string key;          // "nvlink" | "network"
    bool attempted = false;   // some run lies on this tier
    bool ok = false;
    std::string refusal;
    double start = 1, value = 1;
    int rows = 0;                                     // fitted rows
    double mean_abs_before = 0, mean_abs_after = 0;   // over the fitted rows
    std::vector<HeldOut> held_out;
};

struct NcclFitResult {
    estimate::Profile profile;   // start with the fitted multipliers (and fit["nccl_tests"])
    TierFit nvlink, network;
    std::vector<NcclRowError> rows;     // every row of every run, fitted or not
    std::vector<std::string> skipped;   // runs left out, and why
};

// Runs the model cannot price are named in `skipped` (an op it has no model of, no rank lines,
// more GPUs than the system has domains for). Throws InputError when no run is usable.
NcclFitResult fit_nccl_tests(const std::vector<NcclRun>& runs, const network::System& system,
                             const estimate::Profile& start);

// fit["nccl_tests"] of a profile: the system, the runs, each tier's result and held-out checks.
nlohmann::json nccl_fit_json(const NcclFitResult& r, const network::System& system);

}   // namespace paraplan::calibrate
