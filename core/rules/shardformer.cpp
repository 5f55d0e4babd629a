// The ShardFormer feature table. Read from hpcaitech/ColossalAI at tag v0.5.1 (Qwen3: commit
// 4f9953be, after v0.5.1):
//   colossalai/shardformer/policies/auto_policy.py   _POLICY_LIST: which model classes have a policy
//   colossalai/shardformer/policies/<model>.py       Policy.module_policy(): the sp_mode branches
//       (assert / warnings.warn / mode rewrite), enable_flash_attention, enable_fused_normalization,
//       enable_jit_fused replacements, get_held_layers() (pipeline), DeepseekV3 config_sanity_check()
//   colossalai/shardformer/modeling/{qwen2,mixtral,deepseek,chatglm2}.py   assert sp_mode in [...], "Invalid sp_mode"
//   colossalai/booster/plugin/hybrid_parallel_plugin.py   use_fp8 -> FP8Hook (every model's linear layers)
#include "rules/shardformer.h"

#include <stdexcept>

namespace paraplan::rules {

std::string to_string(Support s) {
    switch (s) {
    case Support::Yes: return "yes";
    case Support::Converted: return "converted";
    case Support::Ignored: return "ignored";
    case Support::NoEffect: return "no_effect";
    case Support::Error: return "error";
    }
    return "yes";
}

const std::vector<std::string>& shardformer_features() {
    static const std::vector<std::string> f = {"tp",
                                               "pp",
                                               "sp_split_gather",
                                               "sp_ring",
                                               "sp_all_to_all",
                                               "sp_ring_attn",
                                               "flash_attention",
                                               "fused_norm",
                                               "jit_fused",
                                               "fp8"};
    return f;
}

const std::vector<std::string>& shardformer_feature_titles() {
    static const std::vector<std::string> t = {"Tensor parallel", "Pipeline",     "SP split_gather", "SP ring",
                                               "SP all_to_all",   "SP ring_attn", "Flash attention", "Fused norm",
                                               "JIT fused",       "FP8 (use_fp8)"};
    return t;
}

const SupportCell& ShardformerPolicy::cell(const std::string& feature) const {
    const auto& f = shardformer_features();
    for (std::size_t i = 0; i < f.size() && i < cells.size(); ++i)
        if (f[i] == feature) return cells[i];
    throw std::out_of_range("no ShardFormer feature '" + feature + "'");
}

namespace {

SupportCell yes(std::string note = {}) { return {Support::Yes, std::move(note), {}}; }
SupportCell no_effect(std::string note) { return {Support::NoEffect, std::move(note), {}}; }
SupportCell ignored(std::string note, std::string fw) { return {Support::Ignored, std::move(note), std::move(fw)}; }
SupportCell converted(std::string note, std::string fw) { return {Support::Converted, std::move(note), std::move(fw)}; }
SupportCell error(std::string note, std::string fw) { return {Support::Error, std::move(note), std::move(fw)}; }

// The policy warns once and turns sequence parallelism off, whatever the mode.
SupportCell sp_ignored(const std::string& name) {
    return ignored("the policy turns sequence parallelism off; the sp ranks duplicate work",
                   name + " doesn't support sequence parallelism now, will ignore the sequence parallelism flag.");
}
SupportCell ring_to_split_gather(const std::string& name) {
    return converted(
        "ring is replaced by split_gather",
        "For " + name + ", sequence parallelism is currently not support mode ring, will set to be split_gather");
}
SupportCell no_all_to_all(const std::string& name) {
    return error("no Ulysses path in the policy", "all_to_all sequence parallelism is not supported for " + name);
}
SupportCell invalid_ring_attn() {
    return error("the modeling code accepts only all_to_all, split_gather and ring (raised at the first forward)",
                 "AssertionError: Invalid sp_mode");
}
SupportCell no_flash(const std::string& name) {
    return no_effect(name + "'s policy has no flash attention replacement");
}
SupportCell no_jit() { return no_effect("the policy has no JIT-fused kernels"); }
SupportCell fp8() { return yes("plugin-level FP8Hook on the linear layers (needs an FP8 GPU)"); }

using C = std::vector<SupportCell>;
constexpr const char* kRelease = "v0.5.1";

ShardformerPolicy row(std::string family, std::string name, std::string file, C cells, bool sp_excludes_pp = false,
                      std::string release = kRelease) {
    return {std::move(family),  std::move(name), "colossalai/shardformer/policies/" + file + ".py",
            std::move(release), sp_excludes_pp,  std::move(cells)};
}

std::vector<ShardformerPolicy> build() {
    const SupportCell pp = yes();
    std::vector<ShardformerPolicy> r;
    // Columns: tp, pp, split_gather, ring, all_to_all, ring_attn, flash, fused_norm, jit, fp8.
    r.push_back(row("bert", "Bert", "bert",
                    C{yes(), pp, yes(), ring_to_split_gather("Bert"), no_all_to_all("Bert"),
                      no_effect("Bert has no ring attention path; the mode has no effect"), no_flash("Bert"),
                      yes("FusedLayerNorm"), yes("fused bias+GeLU and dropout+add"), fp8()}));
    r.push_back(row("llama", "Llama", "llama",
                    C{yes(), pp, yes(), yes(), yes(), yes("causal LM only (LlamaModel raises)"), yes(),
                      yes("FusedRMSNorm"), no_jit(), fp8()}));
    r.push_back(row("t5", "T5", "t5",
                    C{yes(), yes("encoder/decoder split"), sp_ignored("T5"), sp_ignored("T5"), sp_ignored("T5"),
                      sp_ignored("T5"), yes(), yes("FusedRMSNorm"), yes("fused dropout+add"), fp8()}));
    r.push_back(row("gpt2", "GPT2", "gpt2",
                    C{yes(), pp, yes(), ring_to_split_gather("GPT2"), no_all_to_all("GPT2"),
                      yes("decoder-only (cross-attention raises)"), yes(), yes("FusedLayerNorm"),
                      yes("fused GeLU when activation_function is gelu"), fp8()}));
    r.push_back(row("gptj", "GPTJ", "gptj",
                    C{yes(), pp, sp_ignored("GPTJ"), sp_ignored("GPTJ"), sp_ignored("GPTJ"), sp_ignored("GPTJ"), yes(),
                      yes("FusedLayerNorm"), no_jit(), fp8()}));
    r.push_back(row("vit", "Vit", "vit",
                    C{yes(), pp, sp_ignored("Vit"), sp_ignored("Vit"), sp_ignored("Vit"), sp_ignored("Vit"), yes(),
                      no_effect("ViT's policy keeps its LayerNorm"), yes("fused bias+GeLU and dropout+add"), fp8()}));
    r.push_back(row("opt", "OPT", "opt",
                    C{yes(), pp, sp_ignored("OPT"), sp_ignored("OPT"), sp_ignored("OPT"), sp_ignored("OPT"), yes(),
                      yes("FusedLayerNorm"), yes("fused dropout+add"), fp8()}));
    r.push_back(row("bloom", "BLOOM", "bloom",
                    C{yes(), pp, yes(), ring_to_split_gather("BLOOM"), no_all_to_all("BLOOM"),
                      no_effect("BLOOM has no ring attention path; the mode has no effect"), no_flash("BLOOM"),
                      yes("FusedLayerNorm"), yes("fused dropout+add"), fp8()}));
    r.push_back(
        row("whisper", "Whisper", "whisper",
            C{yes(), yes("encoder/decoder split"), sp_ignored("Whisper"), sp_ignored("Whisper"), sp_ignored("Whisper"),
              sp_ignored("Whisper"), yes(), yes("FusedLayerNorm"),
              ignored("the policy turns JIT fusion off",
                      "Whisper doesn't support jit fused operator now, will ignore the jit fused operator flag."),
              fp8()}));
    r.push_back(row(
        "chatglm", "ChatGLM", "chatglm2",
        C{yes(), pp, yes(),
          converted("ring is replaced by split_gather",
                    "For ChatGLM2, sequence parallelism doesn't support mode ring yet, will set to be split_gather"),
          yes(), invalid_ring_attn(), yes(), yes("FusedRMSNorm or FusedLayerNorm"), yes("fused dropout+add"), fp8()}));
    r.push_back(row("falcon", "Falcon", "falcon",
                    C{yes("off for multi-query models without new_decoder_architecture"), pp, sp_ignored("Falcon"),
                      sp_ignored("Falcon"), sp_ignored("Falcon"), sp_ignored("Falcon"),
                      ignored("falls back to transformers' attention",
                              "Falcon doesn't support flash attention now, fallback to transformers attention."),
                      yes("FusedLayerNorm"), no_jit(), fp8()}));
    r.push_back(row("mistral", "Mistral", "mistral",
                    C{yes(), pp, sp_ignored("Mistral"), sp_ignored("Mistral"), sp_ignored("Mistral"),
                      sp_ignored("Mistral"), yes(), yes("FusedRMSNorm"), no_jit(), fp8()}));
    r.push_back(row("mixtral", "Mixtral", "mixtral",
                    C{yes(), yes("not together with sequence parallelism"), yes("not with pp > 1"),
                      yes("not with pp > 1"), yes("not with pp > 1"), invalid_ring_attn(),
                      ignored("transformers' own attention is used",
                              "Flash attention is natively supported in transformers, will ignore the flag."),
                      yes("FusedRMSNorm"), no_jit(), fp8()},
                    true));
    r.push_back(
        row("qwen2", "Qwen2", "qwen2",
            C{yes(), pp, yes(), yes(), yes(), invalid_ring_attn(), yes(), yes("FusedRMSNorm"), no_jit(), fp8()}));
    r.push_back(row("qwen3", "Qwen3", "qwen3",
                    C{yes(), pp, yes(), yes(), yes(), invalid_ring_attn(), yes(), yes("FusedRMSNorm"), no_jit(), fp8()},
                    false, "4f9953be (after v0.5.1)"));
    r.push_back(row("cohere", "Command", "command",
                    C{yes(), pp, yes(), yes(), yes(), yes("causal LM only (CohereModel raises)"), yes(),
                      no_effect("Command's policy keeps CohereLayerNorm"), no_jit(), fp8()}));
    r.push_back(
        row("deepseek", "Deepseek", "deepseek",
            C{yes(), yes("not together with sequence parallelism"), yes("not with pp > 1"), yes("not with pp > 1"),
              yes("not with pp > 1"), invalid_ring_attn(), yes(), yes("FusedRMSNorm"), no_jit(), fp8()},
            true));
    const SupportCell v3_sp = error("config_sanity_check",
                                    "AssertionError: DeepSeekV3 does not support sequence parallelism");
    r.push_back(row("deepseek_v3", "DeepseekV3", "deepseek_v3",
                    C{error("config_sanity_check; use expert parallelism instead",
                            "AssertionError: DeepSeekV3 does not support tensor parallelism"),
                      yes("1f1b and interleaved; zbv raises (DeepSeekV3 does not support ZBV)"), v3_sp, v3_sp, v3_sp,
                      v3_sp, no_flash("DeepseekV3"), yes("FusedRMSNorm"), no_jit(), fp8()}));
    return r;
}

}   // namespace

const std::vector<ShardformerPolicy>& shardformer_policies() {
    static const std::vector<ShardformerPolicy> t = build();
    return t;
}

const ShardformerPolicy* shardformer_policy(const std::string& family) {
    for (const auto& p : shardformer_policies())
        if (p.family == family) return &p;
    return nullptr;
}

const SupportCell& shardformer_sp_cell(const ShardformerPolicy& p, SpMode sp_mode) {
    return p.cell("sp_" + std::string(to_string(sp_mode)));
}

namespace {
nlohmann::json cell_json(const SupportCell& c) {
    nlohmann::json j = {{"support", to_string(c.level)}};
    if (!c.note.empty()) j["note"] = c.note;
    if (!c.framework.empty()) j["framework"] = c.framework;
    return j;
}
}   // namespace

nlohmann::json shardformer_checklist_json(const std::vector<std::string>& extra_families) {
    using nlohmann::json;
    json families = json::array();
    const auto& feats = shardformer_features();
    for (const auto& p : shardformer_policies()) {
        json f = json::object();
        for (std::size_t i = 0; i < feats.size(); ++i) f[feats[i]] = cell_json(p.cells[i]);
        families.push_back({{"family", p.family},
                            {"name", p.name},
                            {"policy", true},
                            {"policy_file", p.policy_file},
                            {"release", p.release},
                            {"sp_excludes_pp", p.sp_excludes_pp},
                            {"features", f}});
    }
    for (const auto& fam : extra_families) {
        if (fam.empty() || shardformer_policy(fam)) continue;
        bool seen = false;
        for (const auto& j : families) seen = seen || j["family"] == fam;
        if (seen) continue;
        families.push_back({{"family", fam},
                            {"policy", false},
                            {"framework", "NotImplementedError: Auto policy for " + fam + " is not implemented"}});
    }
    return {{"source",
             "hpcaitech/ColossalAI v0.5.1: colossalai/shardformer/policies/auto_policy.py and the model policy files"},
            {"features", feats},
            {"families", families}};
}

}   // namespace paraplan::rules
