#include "common/wheel_guard.h"

#include <QEvent>
#include <QObject>
#include <QCoreApplication>
#include <QWidget>

namespace paraplan::widgets {

namespace {

class WheelGuard final : public QObject {
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject* watched, QEvent* e) override {
        if (e->type() != QEvent::Wheel) return false;
        auto* w = qobject_cast<QWidget*>(watched);
        if (!w || w->hasFocus()) return false;
        // Not accepted, so QApplication offers the wheel to the parents: the scroll area scrolls.
        e->ignore();
        return true;
    }
};

}   // namespace

void guardWheel(QWidget* field) {
    field->setFocusPolicy(Qt::StrongFocus);
    static WheelGuard* guard = nullptr;   // one filter serves every field; it has no state
    if (!guard) guard = new WheelGuard(qApp);
    field->installEventFilter(guard);
}

}   // namespace paraplan::widgets
