#include "playback_export.h"

#include "mainwindow.h"
#include "views/stepplayer.h"

#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QImage>
#include <QProgressDialog>
#include <QStandardPaths>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

#include <utility>

namespace {
constexpr int kEncodeTimeoutMs = 120000;
}

PlaybackExport::PlaybackExport(MainWindow* window, QString dir, int frames, QObject* parent)
    : QObject(parent),
      window_(window),
      dir_(std::move(dir)),
      frames_(frames),
      ffmpeg_(QStandardPaths::findExecutable(QStringLiteral("ffmpeg"))) {
    // One low-priority worker encodes the PNGs: on a two-core machine two encoders took the
    // GUI thread's core too, and the window stalled for 60-80 ms at every frame.
    pool_.setMaxThreadCount(1);
    pool_.setThreadPriority(QThread::LowPriority);
    encoderTimeout_.setSingleShot(true);
    connect(&encoderTimeout_, &QTimer::timeout, this, [this] {
        if (!encoder_) return;
        encoder_->disconnect(this);
        encoder_->kill();
        fail(tr("%1 could not encode %2: timed out after %3 s")
                 .arg(ffmpeg_, QDir(dir_).filePath(QStringLiteral("playback.mp4")))
                 .arg(kEncodeTimeoutMs / 1000));
    });
}

PlaybackExport::~PlaybackExport() {
    writes_.waitForFinished();   // the workers write files of this export; let them end
    if (encoder_) {
        encoder_->disconnect(this);
        encoder_->kill();
        encoder_->waitForFinished(2000);
    }
}

void PlaybackExport::start() {
    StepPlayer* player = window_ ? window_->stepPlayer() : nullptr;
    if (!player || !player->playback()) return fail(tr("no playback: %1").arg(player ? player->problem() : QString()));
    if (frames_ < 1) return fail(tr("at least one frame"));
    if (!QDir().mkpath(dir_)) return fail(tr("cannot create %1").arg(dir_));
    window_->raiseView(QStringLiteral("playback"));   // its controls and the timeline, together
    emit progress(0, total());
    QTimer::singleShot(0, this, &PlaybackExport::nextFrame);
}

void PlaybackExport::cancel() {
    if (finished_) return;
    cancelled_ = true;
    if (encoder_) {
        encoder_->disconnect(this);
        encoder_->kill();
        fail(tr("cancelled"));
    }
    // Else nextFrame() or framesWritten() sees the flag at its next turn.
}

void PlaybackExport::nextFrame() {
    if (finished_) return;
    if (cancelled_) return framesWritten();   // ends once the frames in hand are written
    StepPlayer* player = window_ ? window_->stepPlayer() : nullptr;
    if (!player || !player->playback()) return fail(tr("the playback went away while it was exported"));
    const double step = player->playback()->step_s;
    const int i = next_++;
    player->setTime(frames_ == 1 ? 0.0 : step * i / (frames_ - 1));
    const QString path = QDir(dir_).filePath(QStringLiteral("frame_%1.png").arg(i, 4, 10, QLatin1Char('0')));
    // The grab needs the GUI thread; the PNG encoding (most of a frame's time) does not.
    const QImage image = window_->grab().toImage();
    writes_.addFuture(QtConcurrent::run(&pool_, [image, path] {
        return image.save(path) ? QString() : PlaybackExport::tr("cannot write %1").arg(path);
    }));
    files_ << path;
    emit progress(next_, total());
    if (next_ < frames_) nextFrameWhenWritten();
    else QTimer::singleShot(0, this, &PlaybackExport::framesWritten);
}

void PlaybackExport::nextFrameWhenWritten() {
    // At most two frames wait for their encoder: the frames are not all held in memory at once,
    // and the grabs keep pace with the one worker that encodes them.
    if (pendingWrites() >= 2 && !cancelled_) QTimer::singleShot(5, this, &PlaybackExport::nextFrameWhenWritten);
    else QTimer::singleShot(0, this, &PlaybackExport::nextFrame);
}

int PlaybackExport::pendingWrites() const {
    int n = 0;
    for (const auto& f : writes_.futures()) n += f.isFinished() ? 0 : 1;
    return n;
}

