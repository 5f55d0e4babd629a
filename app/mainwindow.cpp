#include "mainwindow.h"

#include "util/read_file.h"

#include "util/local_dirs.h"

#include "appsettings.h"
#include "catalog/hf_import.h"
#include "clustercanvas.h"
#include "diagnosticspanel.h"
#include "dialogfocus.h"
#include "explainpanel.h"
#include "export/import.h"
#include "exportdialog.h"
#include "gpu_monitor.h"
#include "layoutpanel.h"
#include "linktrafficview.h"
#include "live_overlay.h"
#include "memoryview.h"
#include "newprojectdialog.h"
#include "nodeitem.h"
#include "picture_export.h"
#include "plannerpanel.h"
#include "project/project.h"
#include "projectdocument.h"
#include "rankgrid.h"
#include "recovery.h"
#include "run_panel.h"
#include "runtime/job.h"
#include "sshprofilesdialog.h"
#include "stepplayer.h"
#include "timelineview.h"
#include "windowfit.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QScreen>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTableWidget>
#include <QTextBrowser>
#include <QTimer>
#include <QToolBar>
#include <QUndoView>
#include <QVBoxLayout>

#include <algorithm>

namespace {
const QString kFileFilter =
    QObject::tr("Paraplan projects (*.paraplan.json *.json);;All files (*)");

// The platform's keys for a standard action, plus the common ones it lacks
// (e.g. Ctrl+Y for redo and Ctrl+Shift+S for save as on desktops whose binding
// has none), each once: a key listed twice on one action is an "ambiguous
// shortcut" and does nothing.
QList<QKeySequence> standardKeys(QKeySequence::StandardKey key,
                                 const QList<QKeySequence> &common) {
  QList<QKeySequence> keys = QKeySequence::keyBindings(key);
  for (const QKeySequence &k : common)
    if (!keys.contains(k))
      keys << k;
  return keys;
}

QString keysText(const QList<QKeySequence> &keys) {
  QStringList t;
  for (const auto &k : keys)
    t << k.toString(QKeySequence::NativeText);
  return t.join(QStringLiteral(", "));
}

// Plan Layouts' "run" triangle in the palette's button text colour: the style's
// media icon is a black glyph, lost on the dark scheme's toolbar.
QIcon playIcon(const QPalette &pal) {
  QPixmap pm(32, 32);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(Qt::NoPen);
  p.setBrush(pal.color(QPalette::ButtonText));
  p.drawPolygon(QPolygonF{QPointF(8, 5), QPointF(27, 16), QPointF(8, 27)});
  return QIcon(pm);
}

QAction *makeAction(QObject *parent, const QString &text,
                    const QKeySequence &key, const QString &tip) {
  auto *a = new QAction(text, parent);
  a->setShortcut(key);
  QString t = tip;
  if (!key.isEmpty())
    t += QStringLiteral(" (%1)").arg(key.toString(QKeySequence::NativeText));
  a->setToolTip(t);
  a->setStatusTip(tip);
  return a;
}
} // namespace

