// ColossalAI rules. Sources (hpcaitech/ColossalAI, v0.5.1):
//   colossalai/booster/plugin/hybrid_parallel_plugin.py   HybridParallelPlugin.__init__ (order below)
//   colossalai/booster/plugin/moe_hybrid_parallel_plugin.py
//   colossalai/booster/plugin/gemini_plugin.py, low_level_zero_plugin.py
//   colossalai/cluster/process_group_mesh.py               mesh product assert
//   colossalai/pipeline/stage_manager.py, schedule/*.py     layer split, microbatch counts
//   colossalai/shardformer/policies/*.py, shard/shard_config.py, layer/_operation.py, layer/utils.py
#include "rules/colossalai.h"

#include "project/fp8.h"
#include "project/framework.h"
#include "rules/common.h"
#include "rules/shared_rules.h"
#include "rules/shardformer.h"
#include "topology/group_checks.h"
#include "topology/layer_split.h"
#include "topology/mesh_request.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <tuple>

namespace paraplan::rules {
namespace {

Framework plugin(const Project& p) { return parse_framework(p.layout.framework).value_or(Framework::colossalai); }

// The layout's schedule as ColossalAI's pp_style reads it: 1f1b, zbv, or InterleavedSchedule for
// "interleaved" (and "interleaved-colossalai", the same); any other schedule is none of the three.
Schedule pp_style_of(const Layout& l) { return resolved_schedule(l.schedule, "colossalai"); }
bool is_1f1b(const Layout& l) { return pp_style_of(l) == Schedule::one_f_one_b; }
bool is_interleaved(const Layout& l) { return pp_style_of(l) == Schedule::interleaved_colossalai; }
bool is_zbv(const Layout& l) { return pp_style_of(l) == Schedule::zbv; }
std::string schedule_name(const Layout& l) { return to_string(l.schedule); }
bool is_moe_plugin(const Project& p) { return plugin(p) == Framework::colossalai_moe; }
bool sp_on(const Layout& l) { return l.sp_mode != SpMode::none; }
std::string sp_name(const Layout& l) { return to_string(l.sp_mode); }
bool has_model(const Project& p) { return p.model.layers > 0 && p.model.heads > 0; }

std::vector<int> world_divisors(const Project& p) { return divisors(std::max(1, p.world_size())); }

// 1. assert world % (tp*pp) == 0 (topology/group_checks.h, one implementation with the rank map builders)
void world_divisible(const Project& p, Out& out) {
    auto d = topology::colossalai_world_check(topology::from_project(p));
    if (!d) return;
    add_fixes(*d, &world_divisible, p, knob_candidates(p, {"/layout/tp", "/layout/pp"}, world_divisors(p)));
    out.push_back(std::move(*d));
}

// 3. SP off with sp_size set: "You should not set sp_size when sequence parallelism is not enabled."
//    (The plugin reads an unset mode as all_to_all, ShardConfig as split_gather: we ask for an explicit mode.)
void sp_mode_unset(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (sp_on(l) || l.sp <= 1) return;
    auto d = diag(
        Severity::Error, "colossalai.sp_mode_unset",
        "sp is " + str(l.sp) +
            " but sp_mode is none: sequence parallelism is off, and ColossalAI refuses an "
            "sp_size without it. Choose a mode explicitly (the plugin and ShardConfig default to different ones).",
        "AssertionError: You should not set sp_size when sequence parallelism is not enabled.",
        {"/layout/sp", "/layout/sp_mode"});
    add_fixes(d, &sp_mode_unset, p,
              {set_value("/layout/sp_mode", "all_to_all",
                         "Use all_to_all (Ulysses) sequence parallelism over sp = " + str(l.sp)),
               set_value("/layout/sp_mode", "ring_attn", "Use ring attention over sp = " + str(l.sp)),
               set_int(p, "/layout/sp", 1)});
    out.push_back(d);
}

// 3. split_gather / ring reuse the TP group: "Sequence parallelism mode {mode} must be enabled when using tensor
// parallelism"
void sp_mode_needs_tp(const Project& p, Out& out) {
    auto found = topology::colossalai_sp_mode_tp_check(topology::from_project(p));
    if (!found) return;
    Diagnostic& d = *found;
    std::vector<Fix> c;
    for (int t : {2, 4, 8}) c.push_back(set_int(p, "/layout/tp", t));
    c.push_back(Fix{"Use all_to_all sequence parallelism", {{"/layout/sp_mode", "all_to_all"}}});
    c.push_back(set_value("/layout/sp_mode", "none", "Turn sequence parallelism off"));
    add_fixes(d, &sp_mode_needs_tp, p, c);
    out.push_back(d);
}

void sp_size_ignored(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!sp_tp_mode(l.sp_mode) || l.sp <= 1 || l.sp == l.tp) return;
    auto d = diag(Severity::Warning, "colossalai.sp_size_ignored",
                  "In mode " + sp_name(l) + " the sequence is split over the tp group (" + str(l.tp) +
                      " GPUs); sp = " + str(l.sp) + " is ignored.",
                  "The sp_size will be the same as tp_size in sequence parallelism mode " + sp_name(l) +
                      ", will ignore the given sequence parallelism size.",
                  {"/layout/sp"});
    add_fixes(d, &sp_size_ignored, p, {set_int(p, "/layout/sp", 1)});
    out.push_back(d);
}

// MoE plugin: ring_attn passes the mode list but never sets dp_size -> AttributeError.
void moe_ring_attn(const Project& p, Out& out) {
    if (p.layout.sp_mode != SpMode::ring_attn) return;
    auto d = diag(
        Severity::Error, "colossalai.moe_ring_attn_unsupported",
        "MoeHybridParallelPlugin supports only all_to_all (DeepSpeed-Ulysses) among the sp-axis modes; ring_attn "
        "crashes while computing dp_size.",
        "AttributeError: 'MoeHybridParallelPlugin' object has no attribute 'dp_size'", {"/layout/sp_mode"});
    add_fixes(d, &moe_ring_attn, p,
              {set_value("/layout/sp_mode", "all_to_all", "Use all_to_all sequence parallelism"),
               Fix{"Turn sequence parallelism off", {{"/layout/sp_mode", "none"}, {"/layout/sp", 1}}}});
    out.push_back(d);
}

// 4. ProcessGroupMesh: prod(shape) == world, the only check of world % (tp*pp*sp).
void world_divisible_sp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int w = p.world_size();
    if (!sp_axis_mode(l.sp_mode) || l.sp < 1 || l.tp < 1 || l.pp < 1 || w <= 0) return;
    const int model = l.tp * l.pp * l.sp;
    if (w % (l.tp * l.pp) != 0 || w % model == 0) return;   // the first rule reports tp*pp
    int dp = w / model;
    if (is_moe_plugin(p)) dp = dp / std::max(1, l.ep) * std::max(1, l.ep);
    const int product = dp * model;
    auto d = diag(Severity::Error, "colossalai.world_divisible_sp",
                  "The world size " + str(w) + " is not divisible by tp × pp × sp = " + str(model) + " (" + sp_name(l) +
                      " gives sequence parallelism its own mesh axis), so dp = " + str(w) + " // " + str(model) +
                      " = " + str(w / model) + " leaves ranks out of the mesh.",
                  "AssertionError: The product of the size(" + str(product) + ") must be equal to the world size(" +
                      str(w) + ").",
                  {"/layout/sp", "/layout/tp", "/layout/pp"});
    add_fixes(d, &world_divisible_sp, p,
              knob_candidates(p, {"/layout/sp", "/layout/tp", "/layout/pp"}, world_divisors(p)));
    out.push_back(d);
}

