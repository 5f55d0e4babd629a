// Megatron-LM (megatron/training/arguments.py::validate_args, megatron/core/parallel_state.py,
// transformer_config.py, pipeline_parallel/schedules.py), torchtitan
// (torchtitan/distributed/parallel_dims.py, config/job_config.py, distributed/pipeline_parallel.py),
// DeepSpeed v0.16 (runtime/config.py batch rule, runtime/pipe/engine.py, pipe/module.py) and
// torch.distributed.device_mesh (PyTorch v2.4). Megatron-LM core_v0.19.0 unless noted; torchtitan v0.2.2.
#include "rules/others.h"

#include "rules/common.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <sstream>

namespace paraplan::rules {
namespace {

std::vector<int> wdiv(const Project& p) { return divisors(std::max(1, p.world_size())); }

std::string version(const Project& p) {
    const auto& e = p.layout.extra;
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

bool megatron_sp(const Layout& l) { return l.sp_mode == "split_gather"; }

void heads_rule(const Project& p, Out& out, RuleFn self, const std::string& rule, const std::string& fe) {
    const int H = p.model.heads, tp = p.layout.tp;
    if (H <= 0 || tp <= 1 || H % tp == 0) return;
    auto d = diag(Severity::Error, rule,
                  "tp = " + str(tp) + " does not divide the " + str(H) + " attention heads, so the heads cannot be split "
                  "evenly over the tensor-parallel GPUs.",
                  fe, {"/layout/tp", "/model/heads"});
    add_fixes(d, self, p, knob_candidates(p, {"/layout/tp"}, divisors(H)));
    out.push_back(d);
}

// ---------------- Megatron ----------------

// validate_args (arguments.py) and initialize_model_parallel: world % (TP*PP*CP) == 0
void mg_world(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int w = p.world_size(), m = l.tp * l.pp * l.cp;
    if (w <= 0 || m <= 0 || w % m == 0) return;
    auto d = diag(Severity::Error, "megatron.world_divisible",
                  "The world size " + str(w) + " is not divisible by tp × pp × cp = " + str(l.tp) + " × " + str(l.pp) + " × " +
                      str(l.cp) + " = " + str(m) + ", so no whole data-parallel size exists.",
                  "RuntimeError: world_size (" + str(w) + ") is not divisible by " + str(m), {"/layout/tp", "/layout/pp", "/layout/cp"});
    add_fixes(d, &mg_world, p, knob_candidates(p, {"/layout/tp", "/layout/pp", "/layout/cp"}, wdiv(p)));
    out.push_back(d);
}

// Megatron has --sequence-parallel (inside TP) and context parallelism; no separate sp axis.
void mg_sp_mode(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if ((l.sp_mode == "none" || l.sp_mode == "split_gather") && l.sp <= 1) return;
    auto d = diag(Severity::Error, "megatron.sp_mode",
                  "Megatron-LM has --sequence-parallel (the sequence split over the tp group, sp_mode split_gather) and "
                  "context parallelism (cp); it has no separate " + (l.sp_mode == "none" ? std::string("sp axis") : l.sp_mode + " mode") +
                      ". Use cp to split long sequences.",
                  "", {"/layout/sp_mode", "/layout/sp"});
    add_fixes(d, &mg_sp_mode, p,
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
                  "Disabling sequence parallelism because tensor model parallelism is disabled", {"/layout/sp_mode", "/layout/tp"});
    add_fixes(d, &mg_sp_needs_tp, p,
              {set_value("/layout/sp_mode", "none", "Turn --sequence-parallel off"), set_int(p, "/layout/tp", 2), set_int(p, "/layout/tp", 4)});
    out.push_back(d);
}

// initialize_model_parallel (parallel_state.py): expert grid world % (ETP*EP*PP) == 0
void mg_expert_grid(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int etp = l.etp > 0 ? l.etp : l.tp;
    const int w = p.world_size(), n = etp * l.ep * l.pp;
    if (w <= 0 || n <= 0 || l.ep <= 1 || w % n == 0) return;
    auto d = diag(Severity::Error, "megatron.expert_grid",
                  "Experts use their own grid: world " + str(w) + " must be divisible by etp × ep × pp = " + str(etp) + " × " +
                      str(l.ep) + " × " + str(l.pp) + " = " + str(n) + " (ep is carved out of tp·cp·dp, it does not multiply the world).",
                  "RuntimeError: world_size (" + str(w) + ") is not divisible by expert_tensor_model_pipeline_parallel size (" + str(n) + ")",
                  {"/layout/ep", "/layout/etp", "/layout/pp"});
    add_fixes(d, &mg_expert_grid, p, knob_candidates(p, {"/layout/ep", "/layout/etp"}, wdiv(p)));
    out.push_back(d);
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

// RankGenerator: every axis of size > 1 must appear in the order string.
void mg_order(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.order.empty()) return;
    std::vector<std::string> tokens;
    std::stringstream ss(l.order);
    for (std::string t; std::getline(ss, t, '-');) {
        std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        tokens.push_back(t);
    }
    const int dp = sizes(p).dp;
    for (const auto& [name, size] : std::vector<std::pair<std::string, int>>{{"tp", l.tp}, {"pp", l.pp}, {"cp", l.cp}, {"ep", l.ep}, {"dp", dp}}) {
        if (size <= 1 || std::find(tokens.begin(), tokens.end(), name) != tokens.end()) continue;
        auto d = diag(Severity::Error, "megatron.order",
                      "The rank order '" + l.order + "' has no " + name + " although " + name + " = " + str(size) + ".",
                      "RuntimeError: The size of (" + name + ") is (" + str(size) + "), but you haven'tspecified the order (" + l.order + ").",
                      {"/layout/order"});
        add_fixes(d, &mg_order, p, {set_value("/layout/order", "tp-cp-ep-dp-pp", "Use the default order tp-cp-ep-dp-pp"),
                                    set_value("/layout/order", "", "Use Megatron's default order")});
        out.push_back(d);
        return;
    }
}

// validate_args: layers per pipeline stage and virtual stages.
void mg_layers(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int L = p.model.layers;
    if (L <= 0 || l.pp < 1) return;
    if (l.chunks > 1 && l.pp <= 1) {
        auto d = diag(Severity::Error, "megatron.virtual_stages_need_pp",
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
    const int accounted = (l.account_for_embedding_in_pipeline_split ? 1 : 0) + (l.account_for_loss_in_pipeline_split ? 1 : 0);
    const int split = L + accounted;
    if (accounted > 0 && megatron_minor(p) < 11) {
        auto d = diag(Severity::Error, "megatron.account_for_in_split_version",
                      "Counting the embedding or the loss as pipeline layers needs Megatron core 0.11 or later "
                      "(this project targets " + version(p) + ").",
                      "error: unrecognized arguments: --account-for-embedding-in-pipeline-split",
                      {"/layout/account_for_embedding_in_pipeline_split", "/layout/account_for_loss_in_pipeline_split"});
        add_fixes(d, &mg_layers, p, {Fix{"Split only the transformer layers", {{"/layout/account_for_embedding_in_pipeline_split", false},
                                                                                 {"/layout/account_for_loss_in_pipeline_split", false}}}});
        out.push_back(d);
        return;
    }
    const std::string split_words = accounted == 0 ? str(L) + " layers"
                                                   : str(L) + " layers + " + str(accounted) + " (" +
                                                         (accounted == 2 ? std::string("embedding and loss")
                                                          : l.account_for_embedding_in_pipeline_split ? "embedding" : "loss") +
                                                         ") = " + str(split);
    if (split % l.pp != 0) {
        auto d = diag(Severity::Error, "megatron.layers_divisible_pp",
                      split_words + " do not divide evenly over pp = " + str(l.pp) + " stages" +
                          (megatron_minor(p) < 10 ? " (Megatron before core 0.10 silently dropped the remainder)." : "."),
                      "AssertionError: Number of layers should be divisible by the pipeline-model-parallel size",
                      {"/layout/pp", "/model/layers"});
        std::vector<Fix> c;
        // Keep pp: count the embedding and/or the loss as layers where that makes the split even.
        if (megatron_minor(p) >= 11) {
            struct Acc { bool emb, loss; const char* label; };
            for (const Acc& a : {Acc{true, true, "Count the embedding and the loss as pipeline layers "
                                                 "(--account-for-embedding-in-pipeline-split "
                                                 "--account-for-loss-in-pipeline-split)"},
                                 Acc{true, false, "Count the embedding as a pipeline layer "
                                                  "(--account-for-embedding-in-pipeline-split)"},
                                 Acc{false, true, "Count the loss as a pipeline layer "
                                                  "(--account-for-loss-in-pipeline-split)"}}) {
                const int n = L + (a.emb ? 1 : 0) + (a.loss ? 1 : 0);
                if (n % l.pp != 0 || (l.chunks > 1 && (n / l.pp) % l.chunks != 0)) continue;
                c.push_back(Fix{a.label, {{"/layout/account_for_embedding_in_pipeline_split", a.emb},
                                          {"/layout/account_for_loss_in_pipeline_split", a.loss}}});
            }
        }
        for (auto& f : knob_candidates(p, {"/layout/pp"}, divisors(split))) c.push_back(std::move(f));
        add_fixes(d, &mg_layers, p, c);
        out.push_back(d);
        return;
    }
    if (l.chunks > 1 && (split / l.pp) % l.chunks != 0) {
        auto d = diag(Severity::Error, "megatron.layers_divisible_vp",
                      str(split / l.pp) + " layers per pipeline stage do not split into chunks = " + str(l.chunks) +
                          " virtual stages (" + (accounted ? split_words : str(L) + " layers") +
                          " must be divisible by pp × vp = " + str(l.pp * l.chunks) + ").",
                      "AssertionError: number of layers per pipeline stage must be divisible number of layers per virtual "
                      "pipeline stage",
                      {"/layout/chunks", "/layout/pp"});
        std::vector<Fix> c;
        for (int v : nearest_first(l.chunks, divisors(split / l.pp))) c.push_back(set_value("/layout/chunks", v, "Set chunks to " + str(v)));
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
                      std::string(old ? " (older Megatron releases require pp > 2)." : "; with --no-overlap-p2p-communication pp must be > 2."),
                  "AssertionError: pipeline-model-parallel size should be greater than 2 to avoid having multiple p2p sends and recvs "
                  "between same 2 ranks per communication batch",
                  {"/layout/pp", "/layout/chunks"});
    add_fixes(d, &mg_vpp_pp2, p, {set_int(p, "/layout/pp", 4), set_value("/layout/chunks", 1, "Set chunks to 1")});
    out.push_back(d);
}

void mg_heads(const Project& p, Out& out) {
    heads_rule(p, out, &mg_heads, "megatron.heads_divisible_tp",
               "AssertionError: num_attention_heads (" + str(p.model.heads) + ") must be a multiple of tensor_model_parallel_size (" +
                   str(p.layout.tp) + ").");
}

// TransformerConfig.__post_init__: query groups % TP (<= 0.14), or a multiple or divisor (>= 0.16).
void mg_query_groups(const Project& p, Out& out) {
    const int G = p.model.kv_heads, tp = p.layout.tp;
    if (G <= 0 || tp <= 1 || G == p.model.heads || G % tp == 0) return;
    const bool new_rule = megatron_minor(p) >= 16;
    if (new_rule && tp % G == 0) return;
    const bool only_new = tp % G == 0;
    auto d = diag(only_new ? Severity::Warning : Severity::Error, "megatron.query_groups_divisible_tp",
                  "tp = " + str(tp) + " does not divide the " + str(G) + " query groups (kv heads)" +
                      (only_new ? "; only Megatron core 0.16+ accepts tp as a multiple of the groups (set megatron_version)." : "."),
                  only_new ? "AssertionError: num_query_groups (" + str(G) + ") must be a multiple of tensor_model_parallel_size (" + str(tp) + ")."
                           : "AssertionError: num_query_groups (" + str(G) + ") must be a multiple or divisor of tensor_model_parallel_size (" + str(tp) + ").",
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
                  "The MLP width " + str(ffn) + " is not divisible by tp = " + str(tp) + ", so the column-parallel linear cannot be split.",
                  "AssertionError: " + str(ffn) + " is not divisible by " + str(tp), {"/layout/tp", "/model/ffn_hidden"});
    add_fixes(d, &mg_ffn, p, knob_candidates(p, {"/layout/tp"}, divisors(ffn)));
    out.push_back(d);
}

// validate_args: CP needs seq % (2*CP) == 0
void mg_seq_cp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const long long seq = p.training.seq_len;
    if (l.cp <= 1 || seq <= 0 || seq % (2LL * l.cp) == 0) return;
    const long long k = 2LL * l.cp;
    auto d = diag(Severity::Error, "megatron.seq_divisible_cp",
                  "Context parallelism splits each sequence into 2 × cp = " + str(k) + " load-balanced chunks; seq_len " + str(seq) +
                      " is not a multiple of " + str(k) + ".",
                  "AssertionError: seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1.",
                  {"/training/seq_len", "/layout/cp"});
    const long long down = seq / k * k;
    std::vector<Fix> c{set_value("/training/seq_len", down + k, "Pad the sequence length to " + str(down + k))};
    if (down > 0) c.push_back(set_value("/training/seq_len", down, "Cut the sequence length to " + str(down)));
    for (auto& f : knob_candidates(p, {"/layout/cp"}, wdiv(p))) c.push_back(f);
    add_fixes(d, &mg_seq_cp, p, c);
    out.push_back(d);
}

// Sequence parallel scatters the sequence over tp (core/tensor_parallel/mappings.py).
void mg_seq_tp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const long long seq = p.training.seq_len / std::max(1, l.cp);
    if (!megatron_sp(l) || l.tp <= 1 || seq <= 0 || seq % l.tp == 0) return;
    auto d = diag(Severity::Error, "megatron.seq_divisible_tp",
                  "--sequence-parallel splits the " + str(seq) + " tokens of each sequence (per cp rank) over tp = " + str(l.tp) +
                      "; they do not divide evenly.",
                  "AssertionError: First dimension of the tensor should be divisible by tensor parallel size",
                  {"/training/seq_len", "/layout/tp"});
    const long long k = 1LL * l.tp * std::max(1, l.cp) * (l.cp > 1 ? 2 : 1);
    const long long down = p.training.seq_len / k * k;
    std::vector<Fix> c{set_value("/training/seq_len", down + k, "Pad the sequence length to " + str(down + k))};
    if (down > 0) c.push_back(set_value("/training/seq_len", down, "Cut the sequence length to " + str(down)));
    add_fixes(d, &mg_seq_tp, p, c);
    out.push_back(d);
}

// MoE + TP without --sequence-parallel raises at the training forward (moe_layer.py).
void mg_moe_sp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!p.model.is_moe() || l.tp <= 1 || megatron_sp(l)) return;
    auto d = diag(Severity::Error, "megatron.moe_tp_needs_sp",
                  "MoE layers with tp = " + str(l.tp) + " need --sequence-parallel; Megatron stops at the first training forward.",
                  "During training, performance may degrade if MoE and tensor parallelismare enabled without also enabling "
                  "sequence parallelism.",
                  {"/layout/sp_mode", "/layout/tp"});
    add_fixes(d, &mg_moe_sp, p, {Fix{"Turn --sequence-parallel on", {{"/layout/sp_mode", "split_gather"}, {"/layout/sp", 1}}}});
    out.push_back(d);
}

// The names the project gives Megatron's two schedules: "1f1b" and its interleaved 1F1B, spelled
// "interleaved" or, as the schedule catalogue (core/schedule) and the planner name it,
// "interleaved-megatron" (forward_backward_pipelining_with_interleaving, schedules.py).
bool megatron_interleaved_name(const std::string& s) {
    std::string k;
    for (char ch : s)
        if (ch != '-' && ch != '_' && ch != ' ') k += char(std::tolower(static_cast<unsigned char>(ch)));
    return k == "interleaved" || k == "interleavedmegatron" || k == "interleaved1f1b";
}

void mg_schedule(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.pp <= 1) return;
    const bool ok = (l.schedule == "1f1b" && l.chunks == 1) || (megatron_interleaved_name(l.schedule) && l.chunks > 1);
    if (ok) return;
    auto d = diag(Severity::Error, "megatron.schedule",
                  "Megatron runs 1f1b (one chunk per stage) or the interleaved schedule (chunks > 1 via "
                  "--num-virtual-stages-per-pipeline-rank); schedule " + l.schedule + " with chunks = " + str(l.chunks) + " is not one of them.",
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
    if (s.dp <= 0 || mbs <= 0 || gbs <= 0 || gbs % (mbs * s.dp) == 0) return;
    const long long per = mbs * s.dp;
    auto d = diag(Severity::Error, "megatron.global_batch",
                  "The global batch " + str(gbs) + " is not a multiple of micro batch " + str(mbs) + " × dp " + str(s.dp) + " = " + str(per) + ".",
                  "AssertionError: global batch size (" + str(gbs) + ") is not divisible by micro batch size (" + str(mbs) +
                      ") times data parallel size (" + str(s.dp) + ")",
                  {"/training/global_batch_size", "/training/micro_batch_size"});
    std::vector<Fix> c;
    if (gbs / per > 0) c.push_back(set_value("/training/global_batch_size", gbs / per * per, "Set global_batch_size to " + str(gbs / per * per)));
    c.push_back(set_value("/training/global_batch_size", (gbs / per + 1) * per, "Set global_batch_size to " + str((gbs / per + 1) * per)));
    for (int m : nearest_first(static_cast<int>(mbs), divisors(static_cast<int>(std::min<long long>(gbs, 1 << 20)))))
        c.push_back(set_value("/training/micro_batch_size", m, "Set micro_batch_size to " + str(m)));
    add_fixes(d, &mg_batch, p, c);
    out.push_back(d);
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
        fe = "AssertionError: number of microbatches (" + str(M) + ") is not divisible by pipeline-model-parallel-size (" + str(l.pp) +
             ") when using interleaved schedule";
    } else if (M < l.pp) {
        fe = "AssertionError: The number of contiguous micro-batches in a virtual pipeline stageshould range in [PP=" + str(l.pp) +
             " , M=" + str(M) + "]";
    } else if (M % l.pp != 0) {
        fe = "AssertionError: The remainder of M (" + str(M) + ") divided by N (" + str(l.pp) +
             ") should be 0, or larger than or equal to the pipeline-parallel size, but it is " + str(M % l.pp) + ".";
    } else {
        return;
    }
    auto d = diag(Severity::Error, "megatron.interleaved_microbatches",
                  "The interleaved schedule runs microbatches in groups of pp = " + str(l.pp) + "; gbs / (mbs × dp) = " + str(M) +
                      " microbatches " + (M < l.pp ? "is fewer than pp." : "is not a multiple of pp."),
                  fe, {"/training/global_batch_size", "/layout/pp", "/layout/chunks"});
    const long long step = mbs * s.dp * l.pp;
    std::vector<Fix> c;
    const long long up = std::max<long long>(1, (gbs + step - 1) / step) * step, down = gbs / step * step;
    if (down > 0) c.push_back(set_value("/training/global_batch_size", down, "Set global_batch_size to " + str(down)));
    c.push_back(set_value("/training/global_batch_size", up, "Set global_batch_size to " + str(up)));
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
    add_fixes(d, &mg_zero, p, {Fix{"Use the distributed optimizer (ZeRO-1)", {{"/layout/zero_stage", 1}, {"/layout/distributed_optimizer", true}}}});
    out.push_back(d);
}

