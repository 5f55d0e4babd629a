#pragma once
// Shared by the tests that measure windows on real screens (tst_window_fit, tst_dialog_fit).
//
// The parent starts its own Xvfb at each screen size, with openbox on it, and runs the test
// executable again there (QT_QPA_PLATFORM=xcb) as the child that opens the windows and measures
// them. The frame is the window manager's (_NET_FRAME_EXTENTS, which Qt reads into
// QWindow::frameGeometry()); the child checks that the window manager did frame each window
// before it measures. Without Xvfb or openbox the parent skips, naming them.
#include <QAbstractButton>
#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QFileInfo>
#include <QProcess>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QScreen>
#include <QStandardPaths>
#include <QTest>
#include <QWidget>
#include <QWindow>

namespace windowfit {

inline constexpr char kChildEnv[] = "PARAPLAN_WINDOW_FIT_CHILD";   // "WxH": this process is the child

inline QString rectText(const QRect& r) {
    return QStringLiteral("%1×%2 at (%3,%4)").arg(r.width()).arg(r.height()).arg(r.x()).arg(r.y());
}

inline QRect globalRect(const QWidget* w) { return {w->mapToGlobal(QPoint(0, 0)), w->size()}; }

// The window with the frame the window manager put around it, as the window system says now
// (QWidget::frameGeometry() learns the frame only at the window's next move or resize).
inline QRect frameOf(const QWidget* w) { return w->windowHandle() ? w->windowHandle()->frameGeometry() : QRect(); }

// Waits until the window manager has framed `w` (frame margins known) and the window has
// settled where the app puts it.
inline bool waitFramed(QWidget* w) {
    if (!QTest::qWaitForWindowExposed(w)) return false;
    if (!QTest::qWaitFor([w] { return w->windowHandle() && w->windowHandle()->frameMargins().top() > 0; }, 5000))
        return false;
    // The app may move or resize the window once it knows the frame: let it settle.
    QRect last = frameOf(w);
    for (int stable = 0, i = 0; stable < 5 && i < 80; ++i) {
        QTest::qWait(50);
        stable = frameOf(w) == last ? stable + 1 : 0;
        last = frameOf(w);
    }
    return true;
}

// Empty when the dialog `d` is framed, its frame inside the available area of its screen and
// every button it shows (not one inside a scroll area, which scrolls to it) inside the screen
// and the frame; else what is wrong.
inline QString fitProblem(QWidget* d, const QString& what) {
    if (!d) return what + QStringLiteral(": no window");
    if (!waitFramed(d)) return what + QStringLiteral(": never framed by the window manager");
    const QRect avail = d->screen()->availableGeometry();
    const QRect f = frameOf(d);
    qInfo("%s: frame %s, screen %s", qPrintable(what), qPrintable(rectText(f)), qPrintable(rectText(avail)));
    if (!avail.contains(f))
        return QStringLiteral("%1: frame %2 outside the screen's %3 (minimum %4×%5)")
            .arg(what, rectText(f), rectText(avail))
            .arg(d->minimumSizeHint().width())
            .arg(d->minimumSizeHint().height());
    const auto buttons = d->findChildren<QAbstractButton*>();
    for (QAbstractButton* b : buttons) {
        if (!b->isVisibleTo(d)) continue;
        bool scrolled = false;
        for (QWidget* p = b->parentWidget(); p && p != d && !scrolled; p = p->parentWidget())
            scrolled = qobject_cast<QAbstractScrollArea*>(p) != nullptr;
        if (scrolled) continue;
        const QRect r = globalRect(b);
        if (!avail.contains(r) || !f.contains(r))
            return QStringLiteral("%1: button \"%2\" at %3, frame %4, screen %5")
                .arg(what, b->text(), rectText(r), rectText(f), rectText(avail));
    }
    return {};
}

// The parent's side.
inline void requireXTools() {
    for (const char* tool : {"Xvfb", "openbox", "xprop"})
        if (QStandardPaths::findExecutable(QString::fromLatin1(tool)).isEmpty())
            QSKIP(qPrintable(QStringLiteral("%1 is not installed: this test needs Xvfb, openbox and xprop "
                                            "(apt-get install xvfb openbox x11-utils)")
                                 .arg(QString::fromLatin1(tool))));
}

inline void addScreenRows() {
    QTest::addColumn<QSize>("screen");
    for (const QSize s : {QSize(1024, 700), QSize(1280, 800), QSize(1600, 1000), QSize(2560, 1440)})
        QTest::newRow(qPrintable(QStringLiteral("%1x%2").arg(s.width()).arg(s.height()))) << s;
}

inline void stopProcess(QProcess& p) {
    if (p.state() == QProcess::NotRunning) return;
    p.terminate();
    if (!p.waitForFinished(3000)) {
        p.kill();
        p.waitForFinished(3000);
    }
}

// Starts Xvfb of `screen` with openbox on it and runs this executable there as the child; the
// child must pass every check. A child's skip is allowed only when its reason names one of
// `skipReasons` (a component the host lacks, such as sshd): the child's output, printed here,
// then shows the skip.
inline void runChildOnScreen(QSize screen, int childTimeoutMs, const QStringList& skipReasons = {}) {
    const QString size = QStringLiteral("%1x%2").arg(screen.width()).arg(screen.height());
    // A display number no server here holds, tried again with another when the server or the
    // window manager fails: X servers of other machines' tests may share the abstract socket
    // namespace, where a display free in our /tmp is not free.
    QProcess xvfb, wm;
    auto guard = qScopeGuard([&] {
        stopProcess(wm);
        stopProcess(xvfb);
    });
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("XAUTHORITY"));
    // Qt's own widget dialogs (QFileDialog included), not a desktop's through a platform theme.
    env.remove(QStringLiteral("QT_QPA_PLATFORMTHEME"));
    env.remove(QStringLiteral("XDG_CURRENT_DESKTOP"));
    QString display, why = QStringLiteral("Xvfb found no free display");
    for (int attempt = 0; attempt < 8 && display.isEmpty(); ++attempt) {
        stopProcess(wm);
        stopProcess(xvfb);
        const int n = 100 + int(QRandomGenerator::global()->bounded(800));
        if (QFileInfo::exists(QStringLiteral("/tmp/.X%1-lock").arg(n)) ||
            QFileInfo::exists(QStringLiteral("/tmp/.X11-unix/X%1").arg(n)))
            continue;
        const QString d = QStringLiteral(":%1").arg(n);
        xvfb.setProcessChannelMode(QProcess::MergedChannels);
        xvfb.start(QStringLiteral("Xvfb"),
                   {d, QStringLiteral("-screen"), QStringLiteral("0"), size + QStringLiteral("x24"),
                    QStringLiteral("-nolisten"), QStringLiteral("tcp")});
        if (!xvfb.waitForStarted(5000)) QSKIP("Xvfb would not start");
        if (!QTest::qWaitFor(
                [&] {
                    return QFileInfo::exists(QStringLiteral("/tmp/.X11-unix/X%1").arg(n)) ||
                           xvfb.state() != QProcess::Running;
                },
                10000) ||
            xvfb.state() != QProcess::Running) {
            why = QStringLiteral("Xvfb did not open display %1: %2").arg(d, QString::fromLocal8Bit(xvfb.readAll()));
            continue;
        }
        env.insert(QStringLiteral("DISPLAY"), d);
        wm.setProcessEnvironment(env);
        wm.setProcessChannelMode(QProcess::MergedChannels);
        wm.start(QStringLiteral("openbox"), {QStringLiteral("--sm-disable")});
        if (!wm.waitForStarted(5000)) QSKIP("openbox would not start");
        // The window manager is up once it names itself on the root window of our server.
        const bool up = QTest::qWaitFor(
            [&] {
                if (wm.state() != QProcess::Running) return false;
                QProcess xprop;
                xprop.setProcessEnvironment(env);
                xprop.start(QStringLiteral("xprop"),
                            {QStringLiteral("-root"), QStringLiteral("_NET_SUPPORTING_WM_CHECK")});
                xprop.waitForFinished(3000);
                return xprop.readAllStandardOutput().contains("window id");
            },
            10000);
        if (!up || wm.state() != QProcess::Running) {
            why = QStringLiteral("openbox did not manage display %1: %2").arg(d, QString::fromLocal8Bit(wm.readAll()));
            continue;
        }
        display = d;
    }
    if (display.isEmpty()) QSKIP(qPrintable(why));

