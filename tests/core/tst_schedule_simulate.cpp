// The simulator against closed forms from the papers (zero latency, equal per-chunk
// costs unless stated) and hand-computed cases.
#include "core/schedule_test_util.h"
#include "schedule/check.h"
#include "schedule/simulate.h"

#include <QtTest>

#include <cmath>

using namespace paraplan::schedule;
using schedule_test::make;

namespace {

Timeline run(const Schedule& s, OpCost c = {1, 1, 1}, double comm = 0) {
    SimConfig cfg;
    cfg.cost = c;
    cfg.comm = comm;
    auto r = simulate(s, cfg);
    if (!r.ok()) qWarning("%s", r.diagnostics.front().message.c_str());
    return r.timeline;
}

bool near(double a, double b, double eps = 1e-9) { return std::fabs(a - b) <= eps; }

}   // namespace

class TestScheduleSimulate : public QObject {
    Q_OBJECT
private slots:
    void gpipeAnd1f1b_makespan() {
        // (m + pp - 1)(F + B + W): Narayanan et al. SC'21 §2.2 bubble (p - 1)(t_f + t_b).
        const OpCost costs[] = {{1, 1, 1}, {1, 2, 0}, {0.7, 1.1, 0.9}};
        for (const char* name : {"gpipe", "1f1b"})
            for (int pp : {1, 2, 4, 7})
                for (int m : {pp, pp + 3, 3 * pp})
                    for (const auto& c : costs) {
                        const auto tl = run(make(name, pp, m), c);
                        QVERIFY2(near(tl.makespan, (m + pp - 1) * (c.f + c.b + c.w), 1e-9),
                                 qPrintable(QString("%1 pp%2 m%3").arg(name).arg(pp).arg(m)));
                    }
    }
    void bubbleFraction_matchesMegatronShare() {
        // Narayanan et al. SC'21 §2.2 (bubble (p - 1)/m of the ideal time), so p = 4, m = 8 ->
        // (p - 1)/(m + p - 1) = 3/11 of wall time; the CLI example.
        const auto tl = run(make("1f1b", 4, 8));
        QCOMPARE(tl.makespan, 33.0);
        QVERIFY(near(tl.bubble_fraction, 3.0 / 11.0));
        for (const auto& st : tl.stages) {
            QCOMPARE(st.busy, 24.0);
            QCOMPARE(st.bubble, 9.0);
        }
    }
    void interleaved_makespan() {
        // m v (F + B + W) + (pp - 1)(F + B + W) where the schedule's microbatch rule holds.
        for (const char* name : {"interleaved", "interleaved-megatron", "interleaved-pytorch"})
            for (int pp : {2, 4})
                for (int v : {2, 3})
                    for (int k : {1, 2, 3}) {
                        const int m = k * pp;
                        const auto tl = run(make(name, pp, m, v), {1, 1, 1});
                        QVERIFY2(near(tl.makespan, m * v * 3.0 + (pp - 1) * 3.0),
                                 qPrintable(
                                     QString("%1 pp%2 m%3 v%4: %5").arg(name).arg(pp).arg(m).arg(v).arg(tl.makespan)));
                    }
        // Per chunk the bubble is (p - 1)/v of the non-interleaved one (bubble fraction (1/v)(p-1)/m of ideal).
        const auto i2 = run(make("interleaved", 4, 8, 2), {0.5, 0.5, 0.5});
        const auto flat = run(make("1f1b", 4, 8), {1, 1, 1});
        QVERIFY(near((i2.makespan - 24.0) * 2, flat.makespan - 24.0));
    }
    void zbh1_bubble() {
        // Qi et al. Table 2: ZB-H1 bubble (p - 1)(T_F + T_B - T_W).
        const OpCost costs[] = {{1, 1, 1}, {1, 1.5, 0.5}, {1, 1.2, 0.8}};
        for (int pp : {2, 4, 6})
            for (const auto& c : costs) {
                const int m = 3 * pp;
                const auto tl = run(make("zbh1", pp, m), c);
                const double ideal = m * (c.f + c.b + c.w);
                QVERIFY2(near(tl.makespan - ideal, (pp - 1) * (c.f + c.b - c.w), 1e-9),
                         qPrintable(QString("pp%1: %2").arg(pp).arg(tl.makespan - ideal)));
            }
    }
    void zbh2_parallelogram() {
        // Table 2: ZB-H2 bubble (p - 1)(T_F + T_B - 2 T_W): zero at equal costs, where each
        // stage runs without a gap from its first op to its last (span bubble rate 0).
        for (int pp : {2, 4, 8})
            for (int m : {2 * pp, 3 * pp}) {
                const auto tl = run(make("zbh2", pp, m));
                QVERIFY2(near(tl.span_bubble_rate, 0.0), qPrintable(QString("pp%1 m%2").arg(pp).arg(m)));
                QVERIFY(near(tl.makespan, m * 3.0 + (pp - 1)));   // only the fill offset of the parallelogram
                // Peak activations (2p - 1) M_B on the first worker.
                QCOMPARE(tl.stages[0].peak_inflight, 2 * pp - 1);
            }
        const auto tl = run(make("zbh2", 4, 8), {1, 1.5, 0.5});
        QVERIFY(near(tl.makespan - 24.0, 3 * (1 + 1.5 - 1.0)));
    }
    void zbv_nearZeroBubble() {
        for (int pp : {2, 4, 8})
            for (int m : {2 * pp, 4 * pp}) {
                const auto tl = run(make("zbv", pp, m));
                QVERIFY2(near(tl.span_bubble_rate, 0.0), qPrintable(QString("pp%1 m%2").arg(pp).arg(m)));
                // Only the (pp - 1) fill offset on the last rank remains.
                QVERIFY(near(tl.makespan, 2 * m * 3.0 + (pp - 1)));
                // ZB-V holds 2 pp chunk activations (= pp full-stage ones, 1x of 1F1B).
                QCOMPARE(tl.stages[0].peak_inflight, 2 * pp);
            }
        QVERIFY(near(run(make("zbv", 4, 16)).bubble_fraction, 3.0 / 99.0));   // 1 - 96/99
        QVERIFY(run(make("1f1b", 4, 16)).bubble_fraction > 0.15);
    }
    void dualpipev_bubble() {
        // DualPipe README: DualPipeV bubble (PP/2 - 1)(F&B + B - 3W) with PP stages (= 2 ranks),
        // B the full backward and F&B = F + B here (no overlap gain): with F = B = W = 1
        // that is (ranks - 1)(3 + 2 - 3) = 2 (ranks - 1).
        for (int pp : {2, 4, 8})
            for (int m : {2 * pp, 3 * pp}) {
                const auto tl = run(make("dualpipev", pp, m));
                const double ideal = 2 * m * 3.0;
                for (const auto& st : tl.stages) QVERIFY(near(st.busy, ideal));
                QVERIFY2(near(tl.makespan - ideal, 2.0 * (pp - 1)),
                         qPrintable(QString("pp%1 m%2: %3").arg(pp).arg(m).arg(tl.makespan - ideal)));
            }
        // An overlap factor below one shortens every F&B unit.
        SimConfig cfg;
        cfg.fb_overlap_factor = 0.8;
        QVERIFY(simulate(make("dualpipev", 4, 8), cfg).timeline.makespan < run(make("dualpipev", 4, 8)).makespan);
    }
    void peakInflight() {
        // 1F1B: min(pp - s, m); GPipe: m.
        for (int pp : {2, 4, 8})
            for (int m : {1, pp / 2, pp, 2 * pp}) {
                if (m < 1) continue;
                const auto a = run(make("1f1b", pp, m));
                const auto g = run(make("gpipe", pp, m));
                for (int s = 0; s < pp; ++s) {
                    QCOMPARE(a.stages[static_cast<std::size_t>(s)].peak_inflight, std::min(pp - s, m));
                    QCOMPARE(g.stages[static_cast<std::size_t>(s)].peak_inflight, m);
                }
            }
        // Interleaved counts per chunk: chunk totals add up to the stage's peak or more.
        const auto i = run(make("interleaved", 4, 8, 2));
        QCOMPARE(i.stages[0].peak_inflight_per_chunk.size(), std::size_t(2));
        QVERIFY(i.stages[0].peak_inflight <=
                i.stages[0].peak_inflight_per_chunk[0] + i.stages[0].peak_inflight_per_chunk[1]);
        // ZB-H1 worker i keeps (i - 1) weight passes pending (Qi et al. §3).
        const auto z = run(make("zbh1", 4, 12));
        for (int s = 0; s < 4; ++s) QCOMPARE(z.stages[static_cast<std::size_t>(s)].peak_pending_w, s + 1);
    }
    void latency_onlyBetweenRanks() {
        // One microbatch: the F chain and the B chain each cross pp - 1 links.
        const double c = 0.25;
        for (int pp : {2, 3, 5}) {
            const auto tl = run(make("1f1b", pp, 1), {1, 2, 0.5}, c);
            QVERIFY(near(tl.makespan, pp * 3.5 + 2 * (pp - 1) * c));
        }
        // V placement: virtual stages 1 and 2 share rank 1, 3 and 0 share rank 0. F 1, full B 2, latency 0.5:
        // F: [0,1] r0, [1.5,2.5] r1, [2.5,3.5] r1, [4,5] r0; B: [5,7] r0, [7.5,9.5] r1, [9.5,11.5] r1, [12,14] r0.
        Schedule s;
        s.name = "hand";
        s.pp = 2;
        s.microbatches = 1;
        s.chunks = 2;
        s.placement = Placement::V;
        const std::vector<Action> ops = {{OpKind::Forward, 0, 0, false},
                                         {OpKind::Forward, 0, 1, false},
                                         {OpKind::FullBackward, 0, 1, false},
                                         {OpKind::FullBackward, 0, 0, false}};
        s.stages = {ops, ops};
        const auto tl = run(s, {1, 1, 1}, 0.5);
        QCOMPARE(tl.makespan, 14.0);
        QCOMPARE(tl.ops[tl.stage_begin[1] + 1].start, 2.5);   // rank 1, chunk 1 F: no latency from chunk 0
        QCOMPARE(tl.ops[tl.stage_begin[0] + 1].start, 4.0);
    }
    void perStageCosts() {
        // 1F1B pp 2, m 1; last stage carries the loss head: F x2, B x1.5.
        SimConfig cfg;
        cfg.cost = {1, 1, 1};
        cfg.stage_scale = {{1, 1, 1}, {2, 1.5, 1}};
        const auto r = simulate(make("1f1b", 2, 1), cfg);
        QVERIFY(r.ok());
        // F 1 + F 2 + B(1.5 + 1) + B(1 + 1)
        QCOMPARE(r.timeline.makespan, 1 + 2 + 2.5 + 2.0);
        // Absolute per-virtual-stage costs win over the scale.
        cfg.virtual_stage_cost = {{3, 1, 0}, {1, 1, 0}};
        QCOMPARE(simulate(make("1f1b", 2, 1), cfg).timeline.makespan, 3 + 1 + 1 + 1.0);
        // Wrong sizes and negative values are findings, not crashes.
        cfg.virtual_stage_cost = {{1, 1, 1}};
        QVERIFY(!simulate(make("1f1b", 2, 1), cfg).ok());
        cfg.virtual_stage_cost.clear();
        cfg.stage_scale = {{1, 1, 1}, {-1, 1, 1}};
        QVERIFY(!simulate(make("1f1b", 2, 1), cfg).ok());
        SimConfig bad;
        bad.comm = -1;
        QVERIFY(!simulate(make("1f1b", 2, 1), bad).ok());
    }
    void cyclicWait_isADiagnostic() {
        // Stage 1 wants microbatch 1 first, stage 0 sends it only after the backward of
        // microbatch 0, which needs stage 1 to run microbatch 0 first: a cycle.
        Schedule s;
        s.name = "cyclic";
        s.pp = 2;
        s.microbatches = 2;
        s.stages = {{{OpKind::Forward, 0, 0, false},
                     {OpKind::FullBackward, 0, 0, false},
                     {OpKind::Forward, 1, 0, false},
                     {OpKind::FullBackward, 1, 0, false}},
                    {{OpKind::Forward, 1, 0, false},
                     {OpKind::FullBackward, 1, 0, false},
                     {OpKind::Forward, 0, 0, false},
                     {OpKind::FullBackward, 0, 0, false}}};
        QVERIFY(check_structure(s).empty());   // every op is there, in F-before-B order
        const auto r = simulate(s, SimConfig{});
        QVERIFY(!r.ok());
        QCOMPARE(r.diagnostics.front().rule, std::string("schedule.deadlock"));
        QVERIFY(r.diagnostics.front().message.find("stage 0 waits at B of microbatch 0") != std::string::npos);
        QVERIFY(paraplan::has_errors(check_schedule(s)));
    }
    void opsInExecutionOrder() {
        const auto tl = run(make("interleaved-zb", 4, 8, 2), {1, 1.3, 0.6}, 0.1);
        QCOMPARE(tl.ops.size(), std::size_t(4 * 8 * 2 * 3));
        for (int s = 0; s < 4; ++s)
            for (std::size_t i = tl.stage_begin[static_cast<std::size_t>(s)] + 1;
                 i < tl.stage_begin[static_cast<std::size_t>(s) + 1]; ++i) {
                QCOMPARE(tl.ops[i].stage, s);
                QVERIFY(tl.ops[i].start >= tl.ops[i - 1].end - 1e-12);
            }
    }
};

QTEST_APPLESS_MAIN(TestScheduleSimulate)
#include "tst_schedule_simulate.moc"
