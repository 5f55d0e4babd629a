// The main window and running jobs: live colouring, the GPU monitor, and quitting while a job runs.

#include "mainwindow.h"

#include "appsettings.h"
#include "canvas/clustercanvas.h"
#include "views/rankgrid.h"
#include "views/stepplayer.h"
#include "run/gpu_monitor.h"
#include "messagefit.h"
#include "live_overlay.h"
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

// Running jobs (issue #8): the Run panel's telemetry feeds the GPU monitor and, once a
// second, the live heatmaps of the canvas and the rank grid (cleared when the job
// ends); a probe result shown from the Run panel colours the rank grid.
void MainWindow::setupRunViews() {
    auto* feeder = new LiveOverlayFeeder(doc_, canvas_, grid_, this);
    feeder->setObjectName(QStringLiteral("liveOverlayFeeder"));
    connect(run_, &paraplan::widgets::RunPanel::jobStarted, this, [this, feeder] {
        if (auto* mon = run_->monitor()) {
            gpus_->setMonitor(mon, doc_->project().cluster);
            feeder->start(mon);
            if (feeder->paused())
                statusBar()->showMessage(
                    tr("Step playback colours the canvas and rank grid: live GPU colouring "
                       "paused until the playback stops (■)"));
        }
    });
    connect(run_, &paraplan::widgets::RunPanel::jobFinished, feeder, &LiveOverlayFeeder::stop);
    // The step playback and a job's live colouring share the canvas and rank grid: the
    // playback wins while it is shown, the live colouring waits and says so.
    connect(player_, &StepPlayer::showingChanged, this, [this, feeder](bool playing) {
        feeder->setPaused(playing);
        if (!feeder->running()) return;
        if (playing)
            statusBar()->showMessage(
                tr("Step playback colours the canvas and rank grid: live GPU colouring paused "
                   "until the playback stops (■)"));
        else statusBar()->showMessage(tr("Live GPU colouring resumed"), 5000);
    });
    connect(run_, &paraplan::widgets::RunPanel::probeChecked, this,
            [this](const std::vector<paraplan::runtime::ProbeGroupCheck>& checks) {
                grid_->setProbeChecks(checks);
                if (auto* d = docks_.value(QStringLiteral("grid"))) d->raise();
            });
    // An edited project no longer matches the probed groups.
    connect(doc_, &ProjectDocument::changed, grid_, [this] {
        if (!grid_->probeChecks().empty()) grid_->clearProbe();
    });
}

bool MainWindow::confirmCloseWithRunningJob() {
    paraplan::runtime::Job* job = run_->job();
    if (!job || job->done()) return true;
    if (quitWhenJobEnds_) return false;   // stopping it already: closes when it has ended
    // Every remote process is tied to its ssh connection (the stdin watchdog), so quitting
    // cannot leave the job running unattended: it is stopped, cleanly, or not at all.
    // The question is window-modal (open(), no nested event loop): the answer closes again.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("A job is running"), QString(), QMessageBox::NoButton, this);
    messagefit::setText(box, tr("A job is running: %n process(es) on the cluster. Quitting Paraplan stops it on "
                                "every node; its logs stay in %1.",
                                nullptr, static_cast<int>(job->processes().size()))
                                 .arg(QString::fromStdString(job->folder())));   // a long folder: whole in Details
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setObjectName(QStringLiteral("runningJobBox"));
    QPushButton* stop = box->addButton(tr("Stop the Job and Quit"), QMessageBox::AcceptRole);
    box->addButton(QMessageBox::Cancel);
    box->setDefaultButton(QMessageBox::Cancel);
    connect(box, &QMessageBox::finished, this, [this, box, stop] {
        if (box->clickedButton() == stop) stopJobAndQuit();
    });
    box->open();
    return false;
}

void MainWindow::stopJobAndQuit() {
    paraplan::runtime::Job* job = run_->job();
    quitWhenJobEnds_ = true;
    if (!job || job->done()) {
        close();
        return;
    }
    // Closes when the job has ended, or after a minute whatever its state (as a stuck node
    // must not keep the app open).
    auto* guard = new QTimer(this);
    guard->setSingleShot(true);
    auto quit = [this, guard](bool force) {
        guard->deleteLater();
        forceQuit_ = force;
        close();
    };
    connect(guard, &QTimer::timeout, guard, [quit] { quit(true); });
    connect(
        job, &paraplan::runtime::Job::finished, guard, [quit] { quit(false); }, Qt::QueuedConnection);
    guard->start(60'000);
    run_->stop();
}

void MainWindow::closeEvent(QCloseEvent* e) {
    // After "Stop the Job and Quit" the document question was answered already.
    if ((!quitWhenJobEnds_ && !maybeSave()) || (!forceQuit_ && !confirmCloseWithRunningJob())) {
        e->ignore();
        return;
    }
    auto s = AppSettings::open();
    s->setValue(AppSettings::Key::kGeometry, saveGeometry());
    s->setValue(AppSettings::Key::kState, saveState(AppSettings::kWindowStateVersion));
    recovery_->discard();   // a clean exit leaves nothing to recover
    e->accept();
}
