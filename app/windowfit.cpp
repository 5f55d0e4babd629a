#include "windowfit.h"

#include <QApplication>
#include <QEvent>
#include <QGuiApplication>
#include <QPointer>
#include <QScreen>
#include <QTimer>
#include <QWidget>
#include <QWindow>

namespace windowfit {
namespace {

// The last frame a window manager put around one of our windows; a guess until then.
QMargins& lastFrame() {
    static QMargins m(4, 40, 4, 8);
    return m;
}

constexpr char kWanted[] = "paraplanWindowFitWanted";

bool fitted(const QWidget* w) {
    if (!w || !w->isWindow() || w->testAttribute(Qt::WA_DontShowOnScreen)) return false;
    if (w->isMaximized() || w->isFullScreen() || w->isMinimized()) return false;
    const Qt::WindowType type = w->windowType();
    return type == Qt::Window || type == Qt::Dialog;
}

// Watches the application's windows being shown; each gets a short-lived timer that fits it.
class Filter final : public QObject {
public:
    explicit Filter(QObject* parent) : QObject(parent) {}

protected:
    bool eventFilter(QObject* watched, QEvent* e) override {
        if (e->type() != QEvent::Show || !watched->isWidgetType()) return false;
        auto* w = static_cast<QWidget*>(watched);
        if (!fitted(w)) return false;
        // The size it asks for, kept while it settles: a first fit with a guessed frame larger
        // than the real one shrinks it, and the real frame lets it have that room back.
        w->setProperty(kWanted, w->size());
        if (w->testAttribute(Qt::WA_Moved)) {
            fitToScreen(w);
        } else {
            // Not placed yet (a dialog centres itself over its parent in its own showEvent, the
            // window manager places a window): its size only, the place is fitted while it settles.
            const QScreen* scr = w->screen() ? w->screen() : QGuiApplication::primaryScreen();
            if (scr) {
                const QSize room = scr->availableGeometry().marginsRemoved(frameMargins(w)).size();
                const QSize s = w->size().boundedTo(room).expandedTo(w->minimumSize());
                if (s != w->size()) w->resize(s);
            }
        }
        static constexpr char kTimer[] = "paraplanWindowFitTimer";
        auto* timer = w->findChild<QTimer*>(QLatin1String(kTimer), Qt::FindDirectChildrenOnly);
        if (!timer) {
            timer = new QTimer(w);
            timer->setObjectName(QLatin1String(kTimer));
            timer->setInterval(50);
            connect(timer, &QTimer::timeout, w, [w, timer] {
                const int ticks = timer->property("ticks").toInt() + 1;
                timer->setProperty("ticks", ticks);
                if (w->isVisible()) fitToScreen(w);
                if (!w->isVisible() || ticks >= 40) {
                    timer->stop();
                    w->setProperty(kWanted, QVariant());   // from now on, the size the user gives it
                }
            });
        }
        timer->setProperty("ticks", 0);
        timer->start();
        return false;
    }
};

}   // namespace

QMargins frameMargins(const QWidget* w) {
    // The window's own (QWindow asks the window system now); QWidget::frameGeometry() learns a
    // frame only with the window's next move or resize, which may never come.
    if (w->isVisible() && w->windowHandle()) {
        const QMargins m = w->windowHandle()->frameMargins();
        if (!m.isNull()) lastFrame() = m;
    }
    return lastFrame();
}

void fitToScreen(QWidget* w) {
    if (!fitted(w)) return;
    const QScreen* scr = w->screen() ? w->screen() : QGuiApplication::primaryScreen();
    if (!scr) return;
    const QRect room = scr->availableGeometry().marginsRemoved(frameMargins(w));
    QRect g = w->geometry();
    const QSize wanted = w->property(kWanted).toSize();
    g.setSize((wanted.isValid() ? wanted : g.size()).boundedTo(room.size()).expandedTo(w->minimumSize()));
    if (g.right() > room.right()) g.moveRight(room.right());
    if (g.bottom() > room.bottom()) g.moveBottom(room.bottom());
    if (g.left() < room.left()) g.moveLeft(room.left());
    if (g.top() < room.top()) g.moveTop(room.top());
    if (g != w->geometry()) w->setGeometry(g);
}

void install() {
    static QPointer<Filter> installed;   // gone with the application
    if (installed || !qApp) return;
    installed = new Filter(qApp);
    qApp->installEventFilter(installed);
}

}   // namespace windowfit
