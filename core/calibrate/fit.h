#pragma once
// Fits a cluster profile (estimate/profile.h) to measured runs: least squares over the
// log of estimated / measured step time, each free multiplier kept inside its physical
// bounds, by Levenberg-Marquardt on the logs of the multipliers (Jacobian by finite
// differences of the whole estimate, schedule simulator included).
//
// A fit the data cannot support is refused, not saved:
//   - fewer runs than free parameters;
//   - a parameter the runs barely depend on (e.g. the network when no run crosses nodes);
//   - parameters the runs cannot tell apart (the normalised Gauss-Newton matrix is
//     ill-conditioned);
//   - a parameter that ends at its physical bound (the misfit lies elsewhere in the model).
//
// The caching allocator's reserve (Profile::memory_reserve) is fitted apart from the step
// time, whenever runs carry a measured peak of kind "reserved" (torch.cuda.max_memory_reserved,
// torchtitan's "memory:"): the reserve f that minimises the mean |estimated / measured - 1| of
// the reserved peak (1 + f) x allocated peak over those runs (a weighted median, exact), within
// [0, 0.6]. Runs that print an allocated peak are compared with the allocated estimate and do
// not fit it. Refused with fewer than 2 such runs or when f ends at a bound; asked for with
// --fit memory_reserve, that refusal refuses the whole fit, otherwise the step-time fit stands
// and the reserve stays as it was.
#include "calibrate/runs.h"
#include "estimate/profile.h"

#include <string>
#include <vector>

namespace paraplan::calibrate {

struct Bounds {
    double lo = 0, hi = 0;   // on the multiplier
};

// Physical bounds of a multiplier for runs on these GPU architectures: the applied
// efficiency stays within [0.3, 0.95] of peak for GEMMs and [0.15, 0.90] for attention;
// links between 0.2 and 1 of their line rate.
Bounds parameter_bounds(const std::string& key, const std::vector<Run>& runs);

struct RunError {
    std::string name;
    double measured_s = 0, before_s = 0, after_s = 0;
    // The estimate of the measured kind of peak: reserved (allocated + reserve), allocated, or
    // the whole footprint when the kind is not known. measured_gib 0 when not measured.
    double measured_gib = 0, before_gib = 0, after_gib = 0;
    std::string memory_kind;   // the run's ("reserved" | "allocated" | "")
    double error_before() const { return before_s / measured_s - 1; }
    double error_after() const { return after_s / measured_s - 1; }
    bool has_memory() const { return measured_gib > 0; }
    double memory_error_before() const { return before_gib / measured_gib - 1; }
    double memory_error_after() const { return after_gib / measured_gib - 1; }
};

struct MemoryFit {
    bool attempted = false;   // some run carries a reserved peak, or memory_reserve was asked for
    bool ok = false;
    std::string refusal;   // why not fitted, when attempted && !ok
    int runs = 0;          // runs with a measured reserved peak
    double reserve = 0;    // the fitted share of the allocated peak, when ok
    // mean |estimated / measured - 1| of the reserved peak over those runs
    double mean_abs_before = 0, mean_abs_after = 0;
};

struct FitResult {
    bool ok = false;
    std::string refusal;               // why, when !ok
    estimate::Profile profile;         // the fitted profile (the start profile when refused)
    std::vector<std::string> params;   // the free parameters
    std::vector<RunError> runs;
    double mean_abs_before = 0, mean_abs_after = 0;   // mean |estimate / measured - 1|
    double condition = 0;                             // of the normalised J^T J at the solution
    bool exactly_determined = false;                  // as many runs as parameters: the after-error is no evidence
    int iterations = 0;
    MemoryFit memory;   // the allocator reserve (Profile::memory_reserve)
};

// The estimated step time of one run with a profile (the project's own profile ignored);
// peak_gib: the estimated peak of the run's memory_kind (RunError::before_gib);
// allocated_gib: the allocated peak.
double estimate_step(const Run& r, const estimate::Profile& p, double* peak_gib = nullptr,
                     double* allocated_gib = nullptr);

// The reserve fitted to the runs' measured reserved peaks (see above), from the start profile.
MemoryFit fit_memory_reserve(const std::vector<Run>& runs, const estimate::Profile& start);

// start: the profile to start from (its name carried over); params: subset of
// profile_parameters(), plus "memory_reserve" to require the reserve fit.
FitResult fit_profile(const std::vector<Run>& runs, const std::vector<std::string>& params,
                      const estimate::Profile& start);

// Errors of the runs under two profiles (held-out check).
std::vector<RunError> compare(const std::vector<Run>& runs, const estimate::Profile& before,
                              const estimate::Profile& after);
double mean_abs_error(const std::vector<RunError>& e, bool after);
// Over the runs with a measured peak (of either kind); 0 when none has one.
double mean_abs_memory_error(const std::vector<RunError>& e, bool after);
int runs_with_memory(const std::vector<RunError>& e);

}   // namespace paraplan::calibrate
