#include "catalog/hf_import.h"

#include "util/input_error.h"
#include "util/json_read.h"

#include <algorithm>
#include <array>
#include <set>

namespace paraplan {

namespace {

using json_read::Obj;
using nlohmann::json;

constexpr std::array<std::string_view, 10> kFamilies = {"llama", "mistral",  "mixtral", "qwen2", "qwen2_moe",
                                                        "gpt2",  "gpt_neox", "bert",    "t5",    "deepseek_v3"};

std::string family_list() {
    std::string s;
    for (auto f : kFamilies) {
        if (!s.empty()) s += ", ";
        s += f;
    }
    return s;
}

std::string read_family(const Obj& o) {
    const json* v = o.get("model_type");
    if (!v) throw InputError("/model_type", "required field is missing (expected one of: " + family_list() + ")");
    if (!v->is_string()) json_read::fail("/model_type", "a string (one of: " + family_list() + ")", *v);
    const std::string f = v->get<std::string>();
    if (std::find(kFamilies.begin(), kFamilies.end(), f) == kFamilies.end())
        throw InputError("/model_type", "unsupported model_type \"" + f + "\" (supported: " + family_list() + ")");
    return f;
}

// Gated families always use a gated MLP; the activation decides SwiGLU vs GeGLU.
std::string gated_activation(const std::string& hidden_act) {
    return hidden_act.find("gelu") != std::string::npos ? "geglu" : "swiglu";
}

// Layer counts are capped so that per-layer lists stay small on absurd input.
constexpr int kMaxLayers = 100000;

int layer_count(const Obj& o, const char* key) {
    const int n = o.positive_int(key);
    if (n > kMaxLayers)
        json_read::fail(o.at(key), "a positive integer up to " + std::to_string(kMaxLayers), *o.get(key));
    return n;
}

int layer_count(const Obj& o, const char* key, int def) { return o.has(key) ? layer_count(o, key) : def; }

// Heads must divide the hidden size unless the config gives head_dim explicitly.
void read_heads(ModelSpec& m, const Obj& o, const char* hidden_key, const char* heads_key, const char* kv_key,
                const char* head_dim_key) {
    m.heads = o.positive_int(heads_key);
    const bool explicit_head_dim = head_dim_key && o.has(head_dim_key);
    if (explicit_head_dim) {
        const int hd = o.positive_int(head_dim_key);
        if (hd * static_cast<long long>(m.heads) != m.hidden) m.head_dim = hd;
    } else if (m.hidden % m.heads != 0) {
        json_read::fail(o.at(heads_key),
                        std::string("a divisor of ") + hidden_key + " (" + std::to_string(m.hidden) + ")",
                        *o.get(heads_key));
    }
    m.kv_heads = kv_key ? o.positive_int(kv_key, m.heads) : m.heads;
    if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
        json_read::fail(o.at(kv_key), std::string("a divisor of ") + heads_key + " (" + std::to_string(m.heads) + ")",
                        *o.get(kv_key));
}

std::vector<int> layer_list(const Obj& o, const char* key, int layers) {
    std::vector<int> v = o.int_list(key);
    for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i] < 0 || v[i] >= layers)
            json_read::fail(o.at(key) + "/" + std::to_string(i), "a layer index in [0, " + std::to_string(layers) + ")",
                            (*o.get(key))[i]);
    return v;
}

// Keys kept in `extra` because they matter to planning but have no ModelSpec field.
void keep_extra(ModelSpec& m, const Obj& o) {
    for (const char* k : {"rope_theta", "rope_scaling", "sliding_window", "rotary_pct", "use_parallel_residual",
                          "torch_dtype", "relative_attention_max_distance"})
        if (const json* v = o.get(k)) m.extra.edit()[k] = *v;
    // Qwen2 configs carry sliding_window even when use_sliding_window is false.
    if (const json* use = o.get("use_sliding_window"); use && use->is_boolean() && !use->get<bool>())
        m.extra.erase("sliding_window");
}