MainWindow::MainWindow(QWidget *parent, const QString &recoveryDir)
    : QMainWindow(parent), doc_(new ProjectDocument(this)),
      recovery_(new Recovery(doc_, recoveryDir, this)) {
  setObjectName(QStringLiteral("MainWindow"));
  setDockOptions(AnimatedDocks | AllowNestedDocks | AllowTabbedDocks);
  setDocumentMode(false);

  canvas_ = new ClusterCanvas(doc_, this);
  setCentralWidget(canvas_);
  layout_ = new LayoutPanel(doc_, this);
  diagnostics_ = new DiagnosticsPanel(this);
  history_ = new QUndoView(doc_->undoStack(), this);
  history_->setEmptyLabel(tr("<opened>"));
  history_->setToolTip(
      tr("Every change as one step: click a step to go back to it."));

  grid_ = new RankGrid(doc_, this);
  timeline_ = new TimelineView(doc_, this);
  explain_ = new ExplainPanel(doc_, this);
  memory_ = new MemoryView(doc_, this);
  planner_ = new PlannerPanel(doc_, this);
  run_ = new paraplan::widgets::RunPanel(this);
  gpus_ = new paraplan::widgets::GpuMonitor(this);

  addDock(QStringLiteral("layout"), tr("Layout"), layout_,
          Qt::LeftDockWidgetArea);
  addDock(QStringLiteral("explain"), tr("Explain"), explain_,
          Qt::LeftDockWidgetArea);
  addDock(QStringLiteral("grid"), tr("Rank grid"), grid_,
          Qt::RightDockWidgetArea);
  addDock(QStringLiteral("history"), tr("History"), history_,
          Qt::RightDockWidgetArea);
  addDock(QStringLiteral("diagnostics"), tr("Diagnostics"), diagnostics_,
          Qt::BottomDockWidgetArea);
  addDock(QStringLiteral("timeline"), tr("Pipeline timeline"), timeline_,
          Qt::BottomDockWidgetArea);
  tabifyDockWidget(docks_.value(QStringLiteral("grid")),
                   docks_.value(QStringLiteral("history")));
  addDock(QStringLiteral("memory"), tr("Memory and time"), memory_,
          Qt::BottomDockWidgetArea);
  addDock(QStringLiteral("planner"), tr("Planner"), planner_,
          Qt::BottomDockWidgetArea);
  addDock(QStringLiteral("run"), tr("Run"), run_, Qt::BottomDockWidgetArea);
  addDock(QStringLiteral("gpus"), tr("GPU monitor"), gpus_,
          Qt::BottomDockWidgetArea);
  tabifyDockWidget(docks_.value(QStringLiteral("diagnostics")),
                   docks_.value(QStringLiteral("timeline")));
  tabifyDockWidget(docks_.value(QStringLiteral("timeline")),
                   docks_.value(QStringLiteral("memory")));
  tabifyDockWidget(docks_.value(QStringLiteral("memory")),
                   docks_.value(QStringLiteral("planner")));
  tabifyDockWidget(docks_.value(QStringLiteral("planner")),
                   docks_.value(QStringLiteral("run")));
  tabifyDockWidget(docks_.value(QStringLiteral("run")),
                   docks_.value(QStringLiteral("gpus")));
  // Running a job is occasional: the Run panel and GPU monitor start hidden
  // (View menu).
  docks_.value(QStringLiteral("run"))->hide();
  docks_.value(QStringLiteral("gpus"))->hide();
  docks_.value(QStringLiteral("grid"))->raise();
  docks_.value(QStringLiteral("diagnostics"))->raise();
  // The Explain panel follows focus and hover over the layout fields.
  qApp->installEventFilter(explain_);

  // In this order (as before views could wait): the rank grid first, since a
  // plot's synchronous replot repaints the window, grid included.
  viewRefresh_.push_back(
      {QStringLiteral("grid"), [this] { grid_->refresh(); }});
  viewRefresh_.push_back(
      {QStringLiteral("timeline"), [this] {
         timeline_->refresh();
         timeline_->highlightStages(stagesOf(
             canvas_->selectedGroup())); // the selection survives edits
       }});
  viewRefresh_.push_back(
      {QStringLiteral("explain"), [this] { explain_->refresh(); }});
  viewRefresh_.push_back(
      {QStringLiteral("memory"), [this] { memory_->refresh(); }});
  for (const auto &[viewId, fn] : viewRefresh_) {
    const QString id = viewId;
    // Also emitted when the dock's tab becomes (or stops being) the current
    // one.
    connect(docks_.value(id), &QDockWidget::visibilityChanged, this,
            [this, id](bool visible) {
              if (visible)
                hiddenViews_.remove(id);
              else
                hiddenViews_.insert(id);
              if (visible)
                refreshView(id, true);
            });
  }
  statusSummary_ = new QLabel(this);
  statusSummary_->setObjectName(QStringLiteral("statusSummary"));
  statusBar()->addPermanentWidget(statusSummary_);

  createActions();
  setupTeachViews();

  // An edit shows at once in the Layout fields; the views follow when the
  // edit's analysis (rank map, findings, estimate, schedule: worked out off the
  // GUI thread) is ready.
  connect(doc_, &ProjectDocument::changed, this, &MainWindow::showEdit);
  connect(doc_, &ProjectDocument::analysisReady, this,
          &MainWindow::refreshViews);
  // Step playback and link traffic (after refreshViews, which resets the
  // timeline).
  player_ = new StepPlayer(doc_, timeline_, canvas_, grid_, this);
  links_ = new LinkTrafficView(this);
  addDock(QStringLiteral("playback"), tr("Play a step"), player_,
          Qt::BottomDockWidgetArea);
  addDock(QStringLiteral("links"), tr("Link traffic"), links_,
          Qt::BottomDockWidgetArea);
  tabifyDockWidget(docks_.value(QStringLiteral("timeline")),
                   docks_.value(QStringLiteral("playback")));
  tabifyDockWidget(docks_.value(QStringLiteral("playback")),
                   docks_.value(QStringLiteral("links")));
  docks_.value(QStringLiteral("diagnostics"))->raise();
  // Built when one of the two panels is looked at (or playing), not on every
  // edit.
  connect(player_, &StepPlayer::playbackChanged, this, [this] {
    links_->setPlayback(player_->playback() ? &*player_->playback() : nullptr,
                        player_->problem());
  });
  // An edit stops a playback build of the state before it (it would be dropped
  // anyway).
  connect(doc_, &ProjectDocument::changed, player_,
          &StepPlayer::documentChanged);
  connect(doc_, &ProjectDocument::analysisReady, player_, [this] {
    // After the edit's first frame (on a worker; the link view follows
    // playbackChanged).
    player_->refresh();
    if (links_->isVisible())
      player_->prepareAfterFrame();
  });
  connect(docks_.value(QStringLiteral("links")),
          &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (visible)
              player_->prepare();
          });
  connect(player_, &StepPlayer::exportRequested, this,
          [this] { startPlaybackExport(); });
  viewMenu_->addAction(
      docks_.value(QStringLiteral("playback"))->toggleViewAction());
  viewMenu_->addAction(
      docks_.value(QStringLiteral("links"))->toggleViewAction());
  // A project that replaces the open one is shown whole (New, Open, a recent
  // file, restore).
  connect(doc_, &ProjectDocument::replaced, canvas_,
          &ClusterCanvas::requestFit);
  connect(doc_, &ProjectDocument::modifiedChanged, this,
          &MainWindow::updateTitle);
  connect(doc_, &ProjectDocument::pathChanged, this, &MainWindow::updateTitle);
  connect(diagnostics_, &DiagnosticsPanel::fieldsActivated, this,
          [this](const QStringList &fields) {
            docks_.value(QStringLiteral("layout"))->raise();
            for (const QString &f : fields)
              if (layout_->focusField(f))
                break;
          });
  connect(diagnostics_, &DiagnosticsPanel::fixRequested, this,
          [this](const paraplan::Fix &fix) {
            QString err;
            if (!doc_->applyChanges(
                    tr("Apply fix: %1").arg(QString::fromStdString(fix.label)),
                    fix.changes, &err))
              showError(tr("Cannot apply fix"), err);
          });
  // One selection across views: a group picked on the canvas or the rank grid
  // is highlighted on both, and its pipeline stages are marked on the timeline.
  connect(canvas_, &ClusterCanvas::groupSelected, this,
          [this](int rank, const QString &kind) {
            if (syncingSelection_)
              return;
            const QScopedValueRollback guard(syncingSelection_, true);
            if (grid_->groupCombo()->findData(kind) >= 0)
              grid_->setGroupKind(kind);
            grid_->selectRank(rank);
            timeline_->highlightStages(stagesOf(canvas_->selectedGroup()));
          });
  connect(grid_, &RankGrid::rankSelected, this, [this](int rank) {
    if (syncingSelection_)
      return;
    const QScopedValueRollback guard(syncingSelection_, true);
    const QString kind = grid_->groupCombo()->currentData().toString();
    if (!kind.isEmpty() && kind != canvas_->colourAxis())
      canvas_->setColourAxis(kind);
    canvas_->selectGroupOf(rank);
    timeline_->highlightStages(stagesOf(grid_->highlightedRanks()));
  });
  connect(planner_, &PlannerPanel::applied, this, [this](const QString &what) {
    statusBar()->showMessage(tr("Applied %1").arg(what), 6000);
  });
  connect(layout_, &LayoutPanel::editFailed, this,
          [this](const QString &m) { statusBar()->showMessage(m, 8000); });
  connect(canvas_, &ClusterCanvas::message, this,
          [this](const QString &m) { statusBar()->showMessage(m, 5000); });

  // Running jobs (issue #8): the Run panel's telemetry feeds the GPU monitor
  // and, once a second, the live heatmaps of the canvas and the rank grid
  // (cleared when the job ends); a probe result shown from the Run panel
  // colours the rank grid.
  {
    auto *feeder = new LiveOverlayFeeder(doc_, canvas_, grid_, this);
    feeder->setObjectName(QStringLiteral("liveOverlayFeeder"));
    connect(run_, &paraplan::widgets::RunPanel::jobStarted, this,
            [this, feeder] {
              if (auto *mon = run_->monitor()) {
                gpus_->setMonitor(mon, doc_->project().cluster);
                feeder->start(mon);
                if (feeder->paused())
                  statusBar()->showMessage(
                      tr("Step playback colours the canvas and rank grid: live "
                         "GPU colouring "
                         "paused until the playback stops (■)"));
              }
            });
    connect(run_, &paraplan::widgets::RunPanel::jobFinished, feeder,
            &LiveOverlayFeeder::stop);
    // The step playback and a job's live colouring share the canvas and rank
    // grid: the playback wins while it is shown, the live colouring waits and
    // says so.
    connect(
        player_, &StepPlayer::showingChanged, this,
        [this, feeder](bool playing) {
          feeder->setPaused(playing);
          if (!feeder->running())
            return;
          if (playing)
            statusBar()->showMessage(tr("Step playback colours the canvas and "
                                        "rank grid: live GPU colouring paused "
                                        "until the playback stops (■)"));
          else
            statusBar()->showMessage(tr("Live GPU colouring resumed"), 5000);
        });
    connect(
        run_, &paraplan::widgets::RunPanel::probeChecked, this,
        [this](const std::vector<paraplan::runtime::ProbeGroupCheck> &checks) {
          grid_->setProbeChecks(checks);
          if (auto *d = docks_.value(QStringLiteral("grid")))
            d->raise();
        });
    // An edited project no longer matches the probed groups.
    connect(doc_, &ProjectDocument::changed, grid_, [this] {
      if (!grid_->probeChecks().empty())
        grid_->clearProbe();
    });
  }

  // The default size and proportions; the first show fits them to the screen
  // (see showEvent), and a saved window state, if any, replaces them.
  resize(1600, 1000);
  defaultProportions();
  restoreWindowState();
  refreshViews();
  updateTitle();
  recovery_->start();
  // Window keys (undo, redo, export, ...) work while a text field has focus
  // (see eventFilter).
  qApp->installEventFilter(this);
  // Every modal dialog, closed, gives back the activation and focus it took (no
  // window manager may do it): the window keys work again at once.
  DialogFocusReturn::install();
  windowfit::install(); // this window and every dialog inside the screen, frame
                        // included
}