// ---------------- torchtitan ----------------

void tt_degrees(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.dp_shard == 0 || l.dp_shard < -1) {
        auto d = diag(Severity::Error, "torchtitan.degrees", "data_parallel_shard_degree is " + str(l.dp_shard) + "; it must be -1 (infer) or >= 1.",
                      "AssertionError: dp_shard must -1 or >=1.", {"/layout/dp_shard"});
        add_fixes(d, &tt_degrees, p, {set_value("/layout/dp_shard", -1, "Infer dp_shard")});
        out.push_back(d);
        return;
    }
    if (l.dp_replicate < 1 || l.cp < 1 || l.tp < 1 || l.pp < 1 || l.ep < 1) {
        auto d = diag(Severity::Error, "torchtitan.degrees", "Every parallel degree except dp_shard must be >= 1.",
                      "AssertionError: Parallelism degree should be >= 1, except for dp_shard", {"/layout/dp_replicate"});
        Fix f{"Set degrees below 1 to 1", {}};
        for (const auto& [k, v] : std::vector<std::pair<std::string, int>>{{"/layout/dp_replicate", l.dp_replicate}, {"/layout/cp", l.cp},
                                                                            {"/layout/tp", l.tp}, {"/layout/pp", l.pp}, {"/layout/ep", l.ep}})
            if (v < 1) f.changes.push_back({k, 1});
        add_fixes(d, &tt_degrees, p, {f});
        out.push_back(d);
    }
}

