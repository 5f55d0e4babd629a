// Megatron-LM (megatron/training/arguments.py::validate_args, megatron/core/parallel_state.py,
// transformer_config.py, pipeline_parallel/schedules.py), core_v0.19.0 unless noted.
#include "rules/megatron.h"

#include "topology/group_checks.h"
#include "topology/mesh_request.h"

#include "project/fp8.h"
#include "rules/common.h"
#include "rules/hybrid.h"
#include "rules/shared_rules.h"
#include "rules/predicates.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace paraplan::rules {
namespace {

std::string version(const Project& p) {
    const nlohmann::json& e = p.layout.extra.get();
    if (e.is_object() && e.contains("megatron_version") && e["megatron_version"].is_string())
        return e["megatron_version"].get<std::string>();
    return "";
}
// "core_v0.9", "0.9", "0.14.0" -> minor number (>= 100 when unknown: current behaviour).
int megatron_minor(const Project& p) {
    std::string v = version(p);
    const auto pos = v.find("0.");
    if (pos == std::string::npos) return 100;
    try {
        return std::stoi(v.substr(pos + 2));
    } catch (const std::exception&) {
        return 100;
    }
}

bool megatron_sp(const Layout& l) { return l.sp_mode == SpMode::split_gather; }

// initialize_model_parallel: world % (TP*PP*CP) == 0 (topology/group_checks.h, one implementation
// with the rank map builder).
void mg_world(const Project& p, Out& out) {
    auto d = topology::megatron_world_check(topology::from_project(p));
    if (!d) return;
    add_fixes(*d, &mg_world, p, knob_candidates(p, {"/layout/tp", "/layout/pp", "/layout/cp"}, world_divisors(p)));
    out.push_back(std::move(*d));
}

// Megatron has --sequence-parallel (inside TP) and context parallelism; no separate sp axis.
void mg_sp_mode(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if ((l.sp_mode == SpMode::none || l.sp_mode == SpMode::split_gather) && l.sp <= 1) return;
    auto d = diag(
        Severity::Error, "megatron.sp_mode",
        "Megatron-LM has --sequence-parallel (the sequence split over the tp group, sp_mode split_gather) and "
        "context parallelism (cp); it has no separate " +
            (l.sp_mode == SpMode::none ? std::string("sp axis") : std::string(to_string(l.sp_mode)) + " mode") +
            ". Use cp to split long sequences.",
        "", {"/layout/sp_mode", "/layout/sp"});
    add_fixes(
        d, &mg_sp_mode, p,
        {Fix{"Use context parallelism cp = " + str(std::max(l.sp, 2)),
             {{"/layout/cp", std::max(l.sp, 2) * std::max(1, l.cp)}, {"/layout/sp", 1}, {"/layout/sp_mode", "none"}}},
         Fix{"Use --sequence-parallel", {{"/layout/sp_mode", "split_gather"}, {"/layout/sp", 1}}},
         Fix{"Turn sequence parallelism off", {{"/layout/sp_mode", "none"}, {"/layout/sp", 1}}}});
    out.push_back(d);
}

// validate_args: --sequence-parallel with TP == 1 is disabled with a warning.
void mg_sp_needs_tp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!megatron_sp(l) || l.tp > 1) return;
    auto d = diag(Severity::Warning, "megatron.sequence_parallel_needs_tp",
                  "--sequence-parallel splits activations over the tp group; with tp = 1 Megatron turns it off.",
                  "Disabling sequence parallelism because tensor model parallelism is disabled",
                  {"/layout/sp_mode", "/layout/tp"});
    add_fixes(d, &mg_sp_needs_tp, p,
              {set_value("/layout/sp_mode", "none", "Turn --sequence-parallel off"), set_int(p, "/layout/tp", 2),
               set_int(p, "/layout/tp", 4)});
    out.push_back(d);
}