// MoE: assert dp_size % ep_size == 0 (topology/group_checks.h, one implementation with the MoE mesh builder)
void moe_dp_divisible_ep(const Project& p, Out& out) {
    auto d = topology::colossalai_moe_dp_ep_check(topology::from_project(p), sizes(p).dp);
    if (!d) return;
    add_fixes(*d, &moe_dp_divisible_ep, p,
              knob_candidates(p, {"/layout/ep", "/layout/tp", "/layout/pp"}, divisors(std::max(1, p.world_size()))));
    out.push_back(std::move(*d));
}

// 5. bare assert zero_stage in (0, 1, 2)
void zero_stage_range(const Project& p, Out& out) {
    const int z = p.layout.zero_stage;
    if (z >= 0 && z <= 2) return;
    auto d = diag(Severity::Error, "colossalai.zero_stage",
                  "zero_stage " + str(z) + " is not available in " + p.layout.framework +
                      " (0, 1 or 2); ZeRO-3 style sharding is the GeminiPlugin.",
                  "AssertionError (assert zero_stage in (0, 1, 2))", {"/layout/zero_stage"});
    add_fixes(d, &zero_stage_range, p,
              {set_value("/layout/zero_stage", 2, "Use ZeRO-2"), set_value("/layout/zero_stage", 1, "Use ZeRO-1"),
               set_value("/layout/zero_stage", 0, "Turn ZeRO off")});
    out.push_back(d);
}

// 6.1 pp_style in ["1f1b", "interleaved", "zbv"]
// The plugin's schedules are its row's (FrameworkTraits::schedules).
void pp_style(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.pp <= 1 || runs_schedule(l.framework, l.schedule)) return;
    std::string names;
    for (const Schedule s : traits_of(l).schedules) names += (names.empty() ? "" : ", ") + std::string(to_string(s));
    auto d = diag(Severity::Error, "colossalai.pp_style",
                  "ColossalAI pipelines run the schedules " + names + ", not '" + schedule_name(l) + "'.",
                  "AssertionError: Unsupported pipeline parallelism style", {"/layout/schedule"});
    add_fixes(d, &pp_style, p,
              {Fix{"Use 1f1b", {{"/layout/schedule", "1f1b"}, {"/layout/chunks", 1}}},
               Fix{"Use interleaved with 2 chunks", {{"/layout/schedule", "interleaved"}, {"/layout/chunks", 2}}}});
    out.push_back(d);
}

// 6.2 / 6.3 / 6.8 model chunks per style.
void model_chunks(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.pp <= 1) return;
    std::string fe, why;
    if (is_1f1b(l) && l.chunks != 1) {
        fe = "AssertionError: num_model_chunks must be 1 when using 1f1b";
        why = "1f1b runs one model chunk per stage";
    } else if (is_zbv(l) && l.chunks != 2) {
        fe = is_moe_plugin(p) && l.chunks < 2
                 ? "AssertionError: number of model chunks must be > 1 when using ZerbubbleV"
                 : "AssertionError: num_model_chunks must be 2 when using zero bubble pipeline";
        why = "the zero-bubble V schedule holds exactly 2 chunks per stage";
    } else if (is_interleaved(l) && l.chunks <= 1) {
        fe = "AssertionError: number of model chunks must be > 1 when using interleaved";
        why = "the interleaved schedule needs several chunks per stage";
    } else {
        return;
    }
    auto d = diag(Severity::Error, "colossalai.model_chunks",
                  "chunks is " + str(l.chunks) + " with schedule " + schedule_name(l) + ": " + why + ".", fe,
                  {"/layout/chunks", "/layout/schedule"});
    std::vector<Fix> c;
    if (is_1f1b(l)) {
        c.push_back(set_value("/layout/chunks", 1, "Set chunks to 1"));
        c.push_back(set_value("/layout/schedule", "interleaved", "Use the interleaved schedule"));
    } else if (is_zbv(l)) {
        c.push_back(set_value("/layout/chunks", 2, "Set chunks to 2"));
    } else {
        c.push_back(set_value("/layout/chunks", 2, "Set chunks to 2"));
        c.push_back(set_value("/layout/schedule", "1f1b", "Use 1f1b"));
    }
    add_fixes(d, &model_chunks, p, c);
    out.push_back(d);
}

// 6.5 zero_stage <= 1 with pp > 1
void zero_stage_with_pp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.pp <= 1 || l.zero_stage <= 1 || l.zero_stage > 2 || is_moe_plugin(p)) return;
    auto d = diag(
        Severity::Error, "colossalai.zero_stage_with_pp",
        "ZeRO-" + str(l.zero_stage) + " shards gradients, which would need a gradient sync per microbatch with pp = " +
            str(l.pp) + "; ColossalAI allows ZeRO 0 or 1 with pipelines.",
        "AssertionError: To avoid prohibitive gradient synchronization costs, zero stage must be 0 or 1 when using "
        "pipeline parallelism",
        {"/layout/zero_stage", "/layout/pp"});
    std::vector<Fix> c{set_value("/layout/zero_stage", 1, "Use ZeRO-1")};
    c.push_back(
        Fix{"Drop the pipeline (pp 1, tp " + str(l.tp * l.pp) + ")", {{"/layout/pp", 1}, {"/layout/tp", l.tp * l.pp}}});
    c.push_back(set_value("/layout/zero_stage", 0, "Turn ZeRO off"));
    add_fixes(d, &zero_stage_with_pp, p, c);
    out.push_back(d);
}

