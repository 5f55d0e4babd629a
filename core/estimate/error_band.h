#pragma once
// How sure a step time is: the step errors of published runs like this one that the model was
// never tuned on (the held-out rows of tests/data/estimate_accuracy.json, shipped with the library
// as resources/catalog/held_out_errors.json and checked against the table by tst_estimate_accuracy).
//
// Runs are alike when they share the model family (dense or mixture of experts), the precision
// (16-bit or FP8), the framework and the GPU architecture. The band comes from the narrowest of
// these groupings that holds at least kMinBandRuns runs, dropping the architecture first, then the
// framework, then the precision, then the family. Its ends are the smallest and largest error of
// those runs applied to the predicted step: for n runs drawn like this one, a new run's error falls
// between their smallest and largest with probability (n - 1) / (n + 1) (order statistics), the
// band's stated coverage.
#include "estimate/config.h"

#include <span>
#include <string>
#include <vector>

namespace paraplan::estimate {

inline constexpr int kMinBandRuns = 3;

struct RunKind {
    std::string family;      // "dense" | "moe"
    std::string precision;   // "bf16" | "fp8"
    std::string framework;   // megatron, torchtitan, deepspeed, colossalai
    std::string arch;        // the GPU catalog's arch: ampere, hopper, blackwell, ...
};

// One held-out run: its name, its kind and its step error (predicted / published - 1).
struct HeldOutError {
    std::string name;
    RunKind kind;
    double error = 0;
};

struct StepBand {
    double low_s = 0, high_s = 0;           // the step time the band allows, seconds
    double low_error = 0, high_error = 0;   // the runs' smallest and largest step error
    int runs = 0;                           // how many runs it rests on
    std::vector<std::string> alike;         // the leading fields of RunKind the runs share with this one
    RunKind kind;                           // this run's kind
    double coverage = 0;                    // (runs - 1) / (runs + 1)
};

RunKind run_kind(const Config& c, bool moe, const std::string& arch);

// The band around `step_s` for a run of `kind` from `runs`. With fewer than kMinBandRuns runs in
// all, low_s == high_s == step_s and runs is their count.
StepBand step_band(double step_s, const RunKind& kind, std::span<const HeldOutError> runs);

// The shared fields' values, e.g. "dense, fp8, megatron": "any kind" when none is shared.
std::string alike_text(const StepBand& b);

// The shipped held-out errors (resources/catalog/held_out_errors.json), parsed once.
const std::vector<HeldOutError>& held_out_errors();
std::vector<HeldOutError> parse_held_out_errors(std::string_view text);

}   // namespace paraplan::estimate
