// File > Export Picture: every view saves as PNG (non-blank, at twice its pixels), SVG (an
// XML drawing) and PDF; unknown formats and views are refused with a message.
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "guitest.h"
#include "mainwindow.h"
#include "plan/plannerpanel.h"

#include <QFile>
#include <QImage>
#include <QTest>
#include <QXmlStreamReader>

class TestPictures : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    static int distinctColours(const QImage& img) {
        QSet<QRgb> seen;
        for (int y = 0; y < img.height(); y += 3)
            for (int x = 0; x < img.width(); x += 3) seen.insert(img.pixel(x, y));
        return int(seen.size());
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void everyViewInEveryFormat_data() {
        QTest::addColumn<QString>("view");
        for (const char* v : {"canvas", "grid", "timeline", "memory", "planner", "explain"})
            QTest::newRow(v) << QString::fromLatin1(v);
    }
    void everyViewInEveryFormat() {
        QFETCH(QString, view);
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        w->resize(1600, 1000);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        w->raiseView(view);   // the planner starts its search; others come to the front
        QTRY_VERIFY_WITH_TIMEOUT(!w->plannerPanel()->isRunning(), 60000);
        QApplication::processEvents();

        const QString png = tmp_.filePath(view + QStringLiteral(".png"));
        QString err;
        QVERIFY2(w->exportPicture(view, png, &err), qPrintable(err));
        const QImage img(png);
        QVERIFY(!img.isNull());
        QVERIFY2(img.width() >= 200 && img.height() >= 100,
                 qPrintable(QStringLiteral("%1x%2").arg(img.width()).arg(img.height())));
        QVERIFY2(distinctColours(img) >= 4, qPrintable(QString::number(distinctColours(img))));

        const QString svg = tmp_.filePath(view + QStringLiteral(".svg"));
        QVERIFY2(w->exportPicture(view, svg, &err), qPrintable(err));
        QFile f(svg);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&f);
        bool sawSvg = false;
        int elements = 0;
        while (!xml.atEnd()) {
            if (xml.readNext() == QXmlStreamReader::StartElement) {
                ++elements;
                sawSvg = sawSvg || xml.name() == QLatin1String("svg");
            }
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        QVERIFY(sawSvg);
        QVERIFY2(elements > 10, qPrintable(QString::number(elements)));

        const QString pdf = tmp_.filePath(view + QStringLiteral(".pdf"));
        QVERIFY2(w->exportPicture(view, pdf, &err), qPrintable(err));
        QFile p(pdf);
        QVERIFY(p.open(QIODevice::ReadOnly));
        QVERIFY(p.read(5) == "%PDF-");
        QVERIFY(p.size() > 1000);
    }

    void refusals() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        QString err;
        QVERIFY(!w->exportPicture(QStringLiteral("canvas"), tmp_.filePath(QStringLiteral("x.bmpx")), &err));
        QVERIFY2(err.contains(QStringLiteral("png")), qPrintable(err));
        QVERIFY(!w->exportPicture(QStringLiteral("nosuchview"), tmp_.filePath(QStringLiteral("x.png")), &err));
        QVERIFY2(err.contains(QStringLiteral("nosuchview")), qPrintable(err));
        QVERIFY(!w->exportPicture(QStringLiteral("grid"), QStringLiteral("/nonexistent-dir/x.png"), &err));
        QVERIFY2(err.contains(QStringLiteral("cannot write")), qPrintable(err));
    }
};

QTEST_MAIN(TestPictures)
#include "tst_pictures.moc"