// initialize_model_parallel (parallel_state.py): expert grid world % (ETP*EP*PP) == 0
// (topology/group_checks.h, one implementation with the rank map builder).
void mg_expert_grid(const Project& p, Out& out) {
    auto d = topology::megatron_expert_world_check(topology::from_project(p));
    if (!d) return;
    add_fixes(*d, &mg_expert_grid, p, knob_candidates(p, {"/layout/ep", "/layout/etp"}, world_divisors(p)));
    out.push_back(std::move(*d));
}

// validate_args: EP > 1 needs --num-experts, a multiple of EP.
void mg_experts(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.ep <= 1 || p.model.family.empty()) return;
    const int E = p.model.experts;
    if (E > 0 && E % l.ep == 0) return;
    auto d = diag(Severity::Error, "megatron.experts_divisible",
                  E <= 0 ? "ep = " + str(l.ep) + " needs a mixture-of-experts model, but the model has no experts."
                         : "ep = " + str(l.ep) + " does not divide the " + str(E) + " experts.",
                  E <= 0 ? "AssertionError: num_experts must be non None to use expert model parallelism"
                         : "AssertionError: Number of experts should be a multiple of expert model parallel_size.",
                  {"/layout/ep", "/model/experts"});
    add_fixes(d, &mg_experts, p, knob_candidates(p, {"/layout/ep"}, E > 0 ? divisors(E) : std::vector<int>{1}));
    out.push_back(d);
}

// RankGenerator: known tokens, each once, and every axis of size > 1 named (topology/group_checks.h,
// one implementation with the rank map builder).
void mg_order(const Project& p, Out& out) {
    auto d = topology::megatron_order_check(topology::from_project(p));
    if (!d) return;
    add_fixes(*d, &mg_order, p,
              {set_value("/layout/order", "tp-cp-ep-dp-pp", "Use the default order tp-cp-ep-dp-pp"),
               set_value("/layout/order", "", "Use Megatron's default order")});
    out.push_back(std::move(*d));
}