// PipelineStageManager: len(num_layers_per_stage) == pp_size (bare assert), sum == L
// (distribute_layers), and only 1f1b can index a pp_size-long list.
void num_layers_per_stage(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.num_layers_per_stage.empty() || l.pp <= 1) return;
    const int L = p.model.layers;
    const int n = static_cast<int>(l.num_layers_per_stage.size());
    int sum = 0;
    for (int v : l.num_layers_per_stage) sum += v;
    std::string msg, fe;
    if (n != l.pp) {
        msg = "num_layers_per_stage has " + str(n) + " entries but pp is " + str(l.pp) + ".";
        fe = "AssertionError (assert len(num_layers_per_stage) == num_stages)";
    } else if (L > 0 && sum != L) {
        msg = "num_layers_per_stage sums to " + str(sum) + " but the model has " + str(L) + " layers.";
        fe = "AssertionError (assert sum(num_layers_per_stage) == num_layers)";
    } else if (!is_1f1b(l)) {
        msg = "A manual layer split has pp entries, but " + schedule_name(l) +
              " indexes pp × chunks = " + str(l.pp * l.chunks) +
              " entries; ColossalAI supports num_layers_per_stage with 1f1b only.";
        fe = "IndexError: index " + str(l.pp + 1) + " is out of bounds for axis 0 with size " + str(l.pp + 1);
    } else {
        return;
    }
    auto d = diag(Severity::Error, "colossalai.num_layers_per_stage", msg, fe, {"/layout/num_layers_per_stage"});
    std::vector<Fix> c;
    if (L > 0 && is_1f1b(l))
        c.push_back(set_value("/layout/num_layers_per_stage", colossalai_distribute_layers(L, l.pp, 1),
                              "Use the automatic split " + join(colossalai_distribute_layers(L, l.pp, 1), "/")));
    c.push_back(set_value("/layout/num_layers_per_stage", std::vector<int>{}, "Let ColossalAI split the layers"));
    add_fixes(d, &num_layers_per_stage, p, c);
    out.push_back(d);
}

int pipeline_entries(const Layout& l) { return l.pp * (is_1f1b(l) ? 1 : std::max(1, l.chunks)); }

// distribute_layers does not check L >= pp*chunks: stages end up with no layers.
void empty_stages(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int L = p.model.layers;
    if (l.pp <= 1 || L <= 0 || !l.num_layers_per_stage.empty()) return;
    const int entries = pipeline_entries(l);
    if (L >= entries) return;
    auto d = diag(
        Severity::Warning, "colossalai.empty_stages",
        "The model has " + str(L) + " layers for pp × chunks = " + str(entries) +
            " pipeline entries, so some stages hold no transformer layer.",
        p.model.encoder_layers > 0 ? "The total number of layers can't be smaller than number of stages." : "",
        {"/layout/pp", "/layout/chunks"});
    add_fixes(d, &empty_stages, p, knob_candidates(p, {"/layout/pp"}, divisors(std::max(1, p.world_size()))));
    out.push_back(d);
}

void uneven_layers(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int L = p.model.layers;
    if (l.pp <= 1 || L <= 0 || !l.num_layers_per_stage.empty() || p.model.encoder_layers > 0) return;
    const int entries = pipeline_entries(l);
    if (L < entries || L % entries == 0) return;
    if (!is_1f1b(l) && !is_interleaved(l) && !is_zbv(l)) return;
    std::vector<int> per;
    try {
        const auto split = colossalai_stage_layers(L, l.pp, pp_style_of(l), l.chunks);
        for (int s = 0; s < l.pp; ++s) per.push_back(layers_on_stage(split, s));
    } catch (const std::invalid_argument&) {
        return;
    }
    out.push_back(diag(Severity::Info, "colossalai.uneven_layers",
                       str(L) + " layers do not divide into " + str(entries) +
                           " pipeline entries; ColossalAI gives the extra layers to the middle stages: " +
                           join(per, "/") + " layers per stage.",
                       "", {"/layout/pp", "/layout/num_layers_per_stage"}));
}

// Boost time: ZeRO needs fp16/bf16; PRECISION_TORCH_TYPE[precision] for the rest.
void precision_rule(const Project& p, Out& out) {
    const Precision pr = p.training.precision;
    const std::string pr_name = to_string(pr);
    if (pr == Precision::tf32 || pr == Precision::fp8) {
        auto d = diag(Severity::Error, "colossalai.precision",
                      "ColossalAI plugins take precision fp16, bf16 or fp32, not " + pr_name +
                          (pr == Precision::fp8 ? " (FP8 is the separate use_fp8 switch on top of bf16)."
                                                : " (tf32 is fp32 with TF32 matmuls)."),
                      "KeyError: '" + pr_name + "'", {"/training/precision"});
        std::vector<Fix> c;
        if (pr == Precision::fp8)
            c.push_back(Fix{"Train in bf16 with use_fp8", {{"/training/precision", "bf16"}, {"/layout/fp8", true}}});
        else c.push_back(set_value("/training/precision", "fp32", "Train in fp32"));
        c.push_back(set_value("/training/precision", "bf16", "Train in bf16"));
        add_fixes(d, &precision_rule, p, c);
        out.push_back(d);
        return;
    }
    if (pr == Precision::fp32 && p.layout.zero_stage > 0 && plugin(p) == Framework::colossalai) {
        auto d = diag(Severity::Error, "colossalai.zero_precision",
                      "ZeRO stage " + str(p.layout.zero_stage) +
                          " keeps fp32 master weights of fp16/bf16 parameters; "
                          "it needs precision fp16 or bf16, not fp32.",
                      "AssertionError: Please set precision to 'fp16' or 'bf16' when using ZeRO.",
                      {"/training/precision", "/layout/zero_stage"});
        add_fixes(d, &precision_rule, p,
                  {set_value("/training/precision", "bf16", "Train in bf16"),
                   set_value("/layout/zero_stage", 0, "Turn ZeRO off")});
        out.push_back(d);
    }
}

void zero_dp1(const Project& p, Out& out) {
    const Sizes s = sizes(p);
    const int zero_group = s.dp * s.sp;
    if (p.layout.zero_stage <= 0 || s.dp <= 0 || zero_group != 1) return;
    auto d = diag(Severity::Warning, "colossalai.zero_dp1",
                  "ZeRO-" + str(p.layout.zero_stage) +
                      " shards over the data-parallel group, which has 1 rank here: "
                      "nothing is sharded and the optimizer only adds overhead.",
                  "Use Zero Optimizer when data parallel size is 1 may introduce unnecessary overhead.",
                  {"/layout/zero_stage"});
    add_fixes(d, &zero_dp1, p, {set_value("/layout/zero_stage", 0, "Turn ZeRO off")});
    out.push_back(d);
}

// ---- ShardFormer policies (colossalai/shardformer/policies/*.py, auto_policy.py) ----

