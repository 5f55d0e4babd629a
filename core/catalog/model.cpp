#include "catalog/model.h"

#include "util/input_error.h"
#include "util/json_read.h"

#include <algorithm>
#include <initializer_list>
#include <set>
#include <string_view>

namespace paraplan {

namespace {

using json_read::Obj;
using nlohmann::json;
using i64 = std::int64_t;

// Keys model_from_json reads; everything else goes to `extra`.
constexpr std::string_view kModelKeys[] = {"id",
                                           "name",
                                           "family",
                                           "layers",
                                           "encoder_layers",
                                           "decoder_layers",
                                           "hidden",
                                           "heads",
                                           "kv_heads",
                                           "head_dim",
                                           "ffn_hidden",
                                           "vocab",
                                           "type_vocab",
                                           "max_seq",
                                           "activation",
                                           "tied_embeddings",
                                           "norm",
                                           "position",
                                           "relative_buckets",
                                           "attn_bias",
                                           "qkv_bias_only",
                                           "mlp_bias",
                                           "experts",
                                           "top_k",
                                           "expert_ffn_hidden",
                                           "shared_experts",
                                           "shared_expert_ffn_hidden",
                                           "dense_layers",
                                           "moe_layer_freq",
                                           "q_lora_rank",
                                           "kv_lora_rank",
                                           "qk_nope_head_dim",
                                           "qk_rope_head_dim",
                                           "v_head_dim",
                                           "mtp_layers",
                                           "hybrid_override_pattern",
                                           "mamba_state_dim",
                                           "mamba_head_dim",
                                           "mamba_num_groups",
                                           "mamba_num_heads",
                                           "source"};

bool is_known_key(std::string_view k) {
    return std::find(std::begin(kModelKeys), std::end(kModelKeys), k) != std::end(kModelKeys);
}

// LLaMA's reference code sizes the SwiGLU MLP as 2/3 of 4h rounded up to a multiple
// of 256 (meta-llama/llama model.py, FeedForward: multiple_of=256).
// Checked arithmetic: absurd inputs (a fuzzed config, hidden = 2e9) must give an
// InputError, never a signed overflow.
i64 add(i64 a, i64 b) {
    i64 r;
    if (__builtin_add_overflow(a, b, &r))
        throw InputError("", "the model is too large: its parameter count overflows 64 bits");
    return r;
}
i64 mul(i64 a, i64 b) {
    i64 r;
    if (__builtin_mul_overflow(a, b, &r))
        throw InputError("", "the model is too large: its parameter count overflows 64 bits");
    return r;
}
i64 mul(i64 a, i64 b, i64 c) { return mul(mul(a, b), c); }
i64 sum(std::initializer_list<i64> xs) {
    i64 r = 0;
    for (i64 x : xs) r = add(r, x);
    return r;
}

// LLaMA's reference code sizes the SwiGLU MLP as 2/3 of 4h rounded up to a multiple
// of 256 (meta-llama/llama model.py, FeedForward: multiple_of=256); GELU/ReLU MLPs use 4h.
long long default_ffn(const ModelSpec& m) {
    if (!m.gated_mlp()) return 4LL * m.hidden;
    const long long f = (2LL * 4 * m.hidden) / 3;
    return (f + 255) / 256 * 256;
}

i64 norm_size(const ModelSpec& m) {
    // nn.LayerNorm has weight + bias; RMSNorm (LlamaRMSNorm, T5LayerNorm) a weight only.
    return m.norm == "rmsnorm" ? i64{m.hidden} : 2 * i64{m.hidden};
}

// One MLP of inner size f: gated (SwiGLU/GeGLU: gate, up, down) has 3 matrices
// (LlamaMLP, MixtralBlockSparseTop2MLP, T5DenseGatedActDense), plain has 2 (GPT2MLP, BertIntermediate+Output).
i64 mlp_params(const ModelSpec& m, i64 f) {
    const i64 h = m.hidden;
    i64 p = mul(m.gated_mlp() ? 3 : 2, h, f);
    if (m.mlp_bias) p = sum({p, mul(m.gated_mlp() ? 2 : 1, f), h});
    return p;
}

// One attention block (self- or cross-attention; same shapes).
i64 attention_params(const ModelSpec& m) {
    const i64 h = m.hidden;
    const i64 H = m.heads;
    if (m.kv_lora_rank > 0) {
        // Multi-head latent attention, DeepseekV3Attention (transformers modeling_deepseek_v3.py):
        //   q_a_proj h->q_lora, q_a_layernorm(q_lora), q_b_proj q_lora->H*(nope+rope)  (or q_proj h->H*(nope+rope))
        //   kv_a_proj_with_mqa h->kv_lora+rope, kv_a_layernorm(kv_lora), kv_b_proj kv_lora->H*(nope+v)
        //   o_proj H*v->h. Biases only with attention_bias (false in the released configs).
        const i64 qk = i64{m.qk_nope_head_dim} + m.qk_rope_head_dim;
        const i64 kv_a = i64{m.kv_lora_rank} + m.qk_rope_head_dim;
        const i64 kv_b = i64{m.qk_nope_head_dim} + m.v_head_dim;
        i64 p = 0;
        if (m.q_lora_rank > 0) p = sum({mul(h, m.q_lora_rank), i64{m.q_lora_rank}, mul(m.q_lora_rank, H, qk)});
        else p = mul(h, H, qk);
        p = sum({p, mul(h, kv_a), i64{m.kv_lora_rank}, mul(m.kv_lora_rank, H, kv_b), mul(H, m.v_head_dim, h)});
        if (m.attn_bias) p = sum({p, mul(H, qk), kv_a, mul(H, kv_b), h});
        return p;
    }
    // q, k, v, o projections (LlamaAttention with GQA: k/v have kv_heads*head_dim outputs;
    // GPT2Attention c_attn/c_proj and BertSelfAttention are the same shapes with biases;
    // T5Attention uses inner_dim = heads*d_kv without biases).
    const i64 d = m.head_size();
    const i64 q = mul(H, d);
    const i64 kv = mul(m.kv_heads, d);
    i64 p = sum({mul(h, q), mul(2, h, kv), mul(q, h)});
    if (m.attn_bias) {
        p = sum({p, q, mul(2, kv)});           // q/k/v biases (Qwen2Attention: bias=True on q/k/v only)
        if (!m.qkv_bias_only) p = add(p, h);   // o bias (GPT-2, BERT, GPT-NeoX)
    }
    return p;
}

// One Mamba-2 mixer without its pre-norm, Megatron's MambaMixer.__init__ (megatron/core/ssm/mamba_mixer.py,
// core_v0.16.0): in_proj h -> 2*d_inner + 2*G*N + H (z, x, B, C, dt; no bias), a depthwise conv1d over
// x, B, C (d_inner + 2*G*N channels, kernel d_conv=4, with bias), A_log, D and dt_bias (H each;
// D_has_hdim=False), the gated RMSNorm weight (d_inner) and out_proj d_inner -> h (no bias).
i64 mamba_mixer_params(const ModelSpec& m) {
    const i64 h = m.hidden;
    const i64 H = m.mamba_num_heads;
    const i64 d_inner = mul(H, m.mamba_head_dim);
    const i64 bc = mul(2, m.mamba_num_groups, m.mamba_state_dim);
    const i64 in_proj = mul(h, sum({mul(2, d_inner), bc, H}));
    const i64 conv = mul(add(d_inner, bc), kMambaConvKernel + 1);
    return sum({in_proj, conv, mul(3, H), d_inner, mul(d_inner, h)});
}

// Hybrid keys (model.h). Megatron's TransformerConfig defaults (transformer_config.py, core_v0.16.0):
// mamba_state_dim 128, mamba_head_dim 64, mamba_num_groups 8, mamba_num_heads hidden * expand (2) /
// mamba_head_dim. A pattern has one character per layer from "M*-E" (_allocate_override); MambaMixer
// asserts nheads % ngroups == 0.
void read_hybrid(ModelSpec& m, const Obj& o) {
    if (!o.has("hybrid_override_pattern")) {
        // Without a pattern the model has no Mamba layers: a Mamba key given anyway is read as written
        // (no default) so that it is kept on save, and rule model.mamba_without_pattern says it does nothing.
        for (auto [key, field] : kMambaKeys)
            if (o.has(key)) m.*field = o.positive_int(key);
        return;
    }
    const std::string ptr = o.at("hybrid_override_pattern");
    m.hybrid_override_pattern = o.string("hybrid_override_pattern");
    const std::string& pat = m.hybrid_override_pattern;
    if (static_cast<long long>(pat.size()) != m.layers)
        throw InputError(ptr, "expected one character per layer (layers is " + std::to_string(m.layers) + "), got " +
                                  std::to_string(pat.size()) + " characters");
    for (std::size_t i = 0; i < pat.size(); ++i)
        if (std::string_view("M*-E").find(pat[i]) == std::string_view::npos)
            throw InputError(ptr, "character " + std::to_string(i) + " is '" + std::string(1, pat[i]) +
                                      "'; expected one of M (Mamba), * (attention), - (MLP), E (MoE)");
    if (pat.find('E') != std::string::npos && m.experts == 0)
        throw InputError(o.at("experts"),
                         "required field is missing (expected a positive integer: the "
                         "hybrid_override_pattern has MoE layers 'E')");
    m.mamba_state_dim = o.positive_int("mamba_state_dim", 128);
    m.mamba_head_dim = o.positive_int("mamba_head_dim", 64);
    m.mamba_num_groups = o.positive_int("mamba_num_groups", 8);
    const long long heads = 2LL * m.hidden / m.mamba_head_dim;
    if (!o.has("mamba_num_heads") && (heads <= 0 || (2LL * m.hidden) % m.mamba_head_dim != 0))
        throw InputError(o.at("mamba_num_heads"),
                         "required field is missing (expected a positive integer: 2 * hidden is not a multiple of "
                         "mamba_head_dim)");
    m.mamba_num_heads = o.positive_int("mamba_num_heads", static_cast<int>(std::min<long long>(heads, 2147483647LL)));
    if (m.mamba_num_heads % m.mamba_num_groups != 0)
        json_read::fail(o.at("mamba_num_groups"),
                        "a divisor of mamba_num_heads (" + std::to_string(m.mamba_num_heads) + ")",
                        *o.get("mamba_num_groups"));
}

void check_moe_spec(const ModelSpec& m, const Obj& o) {
    if (m.top_k > m.experts)
        json_read::fail(o.at("top_k"), "at most experts (" + std::to_string(m.experts) + ")", *o.get("top_k"));
    const json* dl = o.get("dense_layers");
    for (std::size_t i = 0; i < m.dense_layers.size(); ++i) {
        const int l = m.dense_layers[i];
        if (l < 0 || l >= m.layers)
            json_read::fail(o.at("dense_layers") + "/" + std::to_string(i),
                            "a layer index in [0, " + std::to_string(m.layers) + ")", (*dl)[i]);
    }
}

}   // namespace

char ModelSpec::layer_kind(int layer) const {
    if (layer < 0 || layer >= static_cast<int>(hybrid_override_pattern.size())) return 0;
    return hybrid_override_pattern[static_cast<std::size_t>(layer)];
}

int ModelSpec::hybrid_layer_count(char kind) const {
    return static_cast<int>(std::count(hybrid_override_pattern.begin(), hybrid_override_pattern.end(), kind));
}

bool ModelSpec::is_moe_layer(int layer) const {
    if (experts <= 0 || layer < 0 || layer >= layers) return false;
    if (is_hybrid()) return layer_kind(layer) == 'E';   // the pattern names the MoE layers
    if (std::find(dense_layers.begin(), dense_layers.end(), layer) != dense_layers.end()) return false;
    // Megatron's --moe-layer-freq N and DeepSeek's moe_layer_freq: layer i is MoE when i % N == 0.
    const int freq = moe_layer_freq > 0 ? moe_layer_freq : 1;
    return layer % freq == 0;
}

int ModelSpec::moe_layer_count() const {
    if (experts <= 0 || layers <= 0) return 0;
    if (is_hybrid()) return hybrid_layer_count('E');
    const int freq = moe_layer_freq > 0 ? moe_layer_freq : 1;
    int n = (layers - 1) / freq + 1;   // layers i in [0, layers) with i % freq == 0
    const std::set<int> dense(dense_layers.begin(), dense_layers.end());
    for (int l : dense)
        if (l >= 0 && l < layers && l % freq == 0) --n;
    return n;
}

ModelSpec family_defaults(const std::string& family) {
    ModelSpec m;
    m.family = family;
    if (family == "gpt2" || family == "bert") {
        // GPT2Model / BertModel: LayerNorm, learned absolute positions, biases everywhere,
        // GELU MLP, word embeddings tied to the LM head (tie_word_embeddings default true).
        m.activation = "gelu";
        m.norm = "layernorm";
        m.position = "learned";
        m.attn_bias = m.mlp_bias = true;
        m.tied_embeddings = true;
        if (family == "bert") m.type_vocab = 2;
    } else if (family == "gpt_neox") {
        m.activation = "gelu";
        m.norm = "layernorm";
        m.position = "rope";
        m.attn_bias = m.mlp_bias = true;
        m.tied_embeddings = false;
    } else if (family == "t5") {
        m.activation = "relu";
        m.norm = "rmsnorm";
        m.position = "relative";
        m.relative_buckets = 32;
        m.tied_embeddings = true;
    } else if (family == "nemotron_h") {
        // NemotronHForCausalLM / Megatron's MambaModel: squared-ReLU MLP, RMSNorm, no position
        // embedding (MambaModel position_embedding_type 'none'), no biases, untied output layer.
        m.activation = "relu2";
        m.norm = "rmsnorm";
        m.position = "none";
        m.tied_embeddings = false;
    } else if (family == "llama" || family == "mistral" || family == "mixtral" || family == "qwen2" ||
               family == "qwen2_moe" || family == "deepseek_v3") {
        m.activation = "swiglu";
        m.norm = "rmsnorm";
        m.position = "rope";
        m.tied_embeddings = false;
        if (family == "qwen2" || family == "qwen2_moe") m.attn_bias = m.qkv_bias_only = true;
    }
    return m;
}

ModelSpec model_from_json(const nlohmann::json& j, const std::string& pointer) {
    const Obj o(j, pointer);
    const std::string family = o.string("family");
    if (family.empty()) json_read::fail(o.at("family"), "a non-empty string", *o.get("family"));
    ModelSpec m = family_defaults(family);
    m.id = o.string("id", "");
    m.name = o.string("name", m.id);
    m.source = o.string("source", "");

    m.layers = o.positive_int("layers");
    m.hidden = o.positive_int("hidden");
    m.heads = o.positive_int("heads");
    m.vocab = o.positive_int("vocab");
    m.head_dim = o.non_negative_int("head_dim", 0);
    // Multi-head latent attention sizes its heads with qk_*_head_dim / v_head_dim instead.
    m.kv_lora_rank = o.non_negative_int("kv_lora_rank", 0);
    if (m.head_dim == 0 && m.kv_lora_rank == 0 && m.hidden % m.heads != 0)
        json_read::fail(o.at("heads"), "a divisor of hidden (" + std::to_string(m.hidden) + ") or an explicit head_dim",
                        *o.get("heads"));
    m.kv_heads = o.positive_int("kv_heads", m.heads);
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
        json_read::fail(o.at("kv_heads"), "a divisor of heads (" + std::to_string(m.heads) + ")", *o.get("kv_heads"));

    m.activation = o.one_of("activation", {"gelu", "swiglu", "relu", "geglu", "relu2"}, m.activation);
    m.norm = o.one_of("norm", {"layernorm", "rmsnorm"}, m.norm);
    m.position = o.one_of("position", {"rope", "learned", "relative", "none"}, m.position);
    m.tied_embeddings = o.boolean("tied_embeddings", m.tied_embeddings);
    m.attn_bias = o.boolean("attn_bias", m.attn_bias);
    m.qkv_bias_only = o.boolean("qkv_bias_only", m.qkv_bias_only);
    m.mlp_bias = o.boolean("mlp_bias", m.mlp_bias);
    if (o.has("ffn_hidden")) {
        m.ffn_hidden = o.positive_int("ffn_hidden");
    } else {
        const long long f = default_ffn(m);
        if (f > 2147483647LL)
            throw InputError(o.at("ffn_hidden"), "required field is missing (the default from hidden is too large)");
        m.ffn_hidden = static_cast<int>(f);
    }
    m.type_vocab = o.non_negative_int("type_vocab", m.type_vocab);
    m.max_seq = o.non_negative_int("max_seq", 0);
    if (m.position == "learned" && m.max_seq == 0)
        throw InputError(
            o.at("max_seq"),
            "required field is missing (expected a positive integer: learned position embeddings need it)");
    m.relative_buckets = o.non_negative_int("relative_buckets", m.position == "relative" ? m.relative_buckets : 0);

    // Encoder-decoder split: T5 defaults to half and half, BERT to encoder only.
    m.encoder_layers = o.non_negative_int("encoder_layers", 0);
    m.decoder_layers = o.non_negative_int("decoder_layers", 0);
    if (m.encoder_layers == 0 && m.decoder_layers == 0) {
        if (family == "bert") {
            m.encoder_layers = m.layers;
        } else if (family == "t5") {
            if (m.layers % 2 != 0)
                json_read::fail(o.at("layers"), "an even number (encoder + decoder) or encoder_layers/decoder_layers",
                                *o.get("layers"));
            m.encoder_layers = m.decoder_layers = m.layers / 2;
        }
    } else if (static_cast<long long>(m.encoder_layers) + m.decoder_layers != m.layers) {
        json_read::fail(o.at("layers"),
                        "encoder_layers + decoder_layers (" +
                            std::to_string(static_cast<long long>(m.encoder_layers) + m.decoder_layers) + ")",
                        *o.get("layers"));
    }

    // Mixture of experts; the other MoE keys are ignored for a dense model (experts 0).
    m.experts = o.non_negative_int("experts", 0);
    if (m.experts > 0) {
        m.top_k = o.positive_int("top_k");
        m.expert_ffn_hidden = o.positive_int("expert_ffn_hidden", m.ffn_hidden);
        m.shared_experts = o.non_negative_int("shared_experts", 0);
        m.shared_expert_ffn_hidden = o.non_negative_int("shared_expert_ffn_hidden", 0);
        m.dense_layers = o.int_list("dense_layers");
        m.moe_layer_freq = o.positive_int("moe_layer_freq", 1);
        check_moe_spec(m, o);
        std::sort(m.dense_layers.begin(), m.dense_layers.end());
        m.dense_layers.erase(std::unique(m.dense_layers.begin(), m.dense_layers.end()), m.dense_layers.end());
    }

    // Multi-head latent attention.
    if (m.kv_lora_rank > 0) {
        m.q_lora_rank = o.non_negative_int("q_lora_rank", 0);
        m.qk_nope_head_dim = o.positive_int("qk_nope_head_dim");
        m.qk_rope_head_dim = o.positive_int("qk_rope_head_dim");
        m.v_head_dim = o.positive_int("v_head_dim");
    }
    m.mtp_layers = o.non_negative_int("mtp_layers", 0);
    read_hybrid(m, o);

    json extra = json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!is_known_key(it.key())) extra[it.key()] = it.value();
    m.extra = std::move(extra);
    return m;
}