// validate_args: layers per pipeline stage and virtual stages.
void mg_layers(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int L = p.model.layers;
    if (L <= 0 || l.pp < 1) return;
    if (l.chunks > 1 && l.pp <= 1) {
        auto d = diag(
            Severity::Error, "megatron.virtual_stages_need_pp",
            "chunks = " + str(l.chunks) + " (virtual pipeline stages) needs pipeline parallelism, but pp is 1.",
            "AssertionError: pipeline-model-parallel size should be greater than 1 with interleaved schedule",
            {"/layout/chunks", "/layout/pp"});
        add_fixes(d, &mg_layers, p, {set_value("/layout/chunks", 1, "Set chunks to 1"), set_int(p, "/layout/pp", 2)});
        out.push_back(d);
        return;
    }
    if (l.pp <= 1) return;
    // --account-for-embedding/loss-in-pipeline-split (Megatron core 0.11+) count the
    // embedding and the loss as one layer each in the split: validate_args
    // (megatron/training/arguments.py) and TransformerConfig.__post_init__
    // (megatron/core/transformer/transformer_config.py, core_v0.12.0) require
    // (num_layers + those) % pp == 0, and with virtual stages that per-stage count % vp == 0.
    const int accounted = (l.account_for_embedding_in_pipeline_split ? 1 : 0) +
                          (l.account_for_loss_in_pipeline_split ? 1 : 0);
    const int split = L + accounted;
    if (accounted > 0 && megatron_minor(p) < 11) {
        auto d = diag(
            Severity::Error, "megatron.account_for_in_split_version",
            "Counting the embedding or the loss as pipeline layers needs Megatron core 0.11 or later "
            "(this project targets " +
                version(p) + ").",
            "error: unrecognized arguments: --account-for-embedding-in-pipeline-split",
            {"/layout/account_for_embedding_in_pipeline_split", "/layout/account_for_loss_in_pipeline_split"});
        add_fixes(d, &mg_layers, p,
                  {Fix{"Split only the transformer layers",
                       {{"/layout/account_for_embedding_in_pipeline_split", false},
                        {"/layout/account_for_loss_in_pipeline_split", false}}}});
        out.push_back(d);
        return;
    }
    const std::string split_words = accounted == 0 ? str(L) + " layers"
                                                   : str(L) + " layers + " + str(accounted) + " (" +
                                                         (accounted == 2 ? std::string("embedding and loss")
                                                          : l.account_for_embedding_in_pipeline_split ? "embedding"
                                                                                                      : "loss") +
                                                         ") = " + str(split);
    if (!stages_split_layers(split, l.pp)) {
        auto d = diag(
            Severity::Error, "megatron.layers_divisible_pp",
            split_words + " do not divide evenly over pp = " + str(l.pp) + " stages" +
                (megatron_minor(p) < 10 ? " (Megatron before core 0.10 silently dropped the remainder)." : "."),
            "AssertionError: Number of layers should be divisible by the pipeline-model-parallel size",
            {"/layout/pp", "/model/layers"});
        std::vector<Fix> c;
        // Keep pp: count the embedding and/or the loss as layers where that makes the split even.
        if (megatron_minor(p) >= 11) {
            struct Acc {
                bool emb, loss;
                const char* label;
            };
            for (const Acc& a : {Acc{true, true,
                                     "Count the embedding and the loss as pipeline layers "
                                     "(--account-for-embedding-in-pipeline-split "
                                     "--account-for-loss-in-pipeline-split)"},
                                 Acc{true, false,
                                     "Count the embedding as a pipeline layer "
                                     "(--account-for-embedding-in-pipeline-split)"},
                                 Acc{false, true,
                                     "Count the loss as a pipeline layer "
                                     "(--account-for-loss-in-pipeline-split)"}}) {
                const int n = L + (a.emb ? 1 : 0) + (a.loss ? 1 : 0);
                if (n % l.pp != 0 || (l.chunks > 1 && (n / l.pp) % l.chunks != 0)) continue;
                c.push_back(Fix{a.label,
                                {{"/layout/account_for_embedding_in_pipeline_split", a.emb},
                                 {"/layout/account_for_loss_in_pipeline_split", a.loss}}});
            }
        }
        for (auto& f : knob_candidates(p, {"/layout/pp"}, divisors(split))) c.push_back(std::move(f));
        add_fixes(d, &mg_layers, p, c);
        out.push_back(d);
        return;
    }
    if (l.chunks > 1 && !stages_split_layers(split, l.pp, l.chunks)) {
        auto d = diag(
            Severity::Error, "megatron.layers_divisible_vp",
            str(split / l.pp) + " layers per pipeline stage do not split into chunks = " + str(l.chunks) +
                " virtual stages (" + (accounted ? split_words : str(L) + " layers") +
                " must be divisible by pp × vp = " + str(l.pp * l.chunks) + ").",
            "AssertionError: number of layers per pipeline stage must be divisible number of layers per virtual "
            "pipeline stage",
            {"/layout/chunks", "/layout/pp"});
        std::vector<Fix> c;
        for (int v : nearest_first(l.chunks, divisors(split / l.pp)))
            c.push_back(set_value("/layout/chunks", v, "Set chunks to " + str(v)));
        add_fixes(d, &mg_layers, p, c);
        out.push_back(d);
    }
}

