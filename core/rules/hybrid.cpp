// Rules for hybrid Mamba models, from Megatron-LM core_v0.16.0 (NVIDIA/Megatron-LM):
//   megatron/core/ssm/mamba_mixer.py MambaMixer.__init__: nheads % tp_size == 0, ngroups % tp_size == 0
//     (the mixer's heads and B/C groups are split over tp; in_proj is column-parallel, out_proj
//     row-parallel, and with --sequence-parallel their inputs/outputs are sequence-split like a GPT layer);
//   megatron/core/ssm/mamba_context_parallel.py MambaContextParallel.__init__: context parallelism is an
//     all-to-all from sequence to head shards, so (nheads / tp) % cp == 0, and the groups per tp rank
//     either divide by cp or divide cp;
//   with FP8 the same __init__ asserts the in_proj output width 2 d_inner + 2 G N + nheads % 16 == 0;
//   megatron/core/ssm/mamba_block.py MambaStack._select_layers_for_pipeline_parallel: each pipeline rank
//     takes num_layers // pp consecutive pattern layers and virtual pipeline stages are refused.
#include "rules/hybrid.h"

#include "project/fp8.h"
#include "project/framework.h"

#include <string>

namespace paraplan::rules {

void hybrid_framework(const Project& p, Out& out) {
    if (!p.model.is_hybrid()) return;
    const FrameworkTraits* t = find_traits(p.layout.framework);
    if (!t || t->hybrid_mamba) return;
    auto d = diag(Severity::Error, "model.hybrid_framework",
                  std::string(t->display_name) +
                      " has no Mamba-2 layers: the hybrid_override_pattern model (Mamba, attention and MLP "
                      "layers) trains only with Megatron-LM (pretrain_mamba.py).",
                  "", {"/model/hybrid_override_pattern", "/layout/framework"});
    add_fixes(d, &hybrid_framework, p, {set_value("/layout/framework", "megatron", "Use megatron")});
    out.push_back(d);
}

// A Mamba size without a hybrid_override_pattern: the model has no Mamba layers (every layer is
// attention + MLP), so the key changes nothing. Megatron reads --mamba-* only for MambaModel
// (pretrain_mamba.py), whose layers the pattern places. A warning, as for other fields that are set
// but ignored (kernel.tp_comm_overlap, project.unknown_key); the key is kept in the file as written.
void mamba_without_pattern(const Project& p, Out& out) {
    const ModelSpec& m = p.model;
    if (m.is_hybrid()) return;
    for (auto [key, field] : kMambaKeys) {
        const int v = m.*field;
        if (v <= 0) continue;
        out.push_back(diag(Severity::Warning, "model.mamba_without_pattern",
                           std::string(key) + " = " + str(v) +
                               " sizes the Mamba-2 layers of a hybrid model, but this model has no "
                               "hybrid_override_pattern, so it has no Mamba layers and " +
                               key +
                               " changes nothing (not in the parameters, the estimate or the export). Add a "
                               "hybrid_override_pattern with 'M' layers, or remove the key.",
                           "", {"/model/" + std::string(key), "/model/hybrid_override_pattern"}));
    }
}

void mg_mamba_tp(const Project& p, Out& out) {
    const ModelSpec& m = p.model;
    const int tp = p.layout.tp;
    if (!m.is_hybrid() || m.hybrid_layer_count('M') == 0 || tp <= 1) return;
    if (m.mamba_num_heads % tp != 0) {
        auto d = diag(Severity::Error, "megatron.mamba_heads_divisible_tp",
                      "tp = " + str(tp) + " does not divide the " + str(m.mamba_num_heads) +
                          " Mamba heads (mamba_num_heads), so the Mamba mixers cannot be split evenly.",
                      "AssertionError: nheads must be evenly divisble by tp_size",
                      {"/layout/tp", "/model/mamba_num_heads"});
        add_fixes(d, &mg_mamba_tp, p, knob_candidates(p, {"/layout/tp"}, divisors(m.mamba_num_heads)));
        out.push_back(d);
        return;
    }
    if (m.mamba_num_groups % tp != 0) {
        auto d = diag(
            Severity::Error, "megatron.mamba_groups_divisible_tp",
            "tp = " + str(tp) + " does not divide the " + str(m.mamba_num_groups) + " Mamba groups (mamba_num_groups).",
            "AssertionError: ngroups must be evenly divisible by tp_size", {"/layout/tp", "/model/mamba_num_groups"});
        add_fixes(d, &mg_mamba_tp, p, knob_candidates(p, {"/layout/tp"}, divisors(m.mamba_num_groups)));
        out.push_back(d);
    }
}

void mg_mamba_cp(const Project& p, Out& out) {
    const ModelSpec& m = p.model;
    const int tp = p.layout.tp, cp = p.layout.cp;
    if (!m.is_hybrid() || m.hybrid_layer_count('M') == 0 || cp <= 1 || tp <= 0) return;
    if (m.mamba_num_heads % tp != 0 || m.mamba_num_groups % tp != 0) return;   // mg_mamba_tp
    const int heads_tp = m.mamba_num_heads / tp, groups_tp = m.mamba_num_groups / tp;
    std::string why, error;
    if (heads_tp % cp != 0) {
        why = "the " + str(heads_tp) + " Mamba heads per tp rank do not divide over cp = " + str(cp);
        error = "AssertionError: nheads must be evenly divisible by tp_size * cp_size";
    } else if (groups_tp < cp ? cp % groups_tp != 0 : groups_tp % cp != 0) {
        why = "the " + str(groups_tp) + " Mamba groups per tp rank and cp = " + str(cp) + " do not divide one another";
        error = groups_tp < cp ? "AssertionError: cp_size must be evenly divisible by ngroups/tp_size"
                               : "AssertionError: ngroups must be evenly divisible by tp_size * cp_size";
    }
    if (why.empty()) return;
    auto d = diag(Severity::Error, "megatron.mamba_cp",
                  "Megatron's Mamba context parallelism hands each cp rank whole heads (an all-to-all from "
                  "sequence to head shards): " +
                      why + ".",
                  error, {"/layout/cp", "/layout/tp", "/model/mamba_num_heads", "/model/mamba_num_groups"});
    std::vector<int> cps;
    for (int c : divisors(heads_tp))
        if (groups_tp < c ? c % groups_tp == 0 : groups_tp % c == 0) cps.push_back(c);
    add_fixes(d, &mg_mamba_cp, p, knob_candidates(p, {"/layout/cp"}, cps));
    out.push_back(d);
}

void mg_hybrid_pipeline(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!p.model.is_hybrid() || l.pp <= 1) return;
    if (l.chunks > 1) {
        auto d = diag(
            Severity::Error, "megatron.hybrid_pipeline",
            "Megatron's hybrid Mamba model has no virtual pipeline stages: chunks = " + str(l.chunks) + " is refused.",
            "AssertionError: The Mamba hybrid model does not currently support virtual/interleaved "
            "pipeline parallelism",
            {"/layout/chunks", "/model/hybrid_override_pattern"});
        add_fixes(d, &mg_hybrid_pipeline, p,
                  {Fix{"Set chunks to 1 (1F1B)", {{"/layout/chunks", 1}, {"/layout/schedule", "1f1b"}}}});
        out.push_back(d);
        return;
    }
    if (l.account_for_embedding_in_pipeline_split || l.account_for_loss_in_pipeline_split) {
        auto d = diag(
            Severity::Error, "megatron.hybrid_pipeline",
            "Megatron's MambaStack splits the pattern as num_layers // pp layers per stage and does not "
            "count the embedding or the loss as layers.",
            "", {"/layout/account_for_embedding_in_pipeline_split", "/layout/account_for_loss_in_pipeline_split"});
        add_fixes(d, &mg_hybrid_pipeline, p,
                  {Fix{"Split only the pattern layers",
                       {{"/layout/account_for_embedding_in_pipeline_split", false},
                        {"/layout/account_for_loss_in_pipeline_split", false}}}});
        out.push_back(d);
    }
}