MainWindow::~MainWindow() {
  // The docks outlive this class's members (QWidget deletes children later) and
  // signal as they hide: nothing of theirs may reach the members any more.
  for (QDockWidget *d : std::as_const(docks_))
    d->disconnect(this);
  qApp->removeEventFilter(this);
}

QDockWidget *MainWindow::addDock(const QString &id, const QString &title,
                                 QWidget *w, Qt::DockWidgetArea area) {
  auto *dock = new QDockWidget(title, this);
  dock->setObjectName(
      id + QStringLiteral("Dock")); // restoreState matches docks by objectName
  dock->setWidget(w);
  dock->setFeatures(QDockWidget::DockWidgetMovable |
                    QDockWidget::DockWidgetFloatable |
                    QDockWidget::DockWidgetClosable);
  addDockWidget(area, dock);
  docks_.insert(id, dock);
  return dock;
}

void MainWindow::createActions() {
  QStyle *st = style();
  // --- File
  // -------------------------------------------------------------------------
  QMenu *file = menuBar()->addMenu(tr("&File"));
  auto *newA =
      makeAction(this, tr("&New…"), QKeySequence::New,
                 tr("Start a new project: GPUs, nodes, model and framework"));
  newA->setObjectName(QStringLiteral("newAction"));
  newA->setIcon(st->standardIcon(QStyle::SP_FileIcon));
  connect(newA, &QAction::triggered, this, &MainWindow::newProject);
  QMenu *examplesMenu = new QMenu(tr("Open E&xample"), this);
  examplesMenu->setObjectName(QStringLiteral("examplesMenu"));
  examplesMenu->setToolTipsVisible(true);
  for (const auto &ex : paraplan::example_names()) {
    const QString name = QString::fromStdString(ex);
    QAction *a = examplesMenu->addAction(name);
    a->setToolTip(tr("Open the built-in example as an untitled copy"));
    connect(a, &QAction::triggered, this, [this, name] {
      if (maybeSave())
        openExample(name);
    });
  }
  auto *openA = makeAction(this, tr("&Open…"), QKeySequence::Open,
                           tr("Open a project file"));
  openA->setIcon(st->standardIcon(QStyle::SP_DialogOpenButton));
  connect(openA, &QAction::triggered, this, &MainWindow::openDialog);
  recentMenu_ = new QMenu(tr("Open &Recent"), this);
  recentMenu_->setToolTipsVisible(true);
  auto *saveA =
      makeAction(this, tr("&Save"), QKeySequence::Save, tr("Save the project"));
  saveA->setIcon(st->standardIcon(QStyle::SP_DialogSaveButton));
  connect(saveA, &QAction::triggered, this, &MainWindow::save);
  auto *saveAsA = makeAction(this, tr("Save &As…"), QKeySequence(),
                             tr("Save the project under a new name"));
  saveAsA->setShortcuts(standardKeys(
      QKeySequence::SaveAs, {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)}));
  saveAsA->setToolTip(tr("Save the project under a new name (%1)")
                          .arg(keysText(saveAsA->shortcuts())));
  connect(saveAsA, &QAction::triggered, this, &MainWindow::saveAsDialog);
  auto *importA =
      makeAction(this, tr("&Import Hugging Face config.json…"),
                 QKeySequence(Qt::CTRL | Qt::Key_I),
                 tr("Use the model described by a Hugging Face config.json"));
  connect(importA, &QAction::triggered, this, &MainWindow::importHfDialog);
  auto *importCfgA = makeAction(this, tr("Import &Framework Config…"),
                                QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I),
                                tr("Read the layout from a DeepSpeed JSON, "
                                   "Megatron-LM arguments, a torchtitan "
                                   "TOML or a ColossalAI script"));
  connect(importCfgA, &QAction::triggered, this,
          &MainWindow::importConfigDialog);
  auto *exportA =
      makeAction(this, tr("&Export…"), QKeySequence(Qt::CTRL | Qt::Key_E),
                 tr("Preview and save the framework configs and launch scripts "
                    "for this layout"));
  connect(exportA, &QAction::triggered, this, &MainWindow::exportDialog);
  QMenu *pictureMenu = new QMenu(tr("Export &Picture"), this);
  pictureMenu->setToolTipsVisible(true);
  const QList<QPair<QString, QString>> pictures = {
      {QStringLiteral("canvas"), tr("&Cluster Canvas…")},
      {QStringLiteral("grid"), tr("&Rank Grid…")},
      {QStringLiteral("timeline"), tr("Pipeline &Timeline…")},
      {QStringLiteral("memory"), tr("&Memory and Time…")},
      {QStringLiteral("planner"), tr("&Planner Chart…")},
      {QStringLiteral("explain"), tr("&Explain Panel…")}};
  for (const auto &[view, text] : pictures) {
    QAction *a = pictureMenu->addAction(text);
    if (view == QLatin1String("canvas"))
      a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    a->setToolTip(tr("Save this view as a PNG, SVG or PDF picture"));
    connect(a, &QAction::triggered, this, [this, view = view] {
      const QString path = QFileDialog::getSaveFileName(
          this, tr("Export picture"), view + QStringLiteral(".png"),
          picture::dialogFilter());
      if (path.isEmpty())
        return;
      QString err;
      if (exportPicture(view, path, &err))
        statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
      else
        showError(tr("Cannot export the picture"), err);
    });
  }
  auto *quitA =
      makeAction(this, tr("&Quit"), QKeySequence::Quit, tr("Quit Paraplan"));
  connect(quitA, &QAction::triggered, this, &QWidget::close);
  file->addActions({newA, openA});
  file->addMenu(recentMenu_);
  file->addMenu(examplesMenu);
  file->addSeparator();
  file->addActions({saveA, saveAsA});
  file->addSeparator();
  file->addAction(importA);
  file->addAction(importCfgA);
  file->addAction(exportA);
  file->addMenu(pictureMenu);
  file->addSeparator();
  file->addAction(quitA);
  updateRecentMenu();

  // --- Edit
  // -------------------------------------------------------------------------
  QMenu *edit = menuBar()->addMenu(tr("&Edit"));
  QAction *undo = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setObjectName(QStringLiteral("undoAction"));
  undo->setShortcuts(
      standardKeys(QKeySequence::Undo, {QKeySequence(Qt::CTRL | Qt::Key_Z)}));
  undo->setToolTip(
      tr("Undo the last change (%1)").arg(keysText(undo->shortcuts())));
  undo->setIcon(st->standardIcon(QStyle::SP_ArrowBack));
  QAction *redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setObjectName(QStringLiteral("redoAction"));
  redo->setShortcuts(standardKeys(
      QKeySequence::Redo, {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z),
                           QKeySequence(Qt::CTRL | Qt::Key_Y)}));
  redo->setToolTip(
      tr("Redo the undone change (%1)").arg(keysText(redo->shortcuts())));
  redo->setIcon(st->standardIcon(QStyle::SP_ArrowForward));
  // The menu says what is undone ("Undo Rename project to …"); the tool bar,
  // short, says "Undo" with that text in its tooltip (the whole command text
  // widened the tool bar).
  for (QAction *a : {undo, redo})
    a->setIconText(a == undo ? tr("Undo") : tr("Redo"));
  const QString undoKeys = keysText(undo->shortcuts()),
                redoKeys = keysText(redo->shortcuts());
  connect(doc_->undoStack(), &QUndoStack::undoTextChanged, undo,
          [undo, undoKeys](const QString &t) {
            undo->setToolTip(t.isEmpty()
                                 ? tr("Undo the last change (%1)").arg(undoKeys)
                                 : tr("Undo %1 (%2)").arg(t, undoKeys));
          });
  connect(doc_->undoStack(), &QUndoStack::redoTextChanged, redo,
          [redo, redoKeys](const QString &t) {
            redo->setToolTip(
                t.isEmpty() ? tr("Redo the undone change (%1)").arg(redoKeys)
                            : tr("Redo %1 (%2)").arg(t, redoKeys));
          });
  edit->addActions({undo, redo});
  edit->addSeparator();
  auto *renameA = makeAction(this, tr("Rena&me Project…"), QKeySequence(),
                             tr("Change the project's name"));
  renameA->setObjectName(QStringLiteral("renameProjectAction"));
  connect(renameA, &QAction::triggered, this, [this] {
    bool ok = false;
    const QString name = QInputDialog::getText(
        this, tr("Rename project"), tr("Project name:"), QLineEdit::Normal,
        QString::fromStdString(doc_->project().name), &ok);
    if (ok)
      renameProject(name);
  });
  edit->addAction(renameA);
  edit->addSeparator();
  edit->addActions(canvas_->editActions());
  edit->addSeparator();
  edit->addAction(canvas_->goToAction());
  // These keys act on the project even while a Layout field (which has its own
  // text undo) has focus: Ctrl+Z right after editing a field undoes that edit.
  exportA->setObjectName(QStringLiteral("exportAction"));
  saveAsA->setObjectName(QStringLiteral("saveAsAction"));
  windowKeys_ = {undo, redo, exportA, saveA, saveAsA, newA, openA};

  // --- View
  // -------------------------------------------------------------------------
  viewMenu_ = menuBar()->addMenu(tr("&View"));
  int n = 1;
  for (const QString &id :
       {QStringLiteral("layout"), QStringLiteral("diagnostics"),
        QStringLiteral("grid"), QStringLiteral("timeline"),
        QStringLiteral("explain"), QStringLiteral("history"),
        QStringLiteral("memory"), QStringLiteral("planner"),
        QStringLiteral("run"), QStringLiteral("gpus")}) {
    QAction *t = docks_.value(id)->toggleViewAction();
    if (n <= 9)
      t->setShortcut(
          QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_0 + n)));
    else if (n == 10)
      t->setShortcut(QKeySequence(Qt::ALT | Qt::Key_0));
    ++n;
    t->setToolTip(tr("Show or hide the %1 panel (%2)")
                      .arg(docks_.value(id)->windowTitle(),
                           t->shortcut().toString(QKeySequence::NativeText)));
    viewMenu_->addAction(t);
  }
  viewMenu_->addSeparator();
  viewMenu_->addAction(canvas_->minimapAction());
  QMenu *colours = viewMenu_->addMenu(tr("&Colours"));
  colours->setObjectName(QStringLiteral("coloursMenu"));
  auto *schemes = new QActionGroup(this);
  for (const auto &[id, text] :
       QList<QPair<QString, QString>>{{QStringLiteral("system"), tr("&System")},
                                      {QStringLiteral("light"), tr("&Light")},
                                      {QStringLiteral("dark"), tr("&Dark")}}) {
    QAction *a = colours->addAction(text);
    a->setCheckable(true);
    a->setData(id);
    a->setObjectName(id + QStringLiteral("SchemeAction"));
    schemes->addAction(a);
    connect(a, &QAction::triggered, this,
            [this, id = id] { setColourScheme(id); });
    schemeActions_ << a;
  }

  // --- Tools
  // ------------------------------------------------------------------------
  QMenu *tools = menuBar()->addMenu(tr("&Tools"));
  auto *planA = makeAction(this, tr("&Plan Layouts"), QKeySequence(Qt::Key_F5),
                           tr("Search every valid layout of this model on this "
                              "cluster and rank them"));
  planA->setObjectName(QStringLiteral("planAction"));
  planA->setIcon(playIcon(palette()));
  connect(planA, &QAction::triggered, this, [this] {
    raiseView(QStringLiteral("planner"));
    planner_->run();
  });
  tools->addAction(planA);
  tools->addAction(exportA);
  windowKeys_ << planA;
  tools->addSeparator();
  auto *sshA = makeAction(this, tr("&SSH Profiles…"), QKeySequence(),
                          tr("Your local ssh settings (identity, known hosts, "
                             "config file) that projects name by id"));
  sshA->setObjectName(QStringLiteral("sshProfilesAction"));
  connect(sshA, &QAction::triggered, this, [this] {
    SshProfilesDialog d(this);
    d.exec();
  });
  tools->addAction(sshA);

  // --- Help
  // -------------------------------------------------------------------------
  QMenu *help = menuBar()->addMenu(tr("&Help"));
  auto *about = makeAction(this, tr("&About Paraplan"), QKeySequence(),
                           tr("About this program"));
  connect(about, &QAction::triggered, this, [this] {
    QMessageBox::about(this, tr("About Paraplan"),
                       tr("<h3>Paraplan %1</h3><p>A topology designer for "
                          "distributed training: lay out "
                          "tensor, pipeline, sequence, context, expert and "
                          "data parallelism over your GPUs "
                          "and see what the framework will do with it.</p>")
                           .arg(QApplication::applicationVersion()));
  });
  auto *guideA = makeAction(this, tr("&User Guide"), QKeySequence::HelpContents,
                            tr("Read the user guide"));
  guideA->setObjectName(QStringLiteral("userGuideAction"));
  connect(guideA, &QAction::triggered, this,
          [this] { showGuide(QStringLiteral("user-guide")); });
  auto *conceptsA = makeAction(this, tr("&Concepts Guide"), QKeySequence(),
                               tr("Read what tp, pp, dp, sp, cp and ep do and "
                                  "how frameworks order ranks"));
  conceptsA->setObjectName(QStringLiteral("conceptsGuideAction"));
  connect(conceptsA, &QAction::triggered, this,
          [this] { showGuide(QStringLiteral("concepts")); });
  auto *keysA = makeAction(this, tr("&Keyboard Shortcuts"),
                           QKeySequence(Qt::CTRL | Qt::Key_Slash),
                           tr("List every keyboard shortcut"));
  keysA->setObjectName(QStringLiteral("shortcutsAction"));
  connect(keysA, &QAction::triggered, this, &MainWindow::showShortcuts);
  help->addActions({guideA, conceptsA, keysA});
  help->addSeparator();
  help->addAction(about);

  // --- Tool bar
  // ---------------------------------------------------------------------
  QToolBar *tb = addToolBar(tr("Main"));
  tb->setObjectName(QStringLiteral("mainToolBar"));
  tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  tb->addActions({newA, openA, saveA});
  tb->addSeparator();
  tb->addActions({undo, redo});
  tb->addSeparator();
  tb->addAction(planA);
}

