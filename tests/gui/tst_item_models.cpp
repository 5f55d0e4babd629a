// Every item model the app shows, checked by Qt's own QAbstractItemModelTester through the
// changes the app makes to it: the planner's results (filled by a real search, re-marked on
// an edit, sorted through the proxy by a header click, emptied by another search) and the link
// traffic table (filled from a step playback, emptied when the playback has a problem, refilled).
#include <qcustomplot.h>

#include "estimate/step_playback.h"
#include "guitest.h"
#include "views/linktrafficview.h"
#include "mainwindow.h"
#include "plan/planmodel.h"
#include "plan/plannerpanel.h"
#include "projectdocument.h"
#include "views/stepplayer.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>

class TestItemModels : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    static bool runAndWait(PlannerPanel* p) {
        QSignalSpy started(p, &PlannerPanel::started), done(p, &PlannerPanel::finished);
        p->run();
        if (started.isEmpty()) return false;
        return !done.isEmpty() || done.wait(60'000);
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void plannerModels() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        w->show();
        PlannerPanel* p = w->plannerPanel();
        QAbstractItemModelTester modelTester(p->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester proxyTester(p->proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);

        p->setTop(12);
        QVERIFY(runAndWait(p));
        QVERIFY(p->model()->rowCount() > 1);
        QCOMPARE(p->proxy()->rowCount(), p->model()->rowCount());
        QCOMPARE(p->model()->columnCount(), int(PlanModel::ColumnCount));

        // Sorting by a header click reorders the proxy; the tester checks every signal it sends.
        auto* t = p->findChild<QTableView*>();
        QVERIFY(t);
        QHeaderView* h = t->horizontalHeader();
        const int x = h->sectionViewportPosition(PlanModel::PeakMemory) + h->sectionSize(PlanModel::PeakMemory) / 2;
        QTest::mouseClick(h->viewport(), Qt::LeftButton, {}, QPoint(x, h->height() / 2));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        for (int i = 1; i < p->proxy()->rowCount(); ++i) {
            const double a = p->proxy()->index(i - 1, PlanModel::PeakMemory).data(PlanModel::SortRole).toDouble();
            const double b = p->proxy()->index(i, PlanModel::PeakMemory).data(PlanModel::SortRole).toDouble();
            QVERIFY(h->sortIndicatorOrder() == Qt::AscendingOrder ? a <= b : a >= b);
        }

        // An edit re-marks the project's row (dataChanged over the old and the new row).
        QVERIFY(w->document()->edit(QStringLiteral("batch"),
                                    [](paraplan::Project& pr) { pr.training.global_batch_size *= 2; }));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QTest::qWait(0);

        // A second, smaller search resets the model to fewer rows.
        const int before = p->model()->rowCount();
        p->setTop(3);
        QVERIFY(runAndWait(p));
        QVERIFY(p->model()->rowCount() <= 3);
        QVERIFY(p->model()->rowCount() < before);
        QCOMPARE(p->proxy()->rowCount(), p->model()->rowCount());
    }

    void linkTrafficModel() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        w->show();
        LinkTrafficView* v = w->linkTraffic();
        QAbstractItemModel* m = v->table()->model();
        QAbstractItemModelTester tester(m, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QVERIFY(w->stepPlayer()->playback());
        const paraplan::estimate::StepPlayback pb = *w->stepPlayer()->playback();
        QVERIFY(pb.links.size() > 4);

        v->setPlayback(&pb);
        QCOMPARE(m->rowCount(), int(pb.links.size()));
        QCOMPARE(m->columnCount(), 5);
        v->setPlayback(nullptr, QStringLiteral("no playback"));   // the table empties
        QCOMPARE(m->rowCount(), 0);
        v->setPlayback(&pb);
        QCOMPARE(m->rowCount(), int(pb.links.size()));
        // Every cell of the first rows answers the roles the view asks for.
        for (int r = 0; r < std::min(8, m->rowCount()); ++r)
            for (int c = 0; c < m->columnCount(); ++c) QVERIFY(m->index(r, c).data().isValid());

        // An edit: the player's next playback replaces the table's rows (the tester checks the signals).
        QVERIFY(w->document()->edit(QStringLiteral("tp"), [](paraplan::Project& pr) { pr.layout.tp = 4; }));
        QVERIFY(w->document()->waitForAnalysis());
        QTRY_VERIFY_WITH_TIMEOUT(w->stepPlayer()->playback().has_value(), 30000);
        v->setPlayback(&*w->stepPlayer()->playback());
        QCOMPARE(m->rowCount(), int(w->stepPlayer()->playback()->links.size()));

        // The cluster named as DGX H100 nodes: each row names the outermost tier its traffic crosses
        // and the summary sums each tier.
        QVERIFY(w->document()->edit(QStringLiteral("system"), [](paraplan::Project& pr) {
            pr.cluster.system = "dgx-h100";
            for (auto& n : pr.cluster.nodes) n.gpu = "h100-sxm";
        }));
        QVERIFY(w->document()->waitForAnalysis());
        QTRY_VERIFY_WITH_TIMEOUT(w->stepPlayer()->playback().has_value() && !w->stepPlayer()->playback()->tiers.empty(),
                                 30000);
        const paraplan::estimate::StepPlayback tiered = *w->stepPlayer()->playback();
        v->setPlayback(&tiered);
        QVERIFY2(v->summaryText().contains(QStringLiteral("Per tier: nvlink")), qPrintable(v->summaryText()));
        QVERIFY(v->summaryText().contains(QStringLiteral("infiniband")));
        for (int r = 0; r < std::min(8, m->rowCount()); ++r) {
            const auto& link = tiered.links[std::size_t(r)];
            QCOMPARE(m->index(r, 1).data().toString(), QString::fromStdString(link.tier));
            QCOMPARE(link.tier == "nvlink", !link.cross_node);
        }
    }
};

QTEST_MAIN(TestItemModels)
#include "tst_item_models.moc"