void mg_mamba_fp8(const Project& p, Out& out) {
    const ModelSpec& m = p.model;
    if (!m.is_hybrid() || m.hybrid_layer_count('M') == 0) return;
    if (!fp8_on(p.layout, p.training)) return;
    const long long width = 2 * m.mamba_d_inner() + 2LL * m.mamba_num_groups * m.mamba_state_dim + m.mamba_num_heads;
    if (width % 16 == 0) return;
    std::vector<std::string> fields{"/model/mamba_num_heads", "/model/mamba_head_dim"};
    fields.push_back(p.layout.fp8 ? "/layout/fp8" : "/training/precision");
    auto d = diag(Severity::Error, "megatron.mamba_fp8_width",
                  "With FP8 Megatron needs the Mamba in_proj output width (2 d_inner + 2 groups x state + heads = " +
                      str(width) + ") to be a multiple of 16.",
                  "AssertionError: For FP8, the innermost dimension of the Mamba layer input projection output "
                  "tensor must be a multiple of 16.",
                  fields);
    Fix off{"Turn FP8 off (train in bf16)", {}};
    if (p.layout.fp8) off.changes.push_back({"/layout/fp8", false});
    if (p.training.precision == Precision::fp8) off.changes.push_back({"/training/precision", "bf16"});
    add_fixes(d, &mg_mamba_fp8, p, {off});
    out.push_back(d);
}

}   // namespace paraplan::rules