// llama, mistral, mixtral, qwen2, qwen2_moe, deepseek_v3: LlamaConfig-style keys.
void read_llama_like(ModelSpec& m, const Obj& o, const std::string& f) {
    m.layers = layer_count(o, "num_hidden_layers");
    m.hidden = o.positive_int("hidden_size");
    m.ffn_hidden = o.positive_int("intermediate_size");
    m.vocab = o.positive_int("vocab_size");
    // Config-class defaults of max_position_embeddings (configuration_<family>.py).
    const int def_seq = f == "llama"                       ? 2048
                        : f == "mistral" || f == "mixtral" ? 4096 * 32
                        : f == "qwen2" || f == "qwen2_moe" ? 32768
                                                           : 4096;
    m.max_seq = o.positive_int("max_position_embeddings", def_seq);
    m.activation = gated_activation(o.string("hidden_act", "silu"));
    m.tied_embeddings = o.boolean("tie_word_embeddings", false);
    if (f == "llama" || f == "deepseek_v3") m.attn_bias = o.boolean("attention_bias", false);
    if (f == "llama") m.mlp_bias = o.boolean("mlp_bias", false);

    if (f == "deepseek_v3") {
        // MLA: heads for q; k/v come from the latent (num_key_value_heads == heads in the configs).
        m.heads = o.positive_int("num_attention_heads");
        m.kv_heads = m.heads;
        m.q_lora_rank = o.non_negative_int("q_lora_rank", 0);   // null in DeepSeek-V2-Lite: plain q_proj
        m.kv_lora_rank = o.positive_int("kv_lora_rank");
        m.qk_nope_head_dim = o.positive_int("qk_nope_head_dim");
        m.qk_rope_head_dim = o.positive_int("qk_rope_head_dim");
        m.v_head_dim = o.positive_int("v_head_dim");
    } else {
        read_heads(m, o, "hidden_size", "num_attention_heads", "num_key_value_heads",
                   f == "qwen2" || f == "qwen2_moe" ? nullptr : "head_dim");
    }

    if (f == "mixtral") {
        // MixtralSparseMoeBlock: num_local_experts experts of intermediate_size, top num_experts_per_tok.
        m.experts = o.positive_int("num_local_experts");
        m.top_k = o.positive_int("num_experts_per_tok");
        m.expert_ffn_hidden = m.ffn_hidden;
    } else if (f == "qwen2_moe") {
        // Qwen2MoeSparseMoeBlock: num_experts of moe_intermediate_size, one shared expert of
        // shared_expert_intermediate_size; layer i is MoE unless in mlp_only_layers or (i+1) % decoder_sparse_step !=
        // 0.
        m.experts = o.positive_int("num_experts");
        m.top_k = o.positive_int("num_experts_per_tok");
        m.expert_ffn_hidden = o.positive_int("moe_intermediate_size");
        m.shared_expert_ffn_hidden = o.non_negative_int("shared_expert_intermediate_size", 0);
        m.shared_experts = m.shared_expert_ffn_hidden > 0 ? 1 : 0;
        const int step = o.positive_int("decoder_sparse_step", 1);
        std::set<int> dense;
        for (int l : layer_list(o, "mlp_only_layers", m.layers)) dense.insert(l);
        for (int l = 0; l < m.layers; ++l)
            if ((l + 1) % step != 0) dense.insert(l);
        m.dense_layers.assign(dense.begin(), dense.end());
    } else if (f == "deepseek_v3") {
        // DeepseekV3MoE: n_routed_experts of moe_intermediate_size + n_shared_experts; layer i is MoE
        // when i >= first_k_dense_replace and i % moe_layer_freq == 0 (modeling_deepseek.py).
        m.experts = o.positive_int("n_routed_experts");
        m.top_k = o.positive_int("num_experts_per_tok");
        m.expert_ffn_hidden = o.positive_int("moe_intermediate_size");
        m.shared_experts = o.non_negative_int("n_shared_experts", 1);
        const int k = o.non_negative_int("first_k_dense_replace", 3);
        if (k > m.layers)
            json_read::fail(o.at("first_k_dense_replace"),
                            "at most num_hidden_layers (" + std::to_string(m.layers) + ")",
                            *o.get("first_k_dense_replace"));
        for (int l = 0; l < k; ++l) m.dense_layers.push_back(l);
        m.moe_layer_freq = o.positive_int("moe_layer_freq", 1);
        m.mtp_layers = o.non_negative_int("num_nextn_predict_layers", 0);
    }
    if (m.experts > 0 && m.top_k > m.experts)
        json_read::fail(o.at("num_experts_per_tok"),
                        "at most the number of experts (" + std::to_string(m.experts) + ")",
                        *o.get("num_experts_per_tok"));
}

void read_gpt2(ModelSpec& m, const Obj& o) {
    // GPT2Config: n_layer, n_embd, n_head, n_inner (null -> 4 * n_embd), n_positions.
    m.layers = layer_count(o, "n_layer");
    m.hidden = o.positive_int("n_embd");
    read_heads(m, o, "n_embd", "n_head", nullptr, nullptr);
    if (o.has("n_inner")) {
        m.ffn_hidden = o.positive_int("n_inner");
    } else {
        if (m.hidden > 2147483647 / 4)
            throw InputError("/n_inner", "required field is missing (4 * n_embd, the default, is too large)");
        m.ffn_hidden = 4 * m.hidden;
    }
    m.vocab = o.positive_int("vocab_size");
    m.max_seq = o.positive_int("n_positions", 1024);
    const std::string act = o.string("activation_function", "gelu_new");
    m.activation = act == "relu" ? "relu" : "gelu";
    m.tied_embeddings = o.boolean("tie_word_embeddings", true);
}

