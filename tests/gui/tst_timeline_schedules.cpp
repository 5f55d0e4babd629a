// Every schedule of layout.schedule's table (project/layout_enums.h, EnumNames<Schedule>, the one
// table of project schedule names) draws in the timeline of the real main window, for every
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

    // The schedule table (project/layout_enums.h) reads the names the lessons, the exporters and
    // imported configs write, and every simulator id; each maps back to that very id.
    void tableHoldsEverySimulatorName() {
        for (const char* n : {"zb1p", "zbh1", "vpp", "interleaved", "dualpipe", "Interleaved_1F1B"})
            QVERIFY2(parse_schedule(n).has_value(), n);
        for (const auto& id : schedule::schedule_names()) {
            const auto s = parse_schedule(id);
            QVERIFY2(s.has_value(), id.c_str());
            // A simulator id other than the framework-dependent "interleaved" maps to itself.
            if (id != "interleaved")
                QCOMPARE(std::string(estimate::simulator_name(resolved_schedule(*s, "megatron"))), id);
        }
        QVERIFY(!parse_schedule("zb2p").has_value());
    }

    void everyAcceptedNameDraws() {
        auto w = exampleWindow(tmp_, "llama3.1-8b-pp4-1node");   // pp 4
        TimelineView* t = w->timeline();
        int drawn = 0, priced = 0;
        for (const auto& ft : framework_table()) {
            for (const auto& name : enum_names<Schedule>()) {
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
                const Schedule est = resolved_schedule(*parse_schedule(name), ft.name);
                QCOMPARE(t->timeline()->schedule, std::string(estimate::simulator_name(est)));
                // (A framework without pipelines, such as ColossalAI's Gemini plugin, has no estimate here.)
                const auto a = w->document()->analysis();
                if (a->estimate) {
                    QVERIFY2(a->estimate->config.schedule == est, where.c_str());
                    ++priced;
                }
                ++drawn;
            }
        }
        QCOMPARE(drawn, int(framework_table().size() * enum_names<Schedule>().size()));
        QVERIFY(priced >= 4 * int(enum_names<Schedule>().size()));
    }

    // A name no table holds is refused where it enters, naming the field and the known names; the
    // project keeps its schedule and the timeline still draws it.
    void unknownNameIsRefused() {
        auto w = exampleWindow(tmp_, "llama3.1-8b-pp4-1node");
        const Schedule before = w->project().layout.schedule;
        QString err;
        QVERIFY(!w->document()->applyChanges(QStringLiteral("schedule"), {{"/layout/schedule", "zb2p"}}, &err));
        QVERIFY2(err.contains(QStringLiteral("zb2p")) && err.contains(QStringLiteral("schedule")) &&
                     err.contains(QStringLiteral("\"interleaved-zb\"")),
                 qPrintable(err));
        QCOMPARE(w->project().layout.schedule, before);
        QVERIFY(w->document()->waitForAnalysis());
        w->timeline()->refresh();
        QVERIFY(w->timeline()->timeline().has_value());
    }
};

QTEST_MAIN(TestTimelineSchedules)
#include "tst_timeline_schedules.moc"