// validate_args: with --no-overlap-p2p-communication (and in older releases) VPP needs pp > 2.
void mg_vpp_pp2(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.chunks <= 1 || l.pp != 2) return;
    const bool old = megatron_minor(p) < 10;
    auto d = diag(old ? Severity::Error : Severity::Info, "megatron.virtual_stages_pp2",
                  "Interleaved stages with pp = 2 need overlapping p2p communication" +
                      std::string(old ? " (older Megatron releases require pp > 2)."
                                      : "; with --no-overlap-p2p-communication pp must be > 2."),
                  "AssertionError: pipeline-model-parallel size should be greater than 2 to avoid having multiple p2p "
                  "sends and recvs "
                  "between same 2 ranks per communication batch",
                  {"/layout/pp", "/layout/chunks"});
    add_fixes(d, &mg_vpp_pp2, p, {set_int(p, "/layout/pp", 4), set_value("/layout/chunks", 1, "Set chunks to 1")});
    out.push_back(d);
}

void mg_heads(const Project& p, Out& out) {
    tp_divides_heads(p, out, &mg_heads, "megatron.heads_divisible_tp",
                     "AssertionError: num_attention_heads (" + str(p.model.heads) +
                         ") must be a multiple of tensor_model_parallel_size (" + str(p.layout.tp) + ").");
}

// TransformerConfig.__post_init__: query groups % TP (<= 0.14), or a multiple or divisor (>= 0.16).
void mg_query_groups(const Project& p, Out& out) {
    const int G = p.model.kv_heads, tp = p.layout.tp;
    if (G <= 0 || tp <= 1 || G == p.model.heads || tp_splits_heads(G, tp)) return;
    const bool new_rule = megatron_minor(p) >= 16;
    if (new_rule && tp % G == 0) return;
    const bool only_new = tp % G == 0;
    auto d = diag(
        only_new ? Severity::Warning : Severity::Error, "megatron.query_groups_divisible_tp",
        "tp = " + str(tp) + " does not divide the " + str(G) + " query groups (kv heads)" +
            (only_new ? "; only Megatron core 0.16+ accepts tp as a multiple of the groups (set megatron_version)."
                      : "."),
        only_new ? "AssertionError: num_query_groups (" + str(G) +
                       ") must be a multiple of tensor_model_parallel_size (" + str(tp) + ")."
                 : "AssertionError: num_query_groups (" + str(G) +
                       ") must be a multiple or divisor of tensor_model_parallel_size (" + str(tp) + ").",
        {"/layout/tp", "/model/kv_heads"});
    add_fixes(d, &mg_query_groups, p, knob_candidates(p, {"/layout/tp"}, divisors(G)));
    out.push_back(d);
}

// Linear layers split over tp (megatron/core/utils.divide).
void mg_ffn(const Project& p, Out& out) {
    const int tp = p.layout.tp;
    const int ffn = p.model.is_moe() && p.model.ffn_hidden <= 0 ? p.model.expert_ffn_hidden : p.model.ffn_hidden;
    if (tp <= 1 || ffn <= 0 || ffn % tp == 0) return;
    auto d = diag(Severity::Error, "megatron.ffn_divisible_tp",
                  "The MLP width " + str(ffn) + " is not divisible by tp = " + str(tp) +
                      ", so the column-parallel linear cannot be split.",
                  "AssertionError: " + str(ffn) + " is not divisible by " + str(tp),
                  {"/layout/tp", "/model/ffn_hidden"});
    add_fixes(d, &mg_ffn, p, knob_candidates(p, {"/layout/tp"}, divisors(ffn)));
    out.push_back(d);
}

// validate_args: CP needs seq % (2*CP) == 0
void mg_seq_cp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const long long seq = p.training.seq_len;
    if (seq <= 0 || cp_splits_sequence(seq, l.cp)) return;
    const long long k = 2LL * l.cp;
    auto d = diag(
        Severity::Error, "megatron.seq_divisible_cp",
        "Context parallelism splits each sequence into 2 × cp = " + str(k) + " load-balanced chunks; seq_len " +
            str(seq) + " is not a multiple of " + str(k) + ".",
        "AssertionError: seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1.",
        {"/training/seq_len", "/layout/cp"});
    std::vector<Fix> c = seq_len_fixes(seq, k);
    for (auto& f : knob_candidates(p, {"/layout/cp"}, world_divisors(p))) c.push_back(f);
    add_fixes(d, &mg_seq_cp, p, c);
    out.push_back(d);
}

