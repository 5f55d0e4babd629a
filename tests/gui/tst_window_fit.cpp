// Every window on every screen, under a real X server with a real window manager: the main
// window and each dialog, with the frame the window manager puts around it (title bar, borders),
// lie inside the screen's available area at 1024×700, 1280×800, 1600×1000 and 2560×1440; the
// main window's status bar and each dialog's buttons are on screen. The Xvfb + openbox parent and
// the measures are in window_fit.h; tst_dialog_fit opens the app's other dialogs the same way.
#include "canvas/canvasview.h"
#include "canvas/clustercanvas.h"
#include "exportdialog.h"
#include "guitest.h"
#include "mainwindow.h"
#include "newprojectdialog.h"
#include "projectdocument.h"
#include "sshprofilesdialog.h"
#include "window_fit.h"

#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QPointer>
#include <QScreen>
#include <QStatusBar>
#include <QTest>
#include <QToolBar>
#include <QTreeWidget>
#include <QDockWidget>
#include <QToolButton>

using namespace windowfit;

// The child: runs on the Xvfb screen the parent started, under openbox.
class WindowFitChild : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::unique_ptr<MainWindow> w_;

    QRect avail() const { return w_->screen()->availableGeometry(); }

    // `d` framed and inside the available area, its buttons too.
    void checkDialog(QWidget* d, const QString& what) {
        const QString problem = fitProblem(d, what);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
        QCOMPARE(QGuiApplication::platformName(), QStringLiteral("xcb"));
        const QByteArray size = qgetenv(kChildEnv);
        QCOMPARE(QString::number(QGuiApplication::primaryScreen()->geometry().width()) + QLatin1Char('x') +
                     QString::number(QGuiApplication::primaryScreen()->geometry().height()),
                 QString::fromLatin1(size));
        w_ = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec")));
        w_->openProject(paraplan::load_example("llama3.1-405b-128nodes"), QString());
        w_->show();
    }

    void mainWindow() {
        QVERIFY2(waitFramed(w_.get()), "the main window was never framed by the window manager");
        QVERIFY(w_->document()->waitForAnalysis());
        QTest::qWait(200);
        const QRect f = frameOf(w_.get());
        qInfo("main window: frame %s (client %s), screen %s", qPrintable(rectText(f)),
              qPrintable(rectText(w_->geometry())), qPrintable(rectText(avail())));
        QVERIFY2(
            avail().contains(f),
            qPrintable(
                QStringLiteral("main window frame %1 outside the screen's %2").arg(rectText(f), rectText(avail()))));
        QVERIFY(w_->statusBar()->isVisible());
        const QRect status = globalRect(w_->statusBar());
        QVERIFY2(avail().contains(status),
                 qPrintable(QStringLiteral("status bar %1, screen %2").arg(rectText(status), rectText(avail()))));
    }

    // Issue 31 item 7: the default docks give the canvas its room. The bottom docks (Diagnostics in
    // front) held a third of a 700 px window for a few findings; the estimate's figures are in the
    // status bar now, so they take at most a fifth of the window's height, and the Diagnostics list
    // still shows every finding of the example (or three rows, when it has more).
    void docksGiveTheCanvasRoom() {
        QVERIFY(w_->document()->waitForAnalysis());
        QTest::qWait(100);
        auto* diag = w_->findChild<QDockWidget*>(QStringLiteral("diagnosticsDock"));
        auto* tree = diag ? diag->findChild<QTreeWidget*>() : nullptr;
        QVERIFY(diag && tree);
        QWidget* canvas = w_->canvas()->view();
        const int h = w_->height();
        QString mins;   // what holds the bottom docks tall, if they are
        for (QDockWidget* d : w_->findChildren<QDockWidget*>())
            if (w_->dockWidgetArea(d) == Qt::BottomDockWidgetArea && !d->isFloating())
                mins += QStringLiteral(" %1:%2").arg(d->objectName()).arg(d->minimumSizeHint().height());
        qInfo("bottom docks' minimum heights:%s", qPrintable(mins));
        qInfo("diagnostics dock %d px, canvas %d px of a %d px window (%d findings)", diag->height(), canvas->height(),
              h, tree->topLevelItemCount());
        QVERIFY2(diag->height() <= h / 5 + 1,
                 qPrintable(QStringLiteral("the bottom docks take %1 of %2 px").arg(diag->height()).arg(h)));
        QVERIFY2(canvas->height() >= h / 2,
                 qPrintable(QStringLiteral("the canvas has %1 of %2 px").arg(canvas->height()).arg(h)));
        const int rows = std::min(tree->topLevelItemCount(), 3);
        QVERIFY(rows > 0);
        const int rowHeight = tree->visualItemRect(tree->topLevelItem(0)).height();
        QVERIFY2(
            tree->viewport()->height() >= rows * rowHeight,
            qPrintable(
                QStringLiteral("%1 px for %2 rows of %3 px").arg(tree->viewport()->height()).arg(rows).arg(rowHeight)));
    }

    // The tool bar's Undo says "Undo"; what it undoes is in its tooltip (the whole command text
    // on the button widened the tool bar).
    void toolBarUndoIsShort() {
        QVERIFY(w_->renameProject(QStringLiteral("a project with a rather long name for the tool bar")));
        auto* undo = w_->findChild<QAction*>(QStringLiteral("undoAction"));
        auto* bar = w_->findChild<QToolBar*>(QStringLiteral("mainToolBar"));
        QVERIFY(undo && bar);
        auto* button = qobject_cast<QToolButton*>(bar->widgetForAction(undo));
        QVERIFY(button);
        QCOMPARE(button->text(), QStringLiteral("Undo"));
        QVERIFY2(undo->toolTip().contains(QStringLiteral("a rather long name")), qPrintable(undo->toolTip()));
        QVERIFY2(undo->text().contains(QStringLiteral("a rather long name")), qPrintable(undo->text()));   // the menu
        QVERIFY2(avail().contains(frameOf(w_.get())), qPrintable(rectText(frameOf(w_.get()))));
        w_->document()->undoStack()->undo();
        QCOMPARE(button->text(), QStringLiteral("Undo"));
        auto* redo = w_->findChild<QAction*>(QStringLiteral("redoAction"));
        QVERIFY(redo && redo->toolTip().contains(QStringLiteral("a rather long name")));
    }

    void exportDialog() {
        QPointer<QWidget> d = w_->exportDialog();
        checkDialog(d, QStringLiteral("Export"));
        if (d) d->close();
    }

    void newProjectDialog() {
        QPointer<QWidget> d = w_->newProjectDialog();
        checkDialog(d, QStringLiteral("New Project"));
        if (d) d->close();
    }

    void sshProfilesDialog() {
        // As Tools > SSH Profiles… opens it (modal), with a profiles file of its own.
        SshProfilesDialog d(w_.get(), tmp_.filePath(QStringLiteral("ssh-profiles.json")));
        d.setWindowModality(Qt::ApplicationModal);
        d.show();
        checkDialog(&d, QStringLiteral("SSH Profiles"));
        d.close();
    }

    void guides() {
        for (const char* name : {"user-guide", "concepts"}) {
            QPointer<QWidget> d = w_->showGuide(QString::fromLatin1(name));
            checkDialog(d, QString::fromLatin1(name));
            if (d) d->close();
        }
    }

    void shortcutsWindow() {
        QPointer<QWidget> d = w_->showShortcuts();
        checkDialog(d, QStringLiteral("Keyboard shortcuts"));
        if (d) d->close();
    }

    // The geometry a bigger screen saved comes back inside this one, frame and status bar too.
    void restoredGeometryIsClamped() {
        QWidget big;
        big.setGeometry(QRect(avail().width() / 2, avail().height() / 2, 3000, 2000));
        AppSettings::open()->setValue(AppSettings::Key::kGeometry, big.saveGeometry());
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec-restored")));
        w.show();
        QVERIFY2(waitFramed(&w), "the main window was never framed by the window manager");
        const QRect f = frameOf(&w);
        qInfo("restored main window: frame %s, screen %s", qPrintable(rectText(f)), qPrintable(rectText(avail())));
        QVERIFY2(avail().contains(f), qPrintable(rectText(f)));
        QVERIFY(avail().contains(globalRect(w.statusBar())));
    }

    void cleanupTestCase() { w_.reset(); }
};

// The parent: one Xvfb and openbox per screen size, the child run on it.
class TestWindowFit : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { requireXTools(); }
    void everyWindowFits_data() { addScreenRows(); }
    void everyWindowFits() {
        QFETCH(QSize, screen);
        runChildOnScreen(screen, 180000);
    }
};

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsSet(kChildEnv)) {
        QApplication app(argc, argv);
        QApplication::setStyle(QStringLiteral("Fusion"));   // as the app
        WindowFitChild t;
        QTEST_SET_MAIN_SOURCE_PATH
        return QTest::qExec(&t, argc, argv);
    }
    QCoreApplication app(argc, argv);
    TestWindowFit t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}

#include "tst_window_fit.moc"