namespace {
// A project file shipped with Paraplan (the installed examples, or the source
// tree's).
bool isBundledExample(const QString &path) {
  const QString dir =
      QFileInfo(QFileInfo(path).canonicalPath()).canonicalFilePath();
  if (dir.endsWith(QLatin1String("/share/paraplan/examples")))
    return true;
#ifdef PARAPLAN_SOURCE_DIR
  if (dir ==
      QFileInfo(QStringLiteral(PARAPLAN_SOURCE_DIR "/resources/examples"))
          .canonicalFilePath())
    return true;
#endif
  return false;
}
} // namespace

void MainWindow::setProject(const paraplan::Project &project,
                            const QString &path) {
  doc_->reset(project, path);
  doc_->deliverNow();
}

void MainWindow::openProject(const paraplan::Project &project,
                             const QString &path) {
  doc_->reset(project, isBundledExample(path) ? QString() : path);
}

const paraplan::Project &MainWindow::project() const { return doc_->project(); }

void MainWindow::showEdit() {
  layout_->refresh();  // the values now; the fields' findings once the analysis
                       // is ready
  planner_->refresh(); // marks its results stale (cheap)
}

void MainWindow::refreshViews() {
  layout_->refresh();
  diagnostics_->setDiagnostics(doc_->diagnostics());
  canvas_->refresh();
  // The docked views refresh now if they can be seen, else when they are shown.
  for (const auto &view : viewRefresh_)
    refreshView(view.first, false);
  timeline_->highlightStages(stagesOf(
      canvas_->selectedGroup())); // the selection's marks follow at once
  // Cheap, and they must follow at once: the planner drops results of another
  // project and marks the project's row; the Run panel launches what is open.
  planner_->refresh();
  refreshTeachViews();
  // The same jobs folder as paraplan-cli's, so `paraplan-cli jobs` lists what
  // the app launched.
  run_->setProject(doc_->sharedProject(), doc_->sharedRankMap(),
                   QString::fromStdString(paraplan::jobs_dir()));
  const auto &p = doc_->project();
  // Counted from the list the Diagnostics panel shows (rules and the analysis'
  // own findings, such as a cluster profile that cannot be used), so the status
  // bar, the dock title and the list agree.
  const int errors = diagnostics_->count(paraplan::Severity::Error);
  const int warnings = diagnostics_->count(paraplan::Severity::Warning);
  const int nodes = static_cast<int>(p.cluster.nodes.size());
  QString summary =
      tr("%1 · %2 · %3")
          .arg(p.world_size() == 1 ? tr("1 GPU")
                                   : tr("%1 GPUs").arg(p.world_size()),
               nodes == 1 ? tr("1 node") : tr("%1 nodes").arg(nodes),
               errors == 0   ? tr("valid layout")
               : errors == 1 ? tr("1 error")
                             : tr("%1 errors").arg(errors));
  if (warnings)
    summary += tr(" · %1").arg(warnings == 1 ? tr("1 warning")
                                             : tr("%1 warnings").arg(warnings));
  statusSummary_->setText(summary);
  if (auto *d = docks_.value(QStringLiteral("diagnostics")))
    d->setWindowTitle(errors + warnings
                          ? tr("Diagnostics (%1)").arg(errors + warnings)
                          : tr("Diagnostics"));
}

