// Megatron-LM argument list -> project. Reads a launch script (bash arrays, line
// continuations, comments, torchrun flags) or a plain list of flags; flag meanings
// from megatron/training/arguments.py.
#include "export/import.h"

#include "export/export_common.h"
#include "project/framework.h"
#include "util/input_error.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

namespace paraplan {

namespace {

// Shell words: comments dropped, continuations joined, quotes removed; unquoted
// '(' and ')' become words of their own so that array bodies split cleanly.
std::vector<std::string> shell_words(std::string_view s) {
    std::vector<std::string> words;
    std::string cur;
    bool in_word = false;
    auto flush = [&] {
        if (in_word) words.push_back(cur);
        cur.clear();
        in_word = false;
    };
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '\\' && i + 1 < s.size()) {
            if (s[i + 1] == '\n') {
                ++i;
                continue;
            }
            cur += s[++i];
            in_word = true;
        } else if (c == '\'') {
            const auto end = s.find('\'', i + 1);
            if (end == std::string_view::npos) throw InputError("", "unterminated ' quote in the argument list");
            cur += s.substr(i + 1, end - i - 1);
            in_word = true;
            i = end;
        } else if (c == '"') {
            ++i;
            while (i < s.size() && s[i] != '"') {
                if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '"' || s[i + 1] == '\\' || s[i + 1] == '$')) ++i;
                cur += s[i++];
            }
            if (i >= s.size()) throw InputError("", "unterminated \" quote in the argument list");
            in_word = true;
        } else if (c == '#' && !in_word) {
            while (i < s.size() && s[i] != '\n') ++i;
            flush();
            words.push_back("\n");
        } else if (c == '\n' || c == ';') {
            flush();
            words.push_back("\n");
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            flush();
        } else if ((c == '(' || c == ')') && !(in_word && cur.find('$') != std::string::npos)) {
            if (c == '(' && in_word && !cur.empty() && cur.back() == '=') {   // NAME=( opens an array
                flush();
                words.push_back("(");
            } else if (c == ')') {
                flush();
                words.push_back(")");
            } else {
                cur += c;
                in_word = true;
            }
        } else {
            cur += c;
            in_word = true;
        }
    }
    flush();
    return words;
}

bool is_flag(const std::string& w) { return w.size() > 2 && w[0] == '-' && w[1] == '-'; }

std::optional<int> to_int(const std::string& s) {
    try {
        std::size_t used = 0;
        const long long v = std::stoll(s, &used);
        if (used == s.size() && v > -(1LL << 31) && v < (1LL << 31)) return static_cast<int>(v);
    } catch (const std::exception&) {}
    return std::nullopt;
}

}   // namespace

