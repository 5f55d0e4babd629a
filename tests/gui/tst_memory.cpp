// The Memory and time view follows the document: one stacked bar group per pipeline
// stage (the estimate's own per-stage memory), the capacity line, the step-time
// breakdown, and it redraws when pp changes or is undone.
#include <qcustomplot.h>

#include "estimate/estimate.h"
#include "guitest.h"
#include "mainwindow.h"
#include "views/memoryview.h"
#include "run/run_panel.h"
#include "run/gpu_monitor.h"
#include "project/project.h"
#include "projectdocument.h"

#include <QDockWidget>
#include <QTest>

class TestMemory : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    std::unique_ptr<MainWindow> window(const char* example) { return exampleWindow(tmp_, example); }
    // Sum of the stacked bars at `stage`, in GiB.
    static double stackedAt(QCustomPlot* plot, int stage) {
        double sum = 0;
        for (int i = 0; i < plot->plottableCount(); ++i)
            if (auto* b = qobject_cast<QCPBars*>(plot->plottable(i)))
                for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it)
                    if (qRound(it->key) == stage) sum += it->value;
        return sum;
    }
    static double variance(const QImage& img) {
        double sum = 0, sum2 = 0;
        int n = 0;
        for (int y = 0; y < img.height(); y += 2)
            for (int x = 0; x < img.width(); x += 2) {
                const double g = qGray(img.pixel(x, y));
                sum += g;
                sum2 += g * g;
                ++n;
            }
        return sum2 / n - (sum / n) * (sum / n);
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void oneBarGroupPerStageAndFollowsPp() {
        auto w = window("llama3.1-70b-4nodes");
        MemoryView* v = w->memoryView();
        QVERIFY(v);
        QVERIFY2(v->estimate().has_value(), qPrintable(v->errorText()));
        QCOMPARE(w->project().layout.pp, 4);
        QCOMPARE(v->stageCount(), 4);
        QCOMPARE(int(v->memoryPlot()->plottableCount()), 5);   // params, grads, optimizer, activations, other
        QCOMPARE(v->memoryPlot()->itemCount(), 1);             // the capacity line

        // The bars are the estimator's figures, stage by stage.
        const auto e = paraplan::estimate::estimate_project(w->project());
        QCOMPARE(int(e.memory.stages.size()), 4);
        for (const auto& s : e.memory.stages)
            QVERIFY(qAbs(stackedAt(v->memoryPlot(), s.stage) - s.total() / paraplan::estimate::kGiB) < 1e-6);
        QVERIFY(v->summaryText().contains(QStringLiteral("MFU")));
        QVERIFY(v->summaryText().contains(QStringLiteral("tokens/s")));
        QCOMPARE(v->timePlot()->plottableCount(), 1);
        QVERIFY(v->timePlot()->plottable(0)->interface1D()->dataCount() >= 7);

        const double stage0Before = stackedAt(v->memoryPlot(), 0);
        QString err;
        QVERIFY2(w->document()->edit(
                     QStringLiteral("pp 2"), [](paraplan::Project& p) { p.layout.pp = 2; }, &err),
                 qPrintable(err));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY2(v->estimate().has_value(), qPrintable(v->errorText()));
        QCOMPARE(v->stageCount(), 2);
        // Half the stages: each holds about twice the layers, so more memory.
        QVERIFY(stackedAt(v->memoryPlot(), 0) > stage0Before);

        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(v->stageCount(), 4);
        QVERIFY(qAbs(stackedAt(v->memoryPlot(), 0) - stage0Before) < 1e-9);
    }

    void viewRendersNonBlank() {
        auto w = window("llama3.1-70b-4nodes");
        QVERIFY(w->raiseView(QStringLiteral("memory")));
        MemoryView* v = w->memoryView();
        v->resize(900, 400);
        const QImage img = v->grab().toImage();
        QVERIFY(!img.isNull());
        QVERIFY(variance(img) > 50);
    }

    void runAndGpuDocksToggle() {
        auto w = window("gpt2-1node");
        QVERIFY(w->runPanel());
        QVERIFY(w->gpuMonitor());
        QVERIFY(w->viewNames().contains(QStringLiteral("run")));
        QVERIFY(w->viewNames().contains(QStringLiteral("gpus")));
        auto* dock = w->findChild<QDockWidget*>(QStringLiteral("runDock"));
        QVERIFY(dock && dock->isAncestorOf(w->runPanel()));   // inside its scroll area
        QVERIFY(dock->toggleViewAction()->isCheckable());
        QVERIFY(w->raiseView(QStringLiteral("run")));
        QVERIFY(!dock->isHidden());
    }
};

QTEST_MAIN(TestMemory)
#include "tst_memory.moc"