void read_gpt_neox(ModelSpec& m, const Obj& o) {
    // GPTNeoXConfig: fused query_key_value and dense with biases, LayerNorm, partial rotary (rotary_pct).
    m.layers = layer_count(o, "num_hidden_layers");
    m.hidden = o.positive_int("hidden_size");
    read_heads(m, o, "hidden_size", "num_attention_heads", nullptr, nullptr);
    m.ffn_hidden = o.positive_int("intermediate_size");
    m.vocab = o.positive_int("vocab_size");
    m.max_seq = o.positive_int("max_position_embeddings", 2048);
    const std::string act = o.string("hidden_act", "gelu");
    m.activation = act == "relu" ? "relu" : "gelu";
    m.tied_embeddings = o.boolean("tie_word_embeddings", false);
    m.attn_bias = o.boolean("attention_bias", true);
    if (o.has("rotary_pct")) o.positive_number("rotary_pct");   // type check
}

void read_bert(ModelSpec& m, const Obj& o) {
    m.layers = layer_count(o, "num_hidden_layers");
    m.encoder_layers = m.layers;
    m.hidden = o.positive_int("hidden_size");
    read_heads(m, o, "hidden_size", "num_attention_heads", nullptr, nullptr);
    m.ffn_hidden = o.positive_int("intermediate_size");
    m.vocab = o.positive_int("vocab_size");
    m.type_vocab = o.non_negative_int("type_vocab_size", 2);
    m.max_seq = o.positive_int("max_position_embeddings", 512);
    const std::string act = o.string("hidden_act", "gelu");
    m.activation = act == "relu" ? "relu" : "gelu";
    const std::string pos = o.string("position_embedding_type", "absolute");
    if (pos != "absolute") m.extra.edit()["position_embedding_type"] = pos;
    m.tied_embeddings = o.boolean("tie_word_embeddings", true);
}

void read_t5(ModelSpec& m, const Obj& o) {
    // T5Config: d_model, d_kv (head size; heads * d_kv may differ from d_model), d_ff, num_layers
    // (encoder), num_decoder_layers (default num_layers), feed_forward_proj "relu" | "gated-gelu" | ...
    m.hidden = o.positive_int("d_model");
    m.heads = o.positive_int("num_heads");
    m.kv_heads = m.heads;
    const int d_kv = o.positive_int("d_kv");
    if (static_cast<long long>(d_kv) * m.heads != m.hidden) m.head_dim = d_kv;
    m.ffn_hidden = o.positive_int("d_ff");
    m.encoder_layers = layer_count(o, "num_layers");
    m.decoder_layers = layer_count(o, "num_decoder_layers", m.encoder_layers);
    m.layers = m.encoder_layers + m.decoder_layers;
    m.vocab = o.positive_int("vocab_size");
    m.max_seq = o.positive_int("n_positions", 512);
    const std::string ff = o.string("feed_forward_proj", "relu");
    const bool gated = ff.rfind("gated-", 0) == 0;
    const std::string act = gated ? ff.substr(6) : ff;
    if (gated) m.activation = gated_activation(act);
    else m.activation = act == "relu" ? "relu" : "gelu";
    m.relative_buckets = o.positive_int("relative_attention_num_buckets", 32);
    m.tied_embeddings = o.boolean("tie_word_embeddings", true);
}

}   // namespace

ModelSpec import_hf_config(const nlohmann::json& config) {
    const Obj o(config, "");
    const std::string f = read_family(o);
    ModelSpec m = family_defaults(f);
    if (f == "gpt2") read_gpt2(m, o);
    else if (f == "gpt_neox") read_gpt_neox(m, o);
    else if (f == "bert") read_bert(m, o);
    else if (f == "t5") read_t5(m, o);
    else read_llama_like(m, o, f);
    keep_extra(m, o);

    // A display name: the checkpoint path when saved, else the architecture class.
    std::string name = o.string("_name_or_path", "");
    if (name.empty() && o.has("architectures")) {
        const json& a = *o.get("architectures");
        if (a.is_array() && !a.empty() && a[0].is_string()) name = a[0].get<std::string>();
    }
    m.name = name.empty() ? f : name;
    m.source = "Hugging Face config.json" + (name.empty() ? std::string() : " (" + name + ")");
    return m;
}

ModelSpec import_hf_config(std::string_view config_json_text) {
    return import_hf_config(json_read::parse(config_json_text));
}

}   // namespace paraplan