std::string model_label(const Project& p) {
    const std::string n = shardformer_model_name(p.model.family);
    return n.empty() ? p.model.family : n;
}

// auto_policy.py: NotImplementedError for classes without a policy.
void model_policy(const Project& p, Out& out) {
    if (p.model.family.empty() || !traits(plugin(p)).shardformer) return;
    if (!shardformer_model_name(p.model.family).empty()) return;
    out.push_back(diag(Severity::Error, "colossalai.model_policy",
                       "ColossalAI's ShardFormer has no policy for model type '" + p.model.family +
                           "', so the plugin cannot shard it.",
                       "NotImplementedError: Auto policy for " + p.model.family + " is not implemented", {"/model"}));
}

// DeepSeek-V3 config_sanity_check (policies/deepseek_v3.py).
void deepseek_v3_limits(const Project& p, Out& out) {
    if (p.model.family != "deepseek_v3") return;
    const Layout& l = p.layout;
    std::string fe;
    std::vector<std::string> fields;
    if (l.tp > 1) {
        fe = "AssertionError: DeepSeekV3 does not support tensor parallelism";
        fields = {"/layout/tp"};
    } else if (sp_on(l)) {
        fe = "AssertionError: DeepSeekV3 does not support sequence parallelism";
        fields = {"/layout/sp_mode"};
    } else if (l.pp > 1 && is_zbv(l)) {
        fe = "AssertionError: DeepSeekV3 does not support ZBV";
        fields = {"/layout/schedule"};
    } else {
        return;
    }
    auto d = diag(Severity::Error, "colossalai.deepseek_v3_limits",
                  "ColossalAI's DeepSeek-V3 policy supports expert, pipeline (not zbv) and data parallelism only.", fe,
                  fields);
    add_fixes(d, &deepseek_v3_limits, p,
              {Fix{"Move tp into ep", {{"/layout/tp", 1}, {"/layout/ep", std::max(1, l.ep) * std::max(1, l.tp)}}},
               set_int(p, "/layout/tp", 1),
               Fix{"Turn sequence parallelism off", {{"/layout/sp_mode", "none"}, {"/layout/sp", 1}}},
               Fix{"Use 1f1b", {{"/layout/schedule", "1f1b"}, {"/layout/chunks", 1}}}});
    out.push_back(d);
}

// Which sp modes a policy supports, from the ShardFormer table (rules/shardformer.h):
// "ok", "warn:<text>" (silently off / converted / no effect) or "error:<text>".
std::string sp_support(const std::string& family, SpMode mode) {
    const ShardformerPolicy* pol = shardformer_policy(family);
    if (!pol) return "ok";
    const SupportCell& c = shardformer_sp_cell(*pol, mode);
    const std::string text = c.framework.empty() ? pol->name + ": " + c.note : c.framework;
    switch (c.level) {
    case Support::Yes: return "ok";
    case Support::Error: return "error:" + text;
    default: return "warn:" + text;
    }
}

void model_sp_support(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!sp_on(l) || p.model.family.empty() || shardformer_model_name(p.model.family).empty()) return;
    if (p.model.family == "deepseek_v3") return;   // config_sanity_check fails first (deepseek_v3_limits)
    const std::string s = sp_support(p.model.family, l.sp_mode);
    if (s == "ok") return;
    const bool err = s.rfind("error:", 0) == 0;
    const std::string text = s.substr(s.find(':') + 1);
    auto d = diag(err ? Severity::Error : Severity::Warning, "colossalai.model_sp_support",
                  model_label(p) +
                      (err ? " does not support sequence parallelism mode " : " ignores or converts mode ") +
                      sp_name(l) + (err ? "." : "; the ranks of the sp axis would duplicate work."),
                  text, {"/layout/sp_mode"});
    std::vector<Fix> c;
    for (const SpMode m : {SpMode::split_gather, SpMode::all_to_all, SpMode::ring, SpMode::ring_attn})
        if (m != l.sp_mode && sp_support(p.model.family, m) == "ok")
            c.push_back(set_value("/layout/sp_mode", to_string(m), std::string("Use ") + to_string(m)));
    c.push_back(Fix{"Turn sequence parallelism off", {{"/layout/sp_mode", "none"}, {"/layout/sp", 1}}});
    add_fixes(d, &model_sp_support, p, c);
    out.push_back(d);
}

// Mixtral / DeepSeek MoE policies: NotImplementedError with sp and pp together.
void moe_sp_with_pp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const ShardformerPolicy* pol = shardformer_policy(p.model.family);
    if (!sp_on(l) || l.pp <= 1 || !pol || !pol->sp_excludes_pp) return;
    auto d = diag(
        Severity::Error, "colossalai.moe_sp_with_pp",
        model_label(p) + " cannot combine sequence parallelism with pipeline parallelism (pp = " + str(l.pp) + ").",
        "NotImplementedError: Sequence parallelism is not supported with pipeline parallelism.",
        {"/layout/sp_mode", "/layout/pp"});
    add_fixes(d, &moe_sp_with_pp, p,
              {Fix{"Turn sequence parallelism off", {{"/layout/sp_mode", "none"}, {"/layout/sp", 1}}},
               set_int(p, "/layout/pp", 1)});
    out.push_back(d);
}

// Every policy: num_attention_heads % tp == 0. Llama/Cohere check after the all_to_all split: (H/sp) % tp.
void cai_tp_divides_heads(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!has_model(p) || l.tp <= 1) return;
    const int H = p.model.heads;
    const int sp = l.sp_mode == SpMode::all_to_all ? std::max(1, l.sp) : 1;
    const int h = sp > 1 && H % sp == 0 ? H / sp : H;
    if (h % l.tp == 0) return;
    auto d = diag(Severity::Error, "colossalai.tp_divides_heads",
                  "tp = " + str(l.tp) + " does not divide the " + str(h) + " attention heads" +
                      (h != H ? " left after the all_to_all split over sp = " + str(sp) : "") +
                      ", so the heads cannot be split evenly over the tensor-parallel GPUs.",
                  "AssertionError: The number of attention heads must be divisible by tensor parallel size.",
                  {"/layout/tp", "/model/heads"});
    std::vector<int> vals = divisors(H);
    add_fixes(d, &cai_tp_divides_heads, p, knob_candidates(p, {"/layout/tp"}, vals));
    out.push_back(d);
}

