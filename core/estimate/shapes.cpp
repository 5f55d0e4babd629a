#include "estimate/shapes.h"

#include <algorithm>

namespace paraplan::estimate {

LayerShapes layer_shapes(const ModelSpec& m) {
    LayerShapes s;
    s.h = m.hidden;
    s.heads = m.heads;
    const double hd = m.head_size();
    const int kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
    s.hq = m.heads * hd;
    s.hkv = kv * hd;
    s.ffn = m.ffn_hidden > 0 ? m.ffn_hidden : 4.0 * m.hidden;
    s.gated = m.gated_mlp() ? 1.5 : 1.0;
    s.experts = m.experts;
    s.top_k = m.experts > 0 ? std::max(1, m.top_k) : 0;
    s.expert_ffn = m.expert_ffn_hidden > 0 ? m.expert_ffn_hidden : s.ffn;
    s.shared_ffn = m.shared_expert_ffn_hidden > 0 ? m.shared_expert_ffn_hidden : m.shared_experts * s.expert_ffn;
    s.vocab = m.vocab;
    const double bias = m.attn_bias ? 1 : 0;
    s.mla = m.kv_lora_rank > 0;
    if (s.mla) {
        // DeepSeek-V2/V3 multi-head latent attention (q/kv low-rank projections).
        const double qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
        const double q = m.q_lora_rank > 0 ? s.h * m.q_lora_rank + m.q_lora_rank * m.heads * qk + m.q_lora_rank
                                           : s.h * m.heads * qk;
        const double kv_a = s.h * (m.kv_lora_rank + m.qk_rope_head_dim) + m.kv_lora_rank;
        const double kv_b = m.kv_lora_rank * m.heads * (m.qk_nope_head_dim + m.v_head_dim);
        s.attn_params = q + kv_a + kv_b + m.heads * m.v_head_dim * s.h;
        s.hq = m.heads * m.v_head_dim;
        s.hkv = m.heads * qk;
        s.q_lora = m.q_lora_rank;
        s.kv_lora = m.kv_lora_rank;
        s.qk_rope = m.qk_rope_head_dim;
    } else {
        s.attn_params = s.h * (s.hq + 2 * s.hkv) + s.hq * s.h + bias * (s.hq + 2 * s.hkv + (m.qkv_bias_only ? 0 : s.h));
    }
    const double mlp_mats = m.gated_mlp() ? 3 : 2;
    const double mlp_bias = m.mlp_bias ? 1 : 0;
    s.dense_mlp_params = mlp_mats * s.h * s.ffn + mlp_bias * (s.ffn * (mlp_mats - 1) + s.h);
    s.expert_params = mlp_mats * s.h * s.expert_ffn;
    s.shared_params = mlp_mats * s.h * s.shared_ffn;
    s.router_params = s.h * m.experts;
    const double norm = m.norm == "layernorm" ? 2 * s.h : s.h;
    s.norm_params = 2 * norm;
    s.final_norm_params = norm;
    s.embedding_params = s.vocab * s.h + (m.position == "learned" ? double(m.max_seq) * s.h : 0);
    s.head_params = m.tied_embeddings ? 0 : s.vocab * s.h;
    if (m.is_hybrid()) {
        s.hybrid = true;
        s.mamba_params = double(count_params(m).mamba_per_layer);
        s.mamba_d_inner = double(m.mamba_d_inner());
        s.mamba_bc = 2.0 * m.mamba_num_groups * m.mamba_state_dim;
        s.mamba_heads = m.mamba_num_heads;
        s.mamba_state = m.mamba_state_dim;
        s.mamba_proj_params = s.h * (2 * s.mamba_d_inner + s.mamba_bc + s.mamba_heads) + s.mamba_d_inner * s.h;
    }
    return s;
}

bool is_moe_layer(const ModelSpec& m, int i) { return m.is_moe_layer(i); }

ShardedCounts layer_params_per_gpu(const LayerShapes& s, bool moe, int tp, int ep, int etp) {
    ShardedCounts c;
    c.dense = s.attn_params / tp + s.norm_params;
    if (moe) {
        c.dense += s.shared_params / tp + s.router_params;
        c.expert = s.expert_params * s.experts / (double(ep) * etp);
    } else {
        c.dense += s.dense_mlp_params / tp;
    }
    return c;
}

LayerFlops layer_flops_per_token(const LayerShapes& s, bool moe, double seq) {
    LayerFlops f;
    f.gemm = 2 * s.attn_params;
    f.gemm += moe ? 2 * (s.top_k * s.expert_params + s.shared_params + s.router_params) : 2 * s.dense_mlp_params;
    // QK^T (seq x hq per token) and attention-weighted V, Korthikanti App. A: 4 B s^2 h.
    f.attention = 2 * seq * (s.mla ? s.hkv : s.hq) + 2 * seq * s.hq;   // MLA: hkv holds heads*(nope+rope)
    return f;
}

}   // namespace paraplan::estimate