// dp_replicate * dp_shard * cp * tp * pp == WORLD_SIZE
void tt_world(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int w = p.world_size();
    if (w <= 0 || l.dp_replicate < 1 || l.cp < 1 || l.tp < 1 || l.pp < 1 || (l.dp_shard < 1 && l.dp_shard != -1)) return;
    const long long rest = 1LL * l.dp_replicate * l.cp * l.tp * l.pp;
    const long long shard = l.dp_shard == -1 ? w / rest : l.dp_shard;
    if (shard >= 1 && shard * rest == w) return;
    auto d = diag(Severity::Error, "torchtitan.world_product",
                  "dp_replicate × dp_shard × cp × tp × pp = " + str(l.dp_replicate) + " × " + str(shard) + " × " + str(l.cp) + " × " +
                      str(l.tp) + " × " + str(l.pp) + " = " + str(shard * rest) + ", not the world size " + str(w) + ".",
                  "AssertionError: Invalid parallel dims: dp_replicate(" + str(l.dp_replicate) + ") * dp_shard(" + str(shard) + ") * cp(" +
                      str(l.cp) + ") * tp(" + str(l.tp) + ") * pp(" + str(l.pp) + ") != WORLD_SIZE(" + str(w) + ")",
                  {"/layout/dp_shard", "/layout/tp", "/layout/pp", "/layout/cp"});
    std::vector<Fix> c;
    if (l.dp_shard != -1) c.push_back(set_value("/layout/dp_shard", -1, "Infer dp_shard from the world size"));
    for (auto f : knob_candidates(p, {"/layout/tp", "/layout/pp", "/layout/cp", "/layout/dp_replicate"}, wdiv(p))) {
        if (l.dp_shard != -1) {
            f.changes.push_back({"/layout/dp_shard", -1});
            f.label += ", infer dp_shard";
        }
        c.push_back(f);
    }
    add_fixes(d, &tt_world, p, c);
    out.push_back(d);
}

