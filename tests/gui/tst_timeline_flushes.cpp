// The pipeline timeline draws the whole step the estimate prices: k pipeline flushes of the
// simulated schedule back to back, the exposed gradient reduction after every flush (DeviceMesh
// pipelines) or once after the last (ColossalAI), "flush j of k" over them; a step of one flush
// is drawn as before. On the real main window with the built-in examples and core's estimate.
#include <qcustomplot.h>

#include "estimate/step_flushes.h"
#include "views/ganttplottable.h"
#include "guitest.h"
#include "mainwindow.h"
#include "projectdocument.h"
#include "views/stepplayer.h"
#include "views/timelineview.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using paraplan::estimate::StepFlushes;
using paraplan::estimate::step_flushes;

class TestTimelineFlushes : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    // The timeline at a fixed size (the window is not shown: its docks have no size), drawn now;
    // the picture of it.
    static QImage draw(TimelineView* t) {
        t->resize(1200, 420);
        t->plot()->setGeometry(0, 40, 1200, 380);
        t->plot()->replot(QCustomPlot::rpImmediateRefresh);
        return t->plot()->toPixmap().toImage();
    }
    static StepFlushes priced(MainWindow& w) {
        const auto a = w.document()->analysis();
        return a->estimate ? step_flushes(*a->estimate) : StepFlushes{};
    }
    static bool near(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }
    // The colour drawn at (time, lane) is the gradient reduction's reddish purple.
    static bool syncAt(TimelineView* t, const QImage& img, double time, double lane) {
        const QColor c = img.pixelColor(int(t->plot()->xAxis->coordToPixel(time)),
                                        int(t->plot()->yAxis->coordToPixel(lane)));
        return std::abs(c.red() - 0xCC) + std::abs(c.green() - 0x79) + std::abs(c.blue() - 0xA7) < 24;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    // Llama 3.1 70B, ColossalAI: global 256 / (micro 1 x dp 1 x num_microbatches 32) = 8 flushes;
    // dp 1, so no gradient reduction.
    void eightFlushesOfTheColossalExample() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        TimelineView* t = w->timeline();
        QVERIFY(t->timeline().has_value());
        const auto& tl = *t->timeline();
        const StepFlushes sf = priced(*w);
        QCOMPARE(sf.flushes, 8);
        QCOMPARE(sf.sync_s, 0.0);
        QCOMPARE(tl.microbatches, 32);   // the schedule simulated is one flush
        draw(t);
        GanttPlottable* g = t->gantt();
        QCOMPARE(g->flushes().count, 8);
        QVERIFY(!g->lastStamped());
        // Every flush drawn: 8 x 32 forwards on stage 0, 8 x the flush's blocks in all.
        QCOMPARE(g->lastDrawnForwards(0), 8 * 32);
        QCOMPARE(g->lastDrawnBlocks(), 8 * int(tl.ops.size()));
        // The axis spans the step's 8 flushes (in the schedule's unit, one forward = 1).
        QVERIFY(near(g->span(), 8 * tl.makespan));
        QVERIFY(near(t->plot()->xAxis->range().upper, 8 * tl.makespan * 1.01));
        // In the estimate's proportions: the drawn span is to one flush as the priced step up to the
        // optimizer is to one priced flush.
        QVERIFY(near(g->span() / tl.makespan, sf.pipeline_s() / sf.flush_s));
        QVERIFY(g->lastFlushLabels().contains(QStringLiteral("flush 1 of 8")));
        QVERIFY(g->lastFlushLabels().contains(QStringLiteral("flush 8 of 8")));
        QVERIFY(t->summaryText().contains(QStringLiteral("<b>8 flushes</b>")));
        QVERIFY(t->summaryText().contains(QStringLiteral("32 microbatches per flush")));
        // Its Perfetto trace is the step as drawn: 8 x 32 forward slices on stage 0, the last slice
        // ending at the drawn span (one forward = 1 ms).
        const QString trace = tmp_.filePath(QStringLiteral("eight.json"));
        QString err;
        QVERIFY2(t->exportTo(trace, &err), qPrintable(err));
        QFile f(trace);
        QVERIFY(f.open(QIODevice::ReadOnly));
        int forwards = 0;
        double end = 0;
        for (const QJsonValue v :
             QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("traceEvents")).toArray()) {
            const QJsonObject e = v.toObject();
            if (e.value(QStringLiteral("ph")).toString() != QLatin1String("X")) continue;
            forwards += e.value(QStringLiteral("pid")).toInt() == 0 &&
                        e.value(QStringLiteral("cat")).toString() == QLatin1String("forward");
            end = std::max(end, e.value(QStringLiteral("ts")).toDouble() + e.value(QStringLiteral("dur")).toDouble());
        }
        QCOMPARE(forwards, 8 * 32);
        QVERIFY(std::abs(end - 1000 * g->span()) < 1e-6 * end);
        // Hovering flush 3 finds its op: the first flush's, in flush index 2 (microbatch 2 x 32 on).
        const auto& op = tl.ops.front();
        const double at = g->flushStart(2) + (op.start + op.end) / 2;
        int flush = -1;
        const auto* hit = g->opAt(QPointF(t->plot()->xAxis->coordToPixel(at), t->plot()->yAxis->coordToPixel(op.stage)),
                                  &flush);
        QVERIFY(hit);
        QCOMPARE(flush, 2);
        QCOMPARE(hit->microbatch, op.microbatch);
        QCOMPARE(int(hit->kind), int(op.kind));
        // Fit keeps the whole step and the row of flush labels.
        t->plot()->rescaleAxes();
        QVERIFY(near(t->plot()->xAxis->range().upper, g->span()));
        QVERIFY(t->plot()->yAxis->range().lower <= -1.0 + 1e-9);
    }

    // A DeviceMesh pipeline reduces after every flush; ColossalAI once after the last (70B with
    // pp 2, so dp 2 across the nodes: 8 flushes of 16).
    void gradientSyncAfterEveryFlushOrTheLast() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        TimelineView* t = w->timeline();
        for (const char* framework : {"devicemesh", "colossalai"}) {
            QVERIFY(w->document()->applyChanges(
                QStringLiteral("Layout"),
                {{"/layout/framework", framework}, {"/layout/pp", 2}, {"/layout/num_microbatches", 16}}));
            QVERIFY(w->document()->waitForAnalysis());
            const bool each = std::string(framework) == "devicemesh";
            const StepFlushes sf = priced(*w);
            QCOMPARE(sf.flushes, 8);
            QCOMPARE(sf.sync_each_flush, each);
            QVERIFY2(sf.sync_s > 0, framework);
            const auto& tl = *t->timeline();
            QCOMPARE(tl.microbatches, 16);
            const QImage img = draw(t);
            GanttPlottable* g = t->gantt();
            QCOMPARE(g->flushes().count, 8);
            QCOMPARE(g->flushes().sync_each_flush, each);
            QCOMPARE(g->lastDrawnForwards(0), 8 * 16);
            // The reduction keeps its priced share of a flush; the span is the step up to the optimizer.
            QVERIFY(near(g->flushes().sync / tl.makespan, sf.sync_s / sf.flush_s));
            QVERIFY(near(g->span() / tl.makespan, sf.pipeline_s() / sf.flush_s));
            QVERIFY(near(g->span(), 8 * tl.makespan + (each ? 8 : 1) * g->flushes().sync));
            QVERIFY(near(g->flushStart(1), tl.makespan + (each ? g->flushes().sync : 0)));
            // Drawn where it falls: after flush 1 only when every flush reduces; after the last always.
            const double sync = g->flushes().sync;
            QCOMPARE(syncAt(t, img, tl.makespan + sync / 2, 0), each);
            QVERIFY(syncAt(t, img, g->flushStart(7) + tl.makespan + sync / 2, 1));
            QVERIFY(!syncAt(t, img, tl.makespan / 2, 0));
            // Hovering it names the flush it follows.
            const auto at = [&](double time, double lane) {
                return QPointF(t->plot()->xAxis->coordToPixel(time), t->plot()->yAxis->coordToPixel(lane));
            };
            QCOMPARE(g->syncAt(at(tl.makespan + sync / 2, 0)), each ? 0 : -1);
            QCOMPARE(g->syncAt(at(g->flushStart(7) + tl.makespan + sync / 2, 1)), 7);
            QCOMPARE(g->syncAt(at(tl.makespan / 2, 0)), -1);
            QVERIFY(t->summaryText().contains(each ? QStringLiteral("gradient sync 8 ×")
                                                   : QStringLiteral("gradient sync ")));
        }
    }

    // One flush (8B example: global 8 = micro 1 x dp 1 x 8 microbatches, dp 1): drawn as before.
    // The header's arithmetic holds as shown: the factors are the priced values, with enough digits
    // that count x per-flush (+ syncs x per-sync) rounds to the total printed.
    static void checkHeaderArithmetic(const QString& text, const StepFlushes& sf) {
        static const QRegularExpression re(QStringLiteral(
            R"((\d+) flushes</b> × ([\d.]+) ms(?: \+ .*gradient sync (?:(\d+) × )?([\d.]+) ms)? = ([\d.]+) ms)"));
        const QRegularExpressionMatch m = re.match(text);
        QVERIFY2(m.hasMatch(), qPrintable(text));
        QCOMPARE(m.captured(1).toInt(), sf.flushes);
        // Each factor is the real value to the digits shown.
        const auto shownIsReal = [](const QString& shown, double real_ms) {
            const int dot = shown.indexOf(QLatin1Char('.'));
            const int digits = dot < 0 ? 0 : int(shown.size()) - dot - 1;
            return std::abs(shown.toDouble() - real_ms) <= 0.5 * std::pow(10.0, -digits) + 1e-9;
        };
        QVERIFY2(shownIsReal(m.captured(2), sf.flush_s * 1e3), qPrintable(text));
        double sum = sf.flushes * m.captured(2).toDouble();
        if (!m.captured(4).isEmpty()) {
            QVERIFY2(shownIsReal(m.captured(4), sf.sync_s * 1e3), qPrintable(text));
            sum += (m.captured(3).isEmpty() ? 1 : m.captured(3).toInt()) * m.captured(4).toDouble();
        } else {
            QCOMPARE(sf.sync_s, 0.0);
        }
        const QString total = m.captured(5);
        QVERIFY2(shownIsReal(total, sf.pipeline_s() * 1e3), qPrintable(text));
        const int dot = total.indexOf(QLatin1Char('.'));
        const QString product = QString::number(sum, 'f', dot < 0 ? 0 : int(total.size()) - dot - 1);
        QVERIFY2(product == total, qPrintable(product + QStringLiteral(" != ") + text));
    }

    void headerArithmeticAgrees() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        TimelineView* t = w->timeline();
        checkHeaderArithmetic(t->summaryText(), priced(*w));
        for (const char* framework : {"devicemesh", "colossalai"}) {
            QVERIFY(w->document()->applyChanges(
                QStringLiteral("Layout"),
                {{"/layout/framework", framework}, {"/layout/pp", 2}, {"/layout/num_microbatches", 16}}));
            QVERIFY(w->document()->waitForAnalysis());
            const StepFlushes sf = priced(*w);
            QVERIFY(sf.sync_s > 0);
            checkHeaderArithmetic(t->summaryText(), sf);
        }
    }

    void oneFlushIsUnchanged() {
        auto w = exampleWindow(tmp_, "llama3.1-8b-pp4-1node");
        TimelineView* t = w->timeline();
        const auto& tl = *t->timeline();
        QCOMPARE(priced(*w).flushes, 1);
        draw(t);
        GanttPlottable* g = t->gantt();
        QCOMPARE(g->flushes().count, 1);
        QCOMPARE(g->flushes().sync, 0.0);
        QCOMPARE(g->span(), tl.makespan);
        QCOMPARE(t->plot()->xAxis->range().upper, tl.makespan * 1.01);
        QCOMPARE(t->plot()->yAxis->range().lower, -0.6);
        QCOMPARE(g->lastDrawnBlocks(), int(tl.ops.size()));
        QCOMPARE(g->lastDrawnForwards(0), tl.microbatches);
        QVERIFY(g->lastFlushLabels().isEmpty());
        QVERIFY(!t->summaryText().contains(QStringLiteral("flush")));
    }

    // Many flushes: past a number of blocks the flushes after the first are stamped from one
    // image of it; every flush is still there (70B, global 65,536 = 2,048 flushes of 32).
    void manyFlushesAreStamped() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        QVERIFY(w->document()->applyChanges(QStringLiteral("Batch"), {{"/training/global_batch_size", 65536}}));
        QVERIFY(w->document()->waitForAnalysis());
        TimelineView* t = w->timeline();
        QCOMPARE(priced(*w).flushes, 2048);
        const QImage img = draw(t);
        GanttPlottable* g = t->gantt();
        QVERIFY(g->lastStamped());
        // The stamps are drawn: stage 0 at the middle of the step is F or B (orange), not idle.
        const QColor mid = img.pixelColor(int(t->plot()->xAxis->coordToPixel(g->span() / 2)),
                                          int(t->plot()->yAxis->coordToPixel(0)));
        const QColor b = GanttPlottable::opColor(paraplan::schedule::OpKind::FullBackward, 0, t->palette());
        QVERIFY2(
            std::abs(mid.red() - b.red()) + std::abs(mid.green() - b.green()) + std::abs(mid.blue() - b.blue()) < 60,
            qPrintable(mid.name()));
        QCOMPARE(g->lastDrawnForwards(0), 2048 * 32);
        QVERIFY(near(g->span(), 2048 * t->timeline()->makespan));
        QVERIFY(g->lastFlushLabels().contains(QStringLiteral("flush 1 of 2048")));
        QVERIFY(g->lastFlushLabels().size() < 40);   // every n-th flush where they are narrow
        // Zoomed in to two flushes: every block drawn, numbered on across the flushes.
        t->plot()->xAxis->setRange(g->flushStart(5), g->flushStart(7));
        draw(t);
        QVERIFY(!g->lastStamped());
        QVERIFY(g->lastFlushLabels().contains(QStringLiteral("flush 6 of 2048")));
        // A vector export draws every block (no image).
        const QString svg = tmp_.filePath(QStringLiteral("many.svg"));
        t->plot()->rescaleAxes();
        QVERIFY(t->exportTo(svg));
        QVERIFY(!g->lastStamped());
    }

    // Blocks thinner than a pixel: those of one colour touching in a lane are filled as one
    // rectangle, and the picture is the one drawn block by block. One flush of 4,096 microbatches
    // on 2 stages (16,384 blocks); a 16,384-GPU project whose layout no longer divides its GPUs
    // had one flush of 8,192 on 32 (524,288 blocks), 150 ms of the GUI thread to draw one by one.
    // Wide blocks (outlined) and stamped flushes are unchanged too.
    void thinBlocksAreFilledTogetherPixelForPixel() {
        const auto both = [](TimelineView* t, int* merged, int* single) {
            GanttPlottable* g = t->gantt();
            g->setMergeBlocks(true);
            const QImage a = draw(t);
            *merged = g->lastFilledRects();
            const int blocks = g->lastDrawnBlocks();
            g->setMergeBlocks(false);
            const QImage b = draw(t);
            *single = g->lastFilledRects();
            g->setMergeBlocks(true);
            return a == b && blocks == g->lastDrawnBlocks();
        };
        int merged = 0, single = 0;
        auto w = exampleWindow(tmp_, "gpt2-1node");   // tp 2, pp 2, micro 4: dp 2
        QVERIFY(w->document()->applyChanges(QStringLiteral("Batch"), {{"/layout/num_microbatches", 4096},
                                                                      {"/training/global_batch_size", 4096 * 4 * 2}}));
        QVERIFY(w->document()->waitForAnalysis());
        TimelineView* t = w->timeline();
        QCOMPARE(t->timeline()->microbatches, 4096);
        QVERIFY(both(t, &merged, &single));
        QCOMPARE(t->gantt()->flushes().count, 1);
        QCOMPARE(single, int(t->timeline()->ops.size()));
        QVERIFY2(merged * 20 < single, qPrintable(QStringLiteral("%1 of %2").arg(merged).arg(single)));
        t->plot()->xAxis->setRange(0, t->timeline()->makespan / 400);   // zoomed in: wide, outlined
        QVERIFY(both(t, &merged, &single));
        QCOMPARE(merged, single);
        auto many = exampleWindow(tmp_, "llama3.1-70b-4nodes");   // 2,048 flushes: stamped
        QVERIFY(many->document()->applyChanges(QStringLiteral("Batch"), {{"/training/global_batch_size", 65536}}));
        QVERIFY(many->document()->waitForAnalysis());
        QVERIFY(both(many->timeline(), &merged, &single));
        QVERIFY(many->timeline()->gantt()->lastStamped());
    }

    // Playing the step: the estimate's own timeline of all 8 flushes, in ms, with the reduction
    // after each (DeviceMesh) and the axis to the end of the last one.
    void playbackMarksFlushesAndSyncs() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        QVERIFY(w->document()->applyChanges(
            QStringLiteral("Layout"),
            {{"/layout/framework", "devicemesh"}, {"/layout/pp", 2}, {"/layout/num_microbatches", 16}}));
        QVERIFY(w->document()->waitForAnalysis());
        StepPlayer* player = w->stepPlayer();
        QTRY_VERIFY_WITH_TIMEOUT(player->playback().has_value(), 20000);
        const auto& pb = *player->playback();
        player->setTime(pb.step_s / 3);
        TimelineView* t = w->timeline();
        QVERIFY(t->showsPlayback());
        draw(t);
        GanttPlottable* g = t->gantt();
        QCOMPARE(g->flushes().count, 8);
        QVERIFY(!g->flushes().repeat);
        QCOMPARE(g->lastDrawnForwards(0), 8 * 16);
        QVERIFY(std::abs(g->span() - pb.grad_sync_end_s * 1e3) <= 1e-6 * g->span());
        QVERIFY(std::abs(g->flushStart(7) + g->flushLength() - pb.makespan_s * 1e3) <= 1e-6 * g->span());
        QVERIFY(g->lastFlushLabels().contains(QStringLiteral("flush 8 of 8")));
        player->stop();
        QVERIFY(!t->showsPlayback());
        draw(t);
        QVERIFY(g->flushes().repeat);
        QCOMPARE(g->lastDrawnForwards(0), 8 * 16);
    }
};

QTEST_MAIN(TestTimelineFlushes)
#include "tst_timeline_flushes.moc"
