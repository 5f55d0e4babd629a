#pragma once
// Where a pass's tensor-parallel collectives happen inside its layers, for the step playback
// (step_playback.h). Megatron-LM's tensor parallelism (Shoeybi et al. 2019, arXiv 1909.08053,
// Sec. 3 and Fig. 3; ColossalAI's 1D tensor parallelism is the same split) runs, per transformer
// layer, the g operator's all-reduce after the attention block and after the MLP in forward, and
// the f operator's all-reduce after each block's backward. With sequence parallelism (Korthikanti
// et al. 2022, arXiv 2205.05198, Sec. 4.2.2) each block is entered by an all-gather and left by a
// reduce-scatter, in forward and (as their conjugates) in backward. A pass is laid out layer by
// layer (or group of layers): compute of a block, its collectives, the next block, ...
#include "estimate/comm_terms.h"

#include <vector>

namespace paraplan::estimate {

// One forward or backward pass (a timeline op) of one stage.
struct TpPass {
    bool forward = true;
    double start = 0;       // the pass begins
    double compute_s = 0;   // its compute, without the exposed communication
    double exposed_s = 0;   // the TP seconds the estimate charges the pass (the exposed part)
    double wire_s = 0;      // all its TP calls' time on the link (hidden part included)
    // Layers whose attention and MLP both run TP collectives, and MoE layers without a shared expert
    // (their routed MLP moves tokens through the EP dispatcher: the attention block's only).
    double full_layers = 0, attention_only_layers = 0;
    int max_groups = 1;   // at most this many layer groups (bounds the events of a large step)
};

// One collective of the pass: `count` calls (layers of a group) of `op`.
struct TpEvent {
    CollectiveOp op = CollectiveOp::all_reduce;
    bool mlp = false;      // the MLP block's (else the attention block's)
    bool hidden = false;   // nothing of it exposed: start..end is the GEMM it runs under
    double count = 0, bytes = 0;
    double start = 0, end = 0, wire_s = 0;
};

struct TpPassLayout {
    std::vector<TpEvent> events;   // in time order
    int groups = 0;                // layer groups the pass was cut into
    double end = 0;                // start + compute_s + exposed_s
};

// lc: the layer's collectives (counts, buffers, sequence parallelism, recomputation's extra ones).
TpPassLayout tp_pass_layout(const TpPass& pass, const LayerComm& lc);

}   // namespace paraplan::estimate
