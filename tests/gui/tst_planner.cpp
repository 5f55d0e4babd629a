// The Planner view: the search runs off the GUI thread with progress and cancel, the
// results table sorts, and applying a row is one undoable step that yields the layout the
// planner estimated.
#include <qcustomplot.h>

#include "guitest.h"
#include "mainwindow.h"
#include "plan/planmodel.h"
#include "plan/plannerpanel.h"
#include "project/project.h"
#include "projectdocument.h"
#include "rules/validate.h"
#include "../scale_project.h"
#include "search/apply_plan.h"

#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QUndoStack>

class TestPlanner : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    std::unique_ptr<MainWindow> window(const char* example) { return exampleWindow(tmp_, example); }
    static bool runAndWait(PlannerPanel* p) {
        QSignalSpy started(p, &PlannerPanel::started), done(p, &PlannerPanel::finished);
        p->run();
        if (started.isEmpty()) return false;   // refused to start
        return !done.isEmpty() || done.wait(60'000);
    }
    static QPoint cellCenter(QTableView* t, int row, int col) {
        return t->visualRect(t->model()->index(row, col)).center();
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    // Without results the chart is a clean empty state: the axes keep the plot's width (an
    // empty legend box used to squeeze them to a sliver of crammed tick numbers), no made-up
    // tick numbers, and a centred line saying what to do.
    void emptyChartIsClean() {
        auto w = window("gpt2-1node");
        w->setAttribute(Qt::WA_DontShowOnScreen);
        PlannerPanel* p = w->plannerPanel();
        p->setConstraints(QStringLiteral("tp=eight"));   // its automatic search is refused: no results
        w->show();
        w->resize(1280, 800);
        QVERIFY(w->raiseView(QStringLiteral("planner")));
        QVERIFY(w->document()->waitForAnalysis());
        QTest::qWait(50);
        QVERIFY(!p->hasRun() && !p->isRunning());
        QCustomPlot* plot = p->plot();
        // What is wrong with the chart's empty state (empty if nothing).
        auto emptyProblem = [&](const QString& text) -> QString {
            plot->replot();
            if (p->plotEmptyText() != text) return QStringLiteral("empty-state text: \"%1\"").arg(p->plotEmptyText());
            if (plot->legend->visible()) return QStringLiteral("an empty legend is shown");
            if (plot->xAxis->tickLabels() || plot->yAxis->tickLabels()) return QStringLiteral("tick numbers shown");
            if (plot->axisRect()->width() < plot->width() * 6 / 10)
                return QStringLiteral("axes squeezed: %1 px of %2").arg(plot->axisRect()->width()).arg(plot->width());
            const QCPRange x = plot->xAxis->range(), y = plot->yAxis->range();
            if (x.lower != 0 || x.size() <= 0 || y.lower != 0 || y.size() <= 0)
                return QStringLiteral("axis ranges %1..%2, %3..%4").arg(x.lower).arg(x.upper).arg(y.lower).arg(y.upper);
            return {};
        };
        const QString before = emptyProblem(QStringLiteral("No layouts yet:\npress Plan (F5)"));
        QVERIFY2(before.isEmpty(), qPrintable(before));
        // A search that finds nothing (tp 3 does not divide 8 GPUs) says so the same way.
        p->setConstraints(QStringLiteral("tp=3"));
        QVERIFY2(runAndWait(p), qPrintable(p->summaryText()));
        QVERIFY(p->hasRun() && p->result().results.empty());
        const QString none = emptyProblem(QStringLiteral("No layout fits:\nsee the summary above"));
        QVERIFY2(none.isEmpty(), qPrintable(none));
        // Results: the points, the legend and the tick numbers are back; no empty-state text.
        p->setConstraints(QString());
        QVERIFY2(runAndWait(p), qPrintable(p->summaryText()));
        plot->replot();
        QVERIFY(!p->result().results.empty());
        QCOMPARE(p->plotEmptyText(), QString());
        QVERIFY(plot->legend->visible() && plot->xAxis->tickLabels() && plot->yAxis->tickLabels());
        QVERIFY(plot->axisRect()->width() >= plot->width() * 6 / 10);
    }

    void planSortApplyUndo() {
        auto w = window("gpt2-1node");
        w->show();
        PlannerPanel* p = w->plannerPanel();
        p->setTop(20);
        QSignalSpy started(p, &PlannerPanel::started);
        QVERIFY(runAndWait(p));
        QCOMPARE(started.count(), 1);
        QVERIFY(p->hasRun());
        QVERIFY(!p->isRunning());
        const auto& r = p->result();
        QVERIFY(r.evaluated > 0 && r.fitting > 0);
        QCOMPARE(p->model()->rowCount(), int(r.results.size()));
        QVERIFY(p->model()->rowCount() > 1);
        QVERIFY(p->summaryText().contains(QLocale().toString(r.evaluated)));
        // Rank order by default: step times ascending.
        QTableView* t = p->table();
        for (int i = 1; i < t->model()->rowCount(); ++i)
            QVERIFY(t->model()->index(i - 1, PlanModel::StepTime).data(PlanModel::SortRole).toDouble() <=
                    t->model()->index(i, PlanModel::StepTime).data(PlanModel::SortRole).toDouble());
        // Clicking the peak-memory header sorts by it (numerically, not as text).
        QHeaderView* h = t->horizontalHeader();
        const int x = h->sectionViewportPosition(PlanModel::PeakMemory) + h->sectionSize(PlanModel::PeakMemory) / 2;
        QTest::mouseClick(h->viewport(), Qt::LeftButton, {}, QPoint(x, h->height() / 2));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(h->sortIndicatorSection(), int(PlanModel::PeakMemory));
        std::vector<double> peaks;
        for (int i = 0; i < t->model()->rowCount(); ++i)
            peaks.push_back(t->model()->index(i, PlanModel::PeakMemory).data(PlanModel::SortRole).toDouble());
        const bool ascending = h->sortIndicatorOrder() == Qt::AscendingOrder;
        for (std::size_t i = 1; i < peaks.size(); ++i)
            QVERIFY(ascending ? peaks[i - 1] <= peaks[i] : peaks[i - 1] >= peaks[i]);

        // Pick the second row of the sorted table with the mouse, then Apply.
        const int row = 1;
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, cellCenter(t, row, PlanModel::Framework));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        const paraplan::search::PlanEntry chosen = p->model()->entry(
            p->proxy()->mapToSource(t->model()->index(row, 0)).row());
        const nlohmann::json before = paraplan::project_to_json(w->project());
        auto* apply = p->findChild<QPushButton*>(QStringLiteral("plannerApply"));
        QVERIFY(apply->isEnabled());
        QTest::mouseClick(apply, Qt::LeftButton);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        const auto& now = w->project();
        QCOMPARE(now.layout.tp, chosen.layout.tp);
        QCOMPARE(now.layout.pp, chosen.layout.pp);
        QCOMPARE(now.layout.schedule, chosen.layout.schedule);
        QCOMPARE(now.layout.num_microbatches, chosen.layout.num_microbatches);
        QCOMPARE(now.training.micro_batch_size, chosen.micro_batch_size);
        QVERIFY(!paraplan::has_errors(w->document()->diagnostics()));
        QVERIFY(w->document()->undoStack()->undoText().startsWith(QStringLiteral("Apply plan: ")));
        // The applied row is marked as the project's own.
        QCOMPARE(p->model()->currentRow(), p->proxy()->mapToSource(t->model()->index(row, 0)).row());
        QVERIFY(!p->isStale());   // the layout changed, not the model, cluster or batch
        // One undo step restores everything; redo re-applies.
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(paraplan::project_to_json(w->project()), before);
        QCOMPARE(p->model()->currentRow() == p->proxy()->mapToSource(t->model()->index(row, 0)).row(), false);
        w->document()->undoStack()->redo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().layout.tp, chosen.layout.tp);

        // Double-clicking another row applies it too.
        const int other = 0;
        const paraplan::search::PlanEntry e0 = p->model()->entry(
            p->proxy()->mapToSource(t->model()->index(other, 0)).row());
        const QPoint c = cellCenter(t, other, PlanModel::Tp);
        QTest::mouseClick(t->viewport(), Qt::LeftButton, {}, c);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QTest::mouseDClick(t->viewport(), Qt::LeftButton, {}, c);
        QCOMPARE(w->project().layout.tp, e0.layout.tp);
        QCOMPARE(w->project().training.micro_batch_size, e0.micro_batch_size);
    }

    void staleAfterBatchChangeAndPareto() {
        auto w = window("gpt2-1node");
        PlannerPanel* p = w->plannerPanel();
        QVERIFY(runAndWait(p));
        QVERIFY(!p->isStale());
        QVERIFY(!p->findChild<QLabel*>(QStringLiteral("plannerStale"))->isVisibleTo(p));
        QVERIFY(w->document()->edit(QStringLiteral("batch"),
                                    [](paraplan::Project& pr) { pr.training.global_batch_size *= 2; }));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(p->isStale());
        QVERIFY(p->findChild<QLabel*>(QStringLiteral("plannerStale"))->isVisibleTo(p));
        QVERIFY(runAndWait(p));
        QVERIFY(!p->isStale());
        // The Pareto view lists the front: step time up, memory strictly down.
        p->setShowPareto(true);
        QCOMPARE(p->model()->rowCount(), int(p->result().pareto.size()));
        for (int i = 1; i < p->model()->rowCount(); ++i) {
            QVERIFY(p->model()->entry(i - 1).step_s <= p->model()->entry(i).step_s);
            QVERIFY(p->model()->entry(i - 1).peak_gib > p->model()->entry(i).peak_gib);
        }
        // The plot shows the results, the front and the selected layout.
        QVERIFY(p->plot()->graphCount() >= 3);
        QCOMPARE(p->plot()->graph(0)->data()->size(), int(p->result().results.size()));
    }

    void constraintsAndFrameworks() {
        auto w = window("gpt2-1node");
        PlannerPanel* p = w->plannerPanel();
        p->setConstraints(QStringLiteral("tp=eight"));
        QSignalSpy done(p, &PlannerPanel::finished);
        p->run();
        QVERIFY(!p->isRunning());
        QVERIFY(done.isEmpty());
        QVERIFY2(p->summaryText().contains(QStringLiteral("tp")), qPrintable(p->summaryText()));
        p->setConstraints(QStringLiteral("tp=2,recompute=none"));
        p->setFrameworks({QStringLiteral("megatron")});
        QVERIFY2(runAndWait(p), qPrintable(p->summaryText()));
        QVERIFY(p->model()->rowCount() > 0);
        for (int i = 0; i < p->model()->rowCount(); ++i) {
            QCOMPARE(p->model()->entry(i).layout.tp, 2);
            QCOMPARE(p->model()->entry(i).layout.framework, std::string("megatron"));
            QCOMPARE(p->model()->entry(i).layout.recompute, paraplan::Recompute::none);
        }
    }

    void cancelKeepsPreviousResults() {
        auto w = window("llama3.1-405b-128nodes");
        PlannerPanel* p = w->plannerPanel();
        p->setFrameworks({QStringLiteral("megatron"), QStringLiteral("colossalai")});
        QSignalSpy done(p, &PlannerPanel::finished);
        p->run();
        QVERIFY(p->isRunning());
        auto* cancel = p->findChild<QPushButton*>(QStringLiteral("plannerCancel"));
        QVERIFY(cancel->isEnabled());
        QTest::mouseClick(cancel, Qt::LeftButton);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(done.wait(60'000) || !done.isEmpty());
        QCOMPARE(done.count(), 1);
        QCOMPARE(done.first().first().toBool(), true);
        QVERIFY(!p->hasRun());
        QCOMPARE(p->model()->rowCount(), 0);
        QVERIFY(p->summaryText().startsWith(QStringLiteral("Cancelled")));
        QVERIFY(!cancel->isEnabled());
        QVERIFY(p->findChild<QPushButton*>(QStringLiteral("plannerRun"))->isEnabled());
    }

    void planActionRaisesAndRuns() {
        auto w = window("gpt2-1node");
        w->show();
        QSignalSpy done(w->plannerPanel(), &PlannerPanel::finished);
        QAction* plan = nullptr;
        for (QAction* a : w->findChildren<QAction*>())
            if (a->shortcut() == QKeySequence(Qt::Key_F5)) plan = a;
        QVERIFY(plan);
        plan->trigger();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(done.wait(60'000) || !done.isEmpty());
        QVERIFY(w->plannerPanel()->isVisible());
        QVERIFY(w->plannerPanel()->model()->rowCount() > 0);
    }

    // Shown at start, the panel plans the open project by itself, but only once that project's
    // analysis has arrived: the search never competes with the analysis for the cores.
    void autoRunWaitsForAnalysis() {
        auto w = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec-auto")));
        ProjectDocument* doc = w->document();
        // Large enough that its analysis on a worker is still running when the window shows.
        w->openProject(scale_project(512), QString());
        QStringList log;
        connect(doc, &ProjectDocument::analysisReady, this,
                [&](quint64 rev) { log.append(QStringLiteral("ready %1").arg(rev)); });
        PlannerPanel* p = w->plannerPanel();
        connect(p, &PlannerPanel::started, this,
                [&] { log.append(QStringLiteral("search %1 %2").arg(doc->revision()).arg(doc->analysisCurrent())); });
        w->show();
        QVERIFY(p->isVisible());
        QTRY_VERIFY_WITH_TIMEOUT(p->isRunning(), 60000);
        p->cancel();   // the order is what counts here, not the search
        QTRY_VERIFY_WITH_TIMEOUT(!p->isRunning(), 60000);
        const int search = log.indexOf(QStringLiteral("search %1 1").arg(doc->revision()));
        QVERIFY2(search >= 0, qPrintable(log.join(QStringLiteral(", "))));
        const int ready = log.indexOf(QStringLiteral("ready %1").arg(doc->revision()));
        QVERIFY2(ready >= 0 && ready < search, qPrintable(log.join(QStringLiteral(", "))));
        QCOMPARE(log.filter(QStringLiteral("search")).size(), 1);
    }

    // Above PlannerPanel::kAutoRunMaxGpus the panel does not search by itself (the search would
    // compete with every edit for the cores); Plan still does.
    void noAutoRunAtScale() {
        auto w = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec-scale")));
        const int nodes = PlannerPanel::kAutoRunMaxGpus / 8 + 32;
        w->setProject(scale_project(nodes), QString());
        QVERIFY(w->project().world_size() > PlannerPanel::kAutoRunMaxGpus);
        PlannerPanel* p = w->plannerPanel();
        QSignalSpy started(p, &PlannerPanel::started);
        w->show();
        QVERIFY(p->isVisible());
        QVERIFY(w->document()->waitForAnalysis());
        QTest::qWait(300);
        QCOMPARE(started.count(), 0);
        QVERIFY(!p->hasRun() && !p->isRunning() && !p->autoRunPending());
        QVERIFY2(p->summaryText().contains(QStringLiteral("F5")), qPrintable(p->summaryText()));
        p->run();   // on request it searches
        QCOMPARE(started.count(), 1);
        p->cancel();
        QTRY_VERIFY_WITH_TIMEOUT(!p->isRunning(), 60000);
    }
};

QTEST_MAIN(TestPlanner)
#include "tst_planner.moc"
