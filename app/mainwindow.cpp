#include "mainwindow.h"
#include "vertical_scroll.h"

#include "util/local_dirs.h"

#include "dialogfocus.h"
#include "messagefit.h"
#include "windowfit.h"
#include "views/answerbar.h"
#include "canvas/clustercanvas.h"
#include "plan/diagnosticspanel.h"
#include "teach/explainpanel.h"
#include "views/rankgrid.h"
#include "views/timelineview.h"
#include "plan/layoutpanel.h"
#include "views/linktrafficview.h"
#include "views/stepplayer.h"
#include "run/gpu_monitor.h"
#include "views/memoryview.h"
#include "plan/plannerpanel.h"
#include "run/run_panel.h"
#include "runtime/job.h"
#include "project/project.h"
#include "projectdocument.h"
#include "recovery.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QHeaderView>
#include <QKeyEvent>
#include <QScreen>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QPainter>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QScopedValueRollback>
#include <QUndoView>

#include <algorithm>

MainWindow::MainWindow(QWidget* parent, const QString& recoveryDir)
    : QMainWindow(parent), doc_(new ProjectDocument(this)), recovery_(new Recovery(doc_, recoveryDir, this)) {
    setObjectName(QStringLiteral("MainWindow"));
    setDockOptions(AnimatedDocks | AllowNestedDocks | AllowTabbedDocks);
    setDocumentMode(false);

    canvas_ = new ClusterCanvas(doc_, this);
    setCentralWidget(canvas_);
    layout_ = new LayoutPanel(doc_, this);
    diagnostics_ = new DiagnosticsPanel(this);
    history_ = new QUndoView(doc_->undoStack(), this);
    history_->setEmptyLabel(tr("<opened>"));
    history_->setToolTip(tr("Every change as one step: click a step to go back to it."));

    grid_ = new RankGrid(doc_, this);
    timeline_ = new TimelineView(doc_, this);
    explain_ = new ExplainPanel(doc_, this);
    memory_ = new MemoryView(doc_, this);
    planner_ = new PlannerPanel(doc_, this);
    run_ = new paraplan::widgets::RunPanel(this);
    gpus_ = new paraplan::widgets::GpuMonitor(this);

    addDock(QStringLiteral("layout"), tr("Layout"), layout_, Qt::LeftDockWidgetArea);
    addDock(QStringLiteral("explain"), tr("Explain"), explain_, Qt::LeftDockWidgetArea);
    addDock(QStringLiteral("grid"), tr("Rank grid"), grid_, Qt::RightDockWidgetArea);
    addDock(QStringLiteral("history"), tr("History"), history_, Qt::RightDockWidgetArea);
    addDock(QStringLiteral("diagnostics"), tr("Diagnostics"), diagnostics_, Qt::BottomDockWidgetArea);
    addDock(QStringLiteral("timeline"), tr("Pipeline timeline"), timeline_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(docks_.value(QStringLiteral("grid")), docks_.value(QStringLiteral("history")));
    // Each scrolls in its dock rather than hold the bottom docks tall (vertical_scroll.h).
    addDock(QStringLiteral("memory"), tr("Memory and time"), verticallyScrolled(memory_), Qt::BottomDockWidgetArea);
    addDock(QStringLiteral("planner"), tr("Planner"), verticallyScrolled(planner_), Qt::BottomDockWidgetArea);
    addDock(QStringLiteral("run"), tr("Run"), verticallyScrolled(run_), Qt::BottomDockWidgetArea);
    addDock(QStringLiteral("gpus"), tr("GPU monitor"), verticallyScrolled(gpus_), Qt::BottomDockWidgetArea);
    tabifyDockWidget(docks_.value(QStringLiteral("diagnostics")), docks_.value(QStringLiteral("timeline")));
    tabifyDockWidget(docks_.value(QStringLiteral("timeline")), docks_.value(QStringLiteral("memory")));
    tabifyDockWidget(docks_.value(QStringLiteral("memory")), docks_.value(QStringLiteral("planner")));
    tabifyDockWidget(docks_.value(QStringLiteral("planner")), docks_.value(QStringLiteral("run")));
    tabifyDockWidget(docks_.value(QStringLiteral("run")), docks_.value(QStringLiteral("gpus")));
    // Running a job is occasional: the Run panel and GPU monitor start hidden (View menu).
    docks_.value(QStringLiteral("run"))->hide();
    docks_.value(QStringLiteral("gpus"))->hide();
    docks_.value(QStringLiteral("grid"))->raise();
    docks_.value(QStringLiteral("diagnostics"))->raise();
    // The Explain panel follows focus and hover over the layout fields.
    qApp->installEventFilter(explain_);

    // In this order (as before views could wait): the rank grid first, since a plot's
    // synchronous replot repaints the window, grid included.
    viewRefresh_.push_back({QStringLiteral("grid"), [this] { grid_->refresh(); }});
    viewRefresh_.push_back({QStringLiteral("timeline"), [this] {
                                timeline_->refresh();
                                timeline_->highlightStages(
                                    stagesOf(canvas_->selectedGroup()));   // the selection survives edits
                            }});
    viewRefresh_.push_back({QStringLiteral("explain"), [this] { explain_->refresh(); }});
    viewRefresh_.push_back({QStringLiteral("memory"), [this] { memory_->refresh(); }});
    for (const auto& [viewId, fn] : viewRefresh_) {
        const QString id = viewId;
        // Also emitted when the dock's tab becomes (or stops being) the current one.
        connect(docks_.value(id), &QDockWidget::visibilityChanged, this, [this, id](bool visible) {
            if (visible) hiddenViews_.remove(id);
            else hiddenViews_.insert(id);
            if (visible) refreshView(id, true);
        });
    }
    // The figures a designer edits for, in view whichever dock tab is in front (the status bar
    // keeps them: a message shows beside them, not over them).
    answer_ = new AnswerBar(doc_, this);
    statusBar()->addPermanentWidget(answer_);
    connect(answer_, &AnswerBar::viewRequested, this, [this](const QString& view) { raiseView(view); });
    updatingMark_ = new QLabel(tr("Updating…"), this);
    updatingMark_->setObjectName(QStringLiteral("updatingMark"));
    updatingMark_->setFixedSize(updatingMark_->sizeHint());   // its text comes and goes, the layout stays
    updatingMark_->setText(QString());
    statusBar()->addPermanentWidget(updatingMark_);
    statusSummary_ = new QLabel(this);
    statusSummary_->setObjectName(QStringLiteral("statusSummary"));
    statusBar()->addPermanentWidget(statusSummary_);

    createActions();
    setupTeachViews();

    // An edit shows at once in the Layout fields; the views follow when the edit's analysis
    // (rank map, findings, estimate, schedule: worked out off the GUI thread) is ready.
    connect(doc_, &ProjectDocument::changed, this, &MainWindow::showEdit);
    connect(doc_, &ProjectDocument::analysisReady, this, &MainWindow::refreshViews);
    // Figures of the state before an edit are marked as such when the edit's take long.
    updatingTimer_ = new QTimer(this);
    updatingTimer_->setSingleShot(true);
    connect(updatingTimer_, &QTimer::timeout, this, &MainWindow::noteEditPending);
    // Step playback and link traffic (after refreshViews, which resets the timeline).
    player_ = new StepPlayer(doc_, timeline_, canvas_, grid_, this);
    links_ = new LinkTrafficView(this);
    addDock(QStringLiteral("playback"), tr("Play a step"), player_, Qt::BottomDockWidgetArea);
    addDock(QStringLiteral("links"), tr("Link traffic"), links_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(docks_.value(QStringLiteral("timeline")), docks_.value(QStringLiteral("playback")));
    tabifyDockWidget(docks_.value(QStringLiteral("playback")), docks_.value(QStringLiteral("links")));
    docks_.value(QStringLiteral("diagnostics"))->raise();
    // Built when one of the two panels is looked at (or playing), not on every edit.
    connect(player_, &StepPlayer::playbackChanged, this,
            [this] { links_->setPlayback(player_->playback() ? &*player_->playback() : nullptr, player_->problem()); });
    // An edit stops a playback build of the state before it (it would be dropped anyway).
    connect(doc_, &ProjectDocument::changed, player_, &StepPlayer::documentChanged);
    connect(doc_, &ProjectDocument::analysisReady, player_, [this] {
        // After the edit's first frame (on a worker; the link view follows playbackChanged).
        player_->refresh();
        if (links_->isVisible()) player_->prepareAfterFrame();
    });
    connect(docks_.value(QStringLiteral("links")), &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible) player_->prepare();
    });
    connect(player_, &StepPlayer::exportRequested, this, [this] { startPlaybackExport(); });
    // Its tab raised (a click on "Play a step") or the step playing: the controls move under the
    // bottom tabs and the Pipeline timeline comes forward, so both show (showPlayerWithTimeline).
    connect(docks_.value(QStringLiteral("playback")), &QDockWidget::visibilityChanged, this, [this](bool visible) {
        QDockWidget* d = docks_.value(QStringLiteral("playback"));
        // Deferred, and only if still in front then (a tab behind others is moved out of view, not hidden).
        if (visible && tabifiedDockWidgets(d).contains(docks_.value(QStringLiteral("timeline"))))
            QTimer::singleShot(0, this, [this] {
                if (!player_->visibleRegion().isEmpty()) showPlayerWithTimeline();
            });
    });
    connect(player_, &StepPlayer::showingChanged, this, [this](bool on) {
        if (on) QTimer::singleShot(0, this, &MainWindow::showPlayerWithTimeline);
    });
    viewMenu_->addAction(docks_.value(QStringLiteral("playback"))->toggleViewAction());
    viewMenu_->addAction(docks_.value(QStringLiteral("links"))->toggleViewAction());
    // A project that replaces the open one is shown whole (New, Open, a recent file, restore).
    connect(doc_, &ProjectDocument::replaced, canvas_, &ClusterCanvas::requestFit);
    connect(doc_, &ProjectDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(doc_, &ProjectDocument::pathChanged, this, &MainWindow::updateTitle);
    connect(diagnostics_, &DiagnosticsPanel::fieldsActivated, this, [this](const QStringList& fields) {
        docks_.value(QStringLiteral("layout"))->raise();
        for (const QString& f : fields)
            if (layout_->focusField(f)) break;
    });
    connect(diagnostics_, &DiagnosticsPanel::fixRequested, this, [this](const paraplan::Fix& fix) {
        QString err;
        const QString label = tr("Apply fix: %1").arg(QString::fromStdString(fix.label));
        if (!doc_->applyChanges(label, fix.changes, &err)) {
            showError(tr("Cannot apply fix"), err);
            return;
        }
        // In place of the message of whatever came before (a node added on the canvas...).
        statusBar()->showMessage(tr("%1 (Ctrl+Z undoes it)").arg(label), 6000);
    });
    // One selection across views: a group picked on the canvas or the rank grid is highlighted
    // on both, and its pipeline stages are marked on the timeline.
    connect(canvas_, &ClusterCanvas::groupSelected, this, [this](int rank, const QString& kind) {
        if (syncingSelection_) return;
        const QScopedValueRollback guard(syncingSelection_, true);
        if (grid_->groupCombo()->findData(kind) >= 0) grid_->setGroupKind(kind);
        grid_->selectRank(rank);
        timeline_->highlightStages(stagesOf(canvas_->selectedGroup()));
    });
    connect(grid_, &RankGrid::rankSelected, this, [this](int rank) {
        if (syncingSelection_) return;
        const QScopedValueRollback guard(syncingSelection_, true);
        const QString kind = grid_->groupCombo()->currentData().toString();
        if (!kind.isEmpty() && kind != canvas_->colourAxis()) canvas_->setColourAxis(kind);
        canvas_->selectGroupOf(rank);
        timeline_->highlightStages(stagesOf(grid_->highlightedRanks()));
    });
    connect(planner_, &PlannerPanel::applied, this,
            [this](const QString& what) { statusBar()->showMessage(tr("Applied %1").arg(what), 6000); });
    connect(layout_, &LayoutPanel::editFailed, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
    connect(canvas_, &ClusterCanvas::message, this, [this](const QString& m) { statusBar()->showMessage(m, 5000); });

    setupRunViews();

    // The default size and proportions; the first show fits them to the screen (see showEvent),
    // and a saved window state, if any, replaces them.
    resize(1600, 1000);
    defaultProportions();
    restoreWindowState();
    refreshViews();
    updateTitle();
    recovery_->start();
    // Window keys (undo, redo, export, ...) work while a text field has focus (see eventFilter).
    qApp->installEventFilter(this);
    // Every modal dialog, closed, gives back the activation and focus it took (no window manager
    // may do it): the window keys work again at once.
    DialogFocusReturn::install();
    windowfit::install();   // this window and every dialog inside the screen, frame included
}

MainWindow::~MainWindow() {
    // The docks outlive this class's members (QWidget deletes children later) and signal as
    // they hide: nothing of theirs may reach the members any more.
    for (QDockWidget* d : std::as_const(docks_)) d->disconnect(this);
    qApp->removeEventFilter(this);
}

QDockWidget* MainWindow::addDock(const QString& id, const QString& title, QWidget* w, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(id + QStringLiteral("Dock"));   // restoreState matches docks by objectName
    dock->setWidget(w);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                      QDockWidget::DockWidgetClosable);
    addDockWidget(area, dock);
    docks_.insert(id, dock);
    return dock;
}

const paraplan::Project& MainWindow::project() const { return doc_->project(); }

void MainWindow::showEdit() {
    layout_->refresh();    // the values now; the fields' findings once the analysis is ready
    planner_->refresh();   // marks its results stale (cheap)
    if (updatingDelayMs_ <= 0) noteEditPending();
    else if (!updatingTimer_->isActive()) updatingTimer_->start(updatingDelayMs_);
}

void MainWindow::refreshViews() {
    layout_->refresh();
    diagnostics_->setDiagnostics(doc_->diagnostics());
    canvas_->refresh();
    // The docked views refresh now if they can be seen, else when they are shown.
    for (const auto& view : viewRefresh_) refreshView(view.first, false);
    timeline_->highlightStages(stagesOf(canvas_->selectedGroup()));   // the selection's marks follow at once
    // Cheap, and they must follow at once: the planner drops results of another project and
    // marks the project's row; the Run panel launches what is open.
    planner_->refresh();
    if (doc_->analysisCurrent()) markUpdating(false);
    answer_->refresh();
    refreshTeachViews();
    // The same jobs folder as paraplan-cli's, so `paraplan-cli jobs` lists what the app launched.
    run_->setProject(doc_->sharedProject(), doc_->sharedRankMap(), QString::fromStdString(paraplan::jobs_dir()));
    const auto& p = doc_->project();
    // Counted from the list the Diagnostics panel shows (rules and the analysis' own findings, such
    // as a cluster profile that cannot be used), so the status bar, the dock title and the list agree.
    const int errors = diagnostics_->count(paraplan::Severity::Error);
    const int warnings = diagnostics_->count(paraplan::Severity::Warning);
    const int nodes = static_cast<int>(p.cluster.nodes.size());
    QString summary = tr("%1 · %2 · %3")
                          .arg(p.world_size() == 1 ? tr("1 GPU") : tr("%1 GPUs").arg(p.world_size()),
                               nodes == 1 ? tr("1 node") : tr("%1 nodes").arg(nodes),
                               errors == 0   ? tr("valid layout")
                               : errors == 1 ? tr("1 error")
                                             : tr("%1 errors").arg(errors));
    if (warnings) summary += tr(" · %1").arg(warnings == 1 ? tr("1 warning") : tr("%1 warnings").arg(warnings));
    statusSummary_->setText(summary);
    if (auto* d = docks_.value(QStringLiteral("diagnostics")))
        d->setWindowTitle(errors + warnings ? tr("Diagnostics (%1)").arg(errors + warnings) : tr("Diagnostics"));
}

void MainWindow::refreshView(const QString& id, bool onlyIfStale) {
    if (onlyIfStale && !staleViews_.contains(id)) return;
    const QDockWidget* d = docks_.value(id);
    // A view nobody can see (a background tab, a closed dock) waits until it is shown; before
    // the window is first shown every view is kept current (scripts and tests read them).
    if (!onlyIfStale && isVisible() && d && (!d->isVisible() || hiddenViews_.contains(id))) {
        staleViews_.insert(id);
        return;
    }
    staleViews_.remove(id);
    for (const auto& [viewId, fn] : viewRefresh_)
        if (viewId == id) fn();
}

void MainWindow::refreshStaleViews() {
    for (const auto& view : viewRefresh_) refreshView(view.first, true);   // in order
}

std::vector<int> MainWindow::stagesOf(const std::vector<int>& ranks) const {
    std::vector<int> stages;
    const auto& m = doc_->rankMap();
    if (!m.valid() || m.coord_index("pp") < 0) return stages;
    for (int r : ranks)
        if (r >= 0 && r < m.world_size) stages.push_back(m.coord(r, "pp"));
    std::sort(stages.begin(), stages.end());
    stages.erase(std::unique(stages.begin(), stages.end()), stages.end());
    return stages;
}

void MainWindow::updateTitle() {
    const QString name = QString::fromStdString(doc_->project().name);
    setWindowTitle(name.isEmpty() ? QStringLiteral("%1[*] — Paraplan").arg(doc_->displayName())
                                  : QStringLiteral("%1[*] — %2 — Paraplan").arg(doc_->displayName(), name));
    setWindowModified(doc_->isModified());
}

void MainWindow::showError(const QString& title, const QString& text) {
    lastError_ = text;
    statusBar()->showMessage(text, 10000);
    // Non-blocking, so scripted use and tests never hang on it.
    auto* box = new QMessageBox(QMessageBox::Warning, title, QString(), QMessageBox::Ok, this);
    messagefit::setText(box, text);   // a path or parser message of thousands of characters: whole in Details
    box->setObjectName(QStringLiteral("openError"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    box->open();
}
