#include "estimate/tp_in_layers.h"

#include <algorithm>
#include <cmath>

namespace paraplan::estimate {

namespace {

// One step of a layer: a block's compute, or one of its collectives.
struct Item {
    bool compute = false;
    CollectiveOp op = CollectiveOp::all_reduce;
    bool mlp = false;
};

// A layer's steps in time order. A block is [all-gather] compute [reduce-scatter] with sequence
// parallelism, compute [all-reduce] without (Megatron's g after the forward block, f's conjugate
// after its backward). Backward runs the MLP's backward first; full recomputation runs the
// forward's two blocks again before it (tp_bwd_count 4); torchtitan's op-level SAC gathers each
// block's input once more for its backward (tp_bwd_regathers, comm_terms.cpp).
std::vector<Item> layer_items(bool forward, const LayerComm& lc) {
    const bool sp = lc.tp_sequence_parallel;
    std::vector<Item> items;
    auto block = [&](bool mlp, bool regather) {
        if (regather) items.push_back({false, CollectiveOp::all_gather, mlp});
        if (sp) items.push_back({false, CollectiveOp::all_gather, mlp});
        items.push_back({true, CollectiveOp::all_reduce, mlp});
        items.push_back({false, sp ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce, mlp});
    };
    if (forward || lc.tp_bwd_count > 2) {   // the forward, or its recomputation
        block(false, false);
        block(true, false);
    }
    if (!forward) {
        const bool regather = lc.tp_bwd_regathers > 0;
        block(true, regather);
        block(false, regather);
    }
    return items;
}

}   // namespace

TpPassLayout tp_pass_layout(const TpPass& pass, const LayerComm& lc) {
    TpPassLayout out;
    out.end = pass.start + pass.compute_s + pass.exposed_s;
    const double layers = pass.full_layers + pass.attention_only_layers;
    if (layers <= 0 || lc.tp_fwd_count <= 0) return out;
    const std::vector<Item> items = layer_items(pass.forward, lc);
    int pieces = 0;
    for (const Item& it : items) pieces += it.compute ? 1 : 0;
    const int n = std::max(1, int(std::ceil(layers - 1e-9)));
    const int groups = std::clamp(pass.max_groups, 1, n);
    out.groups = groups;
    const double scale = layers / n;   // layers one slot stands for (1 unless a stage splits unevenly)
    const double mlp_share = pass.full_layers / layers;
    // The events of every group, with their weights: calls x buffer (the collectives' time on
    // one link is close to proportional to their bytes).
    double weight = 0;
    for (int g = 0; g < groups; ++g) {
        const int k = (g + 1) * n / groups - g * n / groups;
        for (const Item& it : items) {
            if (it.compute) continue;
            TpEvent e;
            e.op = it.op;
            e.mlp = it.mlp;
            e.count = k * scale * (it.mlp ? mlp_share : 1.0);
            e.bytes = e.count * (it.op == CollectiveOp::all_gather ? lc.tp_gather_bytes : lc.tp_bytes);
            if (e.count <= 0) continue;
            weight += e.bytes;
            out.events.push_back(e);
        }
    }
    // Each event's share of the pass's exposed TP time: the estimate's total, split by weight. The
    // part the TP overlap hides (Config::tp_comm_overlap: TE userbuffers or torch's micro-pipeline,
    // comm_terms.cpp overlapped_pair) runs under the GEMM beside the collective -- the all-gather's
    // consumer after it, the reduce-scatter's producer before it -- and is not drawn as a block.
    const double uniform = 1.0 / double(std::max<std::size_t>(1, out.events.size()));
    std::size_t next = 0;
    double t = pass.start;
    for (int g = 0; g < groups; ++g) {
        const int k = (g + 1) * n / groups - g * n / groups;
        const double piece = pieces > 0 ? pass.compute_s * k / n / pieces : 0;
        for (const Item& it : items) {
            if (it.compute) {
                t += piece;
                continue;
            }
            if (next >= out.events.size() || out.events[next].mlp != it.mlp || out.events[next].op != it.op) continue;
            TpEvent& e = out.events[next++];
            const double share = weight > 0 ? e.bytes / weight : uniform;
            const double exposed = pass.exposed_s * share;
            e.wire_s = pass.wire_s * share;
            if (exposed > 0) {
                e.start = t;
                e.end = t + exposed;
                t = e.end;
            } else {
                const double under = std::min(e.wire_s, piece);
                e.hidden = true;
                e.start = it.op == CollectiveOp::all_gather ? t : t - under;
                e.end = e.start + under;
            }
        }
    }
    return out;
}

}   // namespace paraplan::estimate
