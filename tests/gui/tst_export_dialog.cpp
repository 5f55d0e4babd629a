// The Export dialog previews core/export's files for the open project, colours them,
// saves them to a folder, and shows the findings (with Force) for an invalid layout.
#include "plan/diagnosticspanel.h"
#include "exportdialog.h"
#include "guitest.h"
#include "mainwindow.h"
#include "common/monospace_font.h"
#include "project/project.h"

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QPlainTextEdit>
#include <QSyntaxHighlighter>
#include <QTabWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextLayout>

class TestExportDialog : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void previewsMegatronScript() {
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec")));
        w.setProject(paraplan::load_example("llama3.1-70b-4nodes"), QString());
        ExportDialog* d = w.exportDialog();
        QVERIFY(d->setFormat(QStringLiteral("megatron")));
        QVERIFY(!d->result().refused);
        QVERIFY(!d->fileNames().isEmpty());
        QCOMPARE(d->tabs()->count(), d->fileNames().size());
        QString script;
        for (const QString& n : d->fileNames())
            if (d->fileText(n).contains(QStringLiteral("--tensor-model-parallel-size"))) script = n;
        QVERIFY2(!script.isEmpty(), qPrintable(d->fileNames().join(QLatin1Char(','))));
        const QString text = d->fileText(script);
        QVERIFY(text.contains(QStringLiteral("--tensor-model-parallel-size %1").arg(w.project().layout.tp)) ||
                text.contains(QStringLiteral("--tensor-model-parallel-size=%1").arg(w.project().layout.tp)));

        // The preview is monospace and the flags are coloured.
        QPlainTextEdit* edit = nullptr;
        for (int i = 0; i < d->tabs()->count(); ++i)
            if (d->tabs()->tabText(i) == script) edit = qobject_cast<QPlainTextEdit*>(d->tabs()->widget(i));
        QVERIFY(edit);
        QVERIFY(paraplan::widgets::hasEqualAdvances(edit->font()));
        bool flagColoured = false;
        for (QTextBlock b = edit->document()->begin(); b.isValid() && !flagColoured; b = b.next()) {
            const int at = int(b.text().indexOf(QStringLiteral("--tensor-model-parallel-size")));
            if (at < 0) continue;
            for (const auto& r : b.layout()->formats())
                flagColoured = flagColoured || (r.start <= at && at < r.start + r.length &&
                                                r.format.foreground().style() != Qt::NoBrush);
        }
        QVERIFY(flagColoured);

        // Save writes every file as previewed.
        const QString out = tmp_.filePath(QStringLiteral("out"));
        QString err;
        QVERIFY2(d->saveTo(out, &err), qPrintable(err));
        QFile f(QDir(out).filePath(script));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(QString::fromUtf8(f.readAll()), text);
    }

    // Closing File > Export… gives the main window back its activation and focus, so the
    // window's keys work at once (without a window manager nothing else re-activates it, and
    // Ctrl+E did nothing until the window was clicked).
    void ctrlEWorksAgainAfterClosing() {
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec-keys")));
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        w.show();
        w.activateWindow();   // as a click on it does
        QVERIFY(QTest::qWaitForWindowActive(&w));
        auto shownDialog = [&w]() -> ExportDialog* {
            for (ExportDialog* d : w.findChildren<ExportDialog*>())
                if (d->isVisible()) return d;
            return nullptr;
        };
        // Where a key goes: the focused widget of the active window, as a window system sends it.
        auto pressCtrlE = [] {
            QWidget* to = QApplication::focusWidget() ? QApplication::focusWidget() : QApplication::activeWindow();
            if (to) QTest::keyClick(to, Qt::Key_E, Qt::ControlModifier);
            return to != nullptr;
        };
        QWidget* focusBefore = QApplication::focusWidget();
        for (int round = 0; round < 2; ++round) {
            QVERIFY2(pressCtrlE(), "no active window to type into");
            QTRY_VERIFY(shownDialog());
            ExportDialog* d = shownDialog();
            QTRY_COMPARE(QApplication::activeWindow(), d);   // a modal dialog takes the keys
            QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : d, Qt::Key_Escape);
            QTRY_VERIFY(!shownDialog());
            // With no click: the main window is active again and its focused widget is the one
            // focused before the dialog opened.
            QTRY_COMPARE(QApplication::activeWindow(), &w);
            QCOMPARE(QApplication::focusWidget(), focusBefore);
        }
        QVERIFY(pressCtrlE());   // and the key opens it again
        QTRY_VERIFY(shownDialog());
        shownDialog()->reject();
    }

    void invalidLayoutShowsFindingsAndForce() {
        auto p = paraplan::load_example("gpt2-1node");
        p.layout.tp = 3;   // 8 GPUs are not divisible by tp x pp = 6
        ExportDialog d(p);
        QVERIFY(d.setFormat(QStringLiteral("megatron")));
        QVERIFY(d.result().refused);
        QCOMPARE(d.tabs()->count(), 0);
        QVERIFY(!d.diagnosticsPanel()->diagnostics().empty());
        auto* force = d.findChild<QCheckBox*>(QStringLiteral("force"));
        QVERIFY(force && force->isEnabled());
        d.setForce(true);
        QVERIFY(!d.result().refused);
        QVERIFY(d.tabs()->count() > 0);
        QVERIFY(!d.diagnosticsPanel()->diagnostics().empty());
        // The findings are written into the script.
        bool warned = false;
        for (const QString& n : d.fileNames())
            warned = warned || d.fileText(n).contains(QStringLiteral("PARAPLAN WARNING"));
        QVERIFY(warned);
    }
};

QTEST_MAIN(TestExportDialog)
#include "tst_export_dialog.moc"