void tp_divides_kv_heads(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int KV = p.model.kv_heads;
    if (!has_model(p) || l.tp <= 1 || KV <= 0 || KV == p.model.heads) return;
    const int sp = l.sp_mode == SpMode::all_to_all ? std::max(1, l.sp) : 1;
    const int kv = sp > 1 && KV % sp == 0 ? KV / sp : KV;
    if (kv % l.tp == 0 && kv >= l.tp) return;
    auto d = diag(
        Severity::Error, "colossalai.tp_divides_kv_heads",
        "tp = " + str(l.tp) + " does not divide the " + str(kv) + " key/value heads (grouped-query attention), so " +
            "they cannot be split evenly over the tensor-parallel GPUs.",
        "AssertionError: The number of key_value heads must be divisible by, and must not be less than tensor "
        "parallel size.",
        {"/layout/tp", "/model/kv_heads"});
    add_fixes(d, &tp_divides_kv_heads, p, knob_candidates(p, {"/layout/tp"}, divisors(KV)));
    out.push_back(d);
}

// all_to_all floor-divides heads by sp without an assert: require H % sp and KV % sp.
void sp_divides_heads(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!has_model(p) || l.sp_mode != SpMode::all_to_all || l.sp <= 1) return;
    const int H = p.model.heads, KV = p.model.kv_heads > 0 ? p.model.kv_heads : H;
    if (H % l.sp == 0 && KV % l.sp == 0) return;
    const bool kv_bad = H % l.sp == 0;
    auto d = diag(Severity::Error, "colossalai.sp_divides_heads",
                  "all_to_all sequence parallelism gives each of the sp = " + str(l.sp) +
                      " GPUs whole attention heads, but the model has " + str(kv_bad ? KV : H) +
                      (kv_bad ? " key/value heads." : " heads."),
                  "RuntimeError: shape '[...]' is invalid for input of size ... (heads are floor-divided by sp)",
                  {"/layout/sp", "/model/heads"});
    add_fixes(d, &sp_divides_heads, p, knob_candidates(p, {"/layout/sp"}, divisors(std::gcd(H, KV))));
    out.push_back(d);
}

std::vector<Fix> seq_fixes(const Project& p, long long divisor) {
    const long long seq = p.training.seq_len;
    std::vector<Fix> c;
    const long long down = seq / divisor * divisor, up = down + divisor;
    c.push_back(set_value("/training/seq_len", up, "Pad the sequence length to " + str(up)));
    if (down > 0) c.push_back(set_value("/training/seq_len", down, "Cut the sequence length to " + str(down)));
    return c;
}

// shardformer/layer/_operation.py::_split: "The dimension to split ({n}) is not a multiple of world size ({k}), ..."
void seq_divisible(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const long long seq = p.training.seq_len;
    if (seq <= 0) return;
    int k = 1;
    std::string what, field;
    if (sp_tp_mode(l.sp_mode) && l.tp > 1) {
        k = l.tp;
        what = sp_name(l) + " splits the sequence over tp";
        field = "/layout/tp";
    } else if (l.sp_mode == SpMode::all_to_all && l.sp > 1) {
        k = l.sp;
        what = "all_to_all splits the sequence over sp";
        field = "/layout/sp";
    } else {
        return;
    }
    if (seq % k == 0) return;
    auto d = diag(Severity::Error, "colossalai.seq_divisible",
                  "seq_len " + str(seq) + " is not a multiple of " + str(k) + " (" + what + " = " + str(k) + ").",
                  "AssertionError: The dimension to split (" + str(seq) + ") is not a multiple of world size (" +
                      str(k) + "), cannot split tensor evenly",
                  {"/training/seq_len", field});
    auto c = seq_fixes(p, k);
    for (auto& f : knob_candidates(p, {field}, divisors(static_cast<int>(std::min<long long>(seq, 1 << 20)))))
        c.push_back(f);
    add_fixes(d, &seq_divisible, p, c);
    out.push_back(d);
}

// shardformer/layer/utils.py::split_batch_zigzag: seq % (2*sp) == 0 and seq/(2*sp) >= 2 (?)
void seq_divisible_ring(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const long long seq = p.training.seq_len;
    if (l.sp_mode != SpMode::ring_attn || l.sp <= 1 || seq <= 0) return;
    const long long k = 2LL * l.sp;
    if (seq % k == 0 && seq / k >= 2) return;
    auto d = diag(Severity::Error, "colossalai.seq_divisible_ring",
                  "Ring attention cuts each sequence into 2 × sp = " + str(k) + " zigzag pieces; seq_len " + str(seq) +
                      " is not a multiple of " + str(k) + ".",
                  "AssertionError: Bro, the seq length " + str(seq) + " for tensor 0 can't be split by " + str(k) + "!",
                  {"/training/seq_len", "/layout/sp"});
    auto c = seq_fixes(p, k);
    for (auto& f : knob_candidates(p, {"/layout/sp"}, divisors(static_cast<int>(std::min<long long>(seq, 1 << 20)))))
        c.push_back(f);
    add_fixes(d, &seq_divisible_ring, p, c);
    out.push_back(d);
}

// inner_ring_size <= sp and sp % inner_ring_size == 0 (ring_attn).
void inner_ring_size(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.sp_mode != SpMode::ring_attn || l.inner_ring_size <= 0) return;
    if (l.inner_ring_size <= l.sp && l.sp % l.inner_ring_size == 0) return;
    auto d = diag(
        Severity::Error, "colossalai.inner_ring_size",
        "inner_ring_size " + str(l.inner_ring_size) + " must divide sp = " + str(l.sp) + " (2D ring attention).",
        "AssertionError: Error: sp_size " + str(l.sp) + " should be divisible by inner_ring_size " +
            str(l.inner_ring_size),
        {"/layout/inner_ring_size", "/layout/sp"});
    std::vector<Fix> c{set_value("/layout/inner_ring_size", 0, "Use a single ring")};
    for (int v : nearest_first(l.inner_ring_size, divisors(std::max(1, l.sp))))
        c.insert(c.end() - 1, set_value("/layout/inner_ring_size", v, "Set inner_ring_size to " + str(v)));
    add_fixes(d, &inner_ring_size, p, c);
    out.push_back(d);
}

void ring_attn_flash(const Project& p, Out& out) {
    if (p.layout.sp_mode != SpMode::ring_attn || p.layout.flash_attention) return;
    out.push_back(diag(Severity::Info, "colossalai.ring_attn_flash",
                       "ring_attn turns flash attention on (enable_flash_attention is forced to True).", "",
                       {"/layout/flash_attention", "/layout/sp_mode"}));
}