void MainWindow::refreshView(const QString &id, bool onlyIfStale) {
  if (onlyIfStale && !staleViews_.contains(id))
    return;
  const QDockWidget *d = docks_.value(id);
  // A view nobody can see (a background tab, a closed dock) waits until it is
  // shown; before the window is first shown every view is kept current (scripts
  // and tests read them).
  if (!onlyIfStale && isVisible() && d &&
      (!d->isVisible() || hiddenViews_.contains(id))) {
    staleViews_.insert(id);
    return;
  }
  staleViews_.remove(id);
  for (const auto &[viewId, fn] : viewRefresh_)
    if (viewId == id)
      fn();
}

void MainWindow::refreshStaleViews() {
  for (const auto &view : viewRefresh_)
    refreshView(view.first, true); // in order
}

std::vector<int> MainWindow::stagesOf(const std::vector<int> &ranks) const {
  std::vector<int> stages;
  const auto &m = doc_->rankMap();
  if (!m.valid() || m.coord_index("pp") < 0)
    return stages;
  for (int r : ranks)
    if (r >= 0 && r < m.world_size)
      stages.push_back(m.coord(r, "pp"));
  std::sort(stages.begin(), stages.end());
  stages.erase(std::unique(stages.begin(), stages.end()), stages.end());
  return stages;
}

void MainWindow::updateTitle() {
  const QString name = QString::fromStdString(doc_->project().name);
  setWindowTitle(
      name.isEmpty()
          ? QStringLiteral("%1[*] — Paraplan").arg(doc_->displayName())
          : QStringLiteral("%1[*] — %2 — Paraplan")
                .arg(doc_->displayName(), name));
  setWindowModified(doc_->isModified());
}

void MainWindow::showError(const QString &title, const QString &text) {
  lastError_ = text;
  statusBar()->showMessage(text, 10000);
  // Non-blocking, so scripted use and tests never hang on it.
  auto *box =
      new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
  box->setObjectName(QStringLiteral("openError"));
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setWindowModality(Qt::WindowModal);
  box->open();
}

bool MainWindow::openFile(const QString &path) {
  if (isBundledExample(path)) {
    // Opened as an untitled copy, so Save never overwrites the bundled file.
    try {
      doc_->reset(paraplan::load_project(path.toStdString()), QString());
    } catch (const std::exception &e) {
      showError(tr("Cannot open %1").arg(QFileInfo(path).fileName()),
                QString::fromStdString(e.what()));
      return false;
    }
    statusBar()->showMessage(tr("Opened the example %1 as an untitled copy.")
                                 .arg(QFileInfo(path).fileName()),
                             6000);
    return true;
  }
  try {
    doc_->open(path);
  } catch (const std::exception &e) {
    // A file's own errors name it ("FILE: line 3, column 12: …"); other
    // failures get it here.
    const QString what = QString::fromStdString(e.what());
    showError(tr("Cannot open %1").arg(QFileInfo(path).fileName()),
              tr("%1\n\nThe current project is unchanged.")
                  .arg(what.startsWith(path)
                           ? what
                           : QStringLiteral("%1\n\n%2").arg(path, what)));
    return false;
  }
  AppSettings::addRecentFile(path);
  updateRecentMenu();
  statusBar()->showMessage(tr("Opened %1").arg(path), 4000);
  return true;
}

bool MainWindow::saveFile(const QString &path) {
  try {
    doc_->saveAs(path);
  } catch (const std::exception &e) {
    showError(tr("Cannot save"), QString::fromStdString(e.what()));
    return false;
  }
  AppSettings::addRecentFile(path);
  updateRecentMenu();
  statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
  return true;
}

void MainWindow::updateRecentMenu() {
  recentMenu_->clear();
  const QStringList files = AppSettings::recentFiles();
  int i = 1;
  for (const QString &f : files) {
    QAction *a = recentMenu_->addAction(
        QStringLiteral("&%1 %2").arg(i).arg(QFileInfo(f).fileName()));
    if (i <= 9)
      a->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT |
                                  static_cast<Qt::Key>(Qt::Key_0 + i)));
    a->setToolTip(f);
    connect(a, &QAction::triggered, this, [this, f] {
      if (maybeSave())
        openFile(f);
    });
    ++i;
  }
  recentMenu_->setEnabled(!files.isEmpty());
}

