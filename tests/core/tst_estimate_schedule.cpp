// The estimator's pipeline term comes from the schedule simulator (core/schedule/):
// its bubble, makespan and per-stage peak in-flight microbatches equal those of the
// simulator run directly on the estimator's own per-stage costs, and the memory model
// uses those in-flight counts. Zero-bubble schedules (Qi et al. 2024) come out with a
// smaller bubble than 1F1B for the same project.
#include "estimate/estimate.h"
#include "estimate/simulated_pipeline.h"
#include "estimate_test_models.h"
#include "schedule/generate.h"
#include "schedule/simulate.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {

struct Case {
    Config c;
    Estimate e;
};

Case run(const std::string& schedule, int chunks, std::vector<std::string>* notes = nullptr) {
    const ModelSpec m = paper_gpt(32, 4096, 32);
    const Hardware hw = paper_a100();
    Training t;
    t.global_batch_size = 32;
    t.micro_batch_size = 1;
    t.seq_len = 2048;
    Layout l;
    l.framework = "megatron";
    l.tp = 2;
    l.pp = 4;
    l.schedule = schedule;
    l.chunks = chunks;
    const Config c = make_config(m, t, l, hw, 16);
    return {c, evaluate(m, layer_shapes(m), c, hw, simulated_pipeline(c.link[kPp].latency_s, notes))};
}

// The simulator run by hand on the estimator's per-stage costs.
schedule::SimulationResult direct(const Case& k, const std::string& name) {
    schedule::ScheduleRequest req;
    req.schedule = name;
    req.pp = k.c.pp;
    req.microbatches = k.c.num_microbatches;
    req.chunks = k.c.chunks;
    const auto g = schedule::generate(req);
    if (!g.schedule) return {};
    schedule::SimConfig cfg;
    cfg.comm = k.c.link[kPp].latency_s;
    const int v = g.schedule->chunks;
    for (int vs = 0; vs < g.schedule->virtual_stages(); ++vs) {
        const StageCost sc = k.e.time.stages[std::size_t(g.schedule->stage_of(vs))].cost();
        cfg.virtual_stage_cost.push_back({sc.f / v, (sc.b - sc.w) / v, sc.w / v});
    }
    return schedule::simulate(*g.schedule, cfg);
}

void check_equal(const Case& k, const std::string& name) {
    const auto sim = direct(k, name);
    QVERIFY(sim.ok());
    const auto& tl = sim.timeline;
    const PipelineResult& pr = k.e.time.pipeline;
    QCOMPARE(pr.makespan_s, tl.makespan);
    double busy = 0;
    for (const auto& st : tl.stages) busy = std::max(busy, st.busy);
    QCOMPARE(pr.bubble_s, tl.makespan - busy);
    QVERIFY(pr.bubble_s > 0);
    QCOMPARE(int(pr.inflight.size()), k.c.pp);
    QCOMPARE(int(k.e.memory.stages.size()), k.c.pp);
    for (int s = 0; s < k.c.pp; ++s) {
        const double want = double(tl.stages[std::size_t(s)].peak_inflight) / tl.chunks;
        QCOMPARE(pr.inflight[std::size_t(s)], want);
        QCOMPARE(k.e.memory.stages[std::size_t(s)].inflight, want);
    }
    // The step's bubble is the makespan left after the bottleneck stage's work.
    QVERIFY(k.e.time.bubble_s > 0 && k.e.time.bubble_s < pr.makespan_s);
}

}  // namespace

class TestEstimateSchedule : public QObject {
    Q_OBJECT
private slots:
    void one_f_one_b_matches_simulator() {
        const Case k = run("1f1b", 1);
        QCOMPARE(k.c.num_microbatches, 16);   // 32 / (micro_batch 1 x dp 2)
        check_equal(k, "1f1b");
        // 1F1B holds p - r microbatches on stage r (PipeDream-Flush), m >= p here.
        for (int r = 0; r < 4; ++r) QCOMPARE(k.e.time.pipeline.inflight[std::size_t(r)], double(4 - r));
    }

    void interleaved_matches_simulator() {
        const Case k = run("interleaved", 2);
        QCOMPARE(k.c.chunks, 2);
        check_equal(k, "interleaved-megatron");
        const Case one = run("1f1b", 1);
        QVERIFY(k.e.time.pipeline.bubble_s < one.e.time.pipeline.bubble_s);
    }

    void zero_bubble_smaller_than_1f1b() {
        const Case one = run("1f1b", 1);
        const Case zbh1 = run("zbh1", 1);
        const Case zbv = run("zbv", 2);
        check_equal(zbh1, "zbh1");
        check_equal(zbv, "zbv");
        QVERIFY(zbh1.e.time.pipeline.bubble_s < one.e.time.pipeline.bubble_s);
        QVERIFY(zbv.e.time.pipeline.bubble_s < one.e.time.pipeline.bubble_s);
        QVERIFY(zbh1.e.time.step_s < one.e.time.step_s);
    }

    // A schedule whose requirements fail (Megatron's interleaved schedule with fewer
    // microbatches than stages) falls back to the closed form with a note.
    void fallback_with_note() {
        std::vector<std::string> notes;
        const ModelSpec m = paper_gpt(32, 4096, 32);
        const Hardware hw = paper_a100();
        Training t;
        t.global_batch_size = 2;
        t.micro_batch_size = 1;
        t.seq_len = 2048;
        Layout l;
        l.framework = "megatron";
        l.tp = 2;
        l.pp = 4;
        l.schedule = "interleaved";
        l.chunks = 2;
        const Config c = make_config(m, t, l, hw, 16);
        QCOMPARE(c.num_microbatches, 1);
        const Estimate e = evaluate(m, layer_shapes(m), c, hw, simulated_pipeline(c.link[kPp].latency_s, &notes));
        QCOMPARE(int(notes.size()), 1);
        QVERIFY(QString::fromStdString(notes[0]).contains("closed form"));
        std::vector<StageCost> costs;
        for (const auto& st : e.time.stages) costs.push_back(st.cost());
        const PipelineResult cf = simulate_closed_form(c.schedule, c.pp, c.num_microbatches, c.chunks, costs);
        QCOMPARE(e.time.pipeline.makespan_s, cf.makespan_s);
        QCOMPARE(e.time.pipeline.inflight, cf.inflight);
    }
};

QTEST_APPLESS_MAIN(TestEstimateSchedule)
#include "tst_estimate_schedule.moc"
