#pragma once
// The durations a pipeline timeline is drawn with: forward (F), backward for the inputs (B) and
// backward for the weights (W) of one microbatch on one chunk, relative to one another. Two sources
// and the user's own:
//   equal    Qi et al. 2024 (Zero Bubble Pipeline Parallelism, arXiv 2401.10241) section 2.1 and
//            Figure 3: T_F = T_B = T_W, the full backward B + W twice the forward;
//   estimate the per-microbatch costs the estimator prices for the slowest stage
//            (time.bottleneck_stage), split as it splits them for the schedule simulator
//            (simulated_pipeline.cpp): F, B = full backward - W, W = the weight-gradient GEMMs;
//   custom   the user's relative values.
// What a zero-bubble schedule gains depends on them: per stage, 1F1B idles (p - 1)(F + B + W) and
// ZB-H1 (p - 1)(F + B - W) (Qi et al. Table 2).
#include "estimate/pipeline.h"

#include <optional>
#include <string>
#include <string_view>

namespace paraplan::estimate {

struct Estimate;

struct PassTimes {
    double forward = 1;           // F
    double backward_input = 1;    // B: the gradient of the stage's input, which the previous stage waits for
    double backward_weight = 1;   // W: the gradient of the weights, which nothing waits for until the optimizer
    bool operator==(const PassTimes&) const = default;
};

enum class PassTimesMode { Equal, Estimate, Custom };
const char* to_string(PassTimesMode m);   // "equal", "estimate", "custom"
std::optional<PassTimesMode> parse_pass_times_mode(std::string_view s);

// What a timeline is asked to draw with; `custom` is read in Custom mode only.
struct PassTimesChoice {
    PassTimesMode mode = PassTimesMode::Equal;
    PassTimes custom;
    bool operator==(const PassTimesChoice&) const = default;
};

// Largest relative value a custom pass time may take (the smallest is kMinPassTime): bounds what a
// lesson file or the user can ask the simulator to draw.
inline constexpr double kMinPassTime = 0.05;
inline constexpr double kMaxPassTime = 20;

// One stage's StageCost (f, full backward b = B + W, w) as the schedule simulator's three passes:
// W clamped to [0, b], B = b - W (simulated_pipeline.cpp places them so).
PassTimes passes_of(const StageCost& c);

// The estimate's pass times in seconds: the slowest stage's; nullopt without stages.
std::optional<PassTimes> estimate_pass_times_s(const Estimate& e);

struct ResolvedPassTimes {
    PassTimesMode mode = PassTimesMode::Equal;
    PassTimes times;        // relative, what the timeline is drawn with (forward = 1 unless custom)
    double forward_s = 0;   // the estimate's F in seconds (estimate mode), else 0
    std::string note;       // why the choice could not be followed (estimate mode without an estimate)
};
// The pass times to draw with: equal, the estimate's scaled to F = 1 (equal, with a note, when
// `e` is null or has no stages), or the custom values clamped to [kMinPassTime, kMaxPassTime].
ResolvedPassTimes resolve_pass_times(const PassTimesChoice& c, const Estimate* e);

// Qi et al. 2024 Table 2, per stage, in the pass times' unit (uniform stages, m >= p).
double bubble_1f1b(int p, const PassTimes& t);   // (p - 1)(F + B + W)
double bubble_zbh1(int p, const PassTimes& t);   // (p - 1)(F + B - W)

}   // namespace paraplan::estimate