// Flash attention, fused normalization and JIT fusion the policy ignores or has no replacement
// for (the ShardFormer table's flash_attention / fused_norm / jit_fused cells).
void model_flash(const Project& p, Out& out) {
    if (!p.layout.flash_attention) return;
    const ShardformerPolicy* pol = shardformer_policy(p.model.family);
    if (!pol) return;
    const SupportCell& c = pol->cell("flash_attention");
    if (c.level == Support::Ignored)
        out.push_back(diag(Severity::Info, "colossalai.model_flash_attention",
                           pol->name + "'s ShardFormer policy ignores the flash attention flag (" + c.note + ").",
                           c.framework, {"/layout/flash_attention"}));
    else if (c.level == Support::NoEffect)
        out.push_back(
            diag(Severity::Info, "colossalai.model_flash_attention",
                 model_label(p) + "'s ShardFormer policy has no flash attention replacement; the flag has no effect.",
                 "", {"/layout/flash_attention"}));
}

void model_kernel_flags(const Project& p, Out& out) {
    const ShardformerPolicy* pol = shardformer_policy(p.model.family);
    if (!pol) return;
    for (const auto& [on, feature, field, what] :
         {std::tuple{p.layout.fused_norm, "fused_norm", "/layout/fused_norm", "fused normalization"},
          std::tuple{p.layout.jit_fused, "jit_fused", "/layout/jit_fused", "JIT-fused kernels"}}) {
        if (!on) continue;
        const SupportCell& c = pol->cell(feature);
        if (c.level == Support::Yes) continue;
        out.push_back(diag(Severity::Info, "colossalai.model_kernel_flags",
                           pol->name + "'s ShardFormer policy does not use " + what + ": " + c.note + ".", c.framework,
                           {field}));
    }
}

// The kernel stack (layout.kernels) has no plugin argument of its own: booster/plugin/*_plugin.py (v0.5.1)
// take no Transformer Engine or torch.compile switch. ColossalAI's fused kernels are ShardFormer's
// enable_fused_normalization + enable_jit_fused (kernels "te" means them; the exporter writes both on),
// and LowLevelZeroPlugin, which runs no ShardFormer, has none of these switches.
void kernels(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const KernelStack k = kernel_stack(l);
    const FrameworkTraits& t = traits_of(l);
    if (k == KernelStack::compile) {
        auto d = diag(Severity::Warning, "colossalai.kernels",
                      std::string(t.display_name) +
                          " has no torch.compile switch: plugin.py leaves the model eager (compile it in the "
                          "training script), while kernels \"compile\" is estimated with compiled kernels.",
                      "", {"/layout/kernels"});
        add_fixes(d, &kernels, p, {set_value("/layout/kernels", "eager", "Run eager kernels")});
        out.push_back(d);
    } else if (!t.shardformer && (k == KernelStack::te || l.fused_norm || l.jit_fused)) {
        std::vector<std::string> fields;
        if (l.kernels == KernelStack::te) fields.push_back("/layout/kernels");
        if (l.fused_norm) fields.push_back("/layout/fused_norm");
        if (l.jit_fused) fields.push_back("/layout/jit_fused");
        auto d = diag(Severity::Warning, "colossalai.kernels",
                      std::string(t.display_name) +
                          " has no kernel switches (no ShardFormer: no enable_fused_normalization or "
                          "enable_jit_fused), so plugin.py cannot turn on fused kernels; the model's own code "
                          "decides.",
                      "", fields);
        add_fixes(d, &kernels, p,
                  {Fix{"Run eager kernels",
                       {{"/layout/kernels", "eager"}, {"/layout/fused_norm", false}, {"/layout/jit_fused", false}}}});
        out.push_back(d);
    }
}

// use_fp8 scales per tensor from the current amax (quantization/fp8.py linear_fp8 -> cast_to_fp8);
// the plugins take no recipe, so another fp8_recipe runs as tensorwise (and is estimated so).
void fp8_recipe(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!fp8_on(l, p.training) || accepts_fp8_recipe(l.framework, l.fp8_recipe)) return;
    auto d = diag(Severity::Warning, "colossalai.fp8_recipe",
                  "ColossalAI's use_fp8 scales per tensor from the current amax; the " +
                      std::string(to_string(l.fp8_recipe)) + " recipe has no ColossalAI switch and runs as tensorwise.",
                  "", {"/layout/fp8_recipe"});
    add_fixes(d, &fp8_recipe, p, {set_value("/layout/fp8_recipe", "tensorwise", "Use the tensorwise recipe")});
    out.push_back(d);
}

// VocabParallelEmbedding1D pads the vocabulary to a multiple of make_vocab_size_divisible_by (64) * tp.
void vocab_padding(const Project& p, Out& out) {
    const int V = p.model.vocab;
    if (V <= 0 || (p.layout.tp <= 1 && !p.model.tied_embeddings)) return;
    const int m = 64 * std::max(1, p.layout.tp);
    if (V % m == 0) return;
    const int padded = (V + m - 1) / m * m;
    out.push_back(diag(Severity::Info, "colossalai.vocab_padding",
                       "The vocabulary (" + str(V) + ") is padded to " + str(padded) + " (a multiple of 64 × tp = " +
                           str(m) + "); " + str(padded - V) + " padding rows are added to the embedding and LM head.",
                       "", {"/model/vocab", "/layout/tp"}));
}

// MoE: Mixtral "The number of experts must be divisible by the number of expert parallel groups."
void moe_experts_divisible(const Project& p, Out& out) {
    const int E = p.model.experts, ep = p.layout.ep;
    if (E <= 0 || ep <= 1 || E % ep == 0) return;
    auto d = diag(Severity::Error, "colossalai.moe_experts_divisible_ep",
                  "ep = " + str(ep) + " does not divide the " + str(E) +
                      " experts, so the GPUs of an expert group cannot hold equal shares.",
                  p.model.family == "mixtral"
                      ? "ValueError: The number of experts must be divisible by the number of expert parallel groups."
                      : "AssertionError (assert num_experts % ep_size == 0)",
                  {"/layout/ep", "/model/experts"});
    add_fixes(d, &moe_experts_divisible, p, knob_candidates(p, {"/layout/ep"}, divisors(E)));
    out.push_back(d);
}

void moe_dense_model(const Project& p, Out& out) {
    if (p.model.family.empty() || p.model.is_moe()) return;
    auto d = diag(
        Severity::Warning, "colossalai.moe_dense_model",
        model_label(p) + " has no experts; MoeHybridParallelPlugin only adds overhead. Use HybridParallelPlugin.", "",
        {"/layout/framework"});
    add_fixes(d, &moe_dense_model, p,
              {Fix{"Use HybridParallelPlugin", {{"/layout/framework", "colossalai"}, {"/layout/ep", 1}}}});
    out.push_back(d);
}

