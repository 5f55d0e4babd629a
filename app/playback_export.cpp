// File > Export playback and `paraplan --playback-frames DIR`: the step played back as
// a PNG sequence of the whole window (canvas, rank grid and the timeline with its
// playhead), and an MP4 when ffmpeg is on PATH (Debian's ffmpeg; skipped without it).
#include "mainwindow.h"
#include "stepplayer.h"

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QStandardPaths>

bool MainWindow::exportPlayback(const QString& dir, int frames, QStringList* files, QString* error) {
    auto fail = [&](const QString& why) {
        if (error) *error = why;
        return false;
    };
    if (!player_ || !player_->playback())
        return fail(tr("no playback: %1").arg(player_ ? player_->problem() : QString()));
    if (frames < 1) return fail(tr("at least one frame"));
    if (!QDir().mkpath(dir)) return fail(tr("cannot create %1").arg(dir));
    raiseView(QStringLiteral("timeline"));
    const double step = player_->playback()->step_s;
    QStringList written;
    for (int i = 0; i < frames; ++i) {
        player_->setTime(frames == 1 ? 0.0 : step * i / (frames - 1));
        const QString path = QDir(dir).filePath(QStringLiteral("frame_%1.png").arg(i, 4, 10, QLatin1Char('0')));
        if (!grab().toImage().save(path)) return fail(tr("cannot write %1").arg(path));
        written << path;
    }
    const QString ffmpeg = QStandardPaths::findExecutable(QStringLiteral("ffmpeg"));
    if (!ffmpeg.isEmpty()) {
        const QString mp4 = QDir(dir).filePath(QStringLiteral("playback.mp4"));
        QProcess p;
        p.start(ffmpeg, {QStringLiteral("-y"), QStringLiteral("-loglevel"), QStringLiteral("error"),
                         QStringLiteral("-framerate"), QStringLiteral("10"), QStringLiteral("-i"),
                         QDir(dir).filePath(QStringLiteral("frame_%04d.png")), QStringLiteral("-vf"),
                         QStringLiteral("scale=trunc(iw/2)*2:trunc(ih/2)*2"), QStringLiteral("-pix_fmt"),
                         QStringLiteral("yuv420p"), mp4});
        if (!p.waitForFinished(120000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
            return fail(tr("%1 could not encode %2: %3")
                            .arg(ffmpeg, mp4,
                                 p.error() == QProcess::Timedout
                                     ? tr("timed out after 120 s")
                                     : QString::fromLocal8Bit(p.readAllStandardError()).trimmed()));
        written << mp4;
    }
    if (files) *files = written;
    return true;
}
