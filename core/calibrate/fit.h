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
    double measured_gib = 0, before_gib = 0, after_gib = 0;   // 0 when not measured
    double error_before() const { return before_s / measured_s - 1; }
    double error_after() const { return after_s / measured_s - 1; }
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
};

// The estimated step time of one run with a profile (the project's own profile ignored).
double estimate_step(const Run& r, const estimate::Profile& p, double* peak_gib = nullptr);

// start: the profile to start from (its name carried over); params: subset of
// profile_parameters().
FitResult fit_profile(const std::vector<Run>& runs, const std::vector<std::string>& params,
                      const estimate::Profile& start);

// Errors of the runs under two profiles (held-out check).
std::vector<RunError> compare(const std::vector<Run>& runs, const estimate::Profile& before,
                              const estimate::Profile& after);
double mean_abs_error(const std::vector<RunError>& e, bool after);

}   // namespace paraplan::calibrate
