#pragma once
// File > Export playback and `paraplan --playback-frames DIR`: the step played back as a PNG
// sequence of the whole window (canvas, rank grid and the timeline with its playhead), and an
// MP4 when ffmpeg is on PATH (Debian's ffmpeg; skipped without it).
//
// The export never holds the GUI thread: one frame is grabbed per turn of the event loop, the
// PNG encoding runs on a worker, and ffmpeg is a child process the event loop watches (it was
// a two-minute wait on the GUI thread). progress() counts the frames, then the encoding;
// cancel() stops at the next frame or ends ffmpeg; finished() comes once, with the outcome.
#include <QFutureSynchronizer>
#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QThreadPool>
#include <QTimer>

class MainWindow;

class PlaybackExport : public QObject {
    Q_OBJECT
public:
    PlaybackExport(MainWindow* window, QString dir, int frames, QObject* parent = nullptr);
    ~PlaybackExport() override;

    void start();
    void cancel();
    bool isFinished() const { return finished_; }
    bool ok() const { return ok_; }
    bool cancelled() const { return cancelled_; }
    QStringList files() const { return files_; }
    QString error() const { return error_; }
    // Steps in all: the frames, and one for the encoding when ffmpeg is on PATH.
    int total() const { return frames_ + (ffmpeg_.isEmpty() ? 0 : 1); }

signals:
    void progress(int done, int total);
    void finished(bool ok);

private:
    void nextFrame();
    void nextFrameWhenWritten();
    int pendingWrites() const;   // PNGs handed to the worker and not written yet
    void framesWritten();
    void encoded(int exitCode, QProcess::ExitStatus status);
    void fail(const QString& why);
    void finish(bool ok);

    QPointer<MainWindow> window_;
    QString dir_;
    int frames_ = 0;
    int next_ = 0;
    QString ffmpeg_;
    QStringList files_;
    QString error_;
    bool ok_ = false;
    bool finished_ = false;
    bool cancelled_ = false;
    QThreadPool pool_;
    QFutureSynchronizer<QString> writes_;   // each PNG's error ("" when written)
    QProcess* encoder_ = nullptr;
    QTimer encoderTimeout_;
};
