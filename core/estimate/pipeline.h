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
//   GPipe: m. Looped BFS (PyTorch ScheduleLoopedBFS; Lamy-Poirier 2023): every chunk's
//   forwards before any backward, m.
//   1F1B (PipeDream-Flush, Narayanan et al. 2021): min(p - r, m).
//   Interleaved (Megatron get_pp_rank_microbatches, ColossalAI InterleavedSchedule): warmup
//   (p - r - 1)*2 + (v - 1)*p; PyTorch Interleaved1F1B / InterleavedZeroBubble (_get_warmup_ops):
//   (v - 1)*microbatches_per_round + factor*(p - 1 - r), factor 2 / 1; plus the one in steady
//   state, capped at m*v chunk-microbatches, divided by v; Megatron's rank 0 gives
//   Korthikanti's factor 1 + (p - 1)/(p*v).
//   ZB1P: as 1F1B (Qi et al. 2024, Table 2: p*M_B). ZB-H2: 2(p - r) - 1 (Table 2: (2p-1) M_B).
//   ZBV: 1x of 1F1B's peak on every rank.
//   DualPipeV: PP + 1 half-rank chunks in flight (DualPipe README table, PP = 2p): p + 1/2, capped at m.
double peak_inflight(Schedule s, int p, int m, int v, int rank);
// peak_inflight of ranks 0 .. stages - 1: what simulate_closed_form() reports, which needs no stage
// costs (the planner checks memory with it before it prices the time).
std::vector<double> closed_form_inflight(Schedule s, int p, int m, int v, int stages);

// Per-stage cost of one microbatch (seconds): forward, full backward (B + W) and
// the weight-gradient part W of it.
struct StageCost {
    double f = 0, b = 0, w = 0;
};

// What one stage other than the slowest adds to the makespan (before dividing by v for
// the looped schedules): f + b for GPipe/1F1B/interleaved/looped BFS; the zero-bubble
// papers' bubble terms with our b = B + W (Qi et al. 2024 Table 2: ZB-H1 (p-1)(F+B-W),
// ZB-H2 (p-1)(F+B-2W) in their B that excludes W; DualPipe README: DualPipeV
// (PP/2-1)(F&B+B-3W) per half-rank chunk), never below the forward fill f: one step
// cannot hide the (p - 1) forwards that reach the last stage (the papers' zero bubble
// needs the next step to overlap this one's tail, Qi et al.'s optimizer post-validation).
// ZB-V: half of ZB-H1's.
// These match the simulator exactly for uniform stages and m >= 2p (tested), except
// ZB-V and DualPipeV when F, B and W differ (by up to 0.25 f per stage in the cases tried).
double bubble_cost(Schedule s, const StageCost& c);

struct PipelineResult {
    double makespan_s = 0;          // first forward to last backward
    double busy_s = 0;              // m * (f + b) of the slowest stage
    double bubble_s = 0;            // makespan - busy
    std::vector<double> inflight;   // per stage, as peak_inflight
};

// Closed-form makespan: m * T_max + (sum of the other stages' bubble_cost) / v, where v is
// the chunk count of the looped schedules (interleaved flavours, looped BFS, interleaved
// ZB) and 1 otherwise; for uniform stages and 1F1B/interleaved this is (m + (p - 1)/v) * T
// (Narayanan et al. 2021, Sec. 2.2, bubble fraction (p - 1)/(v m)). Looped BFS with m < p
// also waits (v - 1)(p - m) chunk-steps between its loops.
PipelineResult simulate_closed_form(Schedule s, int p, int m, int v, const std::vector<StageCost>& costs);

// Bubble fraction relative to ideal time, uniform stages: (p - 1)/(v*m).
double bubble_fraction(int p, int m, int v);

}   // namespace paraplan::estimate
