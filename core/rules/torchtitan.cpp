// torchtitan v0.2.2 (torchtitan/distributed/parallel_dims.py, config/job_config.py,
// distributed/pipeline_parallel.py); "HEAD" notes name checks added after that release.
#include "rules/torchtitan.h"

#include "topology/group_checks.h"
#include "topology/mesh_request.h"

#include "project/fp8.h"
#include "rules/common.h"
#include "rules/shared_rules.h"
#include "project/framework.h"
#include "rules/predicates.h"

#include <algorithm>

namespace paraplan::rules {
namespace {

void tt_degrees(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.dp_shard == 0 || l.dp_shard < -1) {
        auto d = diag(Severity::Error, "torchtitan.degrees",
                      "data_parallel_shard_degree is " + str(l.dp_shard) + "; it must be -1 (infer) or >= 1.",
                      "AssertionError: dp_shard must -1 or >=1.", {"/layout/dp_shard"});
        add_fixes(d, &tt_degrees, p, {set_value("/layout/dp_shard", -1, "Infer dp_shard")});
        out.push_back(d);
        return;
    }
    if (l.dp_replicate < 1 || l.cp < 1 || l.tp < 1 || l.pp < 1 || l.ep < 1) {
        auto d = diag(Severity::Error, "torchtitan.degrees", "Every parallel degree except dp_shard must be >= 1.",
                      "AssertionError: Parallelism degree should be >= 1, except for dp_shard",
                      {"/layout/dp_replicate"});
        Fix f{"Set degrees below 1 to 1", {}};
        for (const auto& [k, v] : std::vector<std::pair<std::string, int>>{{"/layout/dp_replicate", l.dp_replicate},
                                                                           {"/layout/cp", l.cp},
                                                                           {"/layout/tp", l.tp},
                                                                           {"/layout/pp", l.pp},
                                                                           {"/layout/ep", l.ep}})
            if (v < 1) f.changes.push_back({k, 1});
        add_fixes(d, &tt_degrees, p, {f});
        out.push_back(d);
    }
}

// dp_replicate * dp_shard * cp * tp * pp == WORLD_SIZE (topology/group_checks.h, one implementation with
// the rank map builder).
void tt_world(const Project& p, Out& out) {
    const Layout& l = p.layout;
    auto found = topology::torchtitan_world_check(topology::from_project(p));
    if (!found) return;
    Diagnostic& d = *found;
    std::vector<Fix> c;
    if (l.dp_shard != -1) c.push_back(set_value("/layout/dp_shard", -1, "Infer dp_shard from the world size"));
    for (auto& f :
         knob_candidates(p, {"/layout/tp", "/layout/pp", "/layout/cp", "/layout/dp_replicate"}, world_divisors(p))) {
        if (l.dp_shard != -1) {
            f.changes.push_back({"/layout/dp_shard", -1});
            f.label += ", infer dp_shard";
        }
        c.push_back(std::move(f));
    }
    add_fixes(d, &tt_world, p, c);
    out.push_back(d);
}

void tt_sp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if ((l.sp_mode == SpMode::none || l.sp_mode == SpMode::split_gather) && l.sp <= 1) return;
    auto d = diag(
        Severity::Error, "torchtitan.sp_mode",
        "torchtitan applies sequence parallelism inside tp automatically and splits long sequences with cp; it "
        "has no separate sp axis.",
        "", {"/layout/sp", "/layout/sp_mode"});
    add_fixes(
        d, &tt_sp, p,
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
    auto d = diag(
        Severity::Error, "torchtitan.ep_divides",
        "Expert parallelism borrows the dp_shard × cp × tp = " + str(pool) + " ranks; ep = " + str(l.ep) +
            " does not divide them.",
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
                      : E % l.ep
                          ? "ep = " + str(l.ep) + " does not divide the " + str(E) + " experts."
                          : "expert tensor parallel degree " + str(l.etp) + " must equal tp (" + str(l.tp) + ") or 1.";
    auto d = diag(Severity::Error, "torchtitan.experts", msg,
                  E > 0 && E % l.ep == 0 ? "Currently we only support ETP=TP or ETP=1" : "",
                  {"/layout/ep", "/layout/etp"});
    std::vector<Fix> c{set_value("/layout/etp", 0, "Use etp = tp"), set_value("/layout/etp", 1, "Use etp = 1")};
    for (auto& f : knob_candidates(p, {"/layout/ep"}, E > 0 ? divisors(E) : std::vector<int>{1})) c.push_back(f);
    add_fixes(d, &tt_experts, p, c);
    out.push_back(d);
}

void tt_heads(const Project& p, Out& out) { tp_divides_heads(p, out, &tt_heads, "torchtitan.tp_divides_heads", ""); }

// HEAD validates n_kv_heads % tp at config time (torchtitan PR #2577).
void tt_kv_heads(const Project& p, Out& out) {
    const int KV = p.model.kv_heads, tp = p.layout.tp;
    if (KV <= 0 || tp <= 1 || KV % tp == 0 || p.model.heads % tp != 0) return;
    auto d = diag(
        Severity::Error, "torchtitan.tp_divides_kv_heads",
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
                  "seq_len " + str(seq) + " must be a multiple of tp × 2 × cp = " + str(k) +
                      " (context parallel load balancing).",
                  "ValueError: Sequence length " + str(seq) + " must be divisible by the product of TP degree (" +
                      str(l.tp) + ") and 2 * CP degree (" + str(2 * l.cp) + ").",
                  {"/training/seq_len", "/layout/cp", "/layout/tp"});
    std::vector<Fix> c = seq_len_fixes(seq, k);
    add_fixes(d, &tt_seq, p, c);
    out.push_back(d);
}

// pipeline_parallel.py: single-stage schedules 1 stage per rank, multi-stage >= 2, V exactly 2; no empty stage.
void tt_pp(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.pp <= 1) return;
    std::string fe;
    const Schedule s = resolved_schedule(l.schedule, "torchtitan");
    const bool one_f_one_b = s == Schedule::one_f_one_b;
    if (one_f_one_b && l.chunks != 1) fe = "ValueError: Single stage schedule requires exactly 1 stage per rank";
    else if (s == Schedule::interleaved_pytorch && l.chunks < 2)
        fe = "ValueError: Multi-stage schedule requires at least 2 stages per rank";
    else if (s == Schedule::zbv && l.chunks != 2) fe = "ValueError: v schedules assume 2 stages per rank";
    if (!fe.empty()) {
        auto d = diag(Severity::Error, "torchtitan.pp_stages",
                      "Schedule " + std::string(to_string(l.schedule)) + " cannot run chunks = " + str(l.chunks) +
                          " stages per rank.",
                      fe, {"/layout/chunks", "/layout/schedule"});
        add_fixes(d, &tt_pp, p,
                  {set_value("/layout/chunks", one_f_one_b ? 1 : 2, "Set chunks to " + str(one_f_one_b ? 1 : 2)),
                   Fix{"Use 1f1b", {{"/layout/schedule", "1f1b"}, {"/layout/chunks", 1}}}});
        out.push_back(d);
        return;
    }
    const int stages = l.pp * std::max(1, l.chunks);
    if (p.model.layers > 0 && p.model.layers < stages) {
        auto d = diag(Severity::Error, "torchtitan.pp_stages",
                      "pp × chunks = " + str(stages) + " stages but the model has only " + str(p.model.layers) +
                          " layers; a stage would be empty.",
                      "", {"/layout/pp", "/layout/chunks"});
        add_fixes(d, &tt_pp, p, knob_candidates(p, {"/layout/pp"}, world_divisors(p)));
        out.push_back(d);
    }
}

void tt_batch(const Project& p, Out& out) {
    const Sizes s = sizes(p);
    const long long gbs = p.training.global_batch_size, mbs = p.training.micro_batch_size;
    // With pp > 1 the local batch is pipeline_parallel_microbatch_size x the flush's microbatches
    // (the exporter writes local_batch_size = micro x num_microbatches); train.py asserts
    // global % (local_batch_size x dp) == 0 and accumulates global / (local x dp) flushes (v0.2.2).
    const long long nmb = layout_microbatches(p.layout);
    const long long local = mbs * (nmb > 0 ? nmb : 1);
    if (s.dp <= 0 || mbs <= 0 || gbs <= 0 || gbs % (local * s.dp) == 0) return;
    const long long per = local * s.dp;
    auto d = diag(Severity::Error, "torchtitan.global_batch",
                  "The global batch " + str(gbs) + " is not a multiple of local batch " + str(local) +
                      (nmb > 0 ? " (micro batch " + str(mbs) + " × " + str(nmb) + " microbatches)" : "") + " × dp " +
                      str(s.dp) + " = " + str(per) + ".",
                  "AssertionError: global batch size must be multiple of local batch size times data-parallel "
                  "degree (" +
                      str(per) + " != " + str(gbs) + ")",
                  {"/training/global_batch_size", "/training/micro_batch_size"});
    std::vector<Fix> c = global_batch_fixes(gbs, per);
    if (nmb > 0) c.push_back(set_value("/layout/num_microbatches", 0, "Derive num_microbatches from the batch sizes"));
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
                  "Number of microbatches (" + str(s.microbatches) + ") is less than the total number of stages (" +
                      str(stages) + ") which may result in a bubble in the pipeline.",
                  {"/layout/num_microbatches"});
    add_fixes(d, &tt_microbatches, p,
              {set_value("/layout/num_microbatches", stages, "Use " + str(stages) + " microbatches")});
    out.push_back(d);
}

