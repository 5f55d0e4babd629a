#include "estimate/hybrid.h"

#include <algorithm>

namespace paraplan::estimate {

HybridLayerFlops hybrid_layer_flops_per_token(const ModelSpec& m, double seq) {
    HybridLayerFlops f;
    const double h = m.hidden;
    const double H = std::max(1, m.heads);
    const double p = m.head_size() * H / h;   // kv_channels * heads / hidden (1 without --kv-channels)
    const double g = m.kv_heads > 0 ? m.kv_heads : H;
    f.attention_gemm = 4 * h * p * (h + h * g / H);
    f.attention_core = 4 * h * p * (seq / 2);
    const double scale = m.gated_mlp() ? 1.5 : 1.0;
    f.mlp = 4 * h * m.ffn_hidden * scale;
    const double d_in = 2 * h;   // mamba_layer_flops: d_in = 2 * hidden_size
    const double nheads = m.mamba_num_heads;
    f.mamba_gemm = 2 * h * (2 * d_in + 2.0 * m.mamba_num_groups * m.mamba_state_dim + nheads) + 2 * d_in * h;
    f.mamba_scan = 7 * d_in * m.mamba_state_dim;
    if (m.experts > 0) {
        const double shared = m.shared_expert_ffn_hidden > 0 ? m.shared_expert_ffn_hidden
                                                             : double(m.shared_experts) * m.expert_ffn_hidden;
        f.moe = 4 * h * m.expert_ffn_hidden * std::max(1, m.top_k) * scale + 4 * h * shared * scale;
    }
    return f;
}

double hybrid_fwd_flops_per_token(const ModelSpec& m, double seq) {
    const HybridLayerFlops f = hybrid_layer_flops_per_token(m, seq);
    return m.hybrid_layer_count('*') * (f.attention_gemm + f.attention_core) + m.hybrid_layer_count('-') * f.mlp +
           m.hybrid_layer_count('M') * (f.mamba_gemm + f.mamba_scan) + m.hybrid_layer_count('E') * f.moe;
}

double hybrid_attention_core_flops_per_token(const ModelSpec& m, double seq) {
    return m.hybrid_layer_count('*') * hybrid_layer_flops_per_token(m, seq).attention_core;
}

ShardedCounts hybrid_layer_params_per_gpu(const LayerShapes& s, char kind, int tp, int ep, int etp) {
    ShardedCounts c;
    const double t = std::max(1, tp);
    const double norm = s.norm_params / 2;   // LayerShapes counts a transformer layer's two norms
    switch (kind) {
    case 'M': c.dense = s.mamba_params / t + norm; break;   // every mixer weight is tensor-parallel
    case '*': c.dense = s.attn_params / t + norm; break;
    case '-': c.dense = s.dense_mlp_params / t + norm; break;
    case 'E':
        c.dense = s.shared_params / t + s.router_params + norm;
        c.expert = s.expert_params * s.experts / (double(std::max(1, ep)) * std::max(1, etp));
        break;
    default: break;
    }
    return c;
}

LayerActivation hybrid_layer_activation(const LayerShapes& s, char kind, const ActivationInputs& in) {
    LayerActivation a;
    const double sl = in.seq / std::max(1, in.cp);
    const double b = in.micro_batch;
    const double t = std::max(1, in.tp);
    const double rep_div = in.sequence_parallel ? t : 1.0;
    const double sbh = sl * b * s.h;
    if (in.recompute == Recompute::full) {
        a.replicated = 2 * sbh / rep_div;
        return a;
    }
    const double drop = in.dropout ? 1.0 : 0.0;
    const bool gathered = in.sequence_parallel && in.gathered_input_bytes > 0;
    // One norm input and one block input (the linear's saved input), one dropout mask.
    a.replicated = (2 + drop) * sbh / rep_div + (gathered ? in.gathered_input_bytes * sbh : 2 * sbh / rep_div);
    const double mlp_per_width = s.gated > 1 ? 6.0 : 4.0;
    switch (kind) {
    case 'M':
        a.sharded = 2 * sl * b * (2 * s.mamba_d_inner + s.mamba_bc + s.mamba_heads) / t +
                    2 * 2 * sl * b * s.mamba_d_inner / t;
        break;
    case '*':
        a.sharded = 2 * sl * b * (s.hq + 2 * s.hkv) / t + 2 * sl * b * s.hq / t;
        if (!in.flash_attention && in.recompute == Recompute::none)
            a.scores = (in.dropout ? 5.0 : 2.0) * s.heads * sl * in.seq * b / t;
        break;
    case '-': a.sharded = mlp_per_width * sl * b * s.ffn / t; break;
    case 'E': {
        const double k = std::max(1, s.top_k);
        const double load = std::max(1.0, in.moe_load);
        a.sharded = load *
                    (2 * sl * b * k * s.h / rep_div + mlp_per_width * sl * b * k * s.expert_ffn / std::max(1, in.etp));
        if (s.shared_ffn > 0) a.sharded += mlp_per_width * sl * b * s.shared_ffn / t;
        a.sharded += 4 * sl * b * s.experts;
        break;
    }
    default: break;
    }
    return a;
}

int hybrid_stage_layers(const Config& c, int stage, char kind) {
    const std::vector<int>* v = kind == 'M'   ? &c.mamba_layers_per_stage
                                : kind == '*' ? &c.attention_layers_per_stage
                                : kind == '-' ? &c.mlp_layers_per_stage
                                : kind == 'E' ? &c.moe_layers_per_stage
                                              : nullptr;
    return v && stage >= 0 && stage < int(v->size()) ? (*v)[std::size_t(stage)] : 0;
}

ShardedCounts hybrid_stage_layer_params(const LayerShapes& s, const Config& c, int stage) {
    ShardedCounts sum;
    for (char k : kHybridKinds) {
        const ShardedCounts one = hybrid_layer_params_per_gpu(s, k, c.tp, c.ep, c.etp);
        const int n = hybrid_stage_layers(c, stage, k);
        sum.dense += n * one.dense;
        sum.expert += n * one.expert;
    }
    return sum;
}

double hybrid_stage_activation(const LayerShapes& s, const Config& c, int stage, const ActivationInputs& in) {
    double sum = 0;
    for (char k : kHybridKinds) sum += hybrid_stage_layers(c, stage, k) * hybrid_layer_activation(s, k, in).total();
    return sum;
}

}   // namespace paraplan::estimate
