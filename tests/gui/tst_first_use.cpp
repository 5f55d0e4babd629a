// The first minutes with the designer, as a new user meets them (issue #15): the window
// fits the screen, the cluster is shown whole, the keyboard works from every field, planner
// results stay with their project, Export's fixes work, New asks what to build, and the
// small things read right. Runs on an offscreen screen of a small laptop (1280×800).
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "canvas/clustercanvas.h"
#include "plan/diagnosticspanel.h"
#include "exportdialog.h"
#include "views/answerbar.h"
#include "guitest.h"
#include "plan/layoutpanel.h"
#include "mainwindow.h"
#include "views/memoryview.h"
#include "newprojectdialog.h"
#include "canvas/nodeitem.h"
#include "plan/planmodel.h"
#include "plan/plannerpanel.h"
#include "projectdocument.h"
#include "views/rankgrid.h"
#include "rules/validate.h"
#include "common/theme.h"
#include "views/timelineview.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QDrag>
#include <QFile>
#include <QGraphicsView>
#include <QInputDialog>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStatusBar>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

using paraplan::Project;

namespace {
constexpr int kScreenW = 1280, kScreenH = 800;

// The whole cluster is in view and fills it (or is shown at the canvas's largest scale).
bool fitted(ClusterCanvas* c, QString* why) {
    QRectF nodes;
    for (const NodeItem* n : c->nodeItems()) nodes |= n->sceneBoundingRect();
    const QRect shown = c->view()->mapFromScene(nodes).boundingRect();
    const QRect port = c->view()->viewport()->rect().adjusted(-2, -2, 2, 2);
    const bool inside = port.contains(shown);
    const bool fills = shown.width() >= 0.6 * port.width() || shown.height() >= 0.6 * port.height() ||
                       c->view()->transform().m11() >= 1.49;
    *why = QStringLiteral("nodes at %1,%2 %3×%4 in a viewport %5×%6")
               .arg(shown.x())
               .arg(shown.y())
               .arg(shown.width())
               .arg(shown.height())
               .arg(port.width())
               .arg(port.height());
    return inside && fills;
}

// The colour a chart is drawn on (its corner, outside the axes).
QColor plotBackground(QCustomPlot* plot) { return QColor(plot->toPixmap(200, 120).toImage().pixel(1, 1)); }

// The colour an action's icon is drawn in (its most opaque pixel).
QColor iconInk(const QAction* a) {
    const QImage img = a ? a->icon().pixmap(32, 32).toImage() : QImage();
    QColor ink;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x)
            if (QColor c = img.pixelColor(x, y); c.alpha() > ink.alpha() || !ink.isValid()) ink = c;
    return ink;
}

// The Layout panel's scroll area (its fields scroll in it).
QScrollArea* fieldsScroll(LayoutPanel* p) { return p->findChild<QScrollArea*>(); }
}   // namespace

