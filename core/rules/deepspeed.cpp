// DeepSpeed v0.16 (runtime/config.py batch rule, runtime/pipe/engine.py, pipe/module.py).
#include "rules/deepspeed.h"

#include "topology/group_checks.h"
#include "topology/mesh_request.h"

#include "rules/common.h"
#include "rules/shared_rules.h"
#include "project/sequence_parallel.h"
#include "rules/predicates.h"

#include <algorithm>

namespace paraplan::rules {
namespace {

// world % (pp x tp) == 0 (topology/group_checks.h, one implementation with the rank map builder).
void ds_world(const Project& p, Out& out) {
    auto d = topology::deepspeed_world_check(topology::from_project(p));
    if (!d) return;
    add_fixes(*d, &ds_world, p, knob_candidates(p, {"/layout/pp", "/layout/tp"}, world_divisors(p)));
    out.push_back(std::move(*d));
}

void ds_axes(const Project& p, Out& out) {
    const Layout& l = p.layout;
    std::vector<std::string> fields;
    // Only sequence parallelism the layout actually runs (an sp_mode with tp = 1 and sp = 1 splits nothing).
    if (sequence_parallel_in_use(l, traits_of(l))) fields.push_back("/layout/sp");
    if (l.cp > 1) fields.push_back("/layout/cp");
    if (l.pp > 1 && (l.chunks != 1 || !runs_schedule(l.framework, l.schedule))) fields.push_back("/layout/schedule");
    if (fields.empty()) return;
    auto d = diag(Severity::Error, "deepspeed.axes",
                  "DeepSpeed's PipelineModule runs 1F1B with one stage per rank, and this DeepSpeed version has no "
                  "sequence or context parallel axis.",
                  "", fields);
    add_fixes(d, &ds_axes, p,
              {Fix{"Use plain 1f1b without sp/cp",
                   {{"/layout/sp", 1},
                    {"/layout/sp_mode", "none"},
                    {"/layout/cp", 1},
                    {"/layout/schedule", "1f1b"},
                    {"/layout/chunks", 1}}}});
    out.push_back(d);
}

void ds_zero(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (l.zero_stage > 3 || l.zero_stage < 0) {
        auto d = diag(Severity::Error, "deepspeed.zero_stage",
                      "DeepSpeed ZeRO stages are 0 to 3, not " + str(l.zero_stage) + ".",
                      "AssertionError: Maximum supported ZeRO stage is 3", {"/layout/zero_stage"});
        add_fixes(d, &ds_zero, p, {set_value("/layout/zero_stage", 3, "Use ZeRO-3")});
        out.push_back(d);
        return;
    }
    if (l.pp > 1 && l.zero_stage >= 2) {
        auto d = diag(Severity::Error, "deepspeed.zero_with_pp",
                      "DeepSpeed pipelines accept ZeRO 0 or 1 only; zero_stage is " + str(l.zero_stage) +
                          " with pp = " + str(l.pp) + ".",
                      "AssertionError: ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism",
                      {"/layout/zero_stage", "/layout/pp"});
        add_fixes(d, &ds_zero, p,
                  {set_value("/layout/zero_stage", 1, "Use ZeRO-1"), Fix{"Drop the pipeline", {{"/layout/pp", 1}}}});
        out.push_back(d);
        return;
    }
    if (l.offload != Offload::none && l.zero_stage == 0) {
        auto d = diag(Severity::Error, "deepspeed.offload_needs_zero",
                      "offload_optimizer works with ZeRO stages 1–3; zero_stage is 0.", "",
                      {"/layout/offload", "/layout/zero_stage"});
        add_fixes(d, &ds_zero, p,
                  {set_value("/layout/zero_stage", l.pp > 1 ? 1 : 2, "Use ZeRO-" + str(l.pp > 1 ? 1 : 2)),
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
                         : "DeepSpeed-MoE needs ep to divide both the " + str(E) + " experts and dp = " + str(s.dp) +
                               " (ep = " + str(l.ep) + ").",
                  "", {"/layout/ep"});
    add_fixes(d, &ds_experts, p, knob_candidates(p, {"/layout/ep"}, E > 0 ? divisors(E) : std::vector<int>{1}));
    out.push_back(d);
}

// train_batch_size == micro * gradient_accumulation_steps * dp (runtime/config.py)
void ds_batch(const Project& p, Out& out) {
    const Sizes s = sizes(p);
    const long long gbs = p.training.global_batch_size, mbs = p.training.micro_batch_size;
    if (s.dp <= 0 || mbs <= 0 || gbs <= 0 || batch_splits(gbs, mbs, s.dp)) return;
    const long long gas = std::max<long long>(1, gbs / mbs / s.dp);
    batch_divisible(
        p, out, &ds_batch, "deepspeed.batch",
        "AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
        "gradient_acc_step * world_size " +
            str(gbs) + " != " + str(mbs) + " * " + str(gas) + " * " + str(s.dp));
}

// The pipeline engine's microbatches per train_batch are gradient_accumulation_steps
// (PipelineEngine.__init__: self.micro_batches = self.gradient_accumulation_steps(), v0.19.5
// runtime/pipe/engine.py); without pp the engine accumulates the same count.
void ds_num_microbatches(const Project& p, Out& out) {
    microbatches_not_a_knob(p, out, &ds_num_microbatches, "deepspeed.num_microbatches", "DeepSpeed");
}

}   // namespace

const std::vector<RuleFn>& deepspeed_rules() {
    static const std::vector<RuleFn> r = framework_rule_list(
        {&ds_world, &ds_axes, &ds_zero, &ds_experts, &dp_matches, &ds_batch, &ds_num_microbatches},
        {&fp8_all_gather_ignored});
    return r;
}

}   // namespace paraplan::rules
