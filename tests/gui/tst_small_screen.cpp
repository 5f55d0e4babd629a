// The window on a 1024×700 screen (a netbook, a small VM console): it fits, so its status bar
// and the bottom docks' tabs are on screen; the views too tall for it scroll in their docks.
#include "guitest.h"
#include "mainwindow.h"
#include "projectdocument.h"

#include <QApplication>
#include <QDockWidget>
#include <QScreen>
#include <QScrollArea>
#include <QStatusBar>
#include <QTest>

namespace {
constexpr int kScreenW = 1024, kScreenH = 700;
}   // namespace

class TestSmallScreen : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
        QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), QSize(kScreenW, kScreenH));
    }

    void windowFitsTheScreen_data() {
        QTest::addColumn<QString>("example");
        for (const char* e : {"gpt2-1node", "mixtral-8x7b-2nodes-ep", "llama3.1-405b-128nodes"})
            QTest::newRow(e) << QString::fromLatin1(e);
    }
    void windowFitsTheScreen() {
        QFETCH(QString, example);
        auto w = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec-") + example));
        w->openProject(paraplan::load_example(example.toStdString()), QString());
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QVERIFY(w->document()->waitForAnalysis());
        QTest::qWait(50);   // the queued first-show passes
        const QRect avail = w->screen()->availableGeometry();
        QString mins;   // what holds the window tall, if it is too tall
        for (QDockWidget* d : w->findChildren<QDockWidget*>())
            if (d->isVisible())
                mins += QStringLiteral(" %1:%2").arg(d->objectName()).arg(d->minimumSizeHint().height());
        QTRY_VERIFY2(avail.contains(w->frameGeometry()),
                     qPrintable(QStringLiteral("window %1×%2 (minimum %3×%4) on a %5×%6 screen;%7")
                                    .arg(w->frameGeometry().width())
                                    .arg(w->frameGeometry().height())
                                    .arg(w->minimumSizeHint().width())
                                    .arg(w->minimumSizeHint().height())
                                    .arg(avail.width())
                                    .arg(avail.height())
                                    .arg(mins)));
        const QRect status(w->statusBar()->mapToGlobal(QPoint(0, 0)), w->statusBar()->size());
        QVERIFY(avail.contains(status));
        // The tall views are still there, and come forward when asked.
        for (const char* view : {"compare", "lessons"}) {
            QVERIFY(w->raiseView(QString::fromLatin1(view)));
            auto* dock = w->findChild<QDockWidget*>(QString::fromLatin1(view) + QStringLiteral("Dock"));
            QVERIFY(dock);
            auto* area = qobject_cast<QScrollArea*>(dock->widget());
            QVERIFY(area && area->widget());
            QApplication::processEvents();
            // Up and down only: the view is whole across.
            QVERIFY2(area->widget()->width() <= area->viewport()->width(),
                     qPrintable(QStringLiteral("%1: %2 px wide in %3")
                                    .arg(QString::fromLatin1(view))
                                    .arg(area->widget()->width())
                                    .arg(area->viewport()->width())));
        }
    }
};

PARAPLAN_SCREEN_TEST_MAIN(TestSmallScreen, "small", kScreenW, kScreenH)

#include "tst_small_screen.moc"
