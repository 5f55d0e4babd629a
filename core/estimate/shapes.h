#pragma once
// Per-GPU parameter counts and per-token FLOPs of one transformer layer under
// tensor, expert and expert-tensor parallelism. Attention and MLP weights are
// split by tp (Megatron's column/row-parallel linears, Shoeybi et al. 2019);
// embedding and output layer are vocabulary-parallel; norms and the MoE router are
// replicated; routed experts are split over ep and each expert's MLP over etp
// (Megatron-core expert grid). Counts only: bytes are the memory model's business.
#include "catalog/model.h"

namespace paraplan::estimate {

struct LayerShapes {
    // Widths
    double h = 0, hq = 0, hkv = 0;   // hidden, query width (heads*head_dim), key/value width
    double ffn = 0;                  // dense MLP inner width
    double expert_ffn = 0;           // routed expert inner width
    double shared_ffn = 0;           // shared-expert inner width (total)
    double gated = 1;                // 1.5 for SwiGLU/GeGLU (three matrices instead of two)
    int heads = 0, experts = 0, top_k = 0;
    double vocab = 0;
    bool mla = false;
    double q_lora = 0, kv_lora = 0, qk_rope = 0;   // MLA latent widths (q_lora_rank, kv_lora_rank, rope dim)
    // Full (unsharded) parameter counts.
    // Hybrid Mamba models: one Mamba-2 mixer (MambaMixer, without its pre-norm), of which the
    // in_proj + out_proj GEMM weights, and its widths (d_inner, 2 G N, nheads, d_state).
    bool hybrid = false;
    double mamba_params = 0, mamba_proj_params = 0;
    double mamba_d_inner = 0, mamba_bc = 0, mamba_heads = 0, mamba_state = 0;
    double attn_params = 0, dense_mlp_params = 0, expert_params = 0, shared_params = 0, router_params = 0,
           norm_params = 0, embedding_params = 0, head_params = 0, final_norm_params = 0;
};

LayerShapes layer_shapes(const ModelSpec& m);

// Whether layer i (0-based) has a MoE MLP (the catalog's ModelSpec::is_moe_layer).
bool is_moe_layer(const ModelSpec& m, int i);

// Per-GPU parameter counts of one layer, one split.
struct ShardedCounts {
    double dense = 0;    // synchronised over the dense data-parallel group
    double expert = 0;   // synchronised over the expert data-parallel group
};
ShardedCounts layer_params_per_gpu(const LayerShapes& s, bool moe, int tp, int ep, int etp);

// Forward FLOPs per token of one layer (GEMMs + attention core; 2 FLOPs per MAC),
// counting causal attention at the full s^2 as Megatron does.
struct LayerFlops {
    double gemm = 0;        // projections and MLP (for MoE: top_k experts + shared + router)
    double attention = 0;   // QK^T and AV
};
LayerFlops layer_flops_per_token(const LayerShapes& s, bool moe, double seq);

}   // namespace paraplan::estimate
