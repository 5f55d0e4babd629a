// Schedule catalogue, each schedule's requirements (with the framework's own error
// text) and dispatch to the generators.
#include "schedule/generate.h"

#include <algorithm>

namespace paraplan::schedule {
namespace {

using paraplan::Diagnostic;
using paraplan::Severity;

Diagnostic finding(Severity sev, std::string rule, std::string message, std::string framework_error,
                   std::vector<std::string> fields) {
    Diagnostic d;
    d.severity = sev;
    d.rule = std::move(rule);
    d.message = std::move(message);
    d.framework_error = std::move(framework_error);
    d.fields = std::move(fields);
    return d;
}

Fix set_field(std::string label, std::string field, int value) {
    Fix f;
    f.label = std::move(label);
    f.changes.push_back({std::move(field), value});
    return f;
}

int round_up(int x, int k) { return (x + k - 1) / k * k; }

const char* kPp = "/pp";
const char* kM = "/microbatches";
const char* kV = "/chunks";

}   // namespace

const std::vector<ScheduleInfo>& schedule_infos() {
    static const std::vector<ScheduleInfo> infos = {
        {"gpipe", "GPipe", "PyTorch ScheduleGPipe", false, false},
        {"1f1b", "1F1B (PipeDream-flush)", "Megatron, ColossalAI OneForwardOneBackwardSchedule, PyTorch Schedule1F1B",
         false, false},
        {"interleaved", "Interleaved 1F1B (ColossalAI)", "ColossalAI InterleavedSchedule", false, true},
        {"interleaved-megatron", "Interleaved 1F1B (Megatron)",
         "Megatron forward_backward_pipelining_with_interleaving", false, true},
        {"interleaved-pytorch", "Interleaved 1F1B (PyTorch)", "PyTorch ScheduleInterleaved1F1B", false, true},
        {"looped-bfs", "Looped BFS", "PyTorch ScheduleLoopedBFS", false, true},
        {"zbh1", "ZB-H1", "Qi et al. 2023 (PyTorch ScheduleInterleavedZeroBubble with one chunk)", true, false},
        {"zbh2", "ZB-H2", "Qi et al. 2023, handcrafted ZB-H2", true, false},
        {"interleaved-zb", "Interleaved zero bubble (ZB1P)", "PyTorch ScheduleInterleavedZeroBubble", true, true},
        {"zbv", "ZB-V", "PyTorch ScheduleZBVZeroBubble (ColossalAI zbv)", true, false},
        {"dualpipev", "DualPipeV", "DeepSeek DualPipe / PyTorch ScheduleDualPipeV", true, false},
    };
    return infos;
}

std::vector<std::string> schedule_names() {
    std::vector<std::string> n;
    for (const auto& i : schedule_infos()) n.push_back(i.name);
    return n;
}

const ScheduleInfo* find_schedule(const std::string& name) {
    for (const auto& i : schedule_infos())
        if (i.name == name) return &i;
    return nullptr;
}

GenerateResult generate(const ScheduleRequest& req) {
    GenerateResult r;
    auto& ds = r.diagnostics;
    const ScheduleInfo* info = find_schedule(req.schedule);
    if (!info) {
        std::string names;
        for (const auto& n : schedule_names()) names += (names.empty() ? "" : ", ") + n;
        ds.push_back(finding(Severity::Error, "schedule.unknown",
                             "Unknown schedule '" + req.schedule + "'. Known schedules: " + names + ".", "",
                             {"/schedule"}));
        return r;
    }
    const std::string& name = info->name;
    const bool v_shape = name == "zbv" || name == "dualpipev";
    const int pp = req.pp, m = req.microbatches;
    const int v = req.chunks > 0 ? req.chunks : (v_shape || info->multi_chunk ? 2 : 1);

    if (pp < 1)
        ds.push_back(finding(Severity::Error, "schedule.pp_positive",
                             "The pipeline needs at least one stage (pp = " + std::to_string(pp) + ").", "", {kPp}));
    if (m < 1)
        ds.push_back(finding(Severity::Error, "schedule.microbatches_positive",
                             "A step needs at least one microbatch (microbatches = " + std::to_string(m) + ").", "",
                             {kM}));
    if (req.chunks < 0)
        ds.push_back(finding(
            Severity::Error, "schedule.chunks_positive",
            "The number of model chunks per stage must be at least 1 (chunks = " + std::to_string(req.chunks) + ").",
            "", {kV}));
    if (has_errors(ds)) return r;
    // Keep requests within what a desktop tool can hold (~10^8 ops, a few GB).
    constexpr long long kMaxMicrobatchChunks = 30'000'000;
    if (static_cast<long long>(pp) * m * std::max(v, 2) > kMaxMicrobatchChunks) {
        ds.push_back(finding(Severity::Error, "schedule.too_large",
                             "pp x microbatches x chunks = " + std::to_string(static_cast<long long>(pp) * m * v) +
                                 " is beyond what Paraplan simulates (" + std::to_string(kMaxMicrobatchChunks / 2) +
                                 ").",
                             "", {kPp, kM, kV}));
        return r;
    }

    // Chunk count rules.
    if (!info->multi_chunk && !v_shape && v != 1) {
        ds.push_back(finding(Severity::Error, "schedule." + name + ".single_chunk",
                             info->title + " runs one model chunk per stage; got chunks = " + std::to_string(v) +
                                 ". Use an interleaved or V schedule for several chunks.",
                             "", {kV}));
        ds.back().fixes.push_back(set_field("Use one chunk per stage", kV, 1));
    }
    if (v_shape && v != 2) {
        // PyTorch ScheduleZBVZeroBubble / ScheduleDualPipeV constructors (DualPipeV reuses the ZBV text);
        // ColossalAI zbv hard-codes two chunks.
        ds.push_back(finding(
            Severity::Error, "schedule." + name + ".two_chunks",
            info->title + " places exactly two model chunks per stage in a V; got chunks = " + std::to_string(v) + ".",
            "ZBV requires exactly 2 stages per rank, but got " + std::to_string(v) + ".", {kV}));
        ds.back().fixes.push_back(set_field("Use two chunks per stage", kV, 2));
    }
    if (has_errors(ds)) return r;

    int group = req.microbatch_group_size > 0 ? req.microbatch_group_size : pp;

    if (name == "1f1b" || name == "gpipe") {
        if (m < pp) {
            // Megatron runs it (warmup = m); ColossalAI and PyTorch refuse.
            Diagnostic d = finding(
                Severity::Warning, "schedule." + name + ".microbatches_vs_stages",
                "Fewer microbatches (" + std::to_string(m) + ") than pipeline stages (" + std::to_string(pp) +
                    "): the pipeline never fills. Megatron runs it; ColossalAI and PyTorch refuse it.",
                name == "1f1b"
                    ? "Number of microbatch should be larger than number of stages"
                    : "Number of microbatches (" + std::to_string(m) +
                          ") must be greater than or equal to the number of stages (" + std::to_string(pp) + ").",
                {kM});
            d.fixes.push_back(set_field("Use " + std::to_string(pp) + " microbatches", kM, pp));
            ds.push_back(std::move(d));
        }
        r.schedule = name == "1f1b" ? make_1f1b(pp, m) : make_gpipe(pp, m);
        return r;
    }

    if (name == "interleaved") {
        // ColossalAI InterleavedSchedule.load_batch: nmb % stage_manager.num_stages == 0.
        if (m % pp != 0) {
            Diagnostic d = finding(
                Severity::Error, "schedule.interleaved.microbatches_multiple_of_pp",
                "ColossalAI's interleaved schedule needs the number of microbatches (" + std::to_string(m) +
                    ") to be a multiple of pp (" + std::to_string(pp) + ").",
                "Number of microbatch should be an integer multiple of number of pipeline parallel devices", {kM, kPp});
            d.fixes.push_back(
                set_field("Use " + std::to_string(round_up(m, pp)) + " microbatches", kM, round_up(m, pp)));
            ds.push_back(std::move(d));
            return r;
        }
        r.schedule = make_interleaved("interleaved", pp, m, v, pp, colossalai_interleaved_warmup(pp, m, v));
        return r;
    }

    if (name == "interleaved-megatron") {
        if (req.megatron_rule == MegatronRule::Legacy) {
            group = pp;   // microbatch groups did not exist before core v0.10
            if (m % pp != 0) {
                Diagnostic d = finding(Severity::Error, "schedule.interleaved-megatron.microbatches_multiple_of_pp",
                                       "Megatron core <= v0.9 needs the number of microbatches (" + std::to_string(m) +
                                           ") to be divisible by pp (" + std::to_string(pp) +
                                           ") with the interleaved schedule.",
                                       "number of microbatches (" + std::to_string(m) +
                                           ") is not divisible by pipeline-model-parallel-size (" + std::to_string(pp) +
                                           ") when using interleaved schedule",
                                       {kM, kPp});
                d.fixes.push_back(
                    set_field("Use " + std::to_string(round_up(m, pp)) + " microbatches", kM, round_up(m, pp)));
                ds.push_back(std::move(d));
                return r;
            }
        } else {
            // Megatron forward_backward_pipelining_with_interleaving (core >= v0.10).
            if (group > m || group < pp) {
                Diagnostic d = finding(
                    Severity::Error, "schedule.interleaved-megatron.group_range",
                    "Megatron's microbatch group size N (" + std::to_string(group) +
                        ") must lie in [pp, microbatches] = [" + std::to_string(pp) + ", " + std::to_string(m) + "].",
                    "The number of contiguous micro-batches in a virtual pipeline stageshould range in [PP=" +
                        std::to_string(pp) + " , M=" + std::to_string(m) + "]",
                    {kM, "/microbatch_group_size"});
                if (m < pp) d.fixes.push_back(set_field("Use " + std::to_string(pp) + " microbatches", kM, pp));
                ds.push_back(std::move(d));
                return r;
            }
            const int final_group = m % group;
            if (final_group > 0 && final_group < pp) {
                Diagnostic d = finding(
                    Severity::Error, "schedule.interleaved-megatron.final_group",
                    "The last microbatch group would hold " + std::to_string(final_group) + " microbatches (" +
                        std::to_string(m) + " mod N = " + std::to_string(group) + "), fewer than pp (" +
                        std::to_string(pp) + ").",
                    "The remainder of M (the total micro-batches) divided by N (number of contiguous micro-batches in "
                    "a "
                    "virtual pipeline stage) should be 0, or larger than or equal to the pipeline-parallel size, but "
                    "it is " +
                        std::to_string(final_group) +
                        ". Otherwise, it introduces dependency bubbles in the pipeline and reduces throughput.",
                    {kM, "/microbatch_group_size"});
                d.fixes.push_back(
                    set_field("Use " + std::to_string(round_up(m, group)) + " microbatches", kM, round_up(m, group)));
                ds.push_back(std::move(d));
                return r;
            }
        }
        r.schedule = make_interleaved("interleaved-megatron", pp, m, v, group,
                                      megatron_interleaved_warmup(pp, m, v, group, req.megatron_rule));
        return r;
    }

    if (name == "interleaved-pytorch" || name == "interleaved-zb") {
        const int rounds = std::max(1, m / pp);
        if (m % rounds != 0) {
            const bool zb = name == "interleaved-zb";
            Diagnostic d = finding(
                Severity::Error, "schedule." + name + ".microbatches_multiple_of_rounds",
                "PyTorch runs max(1, m // pp) = " + std::to_string(rounds) +
                    " rounds and needs the number of microbatches (" + std::to_string(m) + ") to be a multiple of it.",
                std::string(zb ? "Zero bubble" : "Interleaved 1F1B") +
                    " requires the number of microbatches to be a multiple of the number of rounds (" +
                    std::to_string(rounds) + "), but got " + std::to_string(m) + ".",
                {kM, kPp});
            d.fixes.push_back(
                set_field("Use " + std::to_string(round_up(m, rounds)) + " microbatches", kM, round_up(m, rounds)));
            ds.push_back(std::move(d));
            return r;
        }
        if (name == "interleaved-zb") r.schedule = make_interleaved_zb("interleaved-zb", pp, m, v);
        else
            r.schedule = make_interleaved("interleaved-pytorch", pp, m, v, pytorch_microbatches_per_round(pp, m),
                                          pytorch_interleaved_warmup(pp, m, v, 2));
        return r;
    }

    if (name == "looped-bfs") {
        r.schedule = make_looped_bfs(pp, m, v);
        return r;
    }
    if (name == "zbh1") {
        r.schedule = make_interleaved_zb("zbh1", pp, m, 1);
        return r;
    }
    if (name == "zbh2") {
        r.schedule = make_zbh2(pp, m);
        return r;
    }
    if (name == "zbv") {
        if (m % pp != 0) {
            // ColossalAI ZeroBubbleVPipeScheduler.load_batch; PyTorch pads internally and accepts it.
            Diagnostic d = finding(
                Severity::Warning, "schedule.zbv.microbatches_multiple_of_pp",
                "ColossalAI's zbv needs the number of microbatches (" + std::to_string(m) +
                    ") to be a multiple of pp (" + std::to_string(pp) + "); PyTorch's ZBVZeroBubble accepts it.",
                "Number of microbatch should be an integer multiple of number of pipeline parallel devices", {kM, kPp});
            d.fixes.push_back(
                set_field("Use " + std::to_string(round_up(m, pp)) + " microbatches", kM, round_up(m, pp)));
            ds.push_back(std::move(d));
        }
        r.schedule = make_zbv(pp, m);
        return r;
    }
    if (name == "dualpipev") {
        // PyTorch ScheduleDualPipeV; DeepSeek dualpipev.py asserts num_chunks >= num_ranks * 2.
        if (m < 2 * pp) {
            Diagnostic d = finding(Severity::Error, "schedule.dualpipev.microbatches_vs_stages",
                                   "DualPipeV needs at least as many microbatches as virtual stages (2 * pp = " +
                                       std::to_string(2 * pp) + "); got " + std::to_string(m) + ".",
                                   "DualPipeV requires at least as many microbatches as stages, but got " +
                                       std::to_string(m) + " microbatches and " + std::to_string(2 * pp) + " stages.",
                                   {kM, kPp});
            d.fixes.push_back(set_field("Use " + std::to_string(2 * pp) + " microbatches", kM, 2 * pp));
            ds.push_back(std::move(d));
            return r;
        }
        r.schedule = make_dualpipev(pp, m);
        return r;
    }
    ds.push_back(
        finding(Severity::Error, "schedule.unknown", "Schedule '" + name + "' has no generator.", "", {"/schedule"}));
    return r;
}

}   // namespace paraplan::schedule
