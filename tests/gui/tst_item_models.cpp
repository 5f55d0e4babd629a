// Every item model the app shows, checked by Qt's own QAbstractItemModelTester through the
// changes the app makes to it: the planner's results (filled by a real search, re-marked on
// an edit, sorted through the proxy by a header click, emptied by another search).
#include <qcustomplot.h>

#include "guitest.h"
#include "mainwindow.h"
#include "planmodel.h"
#include "plannerpanel.h"
#include "projectdocument.h"

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
};

QTEST_MAIN(TestItemModels)
#include "tst_item_models.moc"
