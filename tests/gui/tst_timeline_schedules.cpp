// Every schedule name the estimator accepts (estimate::accepted_schedule_names(), the one table
// of project schedule names) draws in the timeline of the real main window, for every
// framework, and the timeline draws the very schedule the estimate prices: "zb1p" once drew
// "Unknown schedule 'zb1p'" while the estimate priced ZB-H1.
#include <qcustomplot.h>

#include "estimate/config.h"
#include "views/ganttplottable.h"
#include "guitest.h"
#include "mainwindow.h"
#include "project/framework.h"
#include "projectdocument.h"
#include "schedule/generate.h"
#include "views/timelineview.h"

#include <QTest>

using namespace paraplan;

class TestTimelineSchedules : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    // The table holds the names the lessons and the exporters write, and every simulator id.
    void tableHoldsEverySimulatorName() {
        const auto& names = estimate::accepted_schedule_names();
        for (const char* n : {"zb1p", "zbh1", "vpp", "interleaved", "dualpipe"})
            QVERIFY2(std::find(names.begin(), names.end(), n) != names.end(), n);
        for (const auto& id : schedule::schedule_names()) {
            const auto s = estimate::parse_schedule(id, "megatron");
            QVERIFY2(s.has_value(), id.c_str());
            // A simulator id other than the framework-dependent "interleaved" maps to itself.
            if (id != "interleaved") QCOMPARE(std::string(estimate::simulator_name(*s)), id);
        }
        QVERIFY(!estimate::parse_schedule("zb2p").has_value());
    }

    void everyAcceptedNameDraws() {
        auto w = exampleWindow(tmp_, "llama3.1-8b-pp4-1node");   // pp 4
        TimelineView* t = w->timeline();
        int drawn = 0, priced = 0;
        for (const auto& ft : framework_table()) {
            for (const auto& name : estimate::accepted_schedule_names()) {
                const std::string where = std::string(ft.name) + " / " + name;
                // 16 microbatches satisfy every schedule at pp 4 (DualPipeV needs 2 pp, the
                // interleaved flavours a multiple of pp); one chunk unless the schedule takes more.
                QVERIFY(w->document()->applyChanges(QStringLiteral("schedule"), {{"/layout/framework", ft.name},
                                                                                 {"/layout/schedule", name},
                                                                                 {"/layout/chunks", 1},
                                                                                 {"/layout/num_microbatches", 16},
                                                                                 {"/training/global_batch_size", 16}}));
                QVERIFY(w->document()->waitForAnalysis());
                t->refresh();
                QVERIFY2(t->timeline().has_value(), (where + ": " + t->summaryText().toStdString()).c_str());
                QVERIFY2(!t->timeline()->ops.empty(), where.c_str());
                QVERIFY2(!t->summaryText().contains(QStringLiteral("No timeline")), where.c_str());
                QCOMPARE(t->timeline()->pp, 4);
                QCOMPARE(t->timeline()->microbatches, 16);
                // The schedule drawn is the one the estimate prices for this framework.
                const auto est = estimate::parse_schedule(name, ft.name);
                QVERIFY2(est.has_value(), where.c_str());
                QCOMPARE(t->timeline()->schedule, std::string(estimate::simulator_name(*est)));
                // (A framework without pipelines, such as ColossalAI's Gemini plugin, has no estimate here.)
                const auto a = w->document()->analysis();
                if (a->estimate) {
                    QVERIFY2(a->estimate->config.schedule == *est, where.c_str());
                    ++priced;
                }
                ++drawn;
            }
        }
        QCOMPARE(drawn, int(framework_table().size() * estimate::accepted_schedule_names().size()));
        QVERIFY(priced >= 4 * int(estimate::accepted_schedule_names().size()));
    }

    // A name no table holds still says so.
    void unknownNameSaysSo() {
        auto w = exampleWindow(tmp_, "llama3.1-8b-pp4-1node");
        QVERIFY(w->document()->applyChanges(QStringLiteral("schedule"), {{"/layout/schedule", "zb2p"}}));
        QVERIFY(w->document()->waitForAnalysis());
        w->timeline()->refresh();
        QVERIFY(!w->timeline()->timeline().has_value());
        QVERIFY(w->timeline()->summaryText().contains(QStringLiteral("Unknown schedule 'zb2p'")));
    }
};

QTEST_MAIN(TestTimelineSchedules)
#include "tst_timeline_schedules.moc"