// components/quantization/float8.py (Float8LinearConverter.__init__): a recipe_name (rowwise)
// together with enable_fsdp_float8_all_gather is refused; the FP8 all-gather is tensorwise only.
// Other recipes without one (mxfp8: MXLinear has no all-gather setting) and dp_shard 1 (the
// converter turns it on only when parallel_dims.dp_shard_enabled) are ignored: a warning, as the
// estimate counts 16-bit all-gathers there (FrameworkTraits::fp8_all_gather_recipes).
void tt_fp8_all_gather(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!fp8_on(l, p.training) || !l.fp8_all_gather) return;
    if (l.fp8_recipe != Fp8Recipe::rowwise) {
        if (!gathers_fp8_weights(l.framework, l.fp8_recipe)) return fp8_all_gather_ignored(p, out, &tt_fp8_all_gather);
        const Sizes s = sizes(p);
        const int shard = l.dp_shard > 0 ? l.dp_shard : s.dp / std::max(1, l.dp_replicate);
        if (s.dp <= 0 || shard > 1) return;
        auto d = diag(Severity::Warning, "torchtitan.fp8_all_gather",
                      "torchtitan turns the FP8 all-gather on only where FSDP shards over dp_shard > 1; with "
                      "dp_shard " +
                          str(shard) + " fp8_all_gather is ignored and the weights are gathered in 16-bit.",
                      "", {"/layout/fp8_all_gather", "/layout/dp_shard"});
        add_fixes(d, &tt_fp8_all_gather, p,
                  {set_value("/layout/fp8_all_gather", false, "Gather the weights in 16-bit")});
        out.push_back(d);
        return;
    }
    auto d = diag(Severity::Error, "torchtitan.fp8_all_gather",
                  "torchtitan gathers FP8 weights with the tensorwise recipe only: the rowwise recipe cannot be "
                  "combined with the FP8 all-gather.",
                  "AssertionError: using `float8_config.enable_fsdp_float8_all_gather` together with "
                  "`float8_config.recipe_name` is not supported",
                  {"/layout/fp8_all_gather", "/layout/fp8_recipe"});
    add_fixes(d, &tt_fp8_all_gather, p,
              {set_value("/layout/fp8_all_gather", false, "Gather the weights in 16-bit"),
               set_value("/layout/fp8_recipe", "tensorwise", "Use the tensorwise recipe")});
    out.push_back(d);
}