void tt_sp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if ((l.sp_mode == "none" || l.sp_mode == "split_gather") && l.sp <= 1) return;
    auto d = diag(Severity::Error, "torchtitan.sp_mode",
                  "torchtitan applies sequence parallelism inside tp automatically and splits long sequences with cp; it "
                  "has no separate sp axis.",
                  "", {"/layout/sp", "/layout/sp_mode"});
    add_fixes(d, &tt_sp, p,
              {Fix{"Use context parallelism cp = " + str(std::max(2, l.sp)),
                   {{"/layout/cp", std::max(2, l.sp) * std::max(1, l.cp)}, {"/layout/sp", 1}, {"/layout/sp_mode", "none"}}},
               Fix{"Turn the sp axis off", {{"/layout/sp", 1}, {"/layout/sp_mode", "none"}}}});
    out.push_back(d);
}

// HEAD: (dp_shard * cp * tp) % ep == 0
void tt_ep(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const Sizes s = sizes(p);
    if (l.ep <= 1 || s.dp <= 0) return;
    const int shard = s.dp / std::max(1, l.dp_replicate);
    const int pool = shard * l.cp * l.tp;
    if (pool % l.ep == 0) return;
    auto d = diag(Severity::Error, "torchtitan.ep_divides",
                  "Expert parallelism borrows the dp_shard × cp × tp = " + str(pool) + " ranks; ep = " + str(l.ep) + " does not divide them.",
                  "ValueError: expert_parallel_degree (" + str(l.ep) + ") must divide dp_shard * cp * tp (" + str(pool) + ")",
                  {"/layout/ep"});
    add_fixes(d, &tt_ep, p, knob_candidates(p, {"/layout/ep"}, divisors(std::max(1, pool))));
    out.push_back(d);
}