void PlaybackExport::framesWritten() {
    if (finished_) return;
    // The frames' writers: one that has not ended yet is waited for a turn at a time.
    if (pendingWrites() > 0) {
        QTimer::singleShot(10, this, &PlaybackExport::framesWritten);
        return;
    }
    for (const auto& f : writes_.futures())
        if (!f.result().isEmpty()) return fail(f.result());
    if (cancelled_) return fail(tr("cancelled"));
    if (ffmpeg_.isEmpty()) return finish(true);
    const QString mp4 = QDir(dir_).filePath(QStringLiteral("playback.mp4"));
    encoder_ = new QProcess(this);
    connect(encoder_, &QProcess::finished, this, &PlaybackExport::encoded);
    connect(encoder_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) encoded(-1, QProcess::CrashExit);
    });
    encoder_->start(ffmpeg_, {QStringLiteral("-y"), QStringLiteral("-loglevel"), QStringLiteral("error"),
                              QStringLiteral("-framerate"), QStringLiteral("10"), QStringLiteral("-i"),
                              QDir(dir_).filePath(QStringLiteral("frame_%04d.png")), QStringLiteral("-vf"),
                              QStringLiteral("scale=trunc(iw/2)*2:trunc(ih/2)*2"), QStringLiteral("-pix_fmt"),
                              QStringLiteral("yuv420p"), mp4});
    encoderTimeout_.start(kEncodeTimeoutMs);
}

void PlaybackExport::encoded(int exitCode, QProcess::ExitStatus status) {
    if (finished_ || !encoder_) return;
    encoderTimeout_.stop();
    const QString mp4 = QDir(dir_).filePath(QStringLiteral("playback.mp4"));
    const QString err = QString::fromLocal8Bit(encoder_->readAllStandardError()).trimmed();
    const QString startErr = encoder_->errorString();
    const bool failedToStart = encoder_->error() == QProcess::FailedToStart;
    encoder_->disconnect(this);
    encoder_->deleteLater();
    encoder_ = nullptr;
    if (failedToStart || status != QProcess::NormalExit || exitCode != 0)
        return fail(tr("%1 could not encode %2: %3").arg(ffmpeg_, mp4, failedToStart ? startErr : err));
    files_ << mp4;
    emit progress(total(), total());
    finish(true);
}

void PlaybackExport::fail(const QString& why) {
    if (finished_) return;
    error_ = why;
    finish(false);
}

void PlaybackExport::finish(bool ok) {
    finished_ = true;
    ok_ = ok;
    emit finished(ok);
}

bool MainWindow::exportPlayback(const QString& dir, int frames, QStringList* files, QString* error) {
    PlaybackExport e(this, dir, frames);
    QEventLoop loop;
    connect(&e, &PlaybackExport::finished, &loop, &QEventLoop::quit);
    e.start();
    if (!e.isFinished()) loop.exec();
    if (files) *files = e.files();
    if (!e.ok() && error) *error = e.error();
    return e.ok();
}

PlaybackExport* MainWindow::startPlaybackExport(const QString& chosen) {
    const QString dir = chosen.isEmpty() ? QFileDialog::getExistingDirectory(this, tr("Save the playback frames in"))
                                         : chosen;
    if (dir.isEmpty()) return nullptr;
    auto* e = new PlaybackExport(this, dir, 60, this);
    auto* progress = new QProgressDialog(tr("Exporting the playback…"), tr("Cancel"), 0, e->total(), this);
    progress->setObjectName(QStringLiteral("playbackExportProgress"));
    progress->setWindowTitle(tr("Export Playback"));
    progress->setMinimumDuration(0);
    progress->setAutoReset(false);
    progress->setAutoClose(false);
    connect(progress, &QProgressDialog::canceled, e, &PlaybackExport::cancel);
    connect(e, &PlaybackExport::progress, progress, [progress](int done, int total) {
        progress->setMaximum(total);
        progress->setValue(done);
        progress->setLabelText(done < total ? tr("Exporting the playback: %1 of %2…").arg(done).arg(total)
                                            : tr("Encoding the video…"));
    });
    connect(e, &PlaybackExport::finished, this, [this, e, progress, dir](bool ok) {
        progress->deleteLater();
        e->deleteLater();
        if (!ok) {
            if (!e->cancelled()) showError(tr("Cannot export the playback"), e->error());
            else statusBar()->showMessage(tr("Playback export cancelled"), 5000);
            return;
        }
        statusBar()->showMessage(tr("Saved %1 files in %2").arg(e->files().size()).arg(dir), 5000);
    });
    e->start();
    return e;
}