// torchtitan builds its models from PyTorch modules (nn.Linear, torchao's Float8Linear / MXLinear
// converters, SDPA / FlexAttention): v0.2.2 has no Transformer Engine path, nor a switch for one in
// config/job_config.py; its kernels are eager or torch.compile ([compile] enable).
void tt_kernels(const Project& p, Out& out) {
    if (p.layout.kernels != KernelStack::te) return;
    auto d = diag(Severity::Warning, "torchtitan.kernels",
                  "torchtitan has no Transformer Engine kernels: kernels \"te\" cannot be exported (job.toml "
                  "runs eager PyTorch) and the estimate's fused-kernel figures do not apply. Use \"compile\" "
                  "([compile] enable) or \"eager\".",
                  "", {"/layout/kernels"});
    add_fixes(d, &tt_kernels, p,
              {set_value("/layout/kernels", "compile", "Compile the model (torch.compile)"),
               set_value("/layout/kernels", "eager", "Run eager PyTorch kernels")});
    out.push_back(d);
}

// v0.2.2 config/job_config.py: Float8Linear recipe_name tensorwise, rowwise, rowwise_with_gw_hp;
// MX formats come from the separate converter quantize.linear.mx. No delayed or block-wise scaling.
void tt_fp8_recipe(const Project& p, Out& out) {
    fp8_recipe_accepted(p, out, &tt_fp8_recipe, "torchtitan.fp8_recipe", "");
}

}   // namespace

const std::vector<RuleFn>& torchtitan_rules() {
    static const std::vector<RuleFn> r = framework_rule_list(
        {&tt_degrees, &tt_world, &tt_sp, &tt_ep, &tt_experts, &dp_matches, &tt_heads, &tt_kv_heads, &tt_seq, &tt_pp,
         &tt_batch, &tt_microbatches},
        {&tt_fp8_recipe, &fp8_recipe_gpu, &tt_fp8_all_gather, &tt_kernels});
    return r;
}

}   // namespace paraplan::rules