void tt_experts(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.ep <= 1 || p.model.family.empty()) return;
    const int E = p.model.experts;
    if (E > 0 && E % l.ep == 0 && (l.etp <= 1 || l.etp == l.tp)) return;
    std::string msg = E <= 0 ? "ep = " + str(l.ep) + " needs a mixture-of-experts model, but the model has no experts."
                             : E % l.ep ? "ep = " + str(l.ep) + " does not divide the " + str(E) + " experts."
                                        : "expert tensor parallel degree " + str(l.etp) + " must equal tp (" + str(l.tp) + ") or 1.";
    auto d = diag(Severity::Error, "torchtitan.experts", msg,
                  E > 0 && E % l.ep == 0 ? "Currently we only support ETP=TP or ETP=1" : "", {"/layout/ep", "/layout/etp"});
    std::vector<Fix> c{set_value("/layout/etp", 0, "Use etp = tp"), set_value("/layout/etp", 1, "Use etp = 1")};
    for (auto& f : knob_candidates(p, {"/layout/ep"}, E > 0 ? divisors(E) : std::vector<int>{1})) c.push_back(f);
    add_fixes(d, &tt_experts, p, c);
    out.push_back(d);
}

void tt_heads(const Project& p, Out& out) {
    heads_rule(p, out, &tt_heads, "torchtitan.tp_divides_heads", "");
}

