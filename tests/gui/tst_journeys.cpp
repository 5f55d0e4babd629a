// User journeys through the real main window (issue 31, item 9), driven as a person drives it:
// keys and shortcuts sent where the window system sends them (the focused widget of the active
// window), mouse clicks and wheel notches on the widgets, the menus' own actions, the file
// dialogs answered by typing a path. Two journeys:
//  - newUsersJourney: File > New, nodes added by drag-drop and by keyboard, tp typed and pp
//    turned by the wheel, a rule's finding fixed with its button, a plan applied, the layouts
//    compared, the Megatron script exported through the Export dialog, every step undone and
//    redone, the file saved and reopened in a fresh window. Each step checks its outcome.
//  - noStallAt16kGpus: a journey of edits, undo/redo, planning, dock switches and canvas zoom on
//    a 16,384-GPU project, each step measured with StallMeter (the GUI thread's longest time
//    away from its event loop) and held to 100 ms of its own time (StallMeter::longestOwnMs: the
//    time it waited for a core while other processes ran is not a stall).
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "../scale_project.h"
#include "canvas/canvasview.h"
#include "canvas/clustercanvas.h"
#include "canvas/clustermime.h"
#include "canvas/clusterpalette.h"
#include "plan/compareview.h"
#include "plan/diagnosticspanel.h"
#include "estimate/estimate.h"
#include "exportdialog.h"
#include "guitest.h"
#include "journey_input.h"
#include "plan/layoutpanel.h"
#include "newprojectdialog.h"
#include "plan/planmodel.h"
#include "plan/plannerpanel.h"
#include "projectdocument.h"
#include "views/rankgrid.h"
#include "rules/validate.h"
#include "search/apply_plan.h"
#include "stall_meter.h"

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDropEvent>
#include <QFileDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QStatusBar>
#include <QToolButton>
#include <QTreeWidget>
#include <QUndoStack>
#include <QWheelEvent>

#include <nlohmann/json.hpp>

using paraplan::Project;

namespace {
constexpr int kScreenW = 1280, kScreenH = 800;   // a small laptop, as tst_first_use

nlohmann::json fileForm(const Project& p) { return paraplan::project_to_json(p); }

QAction* action(const MainWindow& w, const char* objectName) {
    return w.findChild<QAction*>(QString::fromLatin1(objectName));
}
}   // namespace

class TestJourneys : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void newUsersJourney() {
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec-new")));
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        ProjectDocument* doc = w.document();
        QUndoStack* undo = doc->undoStack();