bool MainWindow::maybeSave() {
  if (!doc_->isModified())
    return true;
  const auto r = QMessageBox::warning(
      this, tr("Unsaved changes"),
      tr("%1 has unsaved changes. Save them first?").arg(doc_->displayName()),
      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel,
      QMessageBox::Save);
  if (r == QMessageBox::Save)
    return save();
  return r == QMessageBox::Discard;
}

void MainWindow::newProject() {
  if (maybeSave())
    newProjectDialog();
}

NewProjectDialog *MainWindow::newProjectDialog() {
  auto *d = new NewProjectDialog(this);
  d->setAttribute(Qt::WA_DeleteOnClose);
  connect(d, &QDialog::accepted, this, [this, d] {
    paraplan::Project p;
    try {
      p = d->project();
    } catch (const std::exception &e) {
      showError(tr("Cannot create the project"),
                QString::fromStdString(e.what()));
      return;
    }
    doc_->reset(p, QString());
    statusBar()->showMessage(tr("New project: %1 (untitled until saved)")
                                 .arg(QString::fromStdString(p.name)),
                             6000);
  });
  d->open();
  return d;
}

bool MainWindow::openExample(const QString &name) {
  try {
    doc_->reset(paraplan::load_example(name.toStdString()), QString());
  } catch (const std::exception &e) {
    showError(tr("Cannot open the example %1").arg(name),
              QString::fromStdString(e.what()));
    return false;
  }
  statusBar()->showMessage(tr("Opened the example %1 as an untitled copy: Save "
                              "asks where to keep it.")
                               .arg(name),
                           6000);
  return true;
}

bool MainWindow::renameProject(const QString &name) {
  const std::string n = name.trimmed().toStdString();
  QString err;
  if (!doc_->edit(
          tr("Rename project to \"%1\"").arg(name.trimmed()),
          [&n](paraplan::Project &p) { p.name = n; }, &err)) {
    showError(tr("Cannot rename the project"), err);
    return false;
  }
  updateTitle();
  return true;
}

void MainWindow::openDialog() {
  if (!maybeSave())
    return;
  auto s = AppSettings::open();
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open project"), s->value(AppSettings::Key::kLastDir).toString(),
      kFileFilter);
  if (path.isEmpty())
    return;
  s->setValue(AppSettings::Key::kLastDir, QFileInfo(path).absolutePath());
  openFile(path);
}

bool MainWindow::save() {
  if (doc_->path().isEmpty())
    return saveAsDialog();
  return saveFile(doc_->path());
}

bool MainWindow::saveAsDialog() {
  QString path = QFileDialog::getSaveFileName(this, tr("Save project"),
                                              doc_->path(), kFileFilter);
  if (path.isEmpty())
    return false;
  if (!path.endsWith(QLatin1String(".json")))
    path += QStringLiteral(".paraplan.json");
  return saveFile(path);
}

void MainWindow::importHfDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Import Hugging Face config.json"), QString(),
      tr("config.json (*.json);;All files (*)"));
  if (path.isEmpty())
    return;
  try {
    // Only a regular file of bounded size: /dev/zero or a FIFO is refused at
    // once, naming it.
    const std::string text =
        paraplan::read_input_file(path.toStdString(), "Hugging Face config");
    const paraplan::ModelSpec spec =
        paraplan::import_hf_config(std::string_view(text));
    const QString name =
        QString::fromStdString(spec.name.empty() ? spec.family : spec.name);
    QString err;
    if (!doc_->edit(
            tr("Import model %1").arg(name),
            [&spec](paraplan::Project &p) {
              p.model = spec;
              p.model_preset.clear();
            },
            &err))
      showError(tr("Cannot import"), err);
  } catch (const std::exception &e) {
    showError(tr("Cannot import %1").arg(QFileInfo(path).fileName()),
              QString::fromStdString(e.what()));
  }
}

bool MainWindow::importConfigFile(const QString &path,
                                  const QString &formatHint) {
  std::string text;
  try {
    // Only a regular file of bounded size: /dev/zero or a FIFO is refused at
    // once, naming it.
    text = paraplan::read_input_file(path.toStdString(), "config");
  } catch (const std::exception &e) {
    showError(tr("Cannot import"), QString::fromStdString(e.what()));
    return false;
  }
  std::string format = formatHint.toStdString();
  if (format.empty())
    format = paraplan::detect_import_format(path.toStdString(), text);
  if (format.empty()) {
    QStringList formats;
    for (const auto &x : paraplan::import_formats())
      formats << QString::fromStdString(x);
    bool ok = false;
    const QString pick = QInputDialog::getItem(
        this, tr("Import framework config"),
        tr("Which framework's config is %1?").arg(QFileInfo(path).fileName()),
        formats, 0, false, &ok);
    if (!ok)
      return false;
    format = pick.toStdString();
  }
  paraplan::ImportResult r;
  try {
    // Over the open project: what the config does not say (cluster, model,
    // batch) stays.
    r = paraplan::import_config(text, format, doc_->project());
  } catch (const std::exception &e) {
    showError(tr("Cannot import %1").arg(QFileInfo(path).fileName()),
              tr("%1\n\nThe current project is unchanged.")
                  .arg(QString::fromStdString(e.what())));
    return false;
  }
  QString err;
  const paraplan::Project imported = r.project;
  if (!doc_->edit(
          tr("Import %1 config %2")
              .arg(QString::fromStdString(r.format),
                   QFileInfo(path).fileName()),
          [&imported](paraplan::Project &p) { p = imported; }, &err)) {
    showError(tr("Cannot import %1").arg(QFileInfo(path).fileName()), err);
    return false;
  }
  QStringList lines;
  if (r.implied_world > 0 && r.implied_world != doc_->project().world_size())
    lines << tr("The config implies %1 GPUs; the cluster has %2.")
                 .arg(r.implied_world)
                 .arg(doc_->project().world_size());
  for (const auto &w : r.warnings)
    lines << tr("Not imported: %1").arg(QString::fromStdString(w));
  lastImportMessages_ = lines;
  if (!lines.isEmpty()) {
    auto *box = new QMessageBox(
        QMessageBox::Information, tr("Imported with notes"),
        tr("Imported %1. Check these items:").arg(QFileInfo(path).fileName()),
        QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("importNotes"));
    box->setDetailedText(lines.join(QLatin1Char('\n')));
    box->setInformativeText(lines.mid(0, 5).join(QLatin1Char('\n')));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
  }
  statusBar()->showMessage(tr("Imported %1 (Ctrl+Z undoes it)").arg(path),
                           6000);
  return true;
}

void MainWindow::importConfigDialog() {
  auto s = AppSettings::open();
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Import framework config"),
      s->value(AppSettings::Key::kLastDir).toString(),
      tr("Training configs (*.json *.toml *.sh *.py *.txt *.args);;All files "
         "(*)"));
  if (path.isEmpty())
    return;
  importConfigFile(path);
}