// HEAD validates n_kv_heads % tp at config time (torchtitan PR #2577).
void tt_kv_heads(const Project& p, Out& out) {
    const int KV = p.model.kv_heads, tp = p.layout.tp;
    if (KV <= 0 || tp <= 1 || KV % tp == 0 || p.model.heads % tp != 0) return;
    auto d = diag(Severity::Error, "torchtitan.tp_divides_kv_heads",
                  "tp = " + str(tp) + " does not divide the " + str(KV) + " key/value heads.",
                  "ValueError: n_kv_heads (" + str(KV) + ") must be divisible by tensor parallel degree (" + str(tp) + ")",
                  {"/layout/tp", "/model/kv_heads"});
    add_fixes(d, &tt_kv_heads, p, knob_candidates(p, {"/layout/tp"}, divisors(KV)));
    out.push_back(d);
}

// seq_len % (tp * 2*cp) == 0 with context parallelism.
void tt_seq(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const long long seq = p.training.seq_len;
    const long long k = 1LL * l.tp * 2 * l.cp;
    if (l.cp <= 1 || seq <= 0 || seq % k == 0) return;
    auto d = diag(Severity::Error, "torchtitan.seq_divisible",
                  "seq_len " + str(seq) + " must be a multiple of tp × 2 × cp = " + str(k) + " (context parallel load balancing).",
                  "ValueError: Sequence length " + str(seq) + " must be divisible by the product of TP degree (" + str(l.tp) +
                      ") and 2 * CP degree (" + str(2 * l.cp) + ").",
                  {"/training/seq_len", "/layout/cp", "/layout/tp"});
    const long long down = seq / k * k;
    std::vector<Fix> c{set_value("/training/seq_len", down + k, "Pad the sequence length to " + str(down + k))};
    if (down > 0) c.push_back(set_value("/training/seq_len", down, "Cut the sequence length to " + str(down)));
    add_fixes(d, &tt_seq, p, c);
    out.push_back(d);
}

// pipeline_parallel.py: single-stage schedules 1 stage per rank, multi-stage >= 2, V exactly 2; no empty stage.
void tt_pp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.pp <= 1) return;
    std::string fe;
    if (l.schedule == "1f1b" && l.chunks != 1) fe = "ValueError: Single stage schedule requires exactly 1 stage per rank";
    else if (l.schedule == "interleaved" && l.chunks < 2) fe = "ValueError: Multi-stage schedule requires at least 2 stages per rank";
    else if (l.schedule == "zbv" && l.chunks != 2) fe = "ValueError: v schedules assume 2 stages per rank";
    if (!fe.empty()) {
        auto d = diag(Severity::Error, "torchtitan.pp_stages",
                      "Schedule " + l.schedule + " cannot run chunks = " + str(l.chunks) + " stages per rank.", fe,
                      {"/layout/chunks", "/layout/schedule"});
        add_fixes(d, &tt_pp, p,
                  {set_value("/layout/chunks", l.schedule == "1f1b" ? 1 : 2, "Set chunks to " + str(l.schedule == "1f1b" ? 1 : 2)),
                   Fix{"Use 1f1b", {{"/layout/schedule", "1f1b"}, {"/layout/chunks", 1}}}});
        out.push_back(d);
        return;
    }
    const int stages = l.pp * std::max(1, l.chunks);
    if (p.model.layers > 0 && p.model.layers < stages) {
        auto d = diag(Severity::Error, "torchtitan.pp_stages",
                      "pp × chunks = " + str(stages) + " stages but the model has only " + str(p.model.layers) + " layers; a stage would be empty.",
                      "", {"/layout/pp", "/layout/chunks"});
        add_fixes(d, &tt_pp, p, knob_candidates(p, {"/layout/pp"}, wdiv(p)));
        out.push_back(d);
    }
}

