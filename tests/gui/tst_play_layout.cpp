// Play a step beside what it plays, on the real main window: once its tab is clicked, its
// controls (play/pause, the step slider, the speed) and the Pipeline timeline are on screen
// together, not clipped and without scrolling, at the window's default size (1600 x 1000, as the
// screenshots render it) and on a 1280 x 800 laptop screen; pressing play moves the timeline's
// playhead while both stay in view.
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords

#include "guitest.h"
#include "views/stepplayer.h"
#include "views/timelineview.h"

#include <QComboBox>
#include <QDockWidget>
#include <QSlider>
#include <QTabBar>
#include <QToolButton>
#include <QtTest>

class TestPlayLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { isolateSettings(dir_); }
    void controlsAndTimelineTogether_data();
    void controlsAndTimelineTogether();

private:
    QTemporaryDir dir_;
};

namespace {

// The tab of `title` among the main window's dock tab bars, clicked as a user clicks it.
bool clickTab(QMainWindow& w, const QString& title) {
    for (QTabBar* bar : w.findChildren<QTabBar*>())
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i) == title && bar->isVisible()) {
                QTest::mouseClick(bar, Qt::LeftButton, {}, bar->tabRect(i).center());
                return true;
            }
    return false;
}

// Shown whole: the widget's visible region is all of it, and it lies inside the window.
bool wholeInView(QWidget* c, QWidget* window) {
    if (!c || !c->isVisible()) return false;
    const QRect inWindow(c->mapTo(window, QPoint(0, 0)), c->size());
    return !c->visibleRegion().isEmpty() && c->visibleRegion() == QRegion(c->rect()) &&
           window->rect().contains(inWindow);
}

}   // namespace

void TestPlayLayout::controlsAndTimelineTogether_data() {
    QTest::addColumn<bool>("ownSize");
    QTest::newRow("default size 1600x1000") << true;
    QTest::newRow("laptop screen 1280x800") << false;
}

void TestPlayLayout::controlsAndTimelineTogether() {
    QFETCH(bool, ownSize);
    auto w = exampleWindow(dir_, "llama3.1-8b-pp4-1node");
    // Off screen at its own default size (as --screenshot renders it), or fitted to the 1280 x 800
    // screen of this test (PARAPLAN_SCREEN_TEST_MAIN below) as on a laptop.
    if (ownSize) w->setAttribute(Qt::WA_DontShowOnScreen);
    w->show();
    QVERIFY(QTest::qWaitForWindowExposed(w.get()) || ownSize);
    QTest::qWait(50);   // the first show's fit and proportions (queued)
    if (ownSize) QCOMPARE(w->size(), QSize(1600, 1000));
    else QVERIFY(w->width() <= 1280 && w->height() <= 800);
    StepPlayer* player = w->stepPlayer();
    // A tab behind Diagnostics at first (a tabbed dock behind others is moved out of view).
    QVERIFY(player->visibleRegion().isEmpty());

    QVERIFY(clickTab(*w, QStringLiteral("Play a step")));
    QWidget* plot = w->timeline()->plot();
    QWidget* speed = player->findChild<QComboBox*>(QStringLiteral("playSpeed"));
    QVERIFY(speed);
    const auto together = [&] {
        return wholeInView(player->playButton(), w.get()) && wholeInView(player->slider(), w.get()) &&
               wholeInView(speed, w.get()) && wholeInView(plot, w.get());
    };
    QTRY_VERIFY_WITH_TIMEOUT(together(), 5000);
    // Room to read both: the timeline's plot and the slider are not squeezed to a sliver.
    QTRY_VERIFY2_WITH_TIMEOUT(plot->height() >= 150, qPrintable(QString::number(plot->height())), 2000);
    QVERIFY(together());
    QVERIFY(player->slider()->width() >= 200);

    // Play: the timeline's playhead moves, and the controls and the timeline stay in view.
    QVERIFY(player->playback());
    QTest::mouseClick(player->playButton(), Qt::LeftButton);
    QVERIFY(player->playing());
    QVERIFY(w->timeline()->showsPlayback());
    QVERIFY(w->timeline()->playhead()->visible());
    const double t0 = w->timeline()->playheadSeconds();
    QTRY_VERIFY_WITH_TIMEOUT(w->timeline()->playheadSeconds() > t0, 3000);
    const double t1 = w->timeline()->playheadSeconds();
    QTRY_VERIFY_WITH_TIMEOUT(w->timeline()->playheadSeconds() > t1, 3000);
    QCOMPARE(w->timeline()->playheadSeconds() > 0, true);
    QTRY_VERIFY_WITH_TIMEOUT(together(), 2000);
    // The playhead is drawn inside the plot's time axis range.
    const QCPRange x = w->timeline()->plot()->xAxis->range();
    const double ms = w->timeline()->playheadSeconds() * 1e3;
    QVERIFY2(x.contains(ms), qPrintable(QStringLiteral("%1 ms outside %2..%3").arg(ms).arg(x.lower).arg(x.upper)));
    player->pause();
    QVERIFY(!player->playing());
}

PARAPLAN_SCREEN_TEST_MAIN(TestPlayLayout, "laptop", 1280, 800)
#include "tst_play_layout.moc"
