// Light and dark palettes: when the system palette changes, every view redraws in it (the
// plots take their background and text from it; the rank grid and canvas paint on Base).
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "guitest.h"
#include "mainwindow.h"
#include "views/rankgrid.h"
#include "common/theme.h"
#include "views/timelineview.h"

#include <QTest>

class TestPalette : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    // The colour a plot paints its margin with (its background brush).
    static QColor corner(QCustomPlot* plot) {
        plot->replot();
        return QColor(plot->grab().toImage().pixel(1, 1));
    }
    static QPalette dark() {
        QPalette p;
        p.setColor(QPalette::Window, QColor(0x2b, 0x2b, 0x2b));
        p.setColor(QPalette::WindowText, QColor(0xee, 0xee, 0xee));
        p.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
        p.setColor(QPalette::Text, QColor(0xee, 0xee, 0xee));
        p.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
        p.setColor(QPalette::ButtonText, QColor(0xee, 0xee, 0xee));
        return p;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void viewsFollowTheSystemPalette() {
        const QPalette light = QApplication::palette();
        QVERIFY(!theme::isDark(light));
        auto w = exampleWindow(tmp_, "gpt2-1node");
        w->resize(1400, 900);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        w->raiseView(QStringLiteral("timeline"));
        QApplication::processEvents();
        QCustomPlot* plot = w->timeline()->plot();
        QCOMPARE(corner(plot), light.color(QPalette::Base));

        QApplication::setPalette(dark());   // what a desktop's dark mode does
        QApplication::processEvents();
        QVERIFY(theme::isDark(w->palette()));
        QCOMPARE(corner(plot), dark().color(QPalette::Base));
        // The rank grid paints its cells' background in the dark Base colour.
        QWidget* cells = w->rankGrid()->findChild<QWidget*>(QStringLiteral("rankGridCanvas"));
        QVERIFY(cells);
        const QImage img = cells->grab().toImage();
        QCOMPARE(QColor(img.pixel(1, 1)), dark().color(QPalette::Base));

        QApplication::setPalette(light);
        QApplication::processEvents();
        QCOMPARE(corner(plot), light.color(QPalette::Base));
    }
};

QTEST_MAIN(TestPalette)
#include "tst_palette.moc"