void tt_batch(const Project& p, Out& out) {
    const Sizes s = sizes(p);
    const long long gbs = p.training.global_batch_size, mbs = p.training.micro_batch_size;
    if (s.dp <= 0 || mbs <= 0 || gbs <= 0 || gbs % (mbs * s.dp) == 0) return;
    const long long per = mbs * s.dp;
    auto d = diag(Severity::Error, "torchtitan.global_batch",
                  "The global batch " + str(gbs) + " is not a multiple of local batch " + str(mbs) + " × dp " + str(s.dp) + " = " + str(per) + ".",
                  "AssertionError: global batch size must be multiple of local batch size times data-parallel degree (" + str(per) + " != " +
                      str(gbs) + ")",
                  {"/training/global_batch_size", "/training/micro_batch_size"});
    std::vector<Fix> c;
    if (gbs / per > 0) c.push_back(set_value("/training/global_batch_size", gbs / per * per, "Set global_batch_size to " + str(gbs / per * per)));
    c.push_back(set_value("/training/global_batch_size", (gbs / per + 1) * per, "Set global_batch_size to " + str((gbs / per + 1) * per)));
    add_fixes(d, &tt_batch, p, c);
    out.push_back(d);
}

void tt_microbatches(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const Sizes s = sizes(p);
    const int stages = l.pp * std::max(1, l.chunks);
    if (l.pp <= 1 || s.microbatches <= 0 || s.microbatches >= stages) return;
    auto d = diag(Severity::Warning, "torchtitan.microbatches",
                  str(s.microbatches) + " microbatches for " + str(stages) + " pipeline stages leave a large bubble.",
                  "Number of microbatches (" + str(s.microbatches) + ") is less than the total number of stages (" + str(stages) +
                      ") which may result in a bubble in the pipeline.",
                  {"/layout/num_microbatches"});
    add_fixes(d, &tt_microbatches, p, {set_value("/layout/num_microbatches", stages, "Use " + str(stages) + " microbatches")});
    out.push_back(d);
}

// ---------------- DeepSpeed ----------------

void ds_world(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int w = p.world_size(), n = l.pp * l.tp;
    if (w <= 0 || n <= 0 || w % n == 0) return;
    auto d = diag(Severity::Error, "deepspeed.world_divisible",
                  "The world size " + str(w) + " is not divisible by pp × tp = " + str(n) + ".",
                  l.tp == 1 ? "AssertionError: num_stages (" + str(l.pp) + ") must divide distributed world size (" + str(w) + ")" : "",
                  {"/layout/pp", "/layout/tp"});
    add_fixes(d, &ds_world, p, knob_candidates(p, {"/layout/pp", "/layout/tp"}, wdiv(p)));
    out.push_back(d);
}

void ds_axes(const Project& p, Out& out) {
    const Layout& l = p.layout;
    std::vector<std::string> fields;
    if (l.sp > 1 || l.sp_mode != "none") fields.push_back("/layout/sp");
    if (l.cp > 1) fields.push_back("/layout/cp");
    if (l.pp > 1 && (l.chunks != 1 || l.schedule != "1f1b")) fields.push_back("/layout/schedule");
    if (fields.empty()) return;
    auto d = diag(Severity::Error, "deepspeed.axes",
                  "DeepSpeed's PipelineModule runs 1F1B with one stage per rank, and this DeepSpeed version has no "
                  "sequence or context parallel axis.",
                  "", fields);
    add_fixes(d, &ds_axes, p,
              {Fix{"Use plain 1f1b without sp/cp",
                   {{"/layout/sp", 1}, {"/layout/sp_mode", "none"}, {"/layout/cp", 1}, {"/layout/schedule", "1f1b"}, {"/layout/chunks", 1}}}});
    out.push_back(d);
}

void ds_zero(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.zero_stage > 3 || l.zero_stage < 0) {
        auto d = diag(Severity::Error, "deepspeed.zero_stage", "DeepSpeed ZeRO stages are 0 to 3, not " + str(l.zero_stage) + ".",
                      "AssertionError: Maximum supported ZeRO stage is 3", {"/layout/zero_stage"});
        add_fixes(d, &ds_zero, p, {set_value("/layout/zero_stage", 3, "Use ZeRO-3")});
        out.push_back(d);
        return;
    }
    if (l.pp > 1 && l.zero_stage >= 2) {
        auto d = diag(Severity::Error, "deepspeed.zero_with_pp",
                      "DeepSpeed pipelines accept ZeRO 0 or 1 only; zero_stage is " + str(l.zero_stage) + " with pp = " + str(l.pp) + ".",
                      "AssertionError: ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism", {"/layout/zero_stage", "/layout/pp"});
        add_fixes(d, &ds_zero, p, {set_value("/layout/zero_stage", 1, "Use ZeRO-1"), Fix{"Drop the pipeline", {{"/layout/pp", 1}}}});
        out.push_back(d);
        return;
    }
    if (l.offload != "none" && l.zero_stage == 0) {
        auto d = diag(Severity::Error, "deepspeed.offload_needs_zero",
                      "offload_optimizer works with ZeRO stages 1–3; zero_stage is 0.", "", {"/layout/offload", "/layout/zero_stage"});
        add_fixes(d, &ds_zero, p, {set_value("/layout/zero_stage", l.pp > 1 ? 1 : 2, "Use ZeRO-" + str(l.pp > 1 ? 1 : 2)),
                                   set_value("/layout/offload", "none", "Turn offload off")});
        out.push_back(d);
    }
}