        // --- File > New (Ctrl+N): the form filled in by keyboard, Enter creates. ---------------
        QVERIFY(press(Qt::Key_N, Qt::ControlModifier));
        QTRY_VERIFY(shownDialog<NewProjectDialog>());
        NewProjectDialog* form = shownDialog<NewProjectDialog>();
        QTRY_COMPARE(QApplication::activeWindow(), form);
        QVERIFY(focus(form->frameworkCombo()));
        QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("megatron"));   // type-ahead
        QCOMPARE(form->frameworkCombo()->currentText(), QStringLiteral("megatron"));
        QVERIFY(focus(form->nameEdit()));
        form->nameEdit()->selectAll();
        QTest::keyClicks(form->nameEdit(), QStringLiteral("journey"));
        QVERIFY(press(Qt::Key_Return));   // Create, the default button
        QTRY_VERIFY(!shownDialog<NewProjectDialog>());
        QVERIFY(doc->waitForAnalysis());
        QCOMPARE(w.project().name, std::string("journey"));
        QCOMPARE(w.project().layout.framework, std::string("megatron"));
        QCOMPARE(w.project().cluster.nodes.size(), std::size_t(1));
        const std::string gpu = w.project().cluster.nodes[0].gpu;
        QCOMPARE(gpu, std::string("h100-sxm"));
        QCOMPARE(w.project().world_size(), 8);
        QCOMPARE(undo->count(), 0);
        QVERIFY(undo->isClean());
        const nlohmann::json start = fileForm(w.project());

        // --- Nodes: a template dropped on the canvas, Enter on the palette, Insert. -----------
        QWidget* viewport = w.canvas()->view()->viewport();
        QVERIFY(dropTemplate(viewport, QPoint(viewport->width() - 20, viewport->height() - 20), gpu, 8));
        QVERIFY(doc->waitForAnalysis());
        QCOMPARE(w.project().cluster.nodes.size(), std::size_t(2));
        QListWidget* palette = w.canvas()->paletteList();
        const auto found = palette->findItems(QStringLiteral("8 × ") + QString::fromStdString(gpu), Qt::MatchExactly);
        QVERIFY(!found.isEmpty());
        QVERIFY(focus(palette));
        palette->setCurrentItem(found.first());
        QVERIFY(press(Qt::Key_Return));
        QVERIFY(doc->waitForAnalysis());
        QCOMPARE(w.project().cluster.nodes.size(), std::size_t(3));
        QVERIFY(focus(w.canvas()->view()));
        QVERIFY(press(Qt::Key_Insert));   // Edit > Add Node: another like the palette's template
        QVERIFY(doc->waitForAnalysis());
        QCOMPARE(w.project().cluster.nodes.size(), std::size_t(4));
        QCOMPARE(w.project().world_size(), 32);
        for (const auto& n : w.project().cluster.nodes) QCOMPARE(n.gpu, gpu);

        // --- Layout: tp typed and Enter, pp one wheel notch on the focused field. -------------
        QVERIFY(w.raiseView(QStringLiteral("layout")));
        auto* tp = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("tp"));
        auto* pp = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("pp"));
        QVERIFY(tp && tp->lineEdit() && pp);
        auto typeTp = [&](const QString& value) {
            if (!focus(tp->lineEdit())) return false;
            tp->lineEdit()->selectAll();
            QTest::keyClicks(tp->lineEdit(), value);
            return press(Qt::Key_Return) && doc->waitForAnalysis();
        };
        QVERIFY(typeTp(QStringLiteral("4")));
        QCOMPARE(w.project().layout.tp, 4);
        QCOMPARE(w.project().layout.pp, 1);
        QVERIFY(focus(pp));
        QVERIFY(wheel(pp, -1));   // down: the next offered size, 1 -> 2
        QVERIFY(doc->waitForAnalysis());
        QCOMPARE(w.project().layout.pp, 2);
        QCOMPARE(pp->currentText(), QStringLiteral("2"));
        QCOMPARE(undo->count(), 5);   // three nodes, tp, pp: one step each

        // --- A rule's finding and its one-click fix. ----------------------------------------
        using paraplan::Severity;
        const int errorsBefore = w.diagnosticsPanel()->count(Severity::Error);
        QVERIFY(typeTp(QStringLiteral("3")));   // 3 divides neither the 32 GPUs nor the heads
        QCOMPARE(w.project().layout.tp, 3);
        QVERIFY(w.raiseView(QStringLiteral("diagnostics")));
        QVERIFY(w.diagnosticsPanel()->isVisible());
        QVERIFY(w.diagnosticsPanel()->count(Severity::Error) > errorsBefore);
        QCOMPARE(std::size_t(w.diagnosticsPanel()->tree()->topLevelItemCount()), doc->diagnostics().size());
        QCOMPARE(doc->diagnostics().size(), paraplan::validate(w.project()).size());
        auto* fix = w.diagnosticsPanel()->findChild<QToolButton*>(QStringLiteral("fixButton"));
        QVERIFY2(fix && fix->isVisible(), "no Fix button shown for tp 3");
        const int stepsBeforeFix = undo->count();
        QTest::mouseClick(fix, Qt::LeftButton);
        QVERIFY(doc->waitForAnalysis());
        QCOMPARE(undo->count(), stepsBeforeFix + 1);
        QVERIFY2(undo->text(stepsBeforeFix).startsWith(QStringLiteral("Apply fix")),
                 qPrintable(undo->text(stepsBeforeFix)));
        QVERIFY(w.project().layout.tp != 3);
        // The status bar says what the click did (it still showed the last node added).
        QVERIFY2(w.statusBar()->currentMessage().startsWith(undo->text(stepsBeforeFix)),
                 qPrintable(w.statusBar()->currentMessage()));
        QCOMPARE(w.diagnosticsPanel()->count(Severity::Error), errorsBefore);
        QCOMPARE(doc->diagnostics().size(), paraplan::validate(w.project()).size());

        // --- Plan (F5), the open project put in Compare, the first row applied, compared. -----
        PlannerPanel* planner = w.plannerPanel();
        QSignalSpy planned(planner, &PlannerPanel::finished);
        QVERIFY(focus(w.canvas()->view()));
        QVERIFY(press(Qt::Key_F5));
        QVERIFY(planner->isVisible());
        QVERIFY(!planned.isEmpty() || planned.wait(120000));
        QCOMPARE(planned.last().at(0).toBool(), false);   // not cancelled
        QVERIFY(planner->proxy()->rowCount() > 0);
        const Project beforePlan = w.project();
        QAction* addOpen = action(w, "compareAddOpenAction");
        QVERIFY(addOpen);
        addOpen->trigger();   // Tools > Add Open Project to Compare
        QTableView* table = planner->table();
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {},
                          table->visualRect(table->model()->index(0, PlanModel::Framework)).center());
        const auto chosen = planner->model()->entry(planner->proxy()->mapToSource(table->model()->index(0, 0)).row());
        QVERIFY(w.raiseView(QStringLiteral("planner")));
        auto* apply = planner->findChild<QPushButton*>(QStringLiteral("plannerApply"));
        QVERIFY(apply && apply->isEnabled());
        QTest::mouseClick(apply, Qt::LeftButton);
        QVERIFY(doc->waitForAnalysis());
        QCOMPARE(w.project().layout.tp, chosen.layout.tp);
        QCOMPARE(w.project().layout.pp, chosen.layout.pp);
        QCOMPARE(w.project().training.micro_batch_size, chosen.micro_batch_size);
        QVERIFY(undo->undoText().startsWith(QStringLiteral("Apply plan: ")));
        QVERIFY(!paraplan::has_errors(doc->diagnostics()));
        addOpen->trigger();
        CompareView* compare = w.compareView();
        QVERIFY(compare->isVisible());
        QCOMPARE(compare->count(), 2);
        const auto stepOf = [](const Project& p) {
            return QString::number(paraplan::estimate::estimate_project(p).time.step_s, 'f', 3);
        };
        QCOMPARE(compare->cellText(QStringLiteral("step_s"), 0), stepOf(beforePlan));
        QCOMPARE(compare->cellText(QStringLiteral("step_s"), 1), stepOf(w.project()));
        QVERIFY(compare->differences()->topLevelItemCount() > 0);

        // --- Export (Ctrl+E): the Megatron script saved to a folder through the file dialog. --
        QVERIFY(focus(w.canvas()->view()));
        QVERIFY(press(Qt::Key_E, Qt::ControlModifier));
        QTRY_VERIFY(shownDialog<ExportDialog>());
        ExportDialog* exp = shownDialog<ExportDialog>();
        QTRY_COMPARE(QApplication::activeWindow(), exp);
        auto* format = exp->findChild<QComboBox*>(QStringLiteral("format"));
        QVERIFY(format && focus(format));
        format->setCurrentIndex(0);
        QTest::keyClicks(format, QStringLiteral("megatron"));   // type-ahead
        QCOMPARE(exp->format(), QStringLiteral("megatron"));
        QVERIFY(!exp->result().refused);
        const QString out = tmp_.filePath(QStringLiteral("export"));
        QVERIFY(QDir().mkpath(out));
        QPushButton* save = nullptr;
        for (auto* b : exp->findChildren<QPushButton*>())
            if (b->text().remove(QLatin1Char('&')).startsWith(QStringLiteral("Save"))) save = b;
        QVERIFY(save);
        {
            AnswerFileDialogs answer(out);
            QTest::mouseClick(save, Qt::LeftButton);   // returns once the folder is chosen
            QCOMPARE(answer.titles().size(), 1);
        }
        const QStringList files = QDir(out).entryList(QDir::Files);
        QCOMPARE(files.size(), exp->fileNames().size());
        bool tpFlag = false;
        for (const QString& name : files) {
            QFile f(QDir(out).filePath(name));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QByteArray text = f.readAll();
            QCOMPARE(QString::fromUtf8(text), exp->fileText(name));
            if (name.endsWith(QStringLiteral(".json")))
                QVERIFY2(nlohmann::json::accept(text.toStdString()), qPrintable(name));
            if (name.endsWith(QStringLiteral(".sh"))) {   // the shell reads it
                QProcess sh;
                sh.start(QStringLiteral("bash"), {QStringLiteral("-n"), f.fileName()});
                QVERIFY(sh.waitForFinished(30000));
                QVERIFY2(sh.exitCode() == 0, qPrintable(name + QLatin1Char(' ') + sh.readAllStandardError()));
            }
            tpFlag = tpFlag ||
                     text.contains(
                         QStringLiteral("--tensor-model-parallel-size %1").arg(w.project().layout.tp).toUtf8());
        }
        QVERIFY2(tpFlag, qPrintable(files.join(QLatin1Char(','))));
        QVERIFY(press(Qt::Key_Escape));
        QTRY_VERIFY(!shownDialog<ExportDialog>());
        QTRY_COMPARE(QApplication::activeWindow(), &w);

        // --- Ctrl+Z to the start, Ctrl+Shift+Z back to the end. ------------------------------
        const nlohmann::json end = fileForm(w.project());
        const int steps = undo->count();
        QVERIFY(focus(w.canvas()->view()));
        for (int i = 0; i < steps; ++i) QVERIFY(press(Qt::Key_Z, Qt::ControlModifier));
        QVERIFY(!undo->canUndo());
        QVERIFY(undo->isClean());
        QVERIFY(doc->waitForAnalysis());
        QCOMPARE(fileForm(w.project()), start);
        QCOMPARE(w.canvas()->nodeItems().size(), std::size_t(1));
        QCOMPARE(tp->currentText(), QString::number(w.project().layout.tp));
        for (int i = 0; i < steps; ++i) QVERIFY(press(Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier));
        QVERIFY(!undo->canRedo());
        QVERIFY(doc->waitForAnalysis());
        QCOMPARE(fileForm(w.project()), end);

        // --- Save (Ctrl+S asks where: untitled), reopen (Ctrl+O) in a fresh window. ----------
        const QString path = tmp_.filePath(QStringLiteral("journey.paraplan.json"));
        {
            AnswerFileDialogs answer(path);
            QVERIFY(press(Qt::Key_S, Qt::ControlModifier));
            QCOMPARE(answer.titles().size(), 1);
        }
        QVERIFY(QFileInfo::exists(path));
        QCOMPARE(doc->path(), path);
        QVERIFY(!doc->isModified());
        MainWindow fresh(nullptr, tmp_.filePath(QStringLiteral("rec-fresh")));
        fresh.show();
        fresh.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&fresh));
        {
            AnswerFileDialogs answer(path);
            QVERIFY(press(Qt::Key_O, Qt::ControlModifier));
            QCOMPARE(answer.titles().size(), 1);
        }
        QVERIFY(fresh.waitForOpen());   // read off the GUI thread
        QCOMPARE(fresh.document()->path(), path);
        QVERIFY(fresh.document()->waitForAnalysis());
        QCOMPARE(fileForm(fresh.project()), end);
        QCOMPARE(fresh.document()->diagnostics().size(), doc->diagnostics().size());
        QCOMPARE(fresh.canvas()->nodeItems().size(), std::size_t(4));
    }

    // A journey on 16,384 GPUs (2,048 nodes, scale_project): no step keeps the GUI thread away
    // from its event loop for 100 ms. Each step is measured from its first event until its
    // analysis has arrived and the views have refreshed (settle()), with a fresh StallMeter.
    void noStallAt16kGpus() {
        constexpr int kNodes = 2048;
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec-16k")));
        w.setProject(scale_project(kNodes), QString());
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        ProjectDocument* doc = w.document();
        QUndoStack* undo = doc->undoStack();
        QCOMPARE(w.project().world_size(), 16384);
        QVERIFY(doc->waitForAnalysis());
        // What follows the analysis on the GUI thread: the views' refresh and the paints, and
        // the work deferred behind them (timers of a few ms). A window of 300 ms, not a wait for
        // a result: the meter runs through it, so anything deferred is measured too.
        const auto settle = [doc] {
            const bool ok = doc->waitForAnalysis();
            QTest::qWait(300);
            return ok;
        };
        QVERIFY(settle());

        struct Step {
            QString name;
            double own = 0;   // StallMeter::longestOwnMs
            QString summary;
        };
        std::vector<Step> steps;
        // Runs `body` (the user's input and the checks of its outcome) under a fresh meter.
        const auto measure = [&](const QString& name, const std::function<bool()>& body) {
            StallMeter meter;
            // Its timer has ticked before the body runs, so the body's own time (keys sent without
            // returning to the event loop in between) is a gap it measures.
            QTest::qWait(20);
            const bool ok = body() && settle();
            steps.push_back({name, meter.longestOwnMs(), meter.summary()});
            qInfo("16,384 GPUs, %-34s longest stall %s", qPrintable(name + QLatin1Char(':')),
                  qPrintable(meter.summary()));
            return ok;
        };

        auto* tp = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("tp"));
        auto* pp = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("pp"));
        QVERIFY(tp && tp->lineEdit() && pp);
        QVERIFY(w.raiseView(QStringLiteral("layout")));
        QVERIFY(measure(QStringLiteral("tp typed, Enter"), [&] {
            if (!focus(tp->lineEdit())) return false;
            tp->lineEdit()->selectAll();
            QTest::keyClicks(tp->lineEdit(), QStringLiteral("8"));
            return press(Qt::Key_Return) && w.project().layout.tp == 8;
        }));
        QVERIFY(measure(QStringLiteral("pp by the wheel"), [&] {
            return focus(pp) && wheel(pp, 1) && w.project().layout.pp == 32;   // up: 64 -> 32
        }));
        QVERIFY(measure(QStringLiteral("global batch typed, Enter"), [&] {
            auto* gbs = w.layoutPanel()->findChild<QSpinBox*>(QStringLiteral("global_batch_size"));
            if (!gbs || !focus(gbs)) return false;
            gbs->selectAll();
            QTest::keyClicks(gbs, QString::number(128 * 64));   // 128 microbatches of dp 64
            return press(Qt::Key_Return) && w.project().training.global_batch_size == 128 * 64;
        }));
        QWidget* viewport = w.canvas()->view()->viewport();
        const std::string gpu = w.project().cluster.nodes[0].gpu;
        QVERIFY(measure(QStringLiteral("node dropped on the canvas"), [&] {
            return dropTemplate(viewport, QPoint(20, viewport->height() - 20), gpu, 8) &&
                   int(w.project().cluster.nodes.size()) == kNodes + 1;
        }));
        QVERIFY(measure(QStringLiteral("Ctrl+G to a node, Delete"), [&] {
            if (!press(Qt::Key_G, Qt::ControlModifier)) return false;
            QTest::keyClicks(QApplication::focusWidget(), QStringLiteral("n5"));
            if (!press(Qt::Key_Return) || w.canvas()->selectedNodes() != std::vector<int>{5}) return false;
            return focus(w.canvas()->view()) && press(Qt::Key_Delete) &&
                   int(w.project().cluster.nodes.size()) == kNodes;
        }));
        QVERIFY(measure(QStringLiteral("Ctrl+Z of the delete"), [&] {
            return press(Qt::Key_Z, Qt::ControlModifier) && int(w.project().cluster.nodes.size()) == kNodes + 1 &&
                   w.project().cluster.nodes[5].name == "n5";
        }));
        const nlohmann::json edited = fileForm(w.project());
        const int depth = undo->index();   // tp, pp, batch, the drop (the delete was undone)
        QCOMPARE(depth, 4);
        // As fast as keys come (a held key repeats every ~30 ms): each press is its own event, the
        // event loop runs between them, no analysis is waited for.
        const auto typed = [](Qt::KeyboardModifiers mods) {
            const bool ok = press(Qt::Key_Z, mods);
            QCoreApplication::processEvents();
            return ok;
        };
        QVERIFY(measure(QStringLiteral("Ctrl+Z x4, Ctrl+Shift+Z x4, 3 times fast"), [&] {
            for (int round = 0; round < 3; ++round) {
                for (int i = 0; i < depth; ++i) typed(Qt::ControlModifier);
                if (undo->index() != 0) return false;
                for (int i = 0; i < depth; ++i) typed(Qt::ControlModifier | Qt::ShiftModifier);
            }
            return undo->index() == depth;
        }));
        QVERIFY(measure(QStringLiteral("Ctrl+Z x4, Ctrl+Shift+Z x4, each seen"), [&] {
            for (int i = 0; i < 2 * depth; ++i) {
                press(Qt::Key_Z, i < depth ? Qt::ControlModifier : Qt::ControlModifier | Qt::ShiftModifier);
                if (!doc->waitForAnalysis()) return false;
            }
            return undo->index() == depth;
        }));
        QCOMPARE(fileForm(w.project()), edited);

        PlannerPanel* planner = w.plannerPanel();
        QVERIFY(measure(QStringLiteral("F5 plans, Cancel"), [&] {
            QSignalSpy done(planner, &PlannerPanel::finished);
            if (!press(Qt::Key_F5) || !planner->isRunning()) return false;
            auto* cancel = planner->findChild<QPushButton*>(QStringLiteral("plannerCancel"));
            if (!cancel || !QTest::qWaitFor([cancel] { return cancel->isVisible() && cancel->isEnabled(); }))
                return false;
            QTest::mouseClick(cancel, Qt::LeftButton);
            return (!done.isEmpty() || done.wait(60000)) && done.first().at(0).toBool();
        }));
        for (const char* view :
             {"grid", "timeline", "memory", "explain", "diagnostics", "history", "compare", "layout"})
            QVERIFY(measure(QStringLiteral("view %1 raised").arg(QLatin1String(view)),
                            [&] { return w.raiseView(QLatin1String(view)); }));
        QVERIFY(measure(QStringLiteral("Alt+3 hides, shows the grid"), [&] {
            auto* grid = w.rankGrid();
            return press(Qt::Key_3, Qt::AltModifier) && !grid->isVisible() && press(Qt::Key_3, Qt::AltModifier) &&
                   grid->isVisible();
        }));
        QVERIFY(measure(QStringLiteral("canvas: wheel zoom in, scroll, out"), [&] {
            const double before = w.canvas()->view()->transform().m11();
            for (int i = 0; i < 12; ++i) {
                wheel(viewport, 1, QPointF(viewport->width() / 3.0, viewport->height() / 3.0));
                QCoreApplication::processEvents();
            }
            if (w.canvas()->view()->transform().m11() <= before) return false;
            QScrollBar* bar = w.canvas()->view()->verticalScrollBar();
            for (int i = 0; i < 10; ++i) {
                bar->triggerAction(QAbstractSlider::SliderPageStepAdd);
                QCoreApplication::processEvents();
            }
            for (int i = 0; i < 12; ++i) {
                wheel(viewport, -1);
                QCoreApplication::processEvents();
            }
            return true;
        }));
        QVERIFY(measure(QStringLiteral("canvas: Ctrl+0 fits"),
                        [&] { return focus(w.canvas()->view()) && press(Qt::Key_0, Qt::ControlModifier); }));

        QStringList over;
        for (const Step& s : steps)
            if (s.own >= 100.0) over << QStringLiteral("%1: %2").arg(s.name, s.summary);
        QVERIFY2(over.isEmpty(), qPrintable(over.join(QStringLiteral("; "))));
    }
};

PARAPLAN_SCREEN_TEST_MAIN(TestJourneys, "laptop", kScreenW, kScreenH)

#include "tst_journeys.moc"