void moe_zero2(const Project& p, Out& out) {
    if (p.layout.zero_stage != 2) return;
    auto d = diag(
        Severity::Warning, "colossalai.moe_zero2_downgraded",
        "MoeHybridParallelPlugin silently runs ZeRO-2 as ZeRO-1 (ZeRO-2 can hang when some experts get no tokens).",
        "overlap_communication and zero_stage are set to False and 1 because ZeRO-2 or comm overlap cause program "
        "hang when some experts are not routed.",
        {"/layout/zero_stage"});
    add_fixes(d, &moe_zero2, p, {set_value("/layout/zero_stage", 1, "Use ZeRO-1")});
    out.push_back(d);
}

int effective_zero(const Project& p) { return is_moe_plugin(p) && p.layout.zero_stage == 2 ? 1 : p.layout.zero_stage; }

// MoeHybridParallelZeroOptimizer: every pipeline stage needs expert parameters.
void moe_stage_has_experts(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!p.model.is_moe() || l.pp <= 1 || effective_zero(p) < 1 || p.model.layers <= 0) return;
    StageLayers split;
    try {
        split = colossalai_stage_layers(p.model.layers, l.pp, pp_style_of(l), l.chunks, l.num_layers_per_stage);
    } catch (const std::invalid_argument&) {
        return;
    }
    for (int s = 0; s < l.pp; ++s) {
        bool has = false;
        for (const auto& r : split[static_cast<std::size_t>(s)])
            for (int i = r.begin; i < r.end; ++i) has = has || p.model.is_moe_layer(i);
        if (has) continue;
        auto d = diag(
            Severity::Error, "colossalai.moe_stage_has_experts",
            "Pipeline stage " + str(s) + " holds only dense layers (" +
                str(split[static_cast<std::size_t>(s)].front().begin) + "–" +
                str(split[static_cast<std::size_t>(s)].back().end - 1) +
                "), but the MoE ZeRO optimizer needs expert parameters on every stage.",
            "ValueError: No parameters found in moe_dp_group, please consider using HybridParallelPlugin instead",
            {"/layout/pp", "/layout/num_layers_per_stage", "/layout/zero_stage"});
        std::vector<Fix> c;
        // A manual split that moves one MoE layer onto each stage (1f1b only).
        if (is_1f1b(l)) {
            std::vector<int> per = colossalai_distribute_layers(p.model.layers, l.pp, 1);
            // Give stage 0 enough layers to reach the first MoE layer, take them from the largest stages.
            int first_moe = 0;
            while (first_moe < p.model.layers && !p.model.is_moe_layer(first_moe)) ++first_moe;
            if (first_moe < p.model.layers && per[0] <= first_moe) {
                int need = first_moe + 1 - per[0];
                per[0] += need;
                for (int i = l.pp - 1; i > 0 && need > 0; --i)
                    while (need > 0 && per[static_cast<std::size_t>(i)] > 1) {
                        --per[static_cast<std::size_t>(i)];
                        --need;
                    }
                c.push_back(set_value("/layout/num_layers_per_stage", per, "Split the layers " + join(per, "/")));
            }
        }
        for (int v : nearest_first(l.pp, divisors(std::max(1, p.world_size()))))
            if (v < l.pp) c.push_back(set_int(p, "/layout/pp", v));
        c.push_back(set_value("/layout/zero_stage", 0, "Turn ZeRO off"));
        add_fixes(d, &moe_stage_has_experts, p, c);
        out.push_back(d);
        return;
    }
}

// configure(): with DDP (zero 0, pp 1) moe_dp_group must equal dp_group, i.e. ep == 1 and sp == 1.
void moe_ddp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int sp = sp_axis_mode(l.sp_mode) ? l.sp : 1;
    if (l.zero_stage != 0 || l.pp != 1 || (l.ep <= 1 && sp <= 1)) return;
    auto d = diag(
        Severity::Error, "colossalai.moe_ddp_groups",
        "With zero_stage 0 and pp 1 the MoE plugin wraps the model in PyTorch DDP, which needs the expert data "
        "group to equal the data group: ep and sp must be 1 (here ep = " +
            str(l.ep) + ", sp = " + str(sp) + ").",
        "NameError: name 'dp_group' is not defined (meant: if pytorch DDP is used, dp_group and moe_dp_group are "
        "expected to be the same)",
        {"/layout/zero_stage", "/layout/ep", "/layout/sp"});
    add_fixes(d, &moe_ddp, p,
              {set_value("/layout/zero_stage", 1, "Use ZeRO-1"),
               Fix{"Set ep and sp to 1", {{"/layout/ep", 1}, {"/layout/sp", 1}}}});
    out.push_back(d);
}

// Microbatch counts (schedule/one_f_one_b.py, interleaved_pp.py, zero_bubble_pp.py).
void microbatches(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const Sizes s = sizes(p);
    if (l.pp <= 1 || s.microbatches <= 0) return;
    const long long m = s.microbatches;
    std::string msg, fe;
    if (is_1f1b(l) && m < l.pp) {
        msg = "1f1b needs at least pp = " + str(l.pp) + " microbatches to fill the pipeline; there are " + str(m) + ".";
        fe = "AssertionError: Number of microbatch should be larger than number of stages";
    } else if ((is_interleaved(l) || is_zbv(l)) && m % l.pp != 0) {
        msg = schedule_name(l) + " runs microbatches in rounds of pp = " + str(l.pp) + "; " + str(m) +
              " microbatches is not a multiple.";
        fe =
            "AssertionError: Number of microbatch should be an integer multiple of number of pipeline parallel devices";
    } else {
        return;
    }
    auto d = diag(Severity::Error, "colossalai.microbatches", msg, fe, {"/layout/num_microbatches", "/layout/pp"});
    std::vector<Fix> c;
    for (int v : nearest_first(static_cast<int>(m), range_values(l.pp, 8 * std::max<int>(l.pp, static_cast<int>(m)))))
        c.push_back(set_value("/layout/num_microbatches", v, "Use " + str(v) + " microbatches"));
    add_fixes(d, &microbatches, p, c);
    out.push_back(d);
}

void batch(const Project& p, Out& out) {
    batch_divisible(p, out, &batch, "colossalai.batch_divisible",
                    p.layout.pp > 1 ? "AssertionError: Batch size should divided by # microbatches" : "");
}

// ---- GeminiPlugin ----
// GeminiPlugin's axes (topology/group_checks.h, one implementation with the Gemini mesh builder).
void gemini_axes(const Project& p, Out& out) {
    const Layout& l = p.layout;
    auto found = topology::colossalai_gemini_axes_check(topology::from_project(p));
    if (!found) return;
    Diagnostic& d = *found;
    const std::vector<std::string>& fields = d.fields;
    Fix f{"Keep only tp and dp", {}};
    for (const auto& k : fields) f.changes.push_back({k, 1});
    if (sp_axis_mode(l.sp_mode)) f.changes.push_back({"/layout/sp_mode", "none"});
    add_fixes(d, &gemini_axes, p,
              {f, Fix{"Use HybridParallelPlugin", {{"/layout/framework", "colossalai"}, {"/layout/zero_stage", 1}}}});
    out.push_back(d);
}

