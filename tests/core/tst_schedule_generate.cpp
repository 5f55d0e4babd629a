// Schedule generators against the frameworks' own worked examples and formulas.
#include "core/schedule_test_util.h"
#include "schedule/generate.h"

#include <QtTest>

using namespace paraplan::schedule;
using schedule_test::make;
using schedule_test::order;

namespace {

ScheduleRequest request(const std::string& name, int pp, int m, int v = 0) {
    ScheduleRequest r;
    r.schedule = name;
    r.pp = pp;
    r.microbatches = m;
    r.chunks = v;
    return r;
}

const paraplan::Diagnostic* find_rule(const std::vector<paraplan::Diagnostic>& ds, const std::string& rule) {
    for (const auto& d : ds)
        if (d.rule == rule) return &d;
    return nullptr;
}

}   // namespace

class TestScheduleGenerate : public QObject {
    Q_OBJECT
private slots:
    void oneFOneB_colossalaiExample() {
        // OneForwardOneBackwardSchedule.run_forward_backward (ColossalAI v0.5.1), S=4, M=8: warmup
        // min(S - s - 1, M), derived by hand; Megatron's forward_backward_pipelining_without_interleaving is the same.
        const auto s = make("1f1b", 4, 8);
        QCOMPARE(order(s, 0), std::string("F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7"));
        QCOMPARE(order(s, 1), std::string("F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 B6 B7"));
        QCOMPARE(order(s, 2), std::string("F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7"));
        QCOMPARE(order(s, 3), std::string("F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7"));
    }
    void oneFOneB_megatronPp2() {
        // forward_backward_pipelining_without_interleaving (Megatron core_v0.19.0), PP=2, M=4, rank 0.
        QCOMPARE(order(make("1f1b", 2, 4), 0), std::string("F0 F1 B0 F2 B1 F3 B2 B3"));
    }
    void oneFOneB_warmup() {
        QCOMPARE(megatron_1f1b_warmup(4, 8), (std::vector<int>{3, 2, 1, 0}));
        QCOMPARE(megatron_1f1b_warmup(4, 2), (std::vector<int>{2, 2, 1, 0}));   // min(pp - s - 1, m)
    }
    void gpipe_allForwardsThenBackwards() {
        const auto s = make("gpipe", 3, 3);
        for (int st = 0; st < 3; ++st) QCOMPARE(order(s, st), std::string("F0 F1 F2 B0 B1 B2"));
    }
    void interleaved_colossalaiExample() {
        // InterleavedSchedule (colossalai/pipeline/schedule/interleaved_pp.py, v0.5.1), S=2, C=2, M=4,
        // derived by hand from its chunk and warmup rules.
        const auto s = make("interleaved", 2, 4, 2);
        QCOMPARE(order(s, 0),
                 std::string("F0c0 F1c0 F0c1 F1c1 F2c0 B0c1 F3c0 B1c1 F2c1 B0c0 F3c1 B1c0 B2c1 B3c1 B2c0 B3c0"));
        QCOMPARE(order(s, 1),
                 std::string("F0c0 F1c0 F0c1 B0c1 F1c1 B1c1 F2c0 B0c0 F3c0 B1c0 F2c1 B2c1 F3c1 B3c1 B2c0 B3c0"));
    }
    void interleaved_warmups() {
        // Derived by hand from Megatron get_pp_rank_microbatches (schedules.py, core_v0.19.0) and
        // PyTorch ScheduleInterleaved1F1B / ScheduleInterleavedZeroBubble (pipelining/schedules.py).
        QCOMPARE(megatron_interleaved_warmup(4, 8, 2, 4, MegatronRule::Current), (std::vector<int>{10, 8, 6, 4}));
        QCOMPARE(megatron_interleaved_warmup(4, 4, 2, 4, MegatronRule::Current), (std::vector<int>{8, 8, 6, 4}));
        QCOMPARE(colossalai_interleaved_warmup(4, 8, 2), (std::vector<int>{10, 8, 6, 4}));
        QCOMPARE(pytorch_interleaved_warmup(4, 8, 2, 2), (std::vector<int>{10, 8, 6, 4}));
        QCOMPARE(pytorch_interleaved_warmup(4, 10, 2, 2), (std::vector<int>{11, 9, 7, 5}));
        QCOMPARE(pytorch_interleaved_warmup(4, 6, 2, 2), (std::vector<int>{12, 10, 8, 6}));
        QCOMPARE(pytorch_interleaved_warmup(4, 8, 2, 1), (std::vector<int>{7, 6, 5, 4}));
        // Legacy Megatron (core <= v0.9) ran everything as warmup when m == pp.
        QCOMPARE(megatron_interleaved_warmup(4, 4, 2, 4, MegatronRule::Legacy), (std::vector<int>{8, 8, 8, 8}));
        QCOMPARE(pytorch_microbatches_per_round(4, 10), 5);
        QCOMPARE(pytorch_microbatches_per_round(4, 3), 3);
    }
    void interleaved_megatronGroups() {
        // Megatron get_schedule_table with N = 5 > pp = 4, m = 10: groups of five
        // microbatches, each group over chunk 0 then chunk 1.
        ScheduleRequest r = request("interleaved-megatron", 4, 10, 2);
        r.microbatch_group_size = 5;
        auto g = generate(r);
        QVERIFY(g.schedule);
        const auto first = order(*g.schedule, 3).substr(0, 39);
        // rank 3 warmup = 0 * 2 + 1 * 5 = 5 forwards: mbs 0..4 on chunk 0, then 1F1B.
        QCOMPARE(first, std::string("F0c0 F1c0 F2c0 F3c0 F4c0 F0c1 B0c1 F1c1"));
        // The PyTorch variant uses rounds of n / max(1, n // pp) = 5 microbatches too: same order.
        QCOMPARE(order(make("interleaved-pytorch", 4, 10, 2), 3), order(*g.schedule, 3));
    }
    void interleaved_megatronLegacyAllWarmup() {
        ScheduleRequest r = request("interleaved-megatron", 2, 2, 2);
        r.megatron_rule = MegatronRule::Legacy;
        auto g = generate(r);
        QVERIFY(g.schedule);
        QCOMPARE(order(*g.schedule, 1), std::string("F0c0 F1c0 F0c1 F1c1 B0c1 B1c1 B0c0 B1c0"));
    }
    void loopedBfs_order() {
        QCOMPARE(order(make("looped-bfs", 2, 2, 2), 0), std::string("F0c0 F1c0 F0c1 F1c1 B1c1 B0c1 B1c0 B0c0"));
    }
    void zbh1_keepsRankPendingWeights() {
        // PyTorch ZB1P with one chunk: rank r emits W once r backwards ran.
        const auto s = make("zbh1", 4, 8);
        QCOMPARE(order(s, 0), std::string("F0 F1 F2 F3 I0 W0 F4 I1 W1 F5 I2 W2 F6 I3 W3 F7 I4 W4 I5 W5 I6 W6 I7 W7"));
        QCOMPARE(order(s, 3), std::string("F0 I0 F1 I1 F2 I2 F3 I3 W0 F4 I4 W1 F5 I5 W2 F6 I6 W3 F7 I7 W4 W5 W6 W7"));
    }
    void zbh2_extraWarmupForwards() {
        // Worker i holds (2p - 2i + 1) microbatches: stage s runs 2(pp - s) - 1 forwards first.
        const auto s = make("zbh2", 4, 12);
        for (int st = 0; st < 4; ++st) {
            const auto& ops = s.stages[static_cast<std::size_t>(st)];
            int lead = 0;
            while (ops[static_cast<std::size_t>(lead)].kind == OpKind::Forward) ++lead;
            QCOMPARE(lead, 2 * (4 - st) - 1);
        }
    }
    void zbv_pytorchWarmupShape() {
        // ScheduleZBVZeroBubble: rank r: 2(pp - r) - 1 F on chunk 0, r pairs F1 F0, then F I W on chunk 1.
        const auto s = make("zbv", 4, 8);
        QCOMPARE(s.placement, Placement::V);
        QCOMPARE(order(s, 1).substr(0, 49), std::string("F0c0 F1c0 F2c0 F3c0 F4c0 F0c1 F5c0 F1c1 I0c1 W0c1"));
        QCOMPARE(order(s, 3).substr(0, 44), std::string("F0c0 F0c1 F1c0 F1c1 F2c0 F2c1 F3c0 F3c1 I0c1"));
    }
    void zbv_agreesWithColossalaiUntilCooldown() {
        // Output of ColossalAI v0.5.1 PipelineGraph(n_stage=2, n_micro=4, f=b=w=c=1, mem as in its
        // zerobubble docs, h=64 a=4 s=1024).get_v_schedule() (pipeline/schedule/v_schedule.py), stage 0. ColossalAI's
        // cost-driven generator reorders the final Ws; up to there the orders agree.
        const std::string colossal =
            "F0c0 F1c0 F2c0 F0c1 B0c1 W0c1 F1c1 B1c1 W1c1 F3c0 B0c0 W0c0 F2c1 B2c1 W2c1 B1c0 W1c0 F3c1 B3c1";
        QCOMPARE(order(make("zbv", 2, 4), 0, true).substr(0, colossal.size()), colossal);
    }
    void vPlacement_mapping() {
        // V placement (PyTorch ScheduleZBVZeroBubble, Qi et al. §6): pp 4, 8 stages -> ranks [0,1,2,3,3,2,1,0].
        auto s = make("zbv", 4, 8);
        std::vector<int> ranks;
        for (int vs = 0; vs < 8; ++vs) ranks.push_back(s.stage_of(vs));
        QCOMPARE(ranks, (std::vector<int>{0, 1, 2, 3, 3, 2, 1, 0}));
        QCOMPARE(s.virtual_stage(0, 1), 7);
        auto l = make("interleaved", 4, 8, 2);
        ranks.clear();
        for (int vs = 0; vs < 8; ++vs) ranks.push_back(l.stage_of(vs));
        QCOMPARE(ranks, (std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3}));
    }
    void dualpipev_overlapsForwardAndBackward() {
        const auto s = make("dualpipev", 4, 10);
        int pairs = 0;
        for (const auto& ops : s.stages)
            for (std::size_t i = 0; i < ops.size(); ++i)
                if (ops[i].overlap_with_next) {
                    ++pairs;
                    QCOMPARE(ops[i].kind, OpKind::Forward);
                    QCOMPARE(ops[i + 1].kind, OpKind::FullBackward);
                    QVERIFY(ops[i].chunk != ops[i + 1].chunk);
                }
        // Step 4 runs 2 (m - 2pp + r + 1) overlapped units on rank r (one fewer on the last
        // rank), step 5 pp - r - 1 more.
        int expected = 0;
        for (int r = 0; r < 4; ++r) expected += 2 * (10 - 8 + r + 1) - (r == 3 ? 1 : 0) + (4 - r - 1);
        QCOMPARE(pairs, expected);
    }

    // --- requirements, reported with the framework's own words ---
    void requirement_megatronFinalGroup() {
        // Megatron forward_backward_pipelining_with_interleaving: VPP with M=6, PP=4, N=4 fails (remainder 2 < 4).
        auto g = generate(request("interleaved-megatron", 4, 6, 2));
        QVERIFY(!g.schedule);
        const auto* d = find_rule(g.diagnostics, "schedule.interleaved-megatron.final_group");
        QVERIFY(d);
        QVERIFY(d->framework_error.find(
                    "should be 0, or larger than or equal to the pipeline-parallel size, but it is 2") !=
                std::string::npos);
        QVERIFY(!d->fixes.empty());
        QCOMPARE(d->fixes[0].changes[0].value.get<int>(), 8);
    }
    void requirement_megatronGroupRange() {
        auto g = generate(request("interleaved-megatron", 4, 3, 2));
        QVERIFY(!g.schedule);
        const auto* d = find_rule(g.diagnostics, "schedule.interleaved-megatron.group_range");
        QVERIFY(d);
        QVERIFY(d->framework_error.find("[PP=4 , M=3]") != std::string::npos);
    }
    void requirement_megatronLegacy() {
        ScheduleRequest r = request("interleaved-megatron", 4, 10, 2);
        r.megatron_rule = MegatronRule::Legacy;
        auto g = generate(r);
        QVERIFY(!g.schedule);
        QVERIFY(find_rule(g.diagnostics, "schedule.interleaved-megatron.microbatches_multiple_of_pp"));
        // The current rule accepts 10 with N = 5 ... and with N = pp = 4 the remainder 2 < 4 fails.
        r.megatron_rule = MegatronRule::Current;
        QVERIFY(!generate(r).schedule);
        r.microbatch_group_size = 5;
        QVERIFY(generate(r).schedule);
    }
    void requirement_colossalaiInterleaved() {
        auto g = generate(request("interleaved", 4, 6, 2));
        QVERIFY(!g.schedule);
        const auto* d = find_rule(g.diagnostics, "schedule.interleaved.microbatches_multiple_of_pp");
        QVERIFY(d);
        QCOMPARE(
            d->framework_error,
            std::string("Number of microbatch should be an integer multiple of number of pipeline parallel devices"));
    }
    void requirement_pytorchRounds() {
        // n = 9, pp = 4: rounds = 2 and 9 % 2 != 0.
        auto g = generate(request("interleaved-pytorch", 4, 9, 2));
        QVERIFY(!g.schedule);
        const auto* d = find_rule(g.diagnostics, "schedule.interleaved-pytorch.microbatches_multiple_of_rounds");
        QVERIFY(d);
        QCOMPARE(d->framework_error,
                 std::string("Interleaved 1F1B requires the number of microbatches to be a multiple of "
                             "the number of rounds (2), but got 9."));
        QVERIFY(generate(request("interleaved-pytorch", 4, 10, 2)).schedule);
        QVERIFY(generate(request("interleaved-pytorch", 4, 3, 2)).schedule);   // rounds = 1
    }
    void requirement_vSchedulesNeedTwoChunks() {
        auto g = generate(request("zbv", 4, 8, 3));
        QVERIFY(!g.schedule);
        const auto* d = find_rule(g.diagnostics, "schedule.zbv.two_chunks");
        QVERIFY(d);
        QCOMPARE(d->framework_error, std::string("ZBV requires exactly 2 stages per rank, but got 3."));
    }
    void requirement_dualpipevMicrobatches() {
        auto g = generate(request("dualpipev", 4, 7));
        QVERIFY(!g.schedule);
        const auto* d = find_rule(g.diagnostics, "schedule.dualpipev.microbatches_vs_stages");
        QVERIFY(d);
        QCOMPARE(
            d->framework_error,
            std::string(
                "DualPipeV requires at least as many microbatches as stages, but got 7 microbatches and 8 stages."));
        QVERIFY(generate(request("dualpipev", 4, 8)).schedule);
    }
    void requirement_singleChunkSchedules() {
        auto g = generate(request("1f1b", 4, 8, 2));
        QVERIFY(!g.schedule);
        QVERIFY(find_rule(g.diagnostics, "schedule.1f1b.single_chunk"));
    }
    void requirement_fewMicrobatchesIsAWarning() {
        auto g = generate(request("1f1b", 4, 2));
        QVERIFY(g.schedule);   // Megatron runs it
        const auto* d = find_rule(g.diagnostics, "schedule.1f1b.microbatches_vs_stages");
        QVERIFY(d);
        QCOMPARE(d->severity, paraplan::Severity::Warning);
        QCOMPARE(d->framework_error, std::string("Number of microbatch should be larger than number of stages"));
    }
    void requirement_badNumbersAndNames() {
        QVERIFY(find_rule(generate(request("nope", 4, 8)).diagnostics, "schedule.unknown"));
        QVERIFY(find_rule(generate(request("1f1b", 0, 8)).diagnostics, "schedule.pp_positive"));
        QVERIFY(find_rule(generate(request("1f1b", 4, 0)).diagnostics, "schedule.microbatches_positive"));
        QVERIFY(find_rule(generate(request("interleaved", 4, 8, -1)).diagnostics, "schedule.chunks_positive"));
    }
};

QTEST_APPLESS_MAIN(TestScheduleGenerate)
#include "tst_schedule_generate.moc"