nlohmann::json to_json(const ModelSpec& m) {
    json j = json::object();
    // Unknown keys first so that the spec's own fields win on a clash.
    for (auto it = m.extra->begin(); it != m.extra->end(); ++it)
        if (!is_known_key(it.key())) j[it.key()] = it.value();
    if (!m.id.empty()) j["id"] = m.id;
    if (!m.name.empty()) j["name"] = m.name;
    j["family"] = m.family;
    j["layers"] = m.layers;
    if (m.encoder_layers > 0) j["encoder_layers"] = m.encoder_layers;
    if (m.decoder_layers > 0) j["decoder_layers"] = m.decoder_layers;
    j["hidden"] = m.hidden;
    j["heads"] = m.heads;
    j["kv_heads"] = m.kv_heads;
    if (m.head_dim > 0) j["head_dim"] = m.head_dim;
    j["ffn_hidden"] = m.ffn_hidden;
    j["vocab"] = m.vocab;
    // Written when non-zero or when the family's default is not (so that 0 round-trips).
    if (m.type_vocab > 0 || family_defaults(m.family).type_vocab > 0) j["type_vocab"] = m.type_vocab;
    if (m.max_seq > 0) j["max_seq"] = m.max_seq;
    j["activation"] = m.activation;
    j["tied_embeddings"] = m.tied_embeddings;
    j["norm"] = m.norm;
    j["position"] = m.position;
    if (m.relative_buckets > 0 || m.position == "relative") j["relative_buckets"] = m.relative_buckets;
    j["attn_bias"] = m.attn_bias;
    j["qkv_bias_only"] = m.qkv_bias_only;
    j["mlp_bias"] = m.mlp_bias;
    if (m.experts > 0) {
        j["experts"] = m.experts;
        j["top_k"] = m.top_k;
        j["expert_ffn_hidden"] = m.expert_ffn_hidden;
        j["shared_experts"] = m.shared_experts;
        if (m.shared_expert_ffn_hidden > 0) j["shared_expert_ffn_hidden"] = m.shared_expert_ffn_hidden;
        j["dense_layers"] = m.dense_layers;
        j["moe_layer_freq"] = m.moe_layer_freq;
    }
    if (m.kv_lora_rank > 0) {
        j["q_lora_rank"] = m.q_lora_rank;
        j["kv_lora_rank"] = m.kv_lora_rank;
        j["qk_nope_head_dim"] = m.qk_nope_head_dim;
        j["qk_rope_head_dim"] = m.qk_rope_head_dim;
        j["v_head_dim"] = m.v_head_dim;
    }
    if (m.mtp_layers > 0) j["mtp_layers"] = m.mtp_layers;
    if (m.is_hybrid()) j["hybrid_override_pattern"] = m.hybrid_override_pattern;
    // A model without a pattern has them only where its file gave them (read_hybrid).
    for (auto [key, field] : kMambaKeys)
        if (m.is_hybrid() || m.*field > 0) j[key] = m.*field;
    if (!m.source.empty()) j["source"] = m.source;
    return j;
}

