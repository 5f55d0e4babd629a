#pragma once
// Model architecture specs (resources/catalog/models.json, an inline project spec,
// or an imported Hugging Face config.json) and their parameter counts.
#include "util/cow_json.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace paraplan {

struct ModelSpec {
    std::string id;       // catalog id ("llama3.1-8b"); empty for inline specs
    std::string name;     // display name
    std::string family;   // Hugging Face model_type: llama, mistral, mixtral, qwen2, qwen2_moe, gpt2, gpt_neox, bert,
                          // t5, deepseek_v3
    int layers = 0;       // transformer blocks (decoder-only), or encoder + decoder total
    int encoder_layers = 0;   // encoder-decoder / encoder-only models; 0 otherwise
    int decoder_layers = 0;
    int hidden = 0;
    int heads = 0;
    int kv_heads = 0;     // == heads without GQA/MQA
    int head_dim = 0;     // 0 means hidden / heads
    int ffn_hidden = 0;   // dense MLP inner size
    int vocab = 0;
    int type_vocab = 0;   // token-type (segment) embeddings: BERT's type_vocab_size; 0 otherwise
    int max_seq = 0;
    std::string activation = "gelu";   // "gelu" | "swiglu" | "relu" | "geglu" | "relu2" (squared ReLU)
    bool tied_embeddings = false;
    std::string norm = "layernorm";   // "layernorm" | "rmsnorm"
    std::string position = "rope";    // "rope" | "learned" | "relative" | "none"
    int relative_buckets = 0;         // T5 relative attention buckets (position == "relative"; 0 means 32)
    bool attn_bias = false;           // q/k/v/o biases (gpt2, bert, qwen2 q/k/v)
    bool qkv_bias_only = false;       // bias on q/k/v only (qwen2)
    bool mlp_bias = false;
    // Mixture of experts (experts == 0: dense model).
    int experts = 0;
    int top_k = 0;
    int expert_ffn_hidden = 0;
    int shared_experts = 0;             // count of shared experts (each expert_ffn_hidden wide)
    int shared_expert_ffn_hidden = 0;   // 0: shared_experts * expert_ffn_hidden
    std::vector<int> dense_layers;      // indices of layers with a dense MLP instead of MoE
    int moe_layer_freq = 1;             // every n-th layer is MoE (after dense_layers)
    // Multi-head latent attention (DeepSeek-V2/V3); 0 = standard attention.
    int q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
    int mtp_layers = 0;   // multi-token prediction modules (DeepSeek-V3), not counted in params()
    // Hybrid Mamba models (Megatron's MambaModel, Nemotron-H), with Megatron's own names: one
    // pattern character per layer, 'M' Mamba-2 mixer, '*' self-attention, '-' MLP, 'E' MoE
    // (megatron/core/ssm/mamba_hybrid_layer_allocation.py Symbols and _allocate_override,
    // core_v0.16.0). Empty: not hybrid, every layer is attention + MLP.
    std::string hybrid_override_pattern;
    int mamba_state_dim = 0;    // d_state (N)
    int mamba_head_dim = 0;     // headdim (P)
    int mamba_num_groups = 0;   // ngroups (G) of the B/C projections
    int mamba_num_heads = 0;    // nheads; d_inner = mamba_num_heads * mamba_head_dim
    std::string source;         // where the values come from
    CowJson extra;              // unknown keys, kept on save (shared between copies)

    int head_size() const { return head_dim > 0 ? head_dim : (heads > 0 ? hidden / heads : 0); }
    bool is_moe() const { return experts > 0; }
    bool is_moe_layer(int layer) const;   // layer in [0, layers)
    int moe_layer_count() const;
    bool gated_mlp() const { return activation == "swiglu" || activation == "geglu"; }
    bool is_hybrid() const { return !hybrid_override_pattern.empty(); }
    // The layer's pattern character ('M', '*', '-', 'E'); 0 for a non-hybrid model or out of range.
    char layer_kind(int layer) const;
    int hybrid_layer_count(char kind) const;   // pattern characters equal to kind
    long long mamba_d_inner() const { return 1LL * mamba_num_heads * mamba_head_dim; }

    bool operator==(const ModelSpec&) const = default;
};

// Parameter counts by part (counts, not bytes). `total` is what model publishers report.
struct ParamBreakdown {
    std::int64_t embedding = 0;   // token (+ learned position / token type) embeddings
    std::int64_t attention_per_layer = 0;
    std::int64_t cross_attention_per_layer = 0;   // encoder-decoder: each decoder layer's cross-attention + its norm
    std::int64_t dense_mlp_per_layer = 0;         // dense MLP layer
    std::int64_t moe_mlp_per_layer = 0;           // all experts + shared experts + router of one MoE layer
    std::int64_t moe_mlp_active_per_layer = 0;    // top_k routed experts + shared experts + router of one MoE layer
    std::int64_t expert_params = 0;               // one routed expert
    std::int64_t norms_per_layer = 0;             // hybrid: the one pre-norm of each pattern layer
    std::int64_t mamba_per_layer = 0;             // hybrid: one Mamba-2 mixer (MambaMixer) without its pre-norm
    std::int64_t final_norm = 0;
    std::int64_t lm_head = 0;   // 0 when tied
    std::int64_t other = 0;     // pooler, relative-position tables, ...
    std::int64_t total = 0;
    std::int64_t active = 0;   // used per token (MoE: top_k experts)
};

ParamBreakdown count_params(const ModelSpec& m);

// The Mamba sizes under their key names, for every reader and writer of them (read_hybrid, to_json,
// rule model.mamba_without_pattern).
inline constexpr std::pair<const char*, int ModelSpec::*> kMambaKeys[] = {
    {"mamba_state_dim", &ModelSpec::mamba_state_dim},
    {"mamba_head_dim", &ModelSpec::mamba_head_dim},
    {"mamba_num_groups", &ModelSpec::mamba_num_groups},
    {"mamba_num_heads", &ModelSpec::mamba_num_heads},
};

// Megatron's MambaMixer causal conv1d width (d_conv=4, megatron/core/ssm/mamba_mixer.py, core_v0.16.0).
inline constexpr int kMambaConvKernel = 4;

// Defaults of a family (activation, norm, position, biases, tied embeddings) that
// model_from_json starts from before reading the keys; generic defaults for other names.
ModelSpec family_defaults(const std::string& family);

// Reads the catalog's keys (see resources/catalog/models.json); errors name the
// pointer under `pointer`.
ModelSpec model_from_json(const nlohmann::json& j, const std::string& pointer = "");
nlohmann::json to_json(const ModelSpec& m);

}   // namespace paraplan
