// The window as it first opens on a 1600×1000 desktop screen (settings fresh): the Layout
// dock shows its fields whole, the canvas's palette its names.
#include "canvas/clustercanvas.h"
#include "guitest.h"
#include "plan/layoutpanel.h"
#include "mainwindow.h"
#include "projectdocument.h"

#include <QApplication>
#include <QLabel>
#include <QListWidget>
#include <QRegularExpression>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QTest>
#include <QTextBlock>
#include <QTextDocument>
#include <QTextLayout>

namespace {
constexpr int kScreenW = 1600, kScreenH = 1000;

// The Layout panel's fields (and the dp line) that reach past its scroll area's viewport.
QString cutFields(LayoutPanel* panel) {
    auto* scroll = panel->findChild<QScrollArea*>();
    if (!scroll) return QStringLiteral("no scroll area");
    QWidget* port = scroll->viewport();
    QString cut;
    for (QWidget* f : scroll->widget()->findChildren<QWidget*>()) {
        if (!f->isVisibleTo(panel) || f->parentWidget() == nullptr) continue;
        if (!qobject_cast<QLabel*>(f) && !f->focusPolicy()) continue;   // a field or a label
        if (qobject_cast<QLabel*>(f) && f->sizeHint().width() > f->width()) {
            // A label narrower than its text, unless it wraps.
            if (!static_cast<QLabel*>(f)->wordWrap())
                cut += QStringLiteral(" %1 \"%2\" (%3 of %4 px)")
                           .arg(f->metaObject()->className(), static_cast<QLabel*>(f)->text())
                           .arg(f->width())
                           .arg(f->sizeHint().width());
        }
        const int right = f->mapTo(port, QPoint(f->width(), 0)).x();
        if (right > port->width())
            cut += QStringLiteral(" %1 %2 (right edge %3 in %4 px)")
                       .arg(f->metaObject()->className(), f->objectName())
                       .arg(right)
                       .arg(port->width());
    }
    return cut;
}
}   // namespace

class TestWideScreen : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
        QCOMPARE(QGuiApplication::primaryScreen()->geometry().size(), QSize(kScreenW, kScreenH));
    }

    void firstWindowShowsLayoutFieldsAndPaletteNamesWhole_data() {
        QTest::addColumn<QString>("example");
        for (const char* e : {"llama3.1-70b-4nodes", "gpt2-1node", "mixtral-8x7b-2nodes-ep", "llama3.1-405b-128nodes",
                              "llama3.1-70b-lora-1node"})
            QTest::newRow(e) << QString::fromLatin1(e);
    }
    void firstWindowShowsLayoutFieldsAndPaletteNamesWhole() {
        QFETCH(QString, example);
        // As the app opens a file: the window shows at once, the analysis follows from a worker.
        auto w = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec-") + example));
        w->openProject(paraplan::load_example(example.toStdString()), QString());
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QVERIFY(w->document()->waitForAnalysis());
        QTest::qWait(50);   // the queued first-show passes (fit to screen, dock proportions, field widths)
        LayoutPanel* panel = w->layoutPanel();
        QVERIFY2(panel->width() >= panel->minimumWidth(),
                 qPrintable(QStringLiteral("panel %1 px, needs %2").arg(panel->width()).arg(panel->minimumWidth())));
        QTRY_VERIFY2(cutFields(panel).isEmpty(), qPrintable(cutFields(panel)));   // once the fit has settled
        // The summary line wraps between its items, never between a size and its name ("ep" | "1"),
        // at whatever width the dock has.
        auto* summary = panel->findChild<QLabel*>(QStringLiteral("layoutSummary"));
        QVERIFY(summary);
        const int name = int(QString::fromStdString(w->project().name).size());
        for (int width = 160; width <= 420; width += 3) {
            QTextDocument doc;
            doc.setDefaultFont(summary->font());
            doc.setDocumentMargin(0);
            doc.setHtml(summary->text());
            doc.setTextWidth(width);
            (void)doc.size();   // lays the text out
            for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
                for (int i = 0; i < b.layout()->lineCount(); ++i) {
                    const QTextLine line = b.layout()->lineAt(i);
                    if (line.textStart() <= name) continue;   // the project's name, in bold
                    const QString text = b.text().mid(line.textStart(), line.textLength()).trimmed();
                    const QString last = text.section(QRegularExpression(QStringLiteral("\\s")), -1);
                    const QString first = text.section(QRegularExpression(QStringLiteral("\\s")), 0, 0);
                    QVERIFY2(!QStringList({"tp", "pp", "sp", "cp", "ep"}).contains(last) &&
                                 !QStringList({"GPUs", "GPU", "nodes", "node"}).contains(first),
                             qPrintable(QStringLiteral("at %1 px: \"%2\"").arg(width).arg(text)));
                }
            }
        }
        auto* palette = w->canvas()->findChild<QListWidget*>(QStringLiteral("palette"));
        QVERIFY(palette);
        QVERIFY2(!palette->horizontalScrollBar()->isVisible(),
                 qPrintable(QStringLiteral("palette %1 px, its names need %2")
                                .arg(palette->viewport()->width())
                                .arg(palette->sizeHintForColumn(0))));
    }
};

// A desktop screen: the size the window first opens at there.
PARAPLAN_SCREEN_TEST_MAIN(TestWideScreen, "desktop", kScreenW, kScreenH)

#include "tst_wide_screen.moc"
