// `paraplan --screenshot out.png [--view v]` renders the window offscreen: each
// image has the requested size and is not blank (its pixels vary).
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

class TestScreenshot : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    // Variance of the grey level over a sample of pixels.
    static double variance(const QImage& img) {
        double sum = 0, sum2 = 0;
        int n = 0;
        for (int y = 0; y < img.height(); y += 3)
            for (int x = 0; x < img.width(); x += 3) {
                const double g = qGray(img.pixel(x, y));
                sum += g;
                sum2 += g * g;
                ++n;
            }
        const double mean = sum / n;
        return sum2 / n - mean * mean;
    }

private slots:
    void initTestCase() { QVERIFY(tmp_.isValid()); }

    void views_data() {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("example");
        for (const char* v : {"canvas", "layout", "diagnostics", "grid", "timeline", "explain", "history", "memory",
                              "planner"})
            QTest::newRow(v) << QString::fromLatin1(v) << QStringLiteral("llama3.1-70b-4nodes");
        QTest::newRow("canvas-1024") << QStringLiteral("canvas") << QStringLiteral("llama3.1-405b-128nodes");
    }
    void views() {
        QFETCH(QString, view);
        QFETCH(QString, example);
        const QString out = tmp_.filePath(view + example + QStringLiteral(".png"));
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(QStringLiteral(PARAPLAN_GUI), {QStringLiteral("--screenshot"), out, QStringLiteral("--view"), view,
                                               QStringLiteral("--example"), example, QStringLiteral("--size"),
                                               QStringLiteral("1600x1000")});
        QVERIFY(p.waitForFinished(120'000));
        QCOMPARE(p.exitCode(), 0);
        const QImage img(out);
        QVERIFY(!img.isNull());
        QCOMPARE(img.size(), QSize(1600, 1000));
        QVERIFY2(variance(img) > 100, qPrintable(QString::number(variance(img))));
    }

    void unknownViewIsAUsageError() {
        QProcess p;
        p.start(QStringLiteral(PARAPLAN_GUI), {QStringLiteral("--screenshot"), tmp_.filePath(QStringLiteral("x.png")),
                                               QStringLiteral("--view"), QStringLiteral("nosuchview")});
        QVERIFY(p.waitForFinished(120'000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains("nosuchview"));
    }
};

QTEST_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
