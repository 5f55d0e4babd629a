// messagefit (app/messagefit.h): a message box given a text of 200 lines, or a word of 5000
// characters, stays inside a 1024×700 screen (offscreen, no frame: tst_dialog_fit measures the
// app's boxes with a window manager's frame) and keeps the whole text in its Details.
#include "guitest.h"
#include "messagefit.h"

#include <QApplication>
#include <QMessageBox>
#include <QScreen>
#include <QTest>

namespace {
constexpr int kScreenW = 1024;
constexpr int kScreenH = 700;
}   // namespace

class TestMessageFit : public QObject {
    Q_OBJECT

    // Shown, the box lies inside the screen; its Details hold `whole`.
    static void checkShown(QMessageBox& box, const QString& whole) {
        box.show();
        QVERIFY(QTest::qWaitForWindowExposed(&box));
        const QRect avail = box.screen()->availableGeometry();
        QVERIFY2(
            avail.contains(box.frameGeometry()),
            qPrintable(QStringLiteral("%1×%2").arg(box.frameGeometry().width()).arg(box.frameGeometry().height())));
        QCOMPARE(box.detailedText(), whole);
        box.close();
    }

private slots:
    void manyLinesAreCut() {
        QStringList lines;
        for (int i = 0; i < 200; ++i) lines << QStringLiteral("line %1 of the parser's message").arg(i);
        const QString whole = lines.join(QLatin1Char('\n'));
        const QString s = messagefit::shortText(whole);
        QCOMPARE(s.count(QLatin1Char('\n')) + 1, 12);
        QVERIFY(s.startsWith(QStringLiteral("line 0 of")));
        QVERIFY(s.endsWith(QChar(0x2026)));
        QVERIFY(!s.contains(QStringLiteral("line 11 ")));   // 11 lines kept, then "…"
        QMessageBox box(QMessageBox::Warning, QStringLiteral("Cannot open"), QString(), QMessageBox::Ok);
        messagefit::setText(&box, whole);
        QCOMPARE(box.text(), s);
        checkShown(box, whole);
    }

    void longWordIsElidedInItsMiddle() {
        const QString path = QStringLiteral("/home/") + QString(5000, QLatin1Char('d')) + QStringLiteral("/end.json");
        const QString whole = QStringLiteral("Cannot read %1: no such file").arg(path);
        const QString s = messagefit::shortText(whole);
        QVERIFY2(s.startsWith(QStringLiteral("Cannot read /home/ddd")), qPrintable(s));
        QVERIFY2(s.endsWith(QStringLiteral("d/end.json: no such file")), qPrintable(s));
        for (const QString& word : s.split(QLatin1Char(' '))) QVERIFY2(word.size() <= 60, qPrintable(word));
        QVERIFY(s.contains(QChar(0x2026)));
        QMessageBox box(QMessageBox::Warning, QStringLiteral("Cannot open"), QString(), QMessageBox::Ok);
        messagefit::setText(&box, whole);
        checkShown(box, whole);
    }

    void longTextIsCut() {
        QString whole;
        for (int i = 0; i < 600; ++i) whole += QStringLiteral("word%1 ").arg(i);
        const QString s = messagefit::shortText(whole);
        QCOMPARE(s.size(), 900);
        QVERIFY(s.endsWith(QChar(0x2026)));
    }

    // A short text is shown as it is, with no Details.
    void shortTextIsKept() {
        const QString text = QStringLiteral("project.paraplan.json has unsaved changes.\n\nSave them first?");
        QCOMPARE(messagefit::shortText(text), text);
        QMessageBox box;
        messagefit::setText(&box, text);
        QCOMPARE(box.text(), text);
        QVERIFY(box.detailedText().isEmpty());
    }
};

PARAPLAN_SCREEN_TEST_MAIN(TestMessageFit, "small", kScreenW, kScreenH)

#include "tst_message_fit.moc"