    QProcess child;
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
    env.insert(QString::fromLatin1(kChildEnv), size);
    child.setProcessEnvironment(env);
    child.setProcessChannelMode(QProcess::MergedChannels);
    child.start(QCoreApplication::applicationFilePath(), {});
    const bool done = child.waitForFinished(childTimeoutMs);
    const QString out = QString::fromLocal8Bit(child.readAll());
    if (!done) stopProcess(child);
    qInfo().noquote() << out;
    QVERIFY2(done, qPrintable(QStringLiteral("the child did not finish in %1 s").arg(childTimeoutMs / 1000)));
    QVERIFY2(
        child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0,
        qPrintable(QStringLiteral("the windows do not fit a %1 screen (exit %2)").arg(size).arg(child.exitCode())));
    QVERIFY2(out.contains(QStringLiteral(", 0 failed, ")), "the child failed a check");
    if (out.contains(QStringLiteral(", 0 skipped"))) return;
    // Each skip the child reports names a component this host lacks.
    const QStringList lines = out.split(QLatin1Char('\n'));
    for (const QString& line : lines) {
        if (!line.startsWith(QStringLiteral("SKIP   :"))) continue;
        bool named = false;
        for (const QString& reason : skipReasons) named = named || line.contains(reason);
        QVERIFY2(named, qPrintable(QStringLiteral("the child skipped a check: ") + line));
    }
}

}   // namespace windowfit
