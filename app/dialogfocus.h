#pragma once
// Closing a modal dialog gives activation and keyboard focus back to the window it interrupted.
//
// Without a window manager (Xvfb, some tiling set-ups) nothing else does: the X focus falls back
// to the root, no window is active, and the window's keys (Ctrl+N, Ctrl+E, ...) do nothing until
// the window is clicked. One application-wide event filter covers every modal dialog however it
// is opened: exec() or open(), the static QMessageBox / QFileDialog / QInputDialog calls included.
#include <QHash>
#include <QObject>
#include <QPointer>

class QWidget;

class DialogFocusReturn final : public QObject {
public:
    // Installs the filter on the application (once; later calls do nothing).
    static void install();

protected:
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    explicit DialogFocusReturn(QObject* parent) : QObject(parent) {}

    // What a shown modal dialog interrupted: the active window and its focused widget.
    struct Interrupted {
        QPointer<QWidget> window;
        QPointer<QWidget> focus;
    };
    QHash<const QObject*, Interrupted> open_;
};
