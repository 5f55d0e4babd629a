#pragma once
// What the estimator needs from a pipeline schedule: how many microbatches each
// stage holds in flight at its peak, and the makespan of one step given per-stage
// forward/backward costs. When the schedule simulator (core/schedule/) is present,
// estimate.cpp takes these from it; the closed forms here are the fallback and the
// papers' own formulas, tested against them.
#include "estimate/config.h"

#include <vector>

namespace paraplan::estimate {

// Peak in-flight microbatches of stage `rank` (0-based), in units of whole-stage
// microbatches (an interleaved chunk-microbatch counts 1/v).
//   GPipe: m. 1F1B (PipeDream-Flush, Narayanan et al. 2021): min(p - r, m).
//   Interleaved (Megatron get_pp_rank_microbatches): warmup (p - r - 1)*2 + (v - 1)*p, plus the
//   one in steady state, capped at m*v chunk-microbatches, divided by v; rank 0 gives
//   Korthikanti's factor 1 + (p - 1)/(p*v).
//   ZB1P: as 1F1B (Qi et al. 2024, Table 2: p*M_B). ZBV: 1x of 1F1B's peak on every rank.
//   DualPipeV: PP + 1 half-rank chunks in flight (DualPipe README table, PP = 2p): p + 1/2, capped at m.
double peak_inflight(Schedule s, int p, int m, int v, int rank);

// Per-stage cost of one microbatch (seconds): forward, full backward (B + W) and
// the weight-gradient part W of it.
struct StageCost {
    double f = 0, b = 0, w = 0;
};

struct PipelineResult {
    double makespan_s = 0;               // first forward to last backward
    double busy_s = 0;                   // m * (f + b) of the slowest stage
    double bubble_s = 0;                 // makespan - busy
    std::vector<double> inflight;        // per stage, as peak_inflight
};

// Closed-form makespan: m * T_max + (sum of the other stages' T) * bubble_factor, where
// T = f + b; for uniform stages this is (m + (p - 1)/v) * T (Narayanan et al. 2021, Sec. 2.2).
// ZB1P replaces T by f + b - 2w in the bubble ((p - 1)(T_F + T_B - T_W) in Qi et al.'s
// notation, whose T_B excludes W); ZBV and DualPipeV halve that again.
PipelineResult simulate_closed_form(Schedule s, int p, int m, int v, const std::vector<StageCost>& costs);

// Bubble fraction relative to ideal time, uniform stages: (p - 1)/(v*m).
double bubble_fraction(int p, int m, int v);

}  // namespace paraplan::estimate