ImportResult import_megatron(std::string_view text, const Project& base) {
    ImportResult r;
    r.project = base;
    Project& p = r.project;
    p.layout = Layout{};
    p.layout.framework = "megatron";
    auto& w = r.warnings;

    // Collect (flag, values) pairs. Values are the words after a flag up to the next
    // flag, line end, or array end.
    std::vector<std::pair<std::string, std::vector<std::string>>> flags;
    const auto words = shell_words(text);
    for (std::size_t i = 0; i < words.size(); ++i) {
        const std::string& wd = words[i];
        if (!is_flag(wd)) continue;
        std::string flag = wd;
        std::vector<std::string> values;
        if (auto eq = flag.find('='); eq != std::string::npos) {
            values.push_back(flag.substr(eq + 1));
            flag = flag.substr(0, eq);
        } else {
            while (i + 1 < words.size() && !is_flag(words[i + 1]) && words[i + 1] != "\n" && words[i + 1] != ")" &&
                   words[i + 1] != "(" && words[i + 1].rfind("\"${", 0) != 0 && words[i + 1].rfind("${", 0) != 0)
                values.push_back(words[++i]);
        }
        flags.push_back({flag, values});
    }
    if (flags.empty()) throw InputError("", "no --flags found: not a Megatron-LM argument list");

    ModelSpec m = base.model;
    bool model_changed = false;
    std::optional<int> layers_per_virtual_stage;
    std::string fsdp_strategy;
    bool use_fsdp = false;
    int nnodes = 0, nproc = 0;
    bool gqa = false, heads_given = false;
    const std::set<std::string> not_layout = {"--train-iters",
                                              "--lr",
                                              "--min-lr",
                                              "--weight-decay",
                                              "--mock-data",
                                              "--tokenizer-type",
                                              "--recompute-method",
                                              "--recompute-num-layers",
                                              "--moe-token-dispatcher-type",
                                              "--moe-grouped-gemm",
                                              "--rdzv-backend",
                                              "--rdzv_backend",
                                              "--node-rank",
                                              "--node_rank",
                                              "--master-addr",
                                              "--master_addr",
                                              "--master-port",
                                              "--master_port"};

    for (const auto& entry : flags) {
        // Named references, not a structured binding: the lambdas below capture them (clang 14,
        // the fuzz build's compiler, does not capture structured bindings).
        const std::string& flag = entry.first;
        const auto& values = entry.second;
        const std::string shown = flag + (values.empty() ? "" : " " + values.front());
        auto need_int = [&](int min) -> std::optional<int> {
            if (values.size() != 1) {
                w.push_back(flag + " not read (expected one value)");
                return std::nullopt;
            }
            auto v = to_int(values.front());
            if (!v || *v < min) {
                w.push_back(
                    shown + " not read (expected an integer" +
                    (values.front().find('$') != std::string::npos ? "; shell variables are not expanded" : "") + ")");
                return std::nullopt;
            }
            return v;
        };
        auto need_str = [&]() -> std::optional<std::string> {
            if (values.size() != 1) {
                w.push_back(flag + " not read (expected one value)");
                return std::nullopt;
            }
            return values.front();
        };
        auto no_value = [&]() {
            if (!values.empty()) w.push_back(flag + " takes no value; '" + values.front() + "' not read");
        };
        auto set_model = [&](int& field, int min) {
            if (auto v = need_int(min)) {
                model_changed = model_changed || field != *v;
                field = *v;
            }
        };
        Layout& l = p.layout;
        if (flag == "--tensor-model-parallel-size") {
            if (auto v = need_int(1)) l.tp = *v;
        } else if (flag == "--pipeline-model-parallel-size") {
            if (auto v = need_int(1)) l.pp = *v;
        } else if (flag == "--context-parallel-size") {
            if (auto v = need_int(1)) l.cp = *v;
        } else if (flag == "--expert-model-parallel-size") {
            if (auto v = need_int(1)) l.ep = *v;
        } else if (flag == "--expert-tensor-parallel-size") {
            if (auto v = need_int(1)) l.etp = *v;
        } else if (flag == "--num-virtual-stages-per-pipeline-rank") {
            if (auto v = need_int(1)) l.chunks = *v;
        } else if (flag == "--num-layers-per-virtual-pipeline-stage") {
            if (auto v = need_int(1)) layers_per_virtual_stage = *v;
        } else if (flag == "--sequence-parallel") {
            no_value();
            l.sp_mode = SpMode::split_gather;
        } else if (flag == "--tp-comm-overlap") {
            no_value();
            l.tp_comm_overlap = true;
        } else if (flag == "--use-tp-pp-dp-mapping") {
            no_value();
            l.order = "tp-cp-ep-pp-dp";
        } else if (flag == "--micro-batch-size") {
            if (auto v = need_int(1)) p.training.micro_batch_size = *v;
        } else if (flag == "--global-batch-size") {
            if (auto v = need_int(1)) p.training.global_batch_size = *v;
        } else if (flag == "--use-distributed-optimizer") {
            no_value();
            l.distributed_optimizer = true;
        } else if (flag == "--use-megatron-fsdp") {
            no_value();
            use_fsdp = true;
        } else if (flag == "--data-parallel-sharding-strategy") {
            if (auto v = need_str()) fsdp_strategy = *v;
        } else if (flag == "--optimizer-cpu-offload") {
            no_value();
            l.offload = Offload::cpu;
        } else if (flag == "--optimizer-offload-fraction") {
            if (auto v = need_str()) {
                try {
                    const double f = std::stod(*v);
                    l.offload_fraction = f >= 1 ? 0 : f;
                } catch (const std::exception&) {
                    w.push_back(shown + " not read");
                }
            }
        } else if (flag == "--recompute-granularity") {
            if (auto v = need_str()) {
                if (*v == "full") l.recompute = Recompute::full;
                else if (*v == "selective") l.recompute = Recompute::selective;
                else w.push_back(shown + " not read");
            }
        } else if (flag == "--recompute-activations") {
            no_value();
            l.recompute = Recompute::selective;
        } else if (flag == "--bf16") {
            no_value();
            p.training.precision = Precision::bf16;
        } else if (flag == "--fp16") {
            no_value();
            p.training.precision = Precision::fp16;
        } else if (flag == "--fp8-format") {
            if (need_str()) l.fp8 = true;
        } else if (flag == "--fp8-recipe") {
            if (auto v = need_str()) {
                // Megatron-LM arguments.py --fp8-recipe choices (FrameworkTraits::fp8_recipes).
                const auto r = parse_enum<Fp8Recipe>(*v);
                if (r && accepts_fp8_recipe("megatron", *r)) l.fp8_recipe = *r;
                else w.push_back(shown + " not read");
            }
        } else if (flag == "--fp8-param-gather") {
            no_value();
            l.fp8_all_gather = true;
        } else if (flag == "--fp4-format") {
            // FP4 through Transformer Engine with --fp4-recipe, whose default and one recipe is nvfp4
            // (transformer_config.py fp4 / fp4_recipe, core_v0.16.0; "custom" needs a quantizer factory).
            if (auto v = need_str()) {
                if (*v == "e2m1") l.fp4_recipe = Fp4Recipe::nvfp4;
                else w.push_back(shown + " not read");
            }
        } else if (flag == "--fp4-recipe") {
            if (auto v = need_str(); v && *v != "nvfp4") w.push_back(shown + " not read");
        } else if (flag == "--first-last-layers-bf16") {
            // The FP4 layers Paraplan's Megatron row keeps in BF16 (FrameworkTraits::fp4_bf16_layers_at_*).
            no_value();
        } else if (flag == "--num-layers-at-start-in-bf16" || flag == "--num-layers-at-end-in-bf16") {
            const FrameworkTraits& mt = traits(Framework::megatron);
            const int kept = flag == "--num-layers-at-start-in-bf16" ? mt.fp4_bf16_layers_at_start
                                                                     : mt.fp4_bf16_layers_at_end;
            if (auto v = need_int(0); v && *v != kept)
                w.push_back(shown + " not read (Paraplan keeps " + std::to_string(kept) + " layer(s) in BF16)");
        } else if (flag == "--transformer-impl") {
            // local: Megatron's own PyTorch modules; transformer_engine is its default ("auto").
            if (auto v = need_str()) {
                if (*v == "local") l.kernels = KernelStack::eager;
                else if (*v != "transformer_engine") w.push_back(shown + " not read");
            }
        } else if (flag == "--attention-backend") {
            if (auto v = need_str()) l.flash_attention = *v != "unfused" && *v != "local";
        } else if (flag == "--optimizer") {
            if (auto v = need_str()) {
                if (*v == "sgd") p.training.optimizer = Optimizer::sgd;
                else if (*v == "adam") {
                    if (p.training.optimizer != Optimizer::adam && p.training.optimizer != Optimizer::adamw)
                        p.training.optimizer = Optimizer::adamw;
                } else w.push_back(shown + " not read");
            }
        }
        // Model shape.
        else if (flag == "--num-layers")
            set_model(m.layers, 1);
        else if (flag == "--hidden-size") set_model(m.hidden, 1);
        else if (flag == "--num-attention-heads") {
            set_model(m.heads, 1);
            heads_given = true;
        } else if (flag == "--ffn-hidden-size") set_model(m.ffn_hidden, 1);
        else if (flag == "--num-query-groups") set_model(m.kv_heads, 1);
        else if (flag == "--group-query-attention") {
            no_value();
            gqa = true;
        } else if (flag == "--kv-channels") set_model(m.head_dim, 1);
        else if (flag == "--seq-length") {
            if (auto v = need_int(1)) p.training.seq_len = *v;
        } else if (flag == "--max-position-embeddings") set_model(m.max_seq, 1);
        else if (flag == "--vocab-size") set_model(m.vocab, 1);
        else if (flag == "--swiglu") {
            no_value();
            model_changed = model_changed || m.activation != "swiglu";
            m.activation = "swiglu";
        } else if (flag == "--squared-relu") {
            no_value();
            model_changed = model_changed || m.activation != "relu2";
            m.activation = "relu2";
        } else if (flag == "--hybrid-override-pattern") {
            if (auto v = need_str()) {
                model_changed = model_changed || m.hybrid_override_pattern != *v;
                m.hybrid_override_pattern = *v;
            }
        } else if (flag == "--mamba-state-dim") set_model(m.mamba_state_dim, 1);
        else if (flag == "--mamba-head-dim") set_model(m.mamba_head_dim, 1);
        else if (flag == "--mamba-num-groups") set_model(m.mamba_num_groups, 1);
        else if (flag == "--mamba-num-heads") set_model(m.mamba_num_heads, 1);
        else if (flag == "--is-hybrid-model") no_value();
        else if (flag == "--spec") {
            if (!values.empty() && values.front().find("mamba") == std::string::npos)
                w.push_back(flag + " " + values.front() + " not read (a layer spec of its own)");
        } else if (flag == "--normalization") {
            if (auto v = need_str()) {
                const std::string n = *v == "RMSNorm" ? "rmsnorm" : *v == "LayerNorm" ? "layernorm" : "";
                if (n.empty()) w.push_back(shown + " not read");
                else {
                    model_changed = model_changed || m.norm != n;
                    m.norm = n;
                }
            }
        } else if (flag == "--position-embedding-type") {
            if (auto v = need_str()) {
                const std::string n = *v == "rope"               ? "rope"
                                      : *v == "learned_absolute" ? "learned"
                                      : *v == "relative"         ? "relative"
                                      : *v == "none"             ? "none"
                                                                 : "";
                if (n.empty()) w.push_back(shown + " not read");
                else {
                    model_changed = model_changed || m.position != n;
                    m.position = n;
                }
            }
        } else if (flag == "--untie-embeddings-and-output-weights") {
            no_value();
            model_changed = model_changed || m.tied_embeddings;
            m.tied_embeddings = false;
        } else if (flag == "--disable-bias-linear") {
            no_value();
            model_changed = model_changed || m.attn_bias || m.mlp_bias;
            m.attn_bias = m.mlp_bias = false;
        } else if (flag == "--add-qkv-bias") {
            no_value();
            m.attn_bias = true;
            m.qkv_bias_only = true;
        } else if (flag == "--num-experts") set_model(m.experts, 1);
        else if (flag == "--moe-router-topk") set_model(m.top_k, 1);
        else if (flag == "--moe-ffn-hidden-size") set_model(m.expert_ffn_hidden, 1);
        else if (flag == "--moe-shared-expert-intermediate-size") set_model(m.shared_expert_ffn_hidden, 1);
        else if (flag == "--moe-layer-freq") {
            if (auto v = need_str()) {
                if (auto k = to_int(*v)) m.moe_layer_freq = *k;
                else if (v->size() > 2 && v->front() == '[' && v->back() == ']') {
                    std::vector<int> dense;
                    int idx = 0;
                    for (char c : *v) {
                        if (c == '0') dense.push_back(idx++);
                        else if (c == '1') ++idx;
                    }
                    m.dense_layers = dense;
                    m.moe_layer_freq = 1;
                } else {
                    w.push_back(shown + " not read (expected an integer or a [0/1, ...] list)");
                }
            }
        } else if (flag == "--multi-latent-attention") no_value();
        else if (flag == "--q-lora-rank") set_model(m.q_lora_rank, 1);
        else if (flag == "--kv-lora-rank") set_model(m.kv_lora_rank, 1);
        else if (flag == "--qk-head-dim") set_model(m.qk_nope_head_dim, 1);
        else if (flag == "--qk-pos-emb-head-dim") set_model(m.qk_rope_head_dim, 1);
        else if (flag == "--v-head-dim") set_model(m.v_head_dim, 1);
        // torchrun.
        else if (flag == "--nproc-per-node" || flag == "--nproc_per_node") {
            if (auto v = need_int(1)) nproc = *v;
        } else if (flag == "--nnodes") {
            if (auto v = need_int(1)) nnodes = *v;
        } else if (not_layout.count(flag)) r.notes.push_back(shown + ": read, not part of a layout");
        else w.push_back(shown + " not read");
    }
    // Without --group-query-attention Megatron uses one query group per head.
    if (heads_given && !gqa && m.kv_heads != m.heads) {
        m.kv_heads = m.heads;
        model_changed = true;
    }
    if (layers_per_virtual_stage) {
        const int stages = m.layers / *layers_per_virtual_stage;
        if (m.layers % *layers_per_virtual_stage != 0 || stages % p.layout.pp != 0)
            w.push_back("--num-layers-per-virtual-pipeline-stage " + std::to_string(*layers_per_virtual_stage) +
                        " does not split " + std::to_string(m.layers) + " layers evenly over pp " +
                        std::to_string(p.layout.pp));
        else p.layout.chunks = stages / p.layout.pp;
    }
    if (p.layout.chunks > 1) p.layout.schedule = Schedule::interleaved;
    if (use_fsdp) {
        if (fsdp_strategy == "optim_grads_params") p.layout.zero_stage = 3;
        else if (fsdp_strategy == "optim_grads") p.layout.zero_stage = 2;
        else if (fsdp_strategy == "optim") p.layout.zero_stage = 1;
        else w.push_back("--use-megatron-fsdp with sharding strategy \"" + fsdp_strategy + "\" read as no sharding");
    } else if (!fsdp_strategy.empty()) {
        w.push_back("--data-parallel-sharding-strategy " + fsdp_strategy + " not read (it needs --use-megatron-fsdp)");
    } else if (p.layout.distributed_optimizer) {
        p.layout.zero_stage = 1;
    }
    if (p.layout.sp_mode == SpMode::split_gather && p.layout.tp == 1) {
        p.layout.sp_mode = SpMode::none;
        r.notes.push_back(
            "--sequence-parallel with tensor-model-parallel size 1 is switched off by Megatron; read as off");
    }
    if (model_changed && m.is_hybrid()) {
        // The hybrid keys are read once, by the model parser (pattern length and characters, Megatron's
        // defaults for the Mamba sizes no flag gave); a pattern it refuses is left out with its reason.
        nlohmann::json j = to_json(m);
        for (const auto& [k, field] : kMambaKeys)
            if (j.contains(k) && j[k] == 0) j.erase(k);
        try {
            m = model_from_json(j, "");
        } catch (const InputError& e) {
            w.push_back("--hybrid-override-pattern not read: " + std::string(e.what()));
            m.hybrid_override_pattern.clear();
            m.mamba_state_dim = m.mamba_head_dim = m.mamba_num_groups = m.mamba_num_heads = 0;
        }
    }
    if (model_changed) {
        m.id.clear();
        m.name = "imported from Megatron arguments";
        m.source = "megatron import";
        p.model = m;
        p.model_preset.clear();
        r.notes.push_back(
            "the model shape comes from the Megatron flags (an inline model spec; fields Megatron does not "
            "name come from the base model " +
            (base.model.id.empty() ? base.model.name : base.model.id) + ")");
    } else {
        r.notes.push_back("the model flags match the base model " +
                          (base.model.id.empty() ? base.model.name : base.model.id));
    }
    if (nnodes > 0 && nproc > 0) r.implied_world = nnodes * nproc;
    return r;
}

}   // namespace paraplan