// Sequence parallel scatters the sequence over tp (core/tensor_parallel/mappings.py).
void mg_seq_tp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const long long seq = p.training.seq_len / std::max(1, l.cp);
    if (!megatron_sp(l) || l.tp <= 1 || seq <= 0 || seq % l.tp == 0) return;
    auto d = diag(Severity::Error, "megatron.seq_divisible_tp",
                  "--sequence-parallel splits the " + str(seq) +
                      " tokens of each sequence (per cp rank) over tp = " + str(l.tp) + "; they do not divide evenly.",
                  "AssertionError: First dimension of the tensor should be divisible by tensor parallel size",
                  {"/training/seq_len", "/layout/tp"});
    const long long k = 1LL * l.tp * std::max(1, l.cp) * (l.cp > 1 ? 2 : 1);
    std::vector<Fix> c = seq_len_fixes(p.training.seq_len, k);
    add_fixes(d, &mg_seq_tp, p, c);
    out.push_back(d);
}

// MoE + TP without --sequence-parallel raises at the training forward (moe_layer.py).
void mg_moe_sp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!p.model.is_moe() || l.tp <= 1 || megatron_sp(l)) return;
    auto d = diag(
        Severity::Error, "megatron.moe_tp_needs_sp",
        "MoE layers with tp = " + str(l.tp) +
            " need --sequence-parallel; Megatron stops at the first training forward.",
        "During training, performance may degrade if MoE and tensor parallelismare enabled without also enabling "
        "sequence parallelism.",
        {"/layout/sp_mode", "/layout/tp"});
    add_fixes(d, &mg_moe_sp, p,
              {Fix{"Turn --sequence-parallel on", {{"/layout/sp_mode", "split_gather"}, {"/layout/sp", 1}}}});
    out.push_back(d);
}

void mg_schedule(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.pp <= 1) return;
    // Megatron's two schedules: 1f1b and its interleaved 1F1B ("interleaved" or "interleaved-megatron":
    // forward_backward_pipelining_with_interleaving, schedules.py).
    const Schedule s = resolved_schedule(l.schedule, "megatron");
    const bool ok = (s == Schedule::one_f_one_b && l.chunks == 1) ||
                    (s == Schedule::interleaved_megatron && l.chunks > 1);
    if (ok) return;
    auto d = diag(Severity::Error, "megatron.schedule",
                  "Megatron runs 1f1b (one chunk per stage) or the interleaved schedule (chunks > 1 via "
                  "--num-virtual-stages-per-pipeline-rank); schedule " +
                      std::string(to_string(l.schedule)) + " with chunks = " + str(l.chunks) + " is not one of them.",
                  "", {"/layout/schedule", "/layout/chunks"});
    add_fixes(d, &mg_schedule, p,
              {Fix{"Use 1f1b", {{"/layout/schedule", "1f1b"}, {"/layout/chunks", 1}}},
               Fix{"Use interleaved with 2 chunks", {{"/layout/schedule", "interleaved"}, {"/layout/chunks", 2}}}});
    out.push_back(d);
}

// num_microbatches_calculator.py: GBS % (MBS * DP) == 0
void mg_batch(const Project& p, Out& out) {
    const Sizes s = sizes(p);
    const long long gbs = p.training.global_batch_size, mbs = p.training.micro_batch_size;
    if (s.dp <= 0 || mbs <= 0 || gbs <= 0 || batch_splits(gbs, mbs, s.dp)) return;
    const long long per = mbs * s.dp;
    auto d = diag(Severity::Error, "megatron.global_batch",
                  "The global batch " + str(gbs) + " is not a multiple of micro batch " + str(mbs) + " × dp " +
                      str(s.dp) + " = " + str(per) + ".",
                  "AssertionError: global batch size (" + str(gbs) + ") is not divisible by micro batch size (" +
                      str(mbs) + ") times data parallel size (" + str(s.dp) + ")",
                  {"/training/global_batch_size", "/training/micro_batch_size"});
    std::vector<Fix> c = global_batch_fixes(gbs, per);
    for (auto& f : micro_batch_fixes(mbs, gbs)) c.push_back(std::move(f));
    add_fixes(d, &mg_batch, p, c);
    out.push_back(d);
}

