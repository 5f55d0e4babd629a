#pragma once
// Input as a person gives it, for the journey tests (tst_journeys, tst_journey_131k): keys sent
// where the window system sends them (the focused widget of the active window), focus put in a
// field as a click or Tab puts it, wheel notches, and a drop delivered as QDrag delivers it.
#include "canvas/clustermime.h"

#include <QApplication>
#include <QDropEvent>
#include <QFileDialog>
#include <QLineEdit>
#include <QMimeData>
#include <QStringList>
#include <QTest>
#include <QTimer>
#include <QWheelEvent>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

// The visible top-level widget of type T (a dialog), or nullptr.
template <typename T>
T* shownDialog() {
    for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* d = qobject_cast<T*>(w); d && d->isVisible()) return d;
    return nullptr;
}

// A key where a window system sends it: the focused widget of the active window.
inline bool press(Qt::Key key, Qt::KeyboardModifiers mods = Qt::NoModifier) {
    QWidget* to = QApplication::focusWidget() ? QApplication::focusWidget() : QApplication::activeWindow();
    if (to) QTest::keyClick(to, key, mods);
    return to != nullptr;
}

// Focus put in `w` as a click or Tab puts it; false if it never arrives.
inline bool focus(QWidget* w) {
    w->setFocus(Qt::TabFocusReason);
    return QTest::qWaitFor([w] { return w->hasFocus() || (w->focusProxy() && w->focusProxy()->hasFocus()); });
}

// Wheel notches over the centre of `w` (positive: up, away from the user); true when taken.
inline bool wheel(QWidget* w, int notches, QPointF at = QPointF(-1, -1)) {
    if (at.x() < 0) at = QPointF(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
    return e.isAccepted();
}

// `mime` dropped at `at` (coordinates of `target`) as QDrag delivers it: enter, move, drop.
inline bool dropMime(QWidget* target, QPoint at, const QMimeData& mime, Qt::DropActions actions = Qt::CopyAction) {
    QDragEnterEvent enter(at, actions, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &enter);
    QDragMoveEvent move(at, actions, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &move);
    QDropEvent drop(QPointF(at), actions, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(target, &drop);
    return enter.isAccepted() && move.isAccepted() && drop.isAccepted();
}

// A palette template (`gpus` x `gpu`) dropped on the canvas at `at` (viewport coordinates).
inline bool dropTemplate(QWidget* viewport, QPoint at, const std::string& gpu, int gpus) {
    QMimeData mime;
    mime.setData(clustermime::kNodeTemplate,
                 QByteArray::fromStdString(nlohmann::json{{"gpu", gpu}, {"gpus", gpus}}.dump()));
    return dropMime(viewport, at, mime);
}

// Answers each file dialog (Qt's own: QFileDialog::getSaveFileName, getExistingDirectory,
// getOpenFileName, shown in their own event loop) with `path`: typed into its name field, Enter.
class AnswerFileDialogs {
public:
    explicit AnswerFileDialogs(QString path) : path_(std::move(path)) {
        timer_.setInterval(10);
        QObject::connect(&timer_, &QTimer::timeout, &timer_, [this] {
            auto* d = shownDialog<QFileDialog>();
            if (!d || QApplication::activeWindow() != d) return;
            auto* name = d->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
            titles_ << d->windowTitle();
            if (!name) {
                d->reject();
                return;
            }
            name->setFocus();
            name->setText(path_);
            QTest::keyClick(name, Qt::Key_Return);
            if (d->isVisible()) d->reject();   // never left open: the test fails instead of hanging
        });
        timer_.start();
    }
    QStringList titles() const { return titles_; }

private:
    QString path_;
    QTimer timer_;
    QStringList titles_;
};
