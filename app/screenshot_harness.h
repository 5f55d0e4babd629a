#pragma once
// `paraplan --screenshot` and `--playback-frames`: render the main window (one view alone,
// File > Export… or File > New…'s form) offscreen to a PNG, for the documentation pictures and the tests.
// The rendering runs as a chain of steps from the application's own event loop (each step
// queued after the events the previous one posted), never in a nested loop.
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>

#include <memory>

class MainWindow;
class QDialog;
class QWidget;

// `--playback-frames DIR`: shows the window off screen at `size`, then (from the event loop, once
// the docks are laid out) plays one training step into DIR/frame_0000.png ..., prints the files
// written and quits the app with 0, or 2 after saying why on stderr.
void renderPlaybackFrames(MainWindow& window, QSize size, const QString& dir, int frames);

// The window size of "WxH" (--size), each side bounded to a sane range; 1600x1000 when it is not WxH.
QSize screenshotSize(const QString& wxh);

struct ScreenshotRequest {
    QString out;   // the PNG to write
    QSize size{1600, 1000};
    QString view;            // bring this view to the front first (empty: none)
    bool grabView = false;   // render only that view, alone, at `size`
    QString exportFormat;    // render File > Export… for this format instead of the window
    QStringList invoke;      // slots of the view's widget to call before rendering
    int waitMs = 0;          // let the app work this long before rendering
    QStringList compare;     // project files put beside the open one in the Compare view
    // Palette node templates ("8 × h100-sxm") added in this order, each as a person adds one:
    // the template selected in the canvas's palette, then Edit > Add Node.
    QStringList addNodes;
    bool newDialog = false;   // render File > New…'s form (as it opens) instead of the window
};

class ScreenshotHarness : public QObject {
    Q_OBJECT
public:
    ScreenshotHarness(MainWindow* window, ScreenshotRequest request, QObject* parent = nullptr);
    ~ScreenshotHarness() override;

    // Shows the window off screen and queues the steps; finished() follows from the event loop.
    void start();

signals:
    // 0: the picture is written; 2: a bad request or a write error (said on stderr).
    void finished(int exitCode);

private:
    void next(void (ScreenshotHarness::*step)());
    void fail(const QString& message);
    void sized();
    void viewRaised();
    bool addNodes();
    void dialogShown();
    void viewReady();
    void render();
    void grabbed();

    MainWindow* window_;
    ScreenshotRequest req_;
    QWidget* viewWidget_ = nullptr;
    QWidget* alone_ = nullptr;          // --grab-view: the view's widget, out of its dock; owned here
    std::unique_ptr<QDialog> dialog_;   // --export-format, --new-dialog
    bool waitingForPlanner_ = false;
};