bool MainWindow::exportPicture(const QString &view, const QString &path,
                               QString *error) {
  refreshStaleViews(); // a picture shows the project as it is, seen or not
  const QString title = tr("Paraplan: %1 — %2").arg(view, doc_->displayName());
  if (view == QLatin1String("canvas")) {
    QRectF nodes; // the nodes, not the scene's margins
    for (const auto *n : canvas_->nodeItems())
      nodes |= n->sceneBoundingRect();
    return picture::saveScene(canvas_->scene(), path, title, error, nodes);
  }
  if (view == QLatin1String("grid")) {
    QWidget *cells =
        grid_->findChild<QWidget *>(QStringLiteral("rankGridCanvas"));
    return picture::saveWidget(cells, path, title, error,
                               cells
                                   ? cells->minimumSize()
                                   : QSize()); // the cells, not the empty rest
  }
  if (view == QLatin1String("timeline")) {
    if (!picture::isPictureFormat(path)) {
      if (error)
        *error = tr("a picture is .png, .svg or .pdf");
      return false;
    }
    return timeline_->exportTo(path, error);
  }
  if (view == QLatin1String("memory"))
    return picture::saveWidget(memory_, path, title, error);
  if (view == QLatin1String("planner"))
    return picture::savePlot(planner_->plot(), path, title, error);
  if (view == QLatin1String("explain"))
    return picture::saveWidget(explain_, path, title, error);
  if (error)
    *error = tr("no picture of \"%1\" (canvas, grid, timeline, memory, "
                "planner, explain)")
                 .arg(view);
  return false;
}

ExportDialog *MainWindow::exportDialog() {
  auto *d = new ExportDialog(doc_, this); // its Fix buttons edit this project
  d->setAttribute(Qt::WA_DeleteOnClose);
  d->open(); // closed, it gives this window its activation and focus back
             // (DialogFocusReturn)
  return d;
}

void MainWindow::offerRecovery() {
  const auto pending = recovery_->pending();
  if (!pending)
    return;
  const QString what = pending->originalPath.isEmpty()
                           ? tr("an untitled project")
                           : pending->originalPath;
  const auto r = QMessageBox::question(
      this, tr("Restore unsaved work?"),
      tr("Paraplan did not shut down cleanly. Unsaved changes to %1 were saved "
         "automatically at %2.\n\n"
         "Restore them?")
          .arg(what, pending->savedAt),
      QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes);
  if (r == QMessageBox::Yes) {
    try {
      recovery_->restore();
    } catch (const std::exception &e) {
      showError(tr("Cannot restore"), QString::fromStdString(e.what()));
    }
  } else {
    recovery_->discard();
  }
}

QStringList MainWindow::viewNames() const {
  QStringList names{QStringLiteral("canvas")};
  names += docks_.keys();
  return names;
}

bool MainWindow::raiseView(const QString &name) {
  if (name == QLatin1String("canvas")) {
    canvas_->setFocus();
    return true;
  }
  QDockWidget *d = docks_.value(name);
  if (!d)
    return false;
  d->show();
  d->raise();
  // A view brought forward in the bottom area gets room to be read.
  if (dockWidgetArea(d) == Qt::BottomDockWidgetArea && !d->isFloating() &&
      d->height() < height() * 0.35)
    resizeDocks({d}, {int(height() * 0.42)}, Qt::Vertical);
  // Show results, not an empty table: the search runs in the background
  // (PlannerPanel::finished).
  if (name == QLatin1String("planner") && !planner_->hasRun())
    planner_->run();
  return true;
}

void MainWindow::restoreWindowState() {
  auto s = AppSettings::open();
  restoreGeometry(s->value(AppSettings::Key::kGeometry).toByteArray());
  restoredState_ =
      restoreState(s->value(AppSettings::Key::kState).toByteArray(),
                   AppSettings::kWindowStateVersion);
  const QString scheme = s->value(AppSettings::Key::kColourScheme).toString();
  if (!scheme.isEmpty() && scheme != QLatin1String("system"))
    setColourScheme(scheme);
  for (QAction *a : schemeActions_)
    a->setChecked(a->data().toString() == colourScheme_);
}

