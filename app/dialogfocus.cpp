#include "dialogfocus.h"

#include <QApplication>
#include <QEvent>
#include <QWidget>

void DialogFocusReturn::install() {
    static QPointer<DialogFocusReturn> installed;   // gone with the application
    if (installed || !qApp) return;
    installed = new DialogFocusReturn(qApp);
    qApp->installEventFilter(installed);
}

bool DialogFocusReturn::eventFilter(QObject* watched, QEvent* e) {
    const QEvent::Type type = e->type();
    if (type != QEvent::Show && type != QEvent::Hide) return false;
    // A window system's own show or hide (minimised, restored) moves no activation of ours.
    if (e->spontaneous() || !watched->isWidgetType()) return false;
    auto* w = static_cast<QWidget*>(watched);
    if (!w->isWindow() || !w->isModal()) return false;

    if (type == QEvent::Show) {
        // Shown, the dialog is not active yet: the active window is the one it interrupts. When
        // none is (or the one still named is a dialog just closed), the window it belongs to.
        QWidget* from = QApplication::activeWindow();
        if (!from || from == w || !from->isVisible()) from = w->parentWidget() ? w->parentWidget()->window() : nullptr;
        if (from) open_.insert(w, {from, from->focusWidget()});
        else open_.remove(w);
        return false;
    }

    const Interrupted back = open_.take(w);
    if (!back.window || !back.window->isVisible()) return false;   // closed meanwhile (e.g. quitting)
    back.window->raise();
    back.window->activateWindow();
    // The widget keeps the window's focus, so the keys go where they went before the dialog.
    if (back.focus && back.focus->window() == back.window) back.focus->setFocus(Qt::ActiveWindowFocusReason);
    return false;
}
