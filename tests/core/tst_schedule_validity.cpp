// Every schedule over a grid of (pp, microbatches, chunks): either a Diagnostic, or a
// schedule that passes the _validate_schedule-style check (each stage one F and one
// backward per microbatch and chunk, F before B before W) and plays to the end
// without a cyclic wait, with sane statistics.
#include "schedule/check.h"
#include "schedule/generate.h"
#include "schedule/simulate.h"

#include <QtTest>

using namespace paraplan::schedule;

class TestScheduleValidity : public QObject {
    Q_OBJECT
private slots:
    void grid() {
        int valid = 0, refused = 0;
        for (const auto& name : schedule_names())
            for (int pp = 1; pp <= 8; ++pp)
                for (int m = 1; m <= 18; ++m)
                    for (int v = 1; v <= 3; ++v)
                        for (MegatronRule rule : {MegatronRule::Current, MegatronRule::Legacy}) {
                            if (rule == MegatronRule::Legacy && name != "interleaved-megatron") continue;
                            ScheduleRequest r;
                            r.schedule = name;
                            r.pp = pp;
                            r.microbatches = m;
                            r.chunks = v;
                            r.megatron_rule = rule;
                            const auto g = generate(r);
                            const QString at = QString("%1 pp%2 m%3 v%4").arg(name.c_str()).arg(pp).arg(m).arg(v);
                            if (!g.schedule) {
                                QVERIFY2(paraplan::has_errors(g.diagnostics), qPrintable(at));
                                ++refused;
                                continue;
                            }
                            const Schedule& s = *g.schedule;
                            QCOMPARE(s.pp, pp);
                            QCOMPARE(s.microbatches, m);
                            const auto ds = check_schedule(s);
                            QVERIFY2(
                                !paraplan::has_errors(ds),
                                qPrintable(at + ": " + QString::fromStdString(ds.empty() ? "" : ds.front().message)));
                            SimConfig cfg;
                            cfg.cost = {1.0, 1.7, 0.6};
                            cfg.comm = 0.05;
                            const auto sim = simulate(s, cfg);
                            QVERIFY2(sim.ok(), qPrintable(at));
                            const auto& tl = sim.timeline;
                            QVERIFY2(tl.bubble_fraction >= -1e-12 && tl.bubble_fraction < 1.0, qPrintable(at));
                            for (const auto& st : tl.stages) {
                                QVERIFY2(st.busy <= tl.makespan + 1e-9, qPrintable(at));
                                QVERIFY2(st.peak_inflight >= 1 && st.peak_inflight <= m * s.chunks, qPrintable(at));
                            }
                            ++valid;
                        }
        qInfo("%d valid schedules, %d requests refused with a diagnostic", valid, refused);
        QVERIFY(valid > 1500);
    }
};

QTEST_APPLESS_MAIN(TestScheduleValidity)
#include "tst_schedule_validity.moc"