class TestFirstUse : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
        QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), QSize(kScreenW, kScreenH));
    }
    void init() { AppSettings::open()->clear(); }   // each case starts with fresh settings

    // --- The window fits the screen it opens on ----------------------------------------
    void firstWindowFitsTheScreen() {
        auto w = shownExampleWindow(tmp_, "llama3.1-70b-4nodes");
        QVERIFY(w);
        const QRect avail = w->screen()->availableGeometry();
        QString widths;   // what holds the window wide, if it is too wide
        for (QDockWidget* d : w->findChildren<QDockWidget*>())
            widths += QStringLiteral(" %1:%2").arg(d->objectName()).arg(d->minimumSizeHint().width());
        widths += QStringLiteral(" canvas:%1 window:%2")
                      .arg(w->canvas()->minimumSizeHint().width())
                      .arg(w->minimumSizeHint().width());
        for (QToolBar* t : w->findChildren<QToolBar*>())
            widths += QStringLiteral(" %1:%2").arg(t->objectName()).arg(t->minimumSizeHint().width());
        QVERIFY2(avail.contains(w->frameGeometry()), qPrintable(QStringLiteral("%1×%2;%3")
                                                                    .arg(w->frameGeometry().width())
                                                                    .arg(w->frameGeometry().height())
                                                                    .arg(widths)));
    }

    void savedGeometryLargerThanTheScreenIsFitted() {
        {
            // A geometry saved on a larger screen (2314 px wide, as seen on a 1600 px screen).
            MainWindow big(nullptr, tmp_.filePath(QStringLiteral("rec-big")));
            big.setGeometry(40, 40, 2314, 1400);
            auto s = AppSettings::open();
            s->setValue(AppSettings::Key::kGeometry, big.saveGeometry());
            QVERIFY(big.document()->waitForAnalysis());   // the views follow the edit's analysis
            s->setValue(AppSettings::Key::kState, big.saveState(AppSettings::kWindowStateVersion));
            QVERIFY(big.document()->waitForAnalysis());   // the views follow the edit's analysis
        }
        auto w = shownExampleWindow(tmp_, "gpt2-1node");
        QVERIFY(w);
        QVERIFY(w->screen()->availableGeometry().contains(w->frameGeometry()));
    }

    // At 1280×800 the cluster canvas keeps room to work, and its tool bar fits.
    void canvasHasRoomOnASmallScreen() {
        auto w = shownExampleWindow(tmp_, "llama3.1-70b-4nodes");
        QVERIFY(w);
        QWidget* port = w->canvas()->view()->viewport();
        QVERIFY2(port->width() >= 480 && port->height() >= 300,
                 qPrintable(QStringLiteral("%1×%2").arg(port->width()).arg(port->height())));
        auto* bar = w->canvas()->findChild<QToolBar*>();
        QVERIFY(bar);
        QVERIFY2(bar->width() >= bar->sizeHint().width(),
                 qPrintable(QStringLiteral("the canvas tool bar needs %1 px and has %2: it overflows into a » menu")
                                .arg(bar->sizeHint().width())
                                .arg(bar->width())));
    }

    // At 1280×800 the Layout panel shows its primary fields without scrolling: the left column
    // runs down to the status bar and the batch fields come before the interleaving chunks (only
    // the framework, tp and tensor mode were in view).
    void layoutPrimaryFieldsInViewOnASmallScreen() {
        for (const char* example : {"gpt2-1node", "mixtral-8x7b-2nodes-ep"}) {
            auto w = shownExampleWindow(tmp_, example);
            QVERIFY(w);
            QTest::qWait(20);   // the docks' proportions for the fitted size (queued after the show)
            QVERIFY2(w->width() >= kScreenW - 40 && w->height() >= kScreenH - 80,
                     qPrintable(QStringLiteral("%1×%2").arg(w->width()).arg(w->height())));
            LayoutPanel* panel = w->layoutPanel();
            QVERIFY(panel->isVisible());
            QScrollArea* scroll = fieldsScroll(panel);
            QVERIFY(scroll);
            QCOMPARE(scroll->verticalScrollBar()->value(), 0);
            const QRect view = scroll->viewport()->rect();
            for (const char* pointer : {"/layout/framework", "/layout/tp", "/layout/pp", "/layout/cp", "/layout/sp",
                                        "/layout/ep", "/layout/dp", "/layout/zero_stage", "/layout/schedule",
                                        "/layout/num_microbatches", "/training/micro_batch_size"}) {
                QWidget* f = panel->fieldWidget(QString::fromLatin1(pointer));
                QVERIFY2(f && f->isVisible(), pointer);
                const QRect at(f->mapTo(scroll->viewport(), QPoint(0, 0)), f->size());
                QVERIFY2(view.contains(at),
                         qPrintable(QStringLiteral("%1 (%2): at y %3..%4, the view shows 0..%5")
                                        .arg(QString::fromLatin1(pointer), QString::fromLatin1(example))
                                        .arg(at.top())
                                        .arg(at.bottom())
                                        .arg(view.bottom())));
            }
        }
    }

    // --- The canvas is fitted on open, on New and on reopen --------------------------------
    void canvasIsFittedOnOpenNewAndReopen() {
        auto w = shownExampleWindow(tmp_, "llama3.1-70b-4nodes");
        QVERIFY(w);
        QString why;
        QVERIFY2(fitted(w->canvas(), &why), qPrintable(why));

        const QString path = tmp_.filePath(QStringLiteral("four-nodes.paraplan.json"));
        QVERIFY(w->saveFile(path));
        w->canvas()->view()->zoomBy(3.0);   // the user zooms in
        QVERIFY(!fitted(w->canvas(), &why));

        NewProjectDialog* d = w->newProjectDialog();
        d->nodesSpin()->setValue(2);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        d->gpusPerNodeSpin()->setValue(8);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        d->accept();
        QApplication::processEvents();
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(2));
        QVERIFY2(fitted(w->canvas(), &why), qPrintable(why));

        w->canvas()->view()->zoomBy(3.0);
        QVERIFY(w->openFile(path));
        QVERIFY(w->waitForOpen());
        QApplication::processEvents();
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(4));
        QVERIFY2(fitted(w->canvas(), &why), qPrintable(why));
    }

    // --- Keyboard undo and redo, from every field -----------------------------------------
    void standardKeysEachOnce() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        auto* redo = w->findChild<QAction*>(QStringLiteral("redoAction"));
        auto* saveAs = w->findChild<QAction*>(QStringLiteral("saveAsAction"));
        QVERIFY(redo && saveAs);
        const QList<QKeySequence> keys = redo->shortcuts();
        for (const QKeySequence& k :
             {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)})
            QCOMPARE(keys.count(k), 1);
        QVERIFY(!saveAs->shortcuts().isEmpty());
    }

    void undoRedoAndExportKeysWorkFromALayoutField() {
        QTest::failOnWarning(QRegularExpression(QStringLiteral("Ambiguous shortcut")));
        auto w = shownExampleWindow(tmp_, "gpt2-1node");
        QVERIFY(w);
        w->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w.get()));
        auto* tp = w->layoutPanel()->findChild<QComboBox*>(QStringLiteral("tp"));
        QVERIFY(tp && tp->lineEdit());
        QLineEdit* edit = tp->lineEdit();
        edit->setFocus();
        QVERIFY(QTest::qWaitFor([&] { return edit->hasFocus(); }));
        // The user types a value and commits it: one project edit.
        edit->selectAll();
        QTest::keyClicks(edit, QStringLiteral("4"));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QTest::keyClick(edit, Qt::Key_Return);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().layout.tp, 4);
        QVERIFY(edit->hasFocus());

        QTest::keyClick(edit, Qt::Key_Z, Qt::ControlModifier);   // undoes the project edit
        QCOMPARE(w->project().layout.tp, 2);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QTest::keyClick(edit, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().layout.tp, 4);
        QTest::keyClick(edit, Qt::Key_Z, Qt::ControlModifier);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().layout.tp, 2);
        QTest::keyClick(edit, Qt::Key_Y, Qt::ControlModifier);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().layout.tp, 4);

        // Ctrl+E (a line edit's "end of line") opens Export from the field too.
        QTest::keyClick(edit, Qt::Key_E, Qt::ControlModifier);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QTRY_VERIFY(w->findChild<ExportDialog*>());
        w->findChild<ExportDialog*>()->close();
    }

    // --- Planner results belong to their project and edit ------------------------------
    void plannerResultsStayWithTheirProject() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");   // 32 GPUs
        PlannerPanel* planner = w->plannerPanel();
        planner->run();
        QTRY_VERIFY_WITH_TIMEOUT(!planner->isRunning(), 120000);
        QVERIFY(planner->proxy()->rowCount() > 0);
        QVERIFY(!planner->isStale());

        // A layout edit leaves the rows applicable (they are layouts for this model and cluster).
        QVERIFY(w->document()->applyChanges(QStringLiteral("zero"), {{"/layout/zero_stage", 0}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(!planner->isStale());
        QVERIFY(planner->resultsFitProject());

        // A changed batch: the rows were planned for another one: stale, said, and refused.
        const int gbs = w->project().training.global_batch_size;
        QVERIFY(w->document()->applyChanges(QStringLiteral("gbs"), {{"/training/global_batch_size", gbs * 2}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(planner->isStale());
        QVERIFY(planner->findChild<QLabel*>(QStringLiteral("plannerStale"))->isVisibleTo(planner));
        QVERIFY(!planner->resultsFitProject());
        const int steps = w->document()->undoStack()->count();
        QVERIFY(!planner->applyRow(0));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->document()->undoStack()->count(), steps);
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(planner->resultsFitProject());

        // File > New: an 8-GPU project. The 32-GPU table goes, and nothing can be applied.
        NewProjectDialog* d = w->newProjectDialog();
        d->nodesSpin()->setValue(1);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        d->gpusPerNodeSpin()->setValue(8);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        // The form's model on eight GPUs: plain data parallelism would not fit, so the new project
        // starts at the lowest ZeRO stage that does, and the form says which.
        QVERIFY2(d->summaryText().contains(QStringLiteral("ZeRO stage")), qPrintable(d->summaryText()));
        d->accept();
        QCOMPARE(w->project().world_size(), 8);
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(w->project().layout.zero_stage > 0);
        QVERIFY2(!w->answerBar()->text(QStringLiteral("memory")).contains(QStringLiteral("does not fit")),
                 qPrintable(w->answerBar()->text(QStringLiteral("memory"))));
        QCOMPARE(planner->proxy()->rowCount(), 0);
        QVERIFY(!planner->applyRow(0));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(!planner->resultsFitProject());
        QCOMPARE(w->project().world_size(), 8);
        QCOMPARE(w->document()->undoStack()->count(), 0);
    }

    // --- Export: Fix buttons work, the format is remembered ----------------------------
    void exportDialogFixesAndRemembersTheFormat() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        QVERIFY(w->document()->applyChanges(QStringLiteral("Set tp to 3"), {{"/layout/tp", 3}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        ExportDialog* d = w->exportDialog();
        QVERIFY(d->setFormat(QStringLiteral("megatron")));
        QVERIFY(d->result().refused);
        int rounds = 0;
        while (d->result().refused && rounds++ < 5) {
            auto* fix = d->diagnosticsPanel()->findChild<QToolButton*>(QStringLiteral("fixButton"));
            QVERIFY2(fix, "the refused export offers no fix");
            QTest::mouseClick(fix, Qt::LeftButton);
            QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        }
        QVERIFY(!d->result().refused);
        QVERIFY(!d->fileNames().isEmpty());
        QVERIFY(!paraplan::has_errors(w->document()->diagnostics()));   // the project itself was fixed
        QVERIFY(w->document()
                    ->undoStack()
                    ->text(w->document()->undoStack()->count() - 1)
                    .startsWith(QStringLiteral("Apply fix")));
        d->close();
        QApplication::processEvents();

        ExportDialog* again = w->exportDialog();
        QCOMPARE(again->format(), QStringLiteral("megatron"));
        again->close();
    }

    // --- The Layout dock shows its fields whole -----------------------------------------
    void layoutFieldsAreWholeAndTabbingKeepsThemInView() {
        auto w = shownExampleWindow(tmp_, "llama3.1-70b-4nodes");
        QVERIFY(w);
        QScrollArea* scroll = fieldsScroll(w->layoutPanel());
        QVERIFY(scroll);
        QWidget* port = scroll->viewport();
        for (QComboBox* c : w->layoutPanel()->findChildren<QComboBox*>()) {
            if (!c->isVisibleTo(w->layoutPanel())) continue;
            const int right = c->mapTo(port, QPoint(c->width(), 0)).x();
            QVERIFY2(
                right <= port->width(),
                qPrintable(c->objectName() + QStringLiteral(" is cut off: its right edge at %1 in a viewport %2 wide "
                                                            "(fields %3 wide, need %4; panel %5, minimum %6)")
                                                 .arg(right)
                                                 .arg(port->width())
                                                 .arg(scroll->widget()->width())
                                                 .arg(scroll->widget()->minimumSizeHint().width())
                                                 .arg(w->layoutPanel()->width())
                                                 .arg(w->layoutPanel()->minimumWidth())));
            QVERIFY2(c->width() >= c->minimumSizeHint().width(), qPrintable(c->objectName()));
        }
        QWidget* first = w->layoutPanel()->fieldWidget(QStringLiteral("/layout/framework"));
        QVERIFY(first);
        first->setFocus();
        for (int i = 0; i < 40; ++i) {
            QWidget* f = QApplication::focusWidget();
            if (!f || !w->layoutPanel()->isAncestorOf(f)) break;
            QCOMPARE(scroll->horizontalScrollBar()->value(), 0);
            QTest::keyClick(f, Qt::Key_Tab);
            QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        }
    }

    // --- New, rename, examples as untitled copies -----------------------------------------
    void newProjectFlowBuildsWhatItSays() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        // File > New asks what to build (it used to load the GPT-2 example); nothing is
        // replaced until Create.
        auto* newAction = w->findChild<QAction*>(QStringLiteral("newAction"));
        QVERIFY(newAction);
        const std::string before = w->project().name;
        newAction->trigger();
        auto* asked = w->findChild<NewProjectDialog*>();
        QVERIFY(asked);
        QVERIFY(asked->isVisible());
        QCOMPARE(w->project().name, before);
        // Every label's key is underlined: a label without a buddy shows "&Cluster:" as it is.
        for (QLabel* l : asked->findChildren<QLabel*>()) {
            const bool mnemonic = QString(l->text()).remove(QStringLiteral("&&")).contains(QLatin1Char('&'));
            QVERIFY2(!mnemonic || l->buddy(), qPrintable(l->text() + QStringLiteral(" shows its '&'")));
        }
        asked->reject();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
        QCOMPARE(w->project().name, before);

        NewProjectDialog* d = w->newProjectDialog();
        d->nameEdit()->setText(QStringLiteral("Llama on two small nodes"));
        d->gpuCombo()->setCurrentIndex(d->gpuCombo()->findData(QStringLiteral("h100-sxm")));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        d->nodesSpin()->setValue(2);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        d->gpusPerNodeSpin()->setValue(4);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        d->modelCombo()->setCurrentIndex(d->modelCombo()->findData(QStringLiteral("llama3.1-8b")));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        d->frameworkCombo()->setCurrentText(QStringLiteral("megatron"));
        d->accept();
        const Project& p = w->project();
        QCOMPARE(p.name, std::string("Llama on two small nodes"));
        QCOMPARE(p.world_size(), 8);
        QCOMPARE(p.cluster.nodes.size(), std::size_t(2));
        QCOMPARE(p.cluster.nodes[0].gpu, std::string("h100-sxm"));
        QCOMPARE(p.model_preset, std::string("llama3.1-8b"));
        QCOMPARE(p.layout.framework, std::string("megatron"));
        QVERIFY(w->document()->path().isEmpty());
        QVERIFY(w->windowTitle().contains(QStringLiteral("Llama on two small nodes")));
        QVERIFY(!paraplan::has_errors(paraplan::validate(p)) || !w->document()->diagnostics().empty());

        // A model from a Hugging Face config.json.
        NewProjectDialog* hf = w->newProjectDialog();
        QString err;
        QVERIFY2(hf->setHfConfig(QStringLiteral(PARAPLAN_TEST_DATA "/hf/mistral.json"), &err), qPrintable(err));
        hf->accept();
        QCOMPARE(w->project().model.family, std::string("mistral"));
        QVERIFY(w->project().model_preset.empty());
    }

    void renameAndExamplesAsUntitledCopies() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        // Edit > Rename Project… asks for the name (a modal question: answered from the event loop).
        auto* renameAction = w->findChild<QAction*>(QStringLiteral("renameProjectAction"));
        QVERIFY(renameAction);
        bool asked = false;
        QTimer::singleShot(0, w.get(), [&] {
            auto* in = w->findChild<QInputDialog*>();
            asked = in && in->textValue() == QString::fromStdString(w->project().name);
            if (in) {
                in->setTextValue(QStringLiteral("Renamed from the menu"));
                in->accept();
            } else if (QWidget* modal = QApplication::activeModalWidget()) {
                modal->close();
            }
        });
        renameAction->trigger();
        QVERIFY(asked);
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().name, std::string("Renamed from the menu"));
        QVERIFY(w->windowTitle().contains(QStringLiteral("Renamed from the menu")));

        QVERIFY(w->renameProject(QStringLiteral("My GPT-2")));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().name, std::string("My GPT-2"));
        QVERIFY(w->windowTitle().contains(QStringLiteral("My GPT-2")));
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().name, std::string("Renamed from the menu"));
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().name, paraplan::load_example("gpt2-1node").name);

        QVERIFY(w->openExample(QStringLiteral("mixtral-8x7b-2nodes-ep")));
        QVERIFY(w->document()->path().isEmpty());
        // The bundled file itself, opened by path, also becomes an untitled copy.
        const QString bundled = QStringLiteral(PARAPLAN_SOURCE_DIR
                                               "/resources/examples/llama3.1-8b-pp4-1node.paraplan.json");
        QVERIFY(w->openFile(bundled));
        QVERIFY(w->waitForOpen());
        QVERIFY(w->document()->path().isEmpty());
        QCOMPARE(w->project().name, paraplan::load_project(bundled.toStdString()).name);
        // So too when it comes from the command line ('paraplan FILE' opens it this way): Save
        // overwrote the bundled file.
        w->openProject(paraplan::load_project(bundled.toStdString()), bundled);
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(w->document()->path().isEmpty());
        const QString own = tmp_.filePath(QStringLiteral("own.paraplan.json"));
        QVERIFY(QFile::copy(bundled, own));
        w->openProject(paraplan::load_project(own.toStdString()), own);   // a file of the user's keeps its path
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->document()->path(), own);
        auto* examples = w->findChild<QMenu*>(QStringLiteral("examplesMenu"));
        QVERIFY(examples);
        QCOMPARE(examples->actions().size(), int(paraplan::example_names().size()));
    }

    // --- Reordering nodes only from the visible grip --------------------------------------
    void reorderStartsOnlyFromTheVisibleGrip() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        const NodeItem* node = w->canvas()->nodeItems().front();
        const QPointF grip = node->gripRect().center();
        const QPointF title(node->boundingRect().width() / 2, NodeItem::kHeader / 2.0);
        QVERIFY(node->startsReorder(grip, 1.0));
        QVERIFY(!node->startsReorder(grip, 0.2));    // far zoom: the header is not drawn
        QVERIFY(!node->startsReorder(title, 1.0));   // the rest of the title bar selects
        QVERIFY(!node->startsReorder(node->tileRect(0).center(), 1.0));
        QVERIFY(NodeItem::reorderDragDistance() > QApplication::startDragDistance());

        QSignalSpy said(w->canvas(), &ClusterCanvas::message);
        QVERIFY(w->canvas()->moveNode(0, 2));
        QVERIFY(!said.isEmpty());
        QVERIFY(said.last().first().toString().contains(QStringLiteral("rank order")));
        QVERIFY(w->statusBar()->currentMessage().contains(QStringLiteral("rank order")));
    }

    // The same with the mouse, on the shown canvas: a left press and a drag `dist` pixels to
    // the right. A reorder drag is a QDrag of the viewport (offscreen, it ends at once).
    void reorderByMouseNeedsTheGripAndADistance() {
        auto w = shownExampleWindow(tmp_, "llama3.1-70b-4nodes");
        QVERIFY(w);
        QGraphicsView* view = w->canvas()->view();
        QWidget* port = view->viewport();
        const auto order = [&] {
            QStringList names;
            for (const auto& n : w->project().cluster.nodes) names << QString::fromStdString(n.name);
            return names;
        };
        const QStringList before = order();
        const auto dragStarts = [&](const QPointF& itemPos, int dist) {
            const NodeItem* node = w->canvas()->nodeItems().front();
            const QPoint at = view->mapFromScene(node->mapToScene(itemPos));
            QTest::mousePress(port, Qt::LeftButton, {}, at);
            for (int step = 1; step <= dist; ++step) QTest::mouseMove(port, at + QPoint(step, 0));
            const bool started = port->findChild<QDrag*>() != nullptr;
            QTest::mouseRelease(port, Qt::LeftButton, {}, at + QPoint(dist, 0));
            QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
            QApplication::processEvents();
            return started;
        };
        const NodeItem* first = w->canvas()->nodeItems().front();
        const QPointF grip = first->gripRect().center();
        const QPointF title(first->boundingRect().width() / 2, NodeItem::kHeader / 2.0);
        const auto lod = [&] { return view->transform().m11(); };   // node items have no transform
        QVERIFY2(lod() > NodeItem::kHeaderLod, qPrintable(QString::number(lod())));
        const int threshold = NodeItem::reorderDragDistance();
        QVERIFY(!dragStarts(grip, threshold - 2));   // a twitch is a click
        QVERIFY(dragStarts(grip, threshold + 4));
        QVERIFY(!dragStarts(title, threshold + 4));   // the rest of the title bar selects
        // Far out (the grip is not drawn, the tiles still are): a drag from there reorders nothing.
        view->setTransform(QTransform::fromScale(0.2, 0.2));
        QApplication::processEvents();
        QVERIFY(lod() < NodeItem::kHeaderLod);
        QVERIFY(w->canvas()->nodeItems().front()->isVisible());
        QVERIFY(!dragStarts(grip, threshold * 4));
        QCOMPARE(order(), before);
    }

    // --- View > Colours, Help ------------------------------------------------------------
    void coloursSwitchFromTheViewMenu() {
        const QPalette start = QApplication::palette();
        auto w = shownExampleWindow(tmp_, "gpt2-1node");
        QVERIFY(w);
        auto* dark = w->findChild<QAction*>(QStringLiteral("darkSchemeAction"));
        auto* system = w->findChild<QAction*>(QStringLiteral("systemSchemeAction"));
        QVERIFY(dark && system);
        dark->trigger();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QApplication::processEvents();
        QVERIFY(theme::isDark(w->palette()));
        QVERIFY(dark->isChecked());
        // Plan Layouts' icon stays visible on the dark tool bar (the style's is a black glyph).
        QVERIFY2(iconInk(w->findChild<QAction*>(QStringLiteral("planAction"))).lightness() >= 128,
                 qPrintable(iconInk(w->findChild<QAction*>(QStringLiteral("planAction"))).name()));
        // The charts follow (QCustomPlot keeps white unless told): the visible ones at once,
        // the others when shown.
        w->raiseView(QStringLiteral("memory"));
        QApplication::processEvents();
        for (QCustomPlot* plot :
             {w->memoryView()->memoryPlot(), w->memoryView()->timePlot(), w->plannerPanel()->plot()}) {
            const QColor corner = plotBackground(plot);
            QVERIFY2(corner.lightness() < 128, qPrintable(plot->objectName() + QLatin1Char(' ') + corner.name()));
            QCOMPARE(plot->xAxis->tickLabelColor(), w->palette().color(QPalette::WindowText));
        }
        QCOMPARE(AppSettings::open()->value(AppSettings::Key::kColourScheme).toString(), QStringLiteral("dark"));
        {
            auto again = exampleWindow(tmp_, "gpt2-1node");   // the choice is kept
            QCOMPARE(again->colourScheme(), QStringLiteral("dark"));
        }
        system->trigger();
        QApplication::processEvents();
        QCOMPARE(QApplication::palette().color(QPalette::Window), start.color(QPalette::Window));
        QVERIFY(!theme::isDark(w->palette()));
        QVERIFY(plotBackground(w->memoryView()->memoryPlot()).lightness() >= 128);
        QVERIFY(iconInk(w->findChild<QAction*>(QStringLiteral("planAction"))).lightness() < 128);
    }

    void helpOpensTheGuidesAndListsShortcuts() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        QVERIFY(!MainWindow::guidePath(QStringLiteral("user-guide")).isEmpty());
        QVERIFY(!MainWindow::guidePath(QStringLiteral("concepts")).isEmpty());
        w->findChild<QAction*>(QStringLiteral("userGuideAction"))->trigger();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        auto* guide = w->findChild<QDialog*>(QStringLiteral("guide-user-guide"));
        QVERIFY(guide);
        auto* browser = guide->findChild<QTextBrowser*>(QStringLiteral("guideBrowser"));
        QVERIFY(browser);
        QVERIFY(browser->toPlainText().contains(QStringLiteral("Paraplan user guide")));
        w->findChild<QAction*>(QStringLiteral("conceptsGuideAction"))->trigger();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(w->findChild<QDialog*>(QStringLiteral("guide-concepts")));

        w->findChild<QAction*>(QStringLiteral("shortcutsAction"))->trigger();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        auto* table = w->findChild<QTableWidget*>(QStringLiteral("shortcutsTable"));
        QVERIFY(table);
        QHash<QString, QString> keys;
        for (int r = 0; r < table->rowCount(); ++r) keys.insert(table->item(r, 0)->text(), table->item(r, 1)->text());
        QVERIFY(keys.value(QStringLiteral("Edit › Undo")).contains(QStringLiteral("Ctrl+Z")));
        QVERIFY(keys.value(QStringLiteral("Edit › Redo")).contains(QStringLiteral("Ctrl+Y")));
        QVERIFY(keys.value(QStringLiteral("Edit › Redo")).contains(QStringLiteral("Ctrl+Shift+Z")));
        QVERIFY(keys.value(QStringLiteral("File › Export…")).contains(QStringLiteral("Ctrl+E")));
    }

    // --- Without a display -----------------------------------------------------------------
    void helpAndScreenshotNeedNoDisplay() {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* v : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"}) env.remove(QString::fromLatin1(v));
        QProcess help;
        help.setProcessEnvironment(env);
        help.start(QStringLiteral(PARAPLAN_GUI), {QStringLiteral("--help")});
        QVERIFY(help.waitForFinished(60000));
        QCOMPARE(help.exitCode(), 0);
        QVERIFY(help.readAllStandardOutput().contains("--screenshot"));

        const QString out = tmp_.filePath(QStringLiteral("nodisplay.png"));
        QProcess shot;
        shot.setProcessEnvironment(env);
        shot.start(QStringLiteral(PARAPLAN_GUI),
                   {QStringLiteral("--screenshot"), out, QStringLiteral("--size"), QStringLiteral("1400x900")});
        QVERIFY(shot.waitForFinished(120000));
        QCOMPARE(shot.exitCode(), 0);
        QCOMPARE(QImage(out).size(), QSize(1400, 900));
    }

    // --- The smaller things ----------------------------------------------------------------
    void oneNodeOneErrorInPlainWords() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        const QRegularExpression bad(QStringLiteral("\\b1 (nodes|errors|GPUs|warnings)\\b|\\(s\\)"));
        auto* summary = w->statusBar()->findChild<QLabel*>();
        QVERIFY(summary);
        QString texts = w->canvas()->findChild<QLabel*>(QStringLiteral("canvasInfo"))->text();
        for (QLabel* l : w->statusBar()->findChildren<QLabel*>()) texts += QLatin1Char('\n') + l->text();
        texts += QLatin1Char('\n') + w->layoutPanel()
                                         ->findChild<QLabel*>(QStringLiteral("layoutSummary"))
                                         ->text()
                                         .replace(QStringLiteral("&nbsp;"), QStringLiteral(" "));
        QVERIFY(texts.contains(QStringLiteral("1 node")));
        QVERIFY2(!bad.match(texts).hasMatch(), qPrintable(texts));
        // One error.
        QVERIFY(w->document()->applyChanges(QStringLiteral("tp 3"), {{"/layout/tp", 3}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QString all;
        for (QLabel* l : w->findChildren<QLabel*>()) all += QLatin1Char('\n') + l->text();
        QVERIFY2(!bad.match(all).hasMatch(), qPrintable(bad.match(all).captured(0)));

        // A GPU of another type is named as people name it, not "a h100".
        Project two = paraplan::load_example("gpt2-1node");
        two.cluster.nodes.push_back(two.cluster.nodes[0]);
        two.cluster.nodes[1].name = "node1";
        two.cluster.nodes[1].gpu = "h100-sxm";
        w->setProject(two, QString());
        QSignalSpy said(w->canvas(), &ClusterCanvas::message);
        QVERIFY(!w->canvas()->moveGpu(0, 1));
        QVERIFY(!said.isEmpty());
        const QString m = said.last().first().toString();
        QVERIFY2(!m.contains(QStringLiteral("a h100")) && !m.contains(QStringLiteral("a a100")), qPrintable(m));
        QVERIFY2(m.contains(QStringLiteral("H100")), qPrintable(m));
    }

    void diagnosticsAreSortedBySeverity() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        paraplan::Diagnostic note, warn, err;
        note.severity = paraplan::Severity::Info;
        note.message = "a note";
        warn.severity = paraplan::Severity::Warning;
        warn.message = "a warning";
        err.severity = paraplan::Severity::Error;
        err.message = "an error";
        w->diagnosticsPanel()->setDiagnostics({note, warn, err, note});
        const auto& shown = w->diagnosticsPanel()->diagnostics();
        QCOMPARE(shown.size(), std::size_t(4));
        QCOMPARE(shown[0].severity, paraplan::Severity::Error);
        QCOMPARE(shown[1].severity, paraplan::Severity::Warning);
        QCOMPARE(shown[2].severity, paraplan::Severity::Info);
        QCOMPARE(w->diagnosticsPanel()->tree()->topLevelItem(0)->text(0), QStringLiteral("an error"));
    }

    void memoryLegendLeavesTheBarsAlone() {
        auto w = shownExampleWindow(tmp_, "llama3.1-70b-4nodes");
        QVERIFY(w);
        w->raiseView(QStringLiteral("memory"));
        QApplication::processEvents();
        QCustomPlot* plot = w->memoryView()->memoryPlot();
        plot->replot();
        QVERIFY(plot->legend->visible());
        QVERIFY2(!plot->legend->outerRect().intersects(plot->axisRect()->rect()), "the legend lies over the bars");
        // Category axes (pipeline stages; the time terms) have no zero line running through
        // their first bar; the value axes keep theirs.
        QCOMPARE(plot->xAxis->grid()->zeroLinePen().style(), Qt::NoPen);
        QVERIFY(plot->yAxis->grid()->zeroLinePen().style() != Qt::NoPen);
        QCustomPlot* time = w->memoryView()->timePlot();
        QCOMPARE(time->yAxis->grid()->zeroLinePen().style(), Qt::NoPen);
        QVERIFY(time->xAxis->grid()->zeroLinePen().style() != Qt::NoPen);
    }

    void groupLinksAreLinesNotABlob() {
        auto w = exampleWindow(tmp_, "gpt2-1node");   // tp 2: ranks 0 and 1 side by side
        w->canvas()->setColourAxis(QStringLiteral("tp"));
        w->canvas()->selectGroupOf(0);
        QGraphicsItem* links = nullptr;   // the selected group's links, drawn over the nodes
        for (QGraphicsItem* it : w->canvas()->scene()->items())
            if (it->zValue() == 10) links = it;
        QVERIFY(links);
        const NodeItem* node = w->canvas()->nodeItems().front();
        const QLineF chord(node->mapToScene(node->tileRect(0).center()), node->mapToScene(node->tileRect(1).center()));
        QVERIFY(links->boundingRect().contains(chord.center()));
        // Painted with a brush left set by whatever the view drew before (the view does not
        // save painter state between items), the arc must still be a line, not a filled area.
        const QRectF area = links->boundingRect();
        QImage img(area.size().toSize(), QImage::Format_ARGB32_Premultiplied);
        img.fill(Qt::transparent);
        {
            QPainter p(&img);
            p.translate(-area.topLeft());
            p.setBrush(Qt::red);
            QStyleOptionGraphicsItem opt;
            links->paint(&p, &opt, nullptr);
        }
        // Between the chord and the arc (the arc bulges by a fifth of the link's length, the
        // curve's middle half as far): a quarter of the way out is inside any fill.
        const QPointF normal = QPointF(-chord.dy(), chord.dx()) / chord.length();
        const double bulge = std::min(40.0, chord.length() * 0.2) / 2;
        for (double side : {1.0, -1.0}) {
            const QPointF inside = chord.center() + normal * side * bulge * 0.3 - area.topLeft();
            QCOMPARE(qAlpha(img.pixel(inside.toPoint())), 0);
        }
        // And the line itself is drawn.
        bool drawn = false;
        for (double side : {1.0, -1.0}) {
            const QPointF on = chord.center() + normal * side * bulge - area.topLeft();
            drawn = drawn || qAlpha(img.pixel(on.toPoint())) > 0;
        }
        QVERIFY(drawn);
    }

    void rankGridWeightTableSaysWhatItLeavesOut() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        // tp 4 × pp 8 on 32 GPUs: each weight block is held by 8 ranks (one per stage); 4 are listed.
        QVERIFY(w->document()->applyChanges(QStringLiteral("tp 4 pp 8"), {{"/layout/tp", 4}, {"/layout/pp", 8}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        const QString info = w->rankGrid()->infoText();
        QVERIFY2(info.contains(QRegularExpression(QStringLiteral("r0(/\\d+){3}/… \\+4"))), qPrintable(info));
    }

    void colourByFallbackIsSaid() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        w->canvas()->setColourAxis(QStringLiteral("tp"));
        QVERIFY(w->canvas()->colourFallbackNote().isEmpty());
        QVERIFY(w->document()->applyChanges(QStringLiteral("tp 3"), {{"/layout/tp", 3}}));   // invalid on 8 GPUs
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(w->canvas()->colourFallbackNote().contains(QStringLiteral("invalid")));
        QVERIFY(
            w->canvas()->findChild<QLabel*>(QStringLiteral("canvasInfo"))->text().contains(QStringLiteral("invalid")));
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(w->canvas()->colourFallbackNote().isEmpty());
    }

    void expertPictureIsColouredByEp() {
        auto w = exampleWindow(tmp_, "mixtral-8x7b-2nodes-ep");
        w->canvas()->setColourAxis(QStringLiteral("ep"));
        QCOMPARE(w->canvas()->colourAxis(), QStringLiteral("ep"));
        QVERIFY(w->canvas()->colourFallbackNote().isEmpty());
    }

    // --- Only the views that can be seen refresh on an edit -------------------------------
    void hiddenViewsRefreshWhenShown() {
        auto w = shownExampleWindow(tmp_, "llama3.1-70b-4nodes");   // pp 4
        QVERIFY(w);
        w->raiseView(QStringLiteral("diagnostics"));   // the timeline and memory tabs are behind it
        QApplication::processEvents();
        QCOMPARE(w->timeline()->timeline()->pp, 4);
        QVERIFY(w->document()->applyChanges(QStringLiteral("pp 2"), {{"/layout/pp", 2}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(w->staleViews().contains(QStringLiteral("timeline")));
        QVERIFY(w->staleViews().contains(QStringLiteral("memory")));
        QCOMPARE(w->timeline()->timeline()->pp, 4);   // not simulated while nobody can see it
        w->raiseView(QStringLiteral("timeline"));
        QApplication::processEvents();
        QVERIFY(!w->staleViews().contains(QStringLiteral("timeline")));
        QCOMPARE(w->timeline()->timeline()->pp, 2);
        // A picture of a hidden view shows the project as it is.
        QVERIFY(w->staleViews().contains(QStringLiteral("memory")));
        QVERIFY(w->exportPicture(QStringLiteral("memory"), tmp_.filePath(QStringLiteral("memory.png"))));
        QCOMPARE(w->memoryView()->stageCount(), 2);
        QVERIFY(w->staleViews().isEmpty());
    }
};

// A small laptop's screen, where the window and its docks must fit.
PARAPLAN_SCREEN_TEST_MAIN(TestFirstUse, "laptop", kScreenW, kScreenH)

#include "tst_first_use.moc"