void ds_experts(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.ep <= 1) return;
    const Sizes s = sizes(p);
    const int E = p.model.experts;
    if (E > 0 && E % l.ep == 0 && s.dp > 0 && s.dp % l.ep == 0) return;
    auto d = diag(Severity::Error, "deepspeed.experts",
                  E <= 0 ? "ep = " + str(l.ep) + " needs a mixture-of-experts model."
                         : "DeepSpeed-MoE needs ep to divide both the " + str(E) + " experts and dp = " + str(s.dp) + " (ep = " + str(l.ep) + ").",
                  "", {"/layout/ep"});
    add_fixes(d, &ds_experts, p, knob_candidates(p, {"/layout/ep"}, E > 0 ? divisors(E) : std::vector<int>{1}));
    out.push_back(d);
}

// train_batch_size == micro * gradient_accumulation_steps * dp (runtime/config.py)
void ds_batch(const Project& p, Out& out) {
    const Sizes s = sizes(p);
    const long long gbs = p.training.global_batch_size, mbs = p.training.micro_batch_size;
    if (s.dp <= 0 || mbs <= 0 || gbs <= 0 || gbs % (mbs * s.dp) == 0) return;
    const long long gas = std::max<long long>(1, gbs / mbs / s.dp);
    batch_divisible(p, out, &ds_batch, "deepspeed.batch",
                    "AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
                    "gradient_acc_step * world_size " + str(gbs) + " != " + str(mbs) + " * " + str(gas) + " * " + str(s.dp));
}

// ---------------- DeviceMesh ----------------

void dm_world(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int w = p.world_size();
    const long long m = 1LL * l.tp * l.pp * l.sp * l.cp;
    if (w <= 0 || m <= 0 || w % m == 0) return;
    auto d = diag(Severity::Error, "devicemesh.world_divisible",
                  "The mesh tp × pp × sp × cp = " + str(m) + " does not divide the world size " + str(w) + ".",
                  "RuntimeError: ('Mesh should not be bigger than default world size ...' / mesh shape product != world size)",
                  {"/layout/tp", "/layout/pp", "/layout/sp", "/layout/cp"});
    add_fixes(d, &dm_world, p, knob_candidates(p, {"/layout/tp", "/layout/pp", "/layout/sp", "/layout/cp"}, wdiv(p)));
    out.push_back(d);
}

void dm_heads(const Project& p, Out& out) { heads_rule(p, out, &dm_heads, "devicemesh.tp_divides_heads", ""); }

void dm_batch(const Project& p, Out& out) { batch_divisible(p, out, &dm_batch, "devicemesh.batch_divisible", ""); }

}  // namespace

const std::vector<RuleFn>& megatron_rules() {
    static const std::vector<RuleFn> r = {&cluster_not_empty, &uniform_gpus, &mg_world,   &mg_sp_mode, &mg_sp_needs_tp,
                                          &mg_expert_grid,    &mg_experts,   &mg_order,   &dp_matches, &mg_layers,
                                          &mg_vpp_pp2,        &mg_schedule,  &mg_heads,   &mg_query_groups, &mg_ffn,
                                          &mg_seq_cp,         &mg_seq_tp,    &mg_moe_sp,  &mg_batch,   &mg_vpp_microbatches,
                                          &mg_zero,           &bf16_gpu, &flash_attention_gpu, &flash_attention_dtype, &fp8_gpu, &fused_norm_apex};
    return r;
}

const std::vector<RuleFn>& torchtitan_rules() {
    static const std::vector<RuleFn> r = {&cluster_not_empty, &uniform_gpus, &tt_degrees, &tt_world,   &tt_sp,
                                          &tt_ep,             &tt_experts,   &dp_matches, &tt_heads,   &tt_kv_heads,
                                          &tt_seq,            &tt_pp,        &tt_batch,   &tt_microbatches, &bf16_gpu, &flash_attention_gpu, &flash_attention_dtype, &fp8_gpu, &fused_norm_apex};
    return r;
}

const std::vector<RuleFn>& deepspeed_rules() {
    static const std::vector<RuleFn> r = {&cluster_not_empty, &uniform_gpus, &ds_world, &ds_axes, &ds_zero,
                                          &ds_experts,        &dp_matches,   &ds_batch, &bf16_gpu, &flash_attention_gpu, &flash_attention_dtype, &fp8_gpu, &fused_norm_apex};
    return r;
}

const std::vector<RuleFn>& devicemesh_rules() {
    static const std::vector<RuleFn> r = {&cluster_not_empty, &uniform_gpus, &dm_world, &dp_matches, &dm_heads, &dm_batch, &bf16_gpu, &flash_attention_gpu, &flash_attention_dtype, &fp8_gpu, &fused_norm_apex};
    return r;
}

}  // namespace paraplan::rules
