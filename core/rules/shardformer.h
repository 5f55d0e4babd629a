#pragma once
// What ColossalAI's ShardFormer does for each model family: whether a policy exists
// and, per feature (tensor parallel, each sequence-parallel mode, pipeline, flash
// attention, fused normalization, JIT fused kernels, FP8), whether the policy supports
// it, converts it, silently switches it off, ignores it, or fails.
//
// ONE table, read by the validator (rules/colossalai.cpp: model_policy, model_sp_support,
// moe_sp_with_pp, model_flash, model_kernel_flags) and by `paraplan-cli catalog shardformer`
// and the app's checklist, so what the checklist shows is what the validator enforces.
#include "project/layout_enums.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace paraplan::rules {

enum class Support {
    Yes,         // the policy implements it
    Converted,   // the policy warns and uses another mode instead (ring -> split_gather)
    Ignored,     // the policy warns and switches the feature off
    NoEffect,    // the flag does nothing for this model (no replacement, no warning)
    Error,       // the policy or its modeling code raises
};
std::string to_string(Support s);   // "yes" "converted" "ignored" "no_effect" "error"

struct SupportCell {
    Support level = Support::Yes;
    std::string note;        // plain words, may be empty
    std::string framework;   // the framework's own message (warning or exception), may be empty
};

// The features of the checklist, in its column order.
const std::vector<std::string>& shardformer_features();
// Human column titles, same order.
const std::vector<std::string>& shardformer_feature_titles();

struct ShardformerPolicy {
    std::string family;               // Paraplan's model family (catalog "family", HF model_type)
    std::string name;                 // ColossalAI's model name ("Llama", "GPT2")
    std::string policy_file;          // colossalai/shardformer/policies/<file>.py
    std::string release;              // the ColossalAI release the row was read at
    bool sp_excludes_pp = false;      // MoE policies: sequence parallelism and pipeline cannot combine
    std::vector<SupportCell> cells;   // one per shardformer_features()

    const SupportCell& cell(const std::string& feature) const;   // throws std::out_of_range
};

// Every family with a ShardFormer policy, in auto_policy.py's order.
const std::vector<ShardformerPolicy>& shardformer_policies();
// The family's row; nullptr when ColossalAI has no policy for it.
const ShardformerPolicy* shardformer_policy(const std::string& family);
// The cell of a sequence-parallel mode other than none (feature "sp_<name>").
const SupportCell& shardformer_sp_cell(const ShardformerPolicy& p, SpMode sp_mode);

// `paraplan-cli catalog shardformer --json`: {"source", "features", "families": [{family,
// name, policy, policy_file, release, sp_excludes_pp, features: {tp: {support, note, framework}, ...}}]}.
// `extra_families` (e.g. the catalog's) are listed too, with "policy": false, when no row has them.
nlohmann::json shardformer_checklist_json(const std::vector<std::string>& extra_families = {});

}   // namespace paraplan::rules
