// The pass times a pipeline timeline is drawn with (core/estimate/pass_times.h): the bubble the
// timeline reports follows them as Qi et al. 2024 (arXiv 2401.10241) Table 2 says, per stage
// (p - 1)(F + B + W) for 1F1B and (p - 1)(F + B - W) for ZB-H1; the estimate's pass times are the
// slowest stage's costs as the estimator simulates them; the lesson figures carry them.
#include "estimate/estimate.h"
#include "estimate/pass_times.h"
#include "estimate/project_timeline.h"
#include "estimate/simulated_pipeline.h"
#include "lessons/lesson.h"
#include "project/project.h"

#include <QtTest>

#include <cmath>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {
schedule::Timeline draw(const std::string& name, int pp, int m, const PassTimes& t) {
    schedule::ScheduleRequest r;
    r.schedule = name;
    r.pp = pp;
    r.microbatches = m;
    ProjectTimeline out = relative_timeline(r, t);
    if (!out.timeline) qFatal("%s does not draw: %s", name.c_str(), out.problem.c_str());
    return *out.timeline;
}
bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }
}   // namespace

class TestPassTimes : public QObject {
    Q_OBJECT
private slots:
    // Every stage of 1F1B idles (p - 1)(F + B + W), every stage of ZB-H1 (p - 1)(F + B - W), for
    // pass times with W <= B (Table 2's closed forms hold there; a larger W cannot go below the
    // forward fill), and the readout (timeline_bubble) says the same.
    void bubblePerStageIsTableTwos_data() {
        QTest::addColumn<int>("pp");
        QTest::addColumn<int>("m");
        QTest::addColumn<double>("f");
        QTest::addColumn<double>("b");
        QTest::addColumn<double>("w");
        QTest::newRow("equal, p4 m16") << 4 << 16 << 1.0 << 1.0 << 1.0;
        QTest::newRow("short W, p4 m16") << 4 << 16 << 1.0 << 1.5 << 0.5;
        QTest::newRow("long B, p4 m8") << 4 << 8 << 1.0 << 2.0 << 1.0;
        QTest::newRow("p8 m32") << 8 << 32 << 1.0 << 1.3 << 0.4;
    }
    void bubblePerStageIsTableTwos() {
        QFETCH(int, pp);
        QFETCH(int, m);
        QFETCH(double, f);
        QFETCH(double, b);
        QFETCH(double, w);
        const PassTimes t{f, b, w};
        const schedule::Timeline one = draw("1f1b", pp, m, t), zb = draw("zbh1", pp, m, t);
        for (const auto& s : one.stages)
            QVERIFY2(near(s.bubble, bubble_1f1b(pp, t)), qPrintable(QString::number(s.bubble)));
        for (const auto& s : zb.stages)
            QVERIFY2(near(s.bubble, bubble_zbh1(pp, t)), qPrintable(QString::number(s.bubble)));
        QVERIFY(near(bubble_1f1b(pp, t), (pp - 1) * (f + b + w)));
        QVERIFY(near(bubble_zbh1(pp, t), (pp - 1) * (f + b - w)));
        QVERIFY(near(timeline_bubble(one, t).per_stage, (pp - 1) * (f + b + w)));
        QVERIFY(near(timeline_bubble(one, t).vs_1f1b, 1.0));
        QVERIFY(near(timeline_bubble(zb, t).per_stage, (pp - 1) * (f + b - w)));
        QVERIFY(near(timeline_bubble(zb, t).vs_1f1b, (f + b - w) / (f + b + w)));
        // The share of the span: the bubble over bubble + m passes of each kind.
        QVERIFY(near(zb.bubble_fraction, (pp - 1) * (f + b - w) / (m * (f + b + w) + (pp - 1) * (f + b - w))));
    }

    // Qi et al.'s assumption F = B = W gives ZB-H1 a third of 1F1B's bubble (section 2.1).
    void equalPassesGiveAThird() {
        const PassTimes equal;
        QCOMPARE(equal, (PassTimes{1, 1, 1}));
        QVERIFY(near(timeline_bubble(draw("zbh1", 4, 16, equal), equal).vs_1f1b, 1.0 / 3));
        // Interleaved 1F1B with v chunks: 1/v of 1F1B's (Narayanan et al. 2021 section 2.2.2).
        schedule::ScheduleRequest r;
        r.schedule = "interleaved";
        r.pp = 4;
        r.microbatches = 16;
        r.chunks = 2;
        const auto il = relative_timeline(r, equal);
        QVERIFY(il.timeline);
        QVERIFY(near(timeline_bubble(*il.timeline, equal).vs_1f1b, 0.5));
    }

    // A longer W shrinks ZB-H1's bubble by (p - 1) dW per stage; 1F1B's bubble grows by the same
    // (p - 1) dW, while its share of the span stays (p - 1)/(m + p - 1), whatever the passes.
    void weightPassMovesZeroBubbleOnly() {
        const int pp = 4, m = 16;
        const PassTimes shortW{1, 1.5, 0.25}, longW{1, 1.5, 1.0};
        const double dw = longW.backward_weight - shortW.backward_weight;
        const auto zs = draw("zbh1", pp, m, shortW), zl = draw("zbh1", pp, m, longW);
        const auto os = draw("1f1b", pp, m, shortW), ol = draw("1f1b", pp, m, longW);
        QVERIFY(near(timeline_bubble(zl, longW).per_stage - timeline_bubble(zs, shortW).per_stage, -(pp - 1) * dw));
        QVERIFY(near(timeline_bubble(ol, longW).per_stage - timeline_bubble(os, shortW).per_stage, (pp - 1) * dw));
        QVERIFY(near(os.bubble_fraction, double(pp - 1) / (m + pp - 1)));
        QVERIFY(near(ol.bubble_fraction, os.bubble_fraction));
        QVERIFY(zl.bubble_fraction < zs.bubble_fraction);
        QVERIFY(timeline_bubble(zs, shortW).vs_1f1b > timeline_bubble(zl, longW).vs_1f1b);
    }