ParamBreakdown count_params(const ModelSpec& m) {
    ParamBreakdown p;
    const i64 h = m.hidden;
    const i64 V = m.vocab;
    const i64 n = norm_size(m);

    // Embeddings: token table; learned absolute positions (GPT2Model.wpe, BertEmbeddings.position_embeddings);
    // BERT's token types and the LayerNorm that BertEmbeddings applies.
    p.embedding = mul(V, h);
    if (m.position == "learned") p.embedding = add(p.embedding, mul(m.max_seq, h));
    p.embedding = add(p.embedding, mul(m.type_vocab, h));
    if (m.family == "bert") p.embedding = add(p.embedding, n);

    p.attention_per_layer = attention_params(m);
    // Pre-attention and pre-MLP norms (input_layernorm/post_attention_layernorm, ln_1/ln_2;
    // BERT's two post-LNs; T5's layer_norm before self-attention and before the FF).
    p.norms_per_layer = 2 * n;

    // T5LayerCrossAttention in each decoder layer: EncDecAttention + its layer_norm.
    const bool enc_dec = m.encoder_layers > 0 && m.decoder_layers > 0;
    if (enc_dec) p.cross_attention_per_layer = add(attention_params(m), n);

    p.dense_mlp_per_layer = mlp_params(m, m.ffn_hidden);

    const int moe_layers = m.moe_layer_count();
    if (m.is_moe()) {
        // Routed experts: each an MLP of expert_ffn_hidden (MixtralBlockSparseTop2MLP, DeepseekV3MLP, Qwen2MoeMLP).
        p.expert_params = mlp_params(m, m.expert_ffn_hidden);
        // Shared experts: DeepseekV3MoE fuses them into one MLP of n_shared_experts * moe_intermediate_size;
        // Qwen2MoeSparseMoeBlock has one shared MLP of shared_expert_intermediate_size.
        const i64 shared_ffn = m.shared_expert_ffn_hidden > 0 ? i64{m.shared_expert_ffn_hidden}
                                                              : mul(m.shared_experts, m.expert_ffn_hidden);
        const i64 shared = m.shared_experts > 0 && shared_ffn > 0 ? mlp_params(m, shared_ffn) : 0;
        // Router: gate Linear(h, experts, bias=False); DeepSeek-V3's gate adds e_score_correction_bias
        // (experts); Qwen2-MoE adds shared_expert_gate Linear(h, 1, bias=False).
        i64 router = mul(h, m.experts);
        if (m.family == "deepseek_v3") router = add(router, m.experts);
        if (m.family == "qwen2_moe" && shared > 0) router = add(router, h);
        p.moe_mlp_per_layer = sum({mul(m.experts, p.expert_params), shared, router});
        p.moe_mlp_active_per_layer = sum({mul(std::min(m.top_k, m.experts), p.expert_params), shared, router});
    }
    const i64 dense_layers = i64{m.layers} - moe_layers;

    // Final norms: one per stack (LlamaModel.norm, GPT2 ln_f; T5 encoder and decoder final_layer_norm).
    // BERT is post-LN: no final norm.
    p.final_norm = m.family == "bert" ? 0 : (enc_dec ? 2 : 1) * n;

    // Untied output projection (LlamaForCausalLM.lm_head); 0 when it shares the token embedding.
    p.lm_head = m.tied_embeddings ? 0 : mul(V, h);

    // Other: BertPooler (dense h x h + bias); T5 relative_attention_bias (buckets x heads) in the
    // first layer of each stack (T5Attention with has_relative_attention_bias).
    if (m.family == "bert") p.other = add(p.other, add(mul(h, h), h));
    if (m.position == "relative") {
        const i64 buckets = m.relative_buckets > 0 ? m.relative_buckets : 32;
        p.other = add(p.other, mul(enc_dec ? 2 : 1, buckets, m.heads));
    }

    if (m.is_hybrid()) {
        // Megatron's MambaStack (mamba_block.py, core_v0.16.0): each pattern character is one layer with
        // one pre-norm (fused into in_proj / linear_qkv / linear_fc1, or MoE's pre_mlp_layernorm) and one
        // mixer: Mamba, self-attention, MLP or MoE. NemotronHBlock has the same one norm + one mixer.
        p.norms_per_layer = n;
        p.mamba_per_layer = mamba_mixer_params(m);
        const i64 hybrid_common = sum({p.embedding, mul(m.layers, n), mul(m.hybrid_layer_count('M'), p.mamba_per_layer),
                                       mul(m.hybrid_layer_count('*'), p.attention_per_layer),
                                       mul(m.hybrid_layer_count('-'), p.dense_mlp_per_layer), p.final_norm, p.lm_head,
                                       p.other});
        p.total = add(hybrid_common, mul(moe_layers, p.moe_mlp_per_layer));
        p.active = add(hybrid_common, mul(moe_layers, p.moe_mlp_active_per_layer));
        return p;
    }
    const i64 common = sum({p.embedding, mul(m.layers, add(p.attention_per_layer, p.norms_per_layer)),
                            mul(enc_dec ? m.decoder_layers : 0, p.cross_attention_per_layer),
                            mul(dense_layers, p.dense_mlp_per_layer), p.final_norm, p.lm_head, p.other});
    p.total = add(common, mul(moe_layers, p.moe_mlp_per_layer));
    p.active = add(common, mul(moe_layers, p.moe_mlp_active_per_layer));
    return p;
}

}   // namespace paraplan