// Megatron has no --num-microbatches: train_step calls forward_backward_func once per iteration
// with num_microbatches=get_num_microbatches() (core_v0.19.0 megatron/training/training.py).
void mg_num_microbatches(const Project& p, Out& out) {
    microbatches_not_a_knob(p, out, &mg_num_microbatches, "megatron.num_microbatches", "Megatron-LM");
}

// forward_backward_pipelining_with_interleaving (schedules.py), core >= 0.10: M in [PP, ...] and
// M % N in {0} U [PP, N) with N = PP; core <= 0.9 (before commit 4295be1a): M % PP == 0.
void mg_vpp_microbatches(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const Sizes s = sizes(p);
    if (l.chunks <= 1 || l.pp <= 1 || s.dp <= 0) return;
    const long long gbs = p.training.global_batch_size, mbs = std::max(1, p.training.micro_batch_size);
    if (gbs % (mbs * s.dp) != 0) return;
    const long long M = gbs / (mbs * s.dp);
    const bool old = megatron_minor(p) < 10;
    std::string fe;
    if (old) {
        if (M % l.pp == 0) return;
        fe = "AssertionError: number of microbatches (" + str(M) +
             ") is not divisible by pipeline-model-parallel-size (" + str(l.pp) + ") when using interleaved schedule";
    } else if (M < l.pp) {
        fe = "AssertionError: The number of contiguous micro-batches in a virtual pipeline stageshould range in [PP=" +
             str(l.pp) + " , M=" + str(M) + "]";
    } else if (M % l.pp != 0) {
        fe = "AssertionError: The remainder of M (" + str(M) + ") divided by N (" + str(l.pp) +
             ") should be 0, or larger than or equal to the pipeline-parallel size, but it is " + str(M % l.pp) + ".";
    } else {
        return;
    }
    auto d = diag(Severity::Error, "megatron.interleaved_microbatches",
                  "The interleaved schedule runs microbatches in groups of pp = " + str(l.pp) +
                      "; gbs / (mbs × dp) = " + str(M) + " microbatches " +
                      (M < l.pp ? "is fewer than pp." : "is not a multiple of pp."),
                  fe, {"/training/global_batch_size", "/layout/pp", "/layout/chunks"});
    const long long step = mbs * s.dp * l.pp;
    std::vector<Fix> c = global_batch_fixes(gbs, step);
    c.push_back(Fix{"Use 1f1b", {{"/layout/schedule", "1f1b"}, {"/layout/chunks", 1}}});
    add_fixes(d, &mg_vpp_microbatches, p, c);
    out.push_back(d);
}

void mg_zero(const Project& p, Out& out) {
    if (p.layout.zero_stage <= 1) return;
    auto d = diag(Severity::Warning, "megatron.zero_stage",
                  "Megatron's --use-distributed-optimizer shards optimizer states only (ZeRO-1); zero_stage " +
                      str(p.layout.zero_stage) + " needs Megatron-FSDP.",
                  "", {"/layout/zero_stage"});
    add_fixes(d, &mg_zero, p,
              {Fix{"Use the distributed optimizer (ZeRO-1)",
                   {{"/layout/zero_stage", 1}, {"/layout/distributed_optimizer", true}}}});
    out.push_back(d);
}