void gemini_world(const Project& p, Out& out) {
    auto d = topology::colossalai_gemini_world_check(topology::from_project(p));
    if (!d) return;
    add_fixes(*d, &gemini_world, p, knob_candidates(p, {"/layout/tp"}, world_divisors(p)));
    out.push_back(std::move(*d));
}

void gemini_precision(const Project& p, Out& out) {
    const Precision pr = p.training.precision;
    const std::string pr_name = to_string(pr);
    if (pr == Precision::fp16 || pr == Precision::bf16) return;
    auto d = diag(Severity::Error, "colossalai.gemini_precision",
                  "GeminiPlugin trains in fp16 or bf16 only, not " + pr_name + ".",
                  "AssertionError: precision " + pr_name + " is not supported", {"/training/precision"});
    add_fixes(d, &gemini_precision, p,
              {set_value("/training/precision", "bf16", "Train in bf16"),
               set_value("/training/precision", "fp16", "Train in fp16")});
    out.push_back(d);
}

void gemini_zero(const Project& p, Out& out) {
    if (p.layout.zero_stage == 3 || p.layout.zero_stage == 0) return;
    out.push_back(
        diag(Severity::Info, "colossalai.gemini_zero_stage",
             "Gemini always shards parameters, gradients and optimizer states (ZeRO-3 with chunks); zero_stage " +
                 str(p.layout.zero_stage) + " is treated as 3.",
             "", {"/layout/zero_stage"}));
}

// ---- LowLevelZeroPlugin ----
void zero_plugin(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.zero_stage != 1 && l.zero_stage != 2) {
        auto d = diag(Severity::Error, "colossalai.zero_plugin_stage",
                      "LowLevelZeroPlugin runs ZeRO stage 1 or 2, not " + str(l.zero_stage) + ".",
                      "AssertionError: LowLevelZeroPlugin only supports stage 1/2 training", {"/layout/zero_stage"});
        add_fixes(d, &zero_plugin, p,
                  {set_value("/layout/zero_stage", 1, "Use ZeRO-1"), set_value("/layout/zero_stage", 2, "Use ZeRO-2")});
        out.push_back(d);
    }
}

// LowLevelZeroPlugin's axes (topology/group_checks.h, one implementation with its mesh builder).
void zero_plugin_axes(const Project& p, Out& out) {
    auto found = topology::colossalai_zero_plugin_axes_check(topology::from_project(p));
    if (!found) return;
    Diagnostic& d = *found;
    const std::vector<std::string> fields = d.fields;
    Fix f{"Use data parallelism only", {}};
    for (const auto& k : fields) f.changes.push_back({k, 1});
    add_fixes(d, &zero_plugin_axes, p, {f, Fix{"Use HybridParallelPlugin", {{"/layout/framework", "colossalai"}}}});
    out.push_back(d);
}

}   // namespace

std::string shardformer_model_name(const std::string& family) {
    const ShardformerPolicy* p = shardformer_policy(family);
    return p ? p->name : "";
}

const std::vector<RuleFn>& colossalai_rules() {
    static const std::vector<RuleFn> r = framework_rule_list({&world_divisible,
                                                              &sp_mode_unset,
                                                              &sp_mode_needs_tp,
                                                              &sp_size_ignored,
                                                              &world_divisible_sp,
                                                              &dp_matches,
                                                              &zero_stage_range,
                                                              &pp_style,
                                                              &model_chunks,
                                                              &zero_stage_with_pp,
                                                              &num_layers_per_stage,
                                                              &empty_stages,
                                                              &uneven_layers,
                                                              &model_policy,
                                                              &deepseek_v3_limits,
                                                              &model_sp_support,
                                                              &cai_tp_divides_heads,
                                                              &tp_divides_kv_heads,
                                                              &sp_divides_heads,
                                                              &seq_divisible,
                                                              &seq_divisible_ring,
                                                              &inner_ring_size,
                                                              &vocab_padding,
                                                              &precision_rule,
                                                              &zero_dp1,
                                                              &microbatches,
                                                              &batch,
                                                              &ring_attn_flash,
                                                              &model_flash,
                                                              &model_kernel_flags,
                                                              &kernels,
                                                              &fp8_recipe});
    return r;
}

const std::vector<RuleFn>& colossalai_moe_rules() {
    static const std::vector<RuleFn> r = framework_rule_list({&moe_zero2,
                                                              &world_divisible,
                                                              &sp_mode_unset,
                                                              &sp_mode_needs_tp,
                                                              &sp_size_ignored,
                                                              &moe_ring_attn,
                                                              &moe_dp_divisible_ep,
                                                              &world_divisible_sp,
                                                              &dp_matches,
                                                              &zero_stage_range,
                                                              &pp_style,
                                                              &model_chunks,
                                                              &num_layers_per_stage,
                                                              &empty_stages,
                                                              &uneven_layers,
                                                              &model_policy,
                                                              &moe_dense_model,
                                                              &deepseek_v3_limits,
                                                              &model_sp_support,
                                                              &moe_sp_with_pp,
                                                              &cai_tp_divides_heads,
                                                              &tp_divides_kv_heads,
                                                              &sp_divides_heads,
                                                              &moe_experts_divisible,
                                                              &moe_ddp,
                                                              &moe_stage_has_experts,
                                                              &seq_divisible,
                                                              &vocab_padding,
                                                              &precision_rule,
                                                              &zero_dp1,
                                                              &microbatches,
                                                              &batch,
                                                              &model_flash,
                                                              &model_kernel_flags,
                                                              &kernels,
                                                              &fp8_recipe});
    return r;
}

const std::vector<RuleFn>& colossalai_gemini_rules() {
    static const std::vector<RuleFn> r = framework_rule_list(
        {&gemini_precision, &gemini_world, &gemini_axes, &dp_matches, &gemini_zero, &model_policy,
         &cai_tp_divides_heads, &tp_divides_kv_heads, &vocab_padding, &batch},
        {&kernels, &fp8_recipe});
    return r;
}

const std::vector<RuleFn>& colossalai_zero_rules() {
    static const std::vector<RuleFn> r = framework_rule_list(
        {&zero_plugin, &zero_plugin_axes, &dp_matches, &precision_rule, &batch}, {&kernels, &fp8_recipe});
    return r;
}

}   // namespace paraplan::rules