void MainWindow::defaultProportions() {
  // On a narrow screen (a 1280 px laptop) the side and bottom docks leave the
  // cluster canvas more room.
  const bool narrow = width() < 1400;
  resizeDocks({docks_.value(QStringLiteral("layout")),
               docks_.value(QStringLiteral("grid"))},
              {320, narrow ? 280 : 410}, Qt::Horizontal);
  // On a short screen (an 800 px laptop) the left column runs down to the
  // status bar, beside the bottom docks rather than above them, so the Layout
  // fields keep their height; Explain (a few lines about the field in focus)
  // takes less of it.
  const bool shortScreen = height() < 900;
  setCorner(Qt::BottomLeftCorner,
            shortScreen ? Qt::LeftDockWidgetArea : Qt::BottomDockWidgetArea);
  resizeDocks({docks_.value(QStringLiteral("layout")),
               docks_.value(QStringLiteral("explain"))},
              {600, shortScreen ? 150 : 260}, Qt::Vertical);
  resizeDocks({docks_.value(QStringLiteral("diagnostics"))},
              {shortScreen ? int(height() * 0.26) : 260}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent *e) {
  QMainWindow::showEvent(e);
  // Rendered off screen (--screenshot) at a size of its own: no screen to fit.
  if (!shownOnce_ && !testAttribute(Qt::WA_DontShowOnScreen)) {
    shownOnce_ = true;
    // Now on its real screen, with its frame; and again once the dock layout is
    // settled (until then the minimum width counts tabbed docks side by side
    // and widens the window).
    windowfit::fitToScreen(this);
    QMetaObject::invokeMethod(
        this,
        [this] {
          windowfit::fitToScreen(this);
          if (!restoredState_)
            defaultProportions(); // for the size it has now
        },
        Qt::QueuedConnection);
  }
}

bool MainWindow::eventFilter(QObject *watched, QEvent *e) {
  // A line edit or spin box claims Ctrl+Z (its own text undo), Ctrl+E (end of
  // line) and others before the window's shortcuts see them. For the window's
  // keys the project wins: the field's value is already in the project, and
  // undo should undo that edit.
  if (e->type() == QEvent::ShortcutOverride) {
    auto *w = qobject_cast<QWidget *>(watched);
    if (w && w != this && w->window() == this) {
      auto *ke = static_cast<QKeyEvent *>(e);
      const QKeySequence pressed(ke->keyCombination());
      for (QAction *a : std::as_const(windowKeys_)) {
        if (!a->isEnabled() || !a->shortcuts().contains(pressed))
          continue;
        ke->ignore(); // not the field's: the shortcut map gets it
        return true;
      }
    }
  }
  return QMainWindow::eventFilter(watched, e);
}

void MainWindow::setColourScheme(const QString &scheme) {
  static const QPalette systemPalette =
      QApplication::palette(); // as the desktop gave it at first use
  QPalette pal = systemPalette;
  if (scheme == QLatin1String("light")) {
    pal = QApplication::style()->standardPalette();
  } else if (scheme == QLatin1String("dark")) {
    const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e),
        text(0xe8, 0xe8, 0xe8);
    pal = QPalette(text, window, window.lighter(150), window.darker(150),
                   window.lighter(120), text, text, base, window);
    pal.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
    pal.setColor(QPalette::ButtonText, text);
    pal.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
    pal.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
    pal.setColor(QPalette::HighlightedText, Qt::white);
    pal.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
    pal.setColor(QPalette::ToolTipBase, window);
    pal.setColor(QPalette::ToolTipText, text);
    pal.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
    for (auto role :
         {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
      pal.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
  } else if (scheme != QLatin1String("system")) {
    return;
  }
  colourScheme_ = scheme;
  QApplication::setPalette(pal); // every view follows (see changeEvent)
  for (QAction *a : schemeActions_)
    a->setChecked(a->data().toString() == scheme);
  AppSettings::open()->setValue(AppSettings::Key::kColourScheme, scheme);
}

QString MainWindow::guidePath(const QString &name) {
  const QString file = name + QStringLiteral(".md");
  QStringList dirs{QCoreApplication::applicationDirPath() +
                       QStringLiteral("/../share/doc/paraplan"),
                   QStringLiteral("/usr/share/doc/paraplan")};
#ifdef PARAPLAN_SOURCE_DIR
  dirs << QStringLiteral(PARAPLAN_SOURCE_DIR "/docs");
#endif
  for (const QString &d : dirs) {
    const QFileInfo f(QDir(d).filePath(file));
    if (f.isFile())
      return f.canonicalFilePath();
  }
  return {};
}

QWidget *MainWindow::showGuide(const QString &name) {
  const QString path = guidePath(name);
  if (path.isEmpty()) {
    showError(tr("No guide"), tr("The %1 guide is not installed (looked for "
                                 "%1.md under share/doc/paraplan).")
                                  .arg(name));
    return nullptr;
  }
  auto *win = new QDialog(this);
  win->setObjectName(QStringLiteral("guide-") + name);
  win->setAttribute(Qt::WA_DeleteOnClose);
  win->setWindowTitle(name == QLatin1String("concepts")
                          ? tr("Paraplan concepts")
                          : tr("Paraplan user guide"));
  auto *lay = new QVBoxLayout(win);
  lay->setContentsMargins(0, 0, 0, 0);
  auto *browser = new QTextBrowser(win);
  browser->setObjectName(QStringLiteral("guideBrowser"));
  browser->setOpenExternalLinks(true);
  browser->setSource(
      QUrl::fromLocalFile(path),
      QTextDocument::MarkdownResource); // pictures load relative to it
  lay->addWidget(browser);
  const QSize room =
      screen() ? screen()->availableGeometry().size() : QSize(900, 800);
  win->resize(QSize(900, 900).boundedTo(room * 0.9));
  win->show();
  return win;
}

QWidget *MainWindow::showShortcuts() {
  auto *win = new QDialog(this);
  win->setObjectName(QStringLiteral("shortcutsWindow"));
  win->setAttribute(Qt::WA_DeleteOnClose);
  win->setWindowTitle(tr("Keyboard shortcuts"));
  auto *lay = new QVBoxLayout(win);
  auto *table = new QTableWidget(0, 2, win);
  table->setObjectName(QStringLiteral("shortcutsTable"));
  table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table->horizontalHeader()->setSectionResizeMode(
      1, QHeaderView::ResizeToContents);
  // Every action of the menus (and their submenus) that has keys, in menu
  // order.
  std::function<void(QMenu *, const QString &)> walk =
      [&](QMenu *menu, const QString &path) {
        for (QAction *a : menu->actions()) {
          const QString text = QString(a->text()).remove(QLatin1Char('&'));
          if (a->menu()) {
            walk(a->menu(), path + text + QStringLiteral(" › "));
            continue;
          }
          if (a->shortcuts().isEmpty())
            continue;
          const int row = table->rowCount();
          table->insertRow(row);
          table->setItem(row, 0, new QTableWidgetItem(path + text));
          table->setItem(row, 1,
                         new QTableWidgetItem(keysText(a->shortcuts())));
        }
      };
  for (QAction *top : menuBar()->actions())
    if (top->menu())
      walk(top->menu(), QString(top->text()).remove(QLatin1Char('&')) +
                            QStringLiteral(" › "));
  for (QAction *a : canvas_->actions()) { // the canvas's own (zoom, fit),
                                          // active while it has focus
    if (a->shortcuts().isEmpty() || canvas_->editActions().contains(a))
      continue;
    const int row = table->rowCount();
    table->insertRow(row);
    table->setItem(row, 0,
                   new QTableWidgetItem(tr("Canvas › %1").arg(a->text())));
    table->setItem(row, 1, new QTableWidgetItem(keysText(a->shortcuts())));
  }
  lay->addWidget(table);
  auto *note = new QLabel(tr("Undo, redo, save, export and plan act on the "
                             "project even while a Layout field has focus."),
                          win);
  note->setWordWrap(true);
  lay->addWidget(note);
  win->resize(560, 620);
  win->show();
  return win;
}

bool MainWindow::confirmCloseWithRunningJob() {
  paraplan::runtime::Job *job = run_->job();
  if (!job || job->done())
    return true;
  if (quitWhenJobEnds_)
    return false; // stopping it already: closes when it has ended
  // Every remote process is tied to its ssh connection (the stdin watchdog), so
  // quitting cannot leave the job running unattended: it is stopped, cleanly,
  // or not at all. The question is window-modal (open(), no nested event loop):
  // the answer closes again.
  auto *box =
      new QMessageBox(QMessageBox::Warning, tr("A job is running"),
                      tr("A job is running: %n process(es) on the cluster. "
                         "Quitting Paraplan stops it on "
                         "every node; its logs stay in %1.",
                         nullptr, static_cast<int>(job->processes().size()))
                          .arg(QString::fromStdString(job->folder())),
                      QMessageBox::NoButton, this);
  box->setAttribute(Qt::WA_DeleteOnClose);
  box->setObjectName(QStringLiteral("runningJobBox"));
  QPushButton *stop =
      box->addButton(tr("Stop the Job and Quit"), QMessageBox::AcceptRole);
  box->addButton(QMessageBox::Cancel);
  box->setDefaultButton(QMessageBox::Cancel);
  connect(box, &QMessageBox::finished, this, [this, box, stop] {
    if (box->clickedButton() == stop)
      stopJobAndQuit();
  });
  box->open();
  return false;
}

void MainWindow::stopJobAndQuit() {
  paraplan::runtime::Job *job = run_->job();
  quitWhenJobEnds_ = true;
  if (!job || job->done()) {
    close();
    return;
  }
  // Closes when the job has ended, or after a minute whatever its state (as a
  // stuck node must not keep the app open).
  auto *guard = new QTimer(this);
  guard->setSingleShot(true);
  auto quit = [this, guard](bool force) {
    guard->deleteLater();
    forceQuit_ = force;
    close();
  };
  connect(guard, &QTimer::timeout, guard, [quit] { quit(true); });
  connect(
      job, &paraplan::runtime::Job::finished, guard, [quit] { quit(false); },
      Qt::QueuedConnection);
  guard->start(60'000);
  run_->stop();
}

void MainWindow::closeEvent(QCloseEvent *e) {
  // After "Stop the Job and Quit" the document question was answered already.
  if ((!quitWhenJobEnds_ && !maybeSave()) ||
      (!forceQuit_ && !confirmCloseWithRunningJob())) {
    e->ignore();
    return;
  }
  auto s = AppSettings::open();
  s->setValue(AppSettings::Key::kGeometry, saveGeometry());
  s->setValue(AppSettings::Key::kState,
              saveState(AppSettings::kWindowStateVersion));
  recovery_->discard(); // a clean exit leaves nothing to recover
  e->accept();
}

void MainWindow::changeEvent(QEvent *e) {
  // A light/dark switch: recolour once every child has its new palette (they
  // get theirs after this window), so the refresh is queued, and several events
  // make one refresh.
  if ((e->type() == QEvent::PaletteChange ||
       e->type() == QEvent::ApplicationPaletteChange) &&
      !recolourQueued_) {
    recolourQueued_ = true;
    QMetaObject::invokeMethod(
        this,
        [this] {
          recolourQueued_ = false;
          if (auto *plan = findChild<QAction *>(QStringLiteral("planAction")))
            plan->setIcon(playIcon(palette()));
          refreshViews();
        },
        Qt::QueuedConnection);
  }
  QMainWindow::changeEvent(e);
}