    // The estimate's pass times are its slowest stage's costs, split as the estimator simulates
    // them: with every stage at that cost, the estimator's own timeline has the same bubble share
    // as the relative timeline drawn with the resolved (F = 1) pass times.
    void estimatesPassTimesAreTheSlowestStages() {
        const Project p = load_example("llama3.1-8b-pp4-1node");
        const Estimate e = estimate_project(p);
        const auto s = estimate_pass_times_s(e);
        QVERIFY(s);
        const StageCost c = e.time.stages[std::size_t(e.time.bottleneck_stage)].cost();
        QVERIFY(near(s->forward, c.f));
        QVERIFY(near(s->backward_input + s->backward_weight, c.b));
        QVERIFY(near(s->backward_weight, c.w));
        // Qi et al. Table 1: W holds only the weight GEMMs, B also the attention backward.
        QVERIFY(s->backward_weight < s->backward_input);
        const ResolvedPassTimes r = resolve_pass_times({PassTimesMode::Estimate, {}}, &e);
        QCOMPARE(r.mode, PassTimesMode::Estimate);
        QVERIFY(r.note.empty());
        QCOMPARE(r.times.forward, 1.0);
        QVERIFY(near(r.times.backward_weight, s->backward_weight / s->forward));
        QVERIFY(near(r.forward_s, s->forward));

        const int pp = e.config.pp, m = e.config.num_microbatches;
        const auto priced = pipeline_timeline(Schedule::zb1p, pp, m, 1, std::vector<StageCost>(std::size_t(pp), c), 0);
        QVERIFY(priced);
        const auto drawn = draw("zbh1", pp, m, r.times);
        QVERIFY(std::abs(priced->bubble_fraction - drawn.bubble_fraction) < 1e-9);
        QVERIFY(near(priced->makespan, drawn.makespan * s->forward));
    }

    // No estimate: equal, and it says so; custom values are bounded.
    void resolveFallsBackAndClamps() {
        const ResolvedPassTimes none = resolve_pass_times({PassTimesMode::Estimate, {}}, nullptr);
        QCOMPARE(none.mode, PassTimesMode::Equal);
        QCOMPARE(none.times, PassTimes{});
        QVERIFY(!none.note.empty());
        const ResolvedPassTimes c = resolve_pass_times({PassTimesMode::Custom, {0, 2, 1e9}}, nullptr);
        QCOMPARE(c.times, (PassTimes{kMinPassTime, 2, kMaxPassTime}));
        const ResolvedPassTimes n = resolve_pass_times({PassTimesMode::Custom, {NAN, 2, 1}}, nullptr);
        QCOMPARE(n.times.forward, 1.0);
        for (auto m : {PassTimesMode::Equal, PassTimesMode::Estimate, PassTimesMode::Custom})
            QCOMPARE(parse_pass_times_mode(to_string(m)), std::optional<PassTimesMode>(m));
        QVERIFY(!parse_pass_times_mode("paper"));
    }

    // figures_json's timeline follows the pass times asked for: ZB-H1 on the lesson's project.
    void figuresFollowThePassTimes() {
        Project p = load_example("llama3.1-8b-pp4-1node");
        p.layout.schedule = Schedule::zb1p;
        p.layout.chunks = 1;
        const auto eq = lessons::figures_json(p);
        const auto est = lessons::figures_json(p, {PassTimesMode::Estimate, {}});
        const auto cus = lessons::figures_json(p, {PassTimesMode::Custom, {1, 1.5, 0.5}});
        const auto v = [](const nlohmann::json& j, const char* path) { return *lessons::figure_value(j, path); };
        QCOMPARE(eq["timeline"]["pass_times"]["mode"].get<std::string>(), std::string("equal"));
        QVERIFY(near(v(eq, "timeline.bubble_vs_1f1b"), 1.0 / 3));
        QCOMPARE(est["timeline"]["pass_times"]["mode"].get<std::string>(), std::string("estimate"));
        const double w = v(est, "timeline.pass_times.backward_weight"),
                     b = v(est, "timeline.pass_times.backward_input");
        QVERIFY(near(v(est, "timeline.bubble_vs_1f1b"), (1 + b - w) / (1 + b + w)));
        QVERIFY(v(est, "timeline.bubble_vs_1f1b") > v(eq, "timeline.bubble_vs_1f1b"));
        QVERIFY(v(est, "timeline.pass_times.forward_ms") > 0);
        QVERIFY(near(v(cus, "timeline.bubble_vs_1f1b"), 2.0 / 3));
        QVERIFY(near(v(cus, "timeline.bubble_per_stage"), bubble_zbh1(p.layout.pp, {1, 1.5, 0.5})));
        // The estimate itself does not depend on how the timeline is drawn.
        QCOMPARE(v(est, "time.step_s"), v(eq, "time.step_s"));
    }
};

QTEST_MAIN(TestPassTimes)
#include "tst_pass_times.moc"