// arguments.py (core_v0.14.0): --fp8-recipe choices tensorwise, delayed, mxfp8, blockwise.
void mg_fp8_recipe(const Project& p, Out& out) {
    fp8_recipe_accepted(p, out, &mg_fp8_recipe, "megatron.fp8_recipe",
                        "argument --fp8-recipe: invalid choice: '" + std::string(to_string(p.layout.fp8_recipe)) +
                            "' (choose from 'tensorwise', 'delayed', 'mxfp8', 'blockwise')");
}

// FP8 runs only in Transformer Engine layers: --transformer-impl local (kernels eager) builds the
// layers from megatron/core/tensor_parallel/layers.py, which have no FP8 path, and
// get_gpt_layer_local_spec's fp8 argument is deprecated and ignored (gpt_layer_specs.py, core_v0.14.0).
void mg_fp8_kernels(const Project& p, Out& out) {
    if (!fp8_on(p.layout, p.training) || kernel_stack(p.layout) != KernelStack::eager) return;
    std::vector<std::string> fields{"/layout/kernels"};
    if (p.layout.fp8) fields.push_back("/layout/fp8");
    auto d = diag(Severity::Error, "megatron.fp8_kernels",
                  "FP8 needs Megatron's Transformer Engine layers, but kernels \"eager\" is --transformer-impl "
                  "local, whose layers have no FP8 GEMMs.",
                  "", fields);
    Fix off{"Turn FP8 off (train in bf16)", {}};
    if (p.layout.fp8) off.changes.push_back({"/layout/fp8", false});
    if (p.training.precision == Precision::fp8) off.changes.push_back({"/training/precision", "bf16"});
    add_fixes(d, &mg_fp8_kernels, p,
              {set_value("/layout/kernels", "te", "Use Transformer Engine layers (kernels te)"), off});
    out.push_back(d);
}

// arguments.py (core_v0.19.0, validate_args): --fp8-param-gather (layout.fp8_all_gather) asserts
// "only supported with distributed optimizer, torch fsdp2, megatron fsdp, or inference mode".
void mg_fp8_param_gather(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!fp8_on(l, p.training) || !l.fp8_all_gather) return;
    if (l.distributed_optimizer || l.zero_stage >= 1) return;
    auto d = diag(Severity::Error, "megatron.fp8_param_gather",
                  "fp8_all_gather is --fp8-param-gather, which Megatron-LM runs only with the distributed "
                  "optimizer (--use-distributed-optimizer).",
                  "AssertionError: --fp8-param-gather only supported with distributed optimizer, torch fsdp2, "
                  "megatron fsdp, or inference mode",
                  {"/layout/fp8_all_gather", "/layout/distributed_optimizer"});
    add_fixes(d, &mg_fp8_param_gather, p,
              {set_value("/layout/distributed_optimizer", true, "Use the distributed optimizer"),
               set_value("/layout/fp8_all_gather", false, "Gather the weights in 16-bit")});
    out.push_back(d);
}

}   // namespace

const std::vector<RuleFn>& megatron_rules() {
    static const std::vector<RuleFn> r = framework_rule_list(
        {&mg_world,
         &mg_sp_mode,
         &mg_sp_needs_tp,
         &mg_expert_grid,
         &mg_experts,
         &mg_order,
         &dp_matches,
         &mg_layers,
         &mg_vpp_pp2,
         &mg_schedule,
         &mg_heads,
         &mg_query_groups,
         &mg_ffn,
         &mg_mamba_tp,
         &mg_mamba_cp,
         &mg_hybrid_pipeline,
         &mg_mamba_fp8,
         &mg_seq_cp,
         &mg_seq_tp,
         &mg_moe_sp,
         &mg_batch,
         &mg_num_microbatches,
         &mg_vpp_microbatches,
         &mg_zero},
        {&mg_fp8_recipe, &fp8_recipe_gpu, &mg_fp8_kernels, &mg_fp8_param_gather});
    return r;
}

}   // namespace paraplan::rules
