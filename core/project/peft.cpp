#include "project/peft.h"

#include "util/input_error.h"
#include "util/json_read.h"

#include <algorithm>
#include <map>
#include <set>

namespace paraplan {

using nlohmann::json;

const std::vector<std::string> kPeftMethods = {"lora"};
const std::vector<std::string> kLoraTargets = {"linear_qkv", "linear_proj", "linear_fc1", "linear_fc2"};
const std::vector<std::string> kPeftBaseDtypes = {"bf16", "fp8", "nf4"};

namespace {

// Hugging Face module names of a Llama-style decoder (transformers modeling_llama.py:
// LlamaAttention q_proj k_proj v_proj o_proj, LlamaMLP gate_proj up_proj down_proj), each mapped
// to the Megatron-core linear that holds it: Megatron fuses Q, K, V into linear_qkv and gate and
// up into linear_fc1 (Megatron-Bridge's Llama bridge maps the checkpoints' weights the same way).
const std::map<LoraTarget, std::vector<std::string>>& hf_table() {
    static const std::map<LoraTarget, std::vector<std::string>> t = {
        {LoraTarget::linear_qkv, {"q_proj", "k_proj", "v_proj"}},
        {LoraTarget::linear_proj, {"o_proj"}},
        {LoraTarget::linear_fc1, {"gate_proj", "up_proj"}},
        {LoraTarget::linear_fc2, {"down_proj"}},
    };
    return t;
}

std::string quoted_list(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "\"" : ", \"") + x + "\"";
    return s;
}

}   // namespace

bool Peft::has_target(LoraTarget t) const { return std::find(targets.begin(), targets.end(), t) != targets.end(); }

const char* to_string(LoraTarget t) {
    switch (t) {
    case LoraTarget::linear_qkv: return "linear_qkv";
    case LoraTarget::linear_proj: return "linear_proj";
    case LoraTarget::linear_fc1: return "linear_fc1";
    case LoraTarget::linear_fc2: return "linear_fc2";
    }
    return "linear_qkv";
}

const char* to_string(PeftBaseDtype d) {
    switch (d) {
    case PeftBaseDtype::bf16: return "bf16";
    case PeftBaseDtype::fp8: return "fp8";
    case PeftBaseDtype::nf4: return "nf4";
    }
    return "bf16";
}

Peft default_lora() {
    Peft p;
    p.rank = 32;
    p.alpha = 32;
    p.targets = {LoraTarget::linear_qkv, LoraTarget::linear_proj, LoraTarget::linear_fc1, LoraTarget::linear_fc2};
    p.base_dtype = PeftBaseDtype::bf16;
    return p;
}

const std::vector<std::string>& hf_target_names(LoraTarget t) { return hf_table().at(t); }

double base_weight_bytes(PeftBaseDtype d) {
    switch (d) {
    case PeftBaseDtype::bf16: return 2.0;
    case PeftBaseDtype::fp8: return 1.0;
    case PeftBaseDtype::nf4: return (4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0)) / 8.0;
    }
    return 2.0;
}

std::optional<Peft> peft_from_json(const json& j, const std::string& pointer) {
    if (j.is_null()) return std::nullopt;
    json_read::Obj o(j, pointer);
    static const std::vector<std::string> kKeys = {"method", "rank", "alpha", "targets", "base_dtype"};
    for (auto it = j.begin(); it != j.end(); ++it)
        if (std::find(kKeys.begin(), kKeys.end(), it.key()) == kKeys.end())
            throw InputError(o.at(it.key()), "unknown key (layout.peft has " + quoted_list(kKeys) + ")");
    Peft p;
    p.method = o.string("method");
    if (std::find(kPeftMethods.begin(), kPeftMethods.end(), p.method) == kPeftMethods.end())
        json_read::fail(o.at("method"), "one of " + quoted_list(kPeftMethods), *o.get("method"));
    // LoRA's rank r and scale alpha (the update is scaled by alpha / r): r > 0 (torchtitan's
    // LoRAConverter raises "LoRA rank must be positive"), alpha > 0.
    p.rank = o.positive_int("rank");
    p.alpha = o.positive_number("alpha");
    const std::string base = o.string("base_dtype", "bf16");
    if (std::find(kPeftBaseDtypes.begin(), kPeftBaseDtypes.end(), base) == kPeftBaseDtypes.end())
        json_read::fail(o.at("base_dtype"), "one of " + quoted_list(kPeftBaseDtypes), *o.get("base_dtype"));
    p.base_dtype = base == "fp8" ? PeftBaseDtype::fp8 : base == "nf4" ? PeftBaseDtype::nf4 : PeftBaseDtype::bf16;
    // targets: Megatron-Bridge names, or the Hugging Face names of whole Megatron linears.
    const json* t = o.get("targets");
    if (!t)
        throw InputError(o.at("targets"),
                         "required field is missing (expected a list such as [" + quoted_list(kLoraTargets) + "])");
    if (!t->is_array() || t->empty()) json_read::fail(o.at("targets"), "a non-empty list of target linears", *t);
    std::set<LoraTarget> chosen;
    std::map<LoraTarget, std::set<std::string>> hf_seen;
    for (std::size_t i = 0; i < t->size(); ++i) {
        const std::string at = o.at("targets") + "/" + std::to_string(i);
        const json& v = (*t)[i];
        if (!v.is_string()) json_read::fail(at, "a target name", v);
        const std::string name = v.get<std::string>();
        const auto m = std::find(kLoraTargets.begin(), kLoraTargets.end(), name);
        if (m != kLoraTargets.end()) {
            chosen.insert(static_cast<LoraTarget>(m - kLoraTargets.begin()));
            continue;
        }
        bool found = false;
        for (const auto& [target, names] : hf_table())
            if (std::find(names.begin(), names.end(), name) != names.end()) {
                hf_seen[target].insert(name);
                found = true;
            }
        if (!found)
            json_read::fail(at,
                            "one of " + quoted_list(kLoraTargets) + " (or the Hugging Face names " +
                                "q_proj k_proj v_proj o_proj gate_proj up_proj down_proj)",
                            v);
    }
    for (const auto& [target, seen] : hf_seen) {
        const auto& all = hf_table().at(target);
        if (seen.size() != all.size())
            throw InputError(o.at("targets"), "the Hugging Face names " + quoted_list(all) + " are one fused " +
                                                  to_string(target) + " in Megatron-core; list all of them or " +
                                                  to_string(target));
        chosen.insert(target);
    }
    p.targets.assign(chosen.begin(), chosen.end());
    return p;
}

json to_json(const Peft& p) {
    json t = json::array();
    for (LoraTarget x : p.targets) t.push_back(to_string(x));
    return {{"method", p.method},
            {"rank", p.rank},
            {"alpha", p.alpha},
            {"targets", t},
            {"base_dtype", to_string(p.base_dtype)}};
}

}   // namespace paraplan
