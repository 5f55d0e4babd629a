// The document, undo history, layout panel, diagnostics, file errors and crash
// recovery, driven through the main window as a user would.
#include "plan/diagnosticspanel.h"
#include "guitest.h"
#include "plan/layoutpanel.h"
#include "mainwindow.h"
#include "project/project.h"
#include "projectdocument.h"
#include "recovery.h"
#include "rules/validate.h"
#include "common/theme.h"

#include <QComboBox>
#include <QLineEdit>
#include <QStatusBar>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolButton>
#include <QTreeWidget>

using paraplan::Project;

class TestDocument : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    static void typeInto(QComboBox* combo, const QString& text) {
        combo->lineEdit()->selectAll();
        QTest::keyClicks(combo->lineEdit(), text);
        QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
    }
    QString recoveryDir(const char* name) const { return tmp_.filePath(QString::fromLatin1(name)); }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void editTpUpdatesDiagnosticsAndUndoRestores() {
        MainWindow w(nullptr, recoveryDir("r1"));
        const Project start = paraplan::load_example("gpt2-1node");
        w.setProject(start, QString());
        QCOMPARE(w.project().world_size(), 8);
        QVERIFY(!paraplan::has_errors(w.document()->diagnostics()));
        QSignalSpy changed(w.document(), &ProjectDocument::changed);

        auto* tp = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("tp"));
        QVERIFY(tp);
        // Only sizes that divide the 8 GPUs are offered.
        QStringList offered;
        for (int i = 0; i < tp->count(); ++i) offered << tp->itemText(i);
        QCOMPARE(offered, QStringList({"1", "2", "4", "8"}));

        typeInto(tp, QStringLiteral("3"));
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w.project().layout.tp, 3);
        QCOMPARE(changed.count(), 1);   // one change, one signal
        QCOMPARE(w.document()->undoStack()->text(0), QStringLiteral("Set tp to 3"));
        QVERIFY(w.document()->isModified());
        QVERIFY(w.isWindowModified());
        // Diagnostics follow the edit: 8 GPUs do not split into tp 3 × pp 2.
        const auto expected = paraplan::validate(w.project());
        QVERIFY(paraplan::has_errors(expected));
        QCOMPARE(w.diagnosticsPanel()->diagnostics().size(), expected.size());
        QCOMPARE(w.diagnosticsPanel()->tree()->topLevelItem(0)->text(0), QString::fromStdString(expected[0].message));
        // The tp field is marked invalid (it is named by the finding).
        QVERIFY(w.layoutPanel()->fieldWidget(QStringLiteral("/layout/tp"))->property("invalid").toBool());

        w.document()->undoStack()->undo();
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w.project().layout.tp, start.layout.tp);
        QVERIFY(!paraplan::has_errors(w.diagnosticsPanel()->diagnostics()));
        QVERIFY(!w.layoutPanel()->fieldWidget(QStringLiteral("/layout/tp"))->property("invalid").toBool());
        QCOMPARE(tp->currentText(), QString::number(start.layout.tp));
        QVERIFY(!w.document()->isModified());

        w.document()->undoStack()->redo();
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w.project().layout.tp, 3);
        QVERIFY(paraplan::has_errors(w.diagnosticsPanel()->diagnostics()));
    }

    void typedSizeIsNotCompletedToAnOfferedOne() {
        MainWindow w(nullptr, recoveryDir("r1b"));
        w.setProject(paraplan::load_example("llama3.1-70b-4nodes"), QString());
        QCOMPARE(w.project().world_size(), 32);
        w.show();   // completion acts on a field that has the focus, as the user's does
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* tp = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("tp"));
        QVERIFY(tp);
        w.activateWindow();
        tp->setFocus();
        QVERIFY(tp->findText(QStringLiteral("32")) >= 0);   // offered, and starts with the typed "3"
        typeInto(tp, QStringLiteral("3"));
        QVERIFY(w.document()->waitForAnalysis());
        QCOMPARE(w.project().layout.tp, 3);
        QCOMPARE(w.document()->undoStack()->text(w.document()->undoStack()->count() - 1),
                 QStringLiteral("Set tp to 3"));
    }

    // What the field shows is what the project holds: "0", "-3" and "1e9" typed into tp show as
    // typed, are refused on Enter with the allowed range, and the field shows tp 8 again (they
    // once showed 0 while tp stayed 8, or became 3 and 19 as the validator dropped '-' and 'e').
    void refusedSizeIsSaidAndNotKept() {
        MainWindow w(nullptr, recoveryDir("r1d"));
        w.setProject(paraplan::load_example("llama3.1-70b-4nodes"), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* tp = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("tp"));
        QVERIFY(tp);
        w.activateWindow();
        tp->setFocus();
        const int steps = w.document()->undoStack()->count();
        for (const QString& typed : {QStringLiteral("0"), QStringLiteral("-3"), QStringLiteral("1e9")}) {
            tp->lineEdit()->selectAll();
            QTest::keyClicks(tp->lineEdit(), typed);
            QCOMPARE(tp->currentText(), typed);   // shown as typed, nothing dropped
            QTest::keyClick(tp->lineEdit(), Qt::Key_Return);
            QVERIFY(w.document()->waitForAnalysis());
            QCOMPARE(w.project().layout.tp, 8);
            QCOMPARE(tp->currentText(), QStringLiteral("8"));
            const QString said = w.statusBar()->currentMessage();
            QVERIFY2(said.contains("\"" + typed + "\"") && said.contains(QStringLiteral("from 1 to 1000000")),
                     qPrintable(said));
        }
        QCOMPARE(w.document()->undoStack()->count(), steps);   // nothing was applied
    }

    // The header colours a count only when there is something to count: "0 errors" is not red.
    void diagnosticsHeaderColoursOnlyFindings() {
        MainWindow w(nullptr, recoveryDir("r1c"));
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        auto* header = w.diagnosticsPanel()->findChild<QLabel*>(QStringLiteral("diagnosticsHeader"));
        QVERIFY(header);
        const QString red = theme::errorColor(w.diagnosticsPanel()->palette()).name();
        const QString amber = theme::warningColor(w.diagnosticsPanel()->palette()).name();
        QCOMPARE(w.diagnosticsPanel()->count(paraplan::Severity::Error), 0);
        QCOMPARE(w.diagnosticsPanel()->count(paraplan::Severity::Warning), 0);
        QVERIFY2(header->text().contains(QStringLiteral("0 errors")) && !header->text().contains(red) &&
                     !header->text().contains(amber),
                 qPrintable(header->text()));
        QVERIFY(w.document()->applyChanges(QStringLiteral("Set tp to 3"), {{"/layout/tp", 3}}));
        QVERIFY(w.document()->waitForAnalysis());
        QVERIFY(w.diagnosticsPanel()->count(paraplan::Severity::Error) > 0);
        QVERIFY2(header->text().contains(red), qPrintable(header->text()));
    }

    void spinBoxEditIsOneNamedStep() {
        MainWindow w(nullptr, recoveryDir("r2"));
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        auto* zero = w.layoutPanel()->findChild<QSpinBox*>(QStringLiteral("zero_stage"));
        QVERIFY(zero);
        zero->setValue(2);
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w.project().layout.zero_stage, 2);
        QCOMPARE(w.document()->undoStack()->count(), 1);
        QCOMPARE(w.document()->undoStack()->text(0), QStringLiteral("Set zero_stage to 2"));
        auto* sched = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("schedule"));
        QVERIFY(sched);
        QVERIFY(!sched->isEditable());   // the schedule table's names only
        // "interleaved" says whose interleaved schedule it is for the layout's framework (ColossalAI here).
        QCOMPARE(w.project().layout.framework, std::string("colossalai"));
        QCOMPARE(sched->itemText(sched->findData(QStringLiteral("interleaved"))),
                 QStringLiteral("interleaved (interleaved-colossalai)"));
        QTest::keyClicks(sched, QStringLiteral("interleaved"));   // the combo's keyboard search picks it
        QVERIFY(w.document()->waitForAnalysis());                 // the views follow the edit's analysis
        QCOMPARE(w.project().layout.schedule, paraplan::Schedule::interleaved);
        w.document()->undoStack()->undo();
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        w.document()->undoStack()->undo();
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w.project().layout.zero_stage, paraplan::load_example("gpt2-1node").layout.zero_stage);
        QCOMPARE(w.project().layout.schedule, paraplan::Schedule::one_f_one_b);
    }

    void fixButtonAppliesChangesAsOneStep() {
        MainWindow w(nullptr, recoveryDir("r3"));
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        QVERIFY(w.document()->applyChanges(QStringLiteral("Set tp to 3"), {{"/layout/tp", 3}}));
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(paraplan::has_errors(w.document()->diagnostics()));
        // A finding whose fix sets two pointers at once, as the rules write them.
        paraplan::Diagnostic d;
        d.rule = "test.fix";
        d.message = "tp × pp must divide the world size";
        d.fields = {"/layout/tp", "/layout/pp"};
        d.fixes = {{"use tp 4, pp 2", {{"/layout/tp", 4}, {"/layout/pp", 2}}}};
        w.diagnosticsPanel()->setDiagnostics({d});
        auto* fix = w.diagnosticsPanel()->findChild<QToolButton*>(QStringLiteral("fixButton"));
        QVERIFY(fix);
        const int before = w.document()->undoStack()->count();
        QTest::mouseClick(fix, Qt::LeftButton);
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w.project().layout.tp, 4);
        QCOMPARE(w.project().layout.pp, 2);
        QCOMPARE(w.document()->undoStack()->count(), before + 1);
        QCOMPARE(w.document()->undoStack()->text(before), QStringLiteral("Apply fix: use tp 4, pp 2"));
        QVERIFY(!paraplan::has_errors(paraplan::validate(w.project())));
        w.document()->undoStack()->undo();
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w.project().layout.tp, 3);
    }

    void realFixesFromTheRulesMakeTheLayoutValid() {
        MainWindow w(nullptr, recoveryDir("r4"));
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        QVERIFY(w.document()->applyChanges(QStringLiteral("Set tp to 3"), {{"/layout/tp", 3}}));
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        const auto& ds = w.document()->diagnostics();
        QVERIFY(paraplan::has_errors(ds));
        auto* fix = w.diagnosticsPanel()->findChild<QToolButton*>(QStringLiteral("fixButton"));
        QVERIFY2(fix, "the rules suggest no fix for tp 3 on 8 GPUs");
        // Apply first fixes until the framework accepts the layout (each is one step).
        for (int round = 0; round < 5 && paraplan::has_errors(w.document()->diagnostics()); ++round) {
            fix = w.diagnosticsPanel()->findChild<QToolButton*>(QStringLiteral("fixButton"));
            QVERIFY(fix);
            QTest::mouseClick(fix, Qt::LeftButton);
            QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        }
        QVERIFY(!paraplan::has_errors(paraplan::validate(w.project())));
    }

    void selectingAFindingFocusesItsField() {
        MainWindow w(nullptr, recoveryDir("r5"));
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        paraplan::Diagnostic d;
        d.message = "pp problem";
        d.fields = {"/layout/pp"};
        w.diagnosticsPanel()->setDiagnostics({d});
        auto* tree = w.diagnosticsPanel()->tree();
        tree->setCurrentItem(tree->topLevelItem(0));
        QTRY_COMPARE(QApplication::focusWidget(), w.layoutPanel()->fieldWidget(QStringLiteral("/layout/pp")));
    }

    void openMalformedFileKeepsProject_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("expected");
        QTest::newRow("syntax") << QByteArray("{\n  \"paraplan\": 1,\n  \"name\": oops\n}\n")
                                << QStringLiteral("line 3");
        QByteArray schema = paraplan::project_to_text(paraplan::load_example("gpt2-1node")).c_str();
        schema.replace("\"tp\": 2", "\"tp\": \"two\"");
        QTest::newRow("schema") << schema << QStringLiteral("/layout/tp");
    }
    void openMalformedFileKeepsProject() {
        QFETCH(QByteArray, content);
        QFETCH(QString, expected);
        MainWindow w(nullptr, recoveryDir("r6"));
        const Project start = paraplan::load_example("llama3.1-70b-4nodes");
        w.setProject(start, QString());
        QVERIFY(w.document()->applyChanges(QStringLiteral("Set pp to 2"), {{"/layout/pp", 2}}));
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        const QString path = tmp_.filePath(QStringLiteral("bad.paraplan.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(content);
        f.close();

        QVERIFY(w.openFile(path));
        QVERIFY(!w.waitForOpen());
        QVERIFY2(w.lastError().contains(expected), qPrintable(w.lastError()));
        auto* box = w.findChild<QMessageBox*>(QStringLiteral("openError"));
        QVERIFY(box);
        QVERIFY(box->isVisible());
        QVERIFY(box->text().contains(expected));
        box->close();
        // The current project, its edit and its history are untouched.
        QCOMPARE(w.project().name, start.name);
        QCOMPARE(w.project().layout.pp, 2);
        QCOMPARE(w.document()->undoStack()->count(), 1);
        QVERIFY(w.document()->isModified());
    }

    void saveThenReopen() {
        MainWindow w(nullptr, recoveryDir("r7"));
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        QVERIFY(w.document()->applyChanges(QStringLiteral("Set tp to 4"), {{"/layout/tp", 4}}));
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("Untitled")));
        const QString path = tmp_.filePath(QStringLiteral("saved.paraplan.json"));
        QVERIFY(w.saveFile(path));
        QVERIFY(!w.document()->isModified());
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("saved.paraplan.json")));
        QCOMPARE(AppSettings::recentFiles().value(0), path);

        MainWindow w2(nullptr, recoveryDir("r7b"));
        QVERIFY(w2.openFile(path));
        QVERIFY(w2.waitForOpen());
        QCOMPARE(w2.project().layout.tp, 4);
        QCOMPARE(w2.document()->path(), path);
    }

    void crashRecoveryRestoresAutosavedWork() {
        const QString dir = recoveryDir("crash");
        {
            MainWindow w(nullptr, dir);
            w.setProject(paraplan::load_example("gpt2-1node"), QString());
            QVERIFY(w.document()->applyChanges(QStringLiteral("Set pp to 4"), {{"/layout/pp", 4}}));
            QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
            w.recovery()->writeNow();                   // what the one-minute timer does
            QVERIFY(QFile::exists(w.recovery()->recoveryFile()));
            // The window goes away without a clean close: like a crash.
        }
        MainWindow w2(nullptr, dir);
        w2.setProject(paraplan::load_example("gpt2-1node"), QString());
        const auto pending = w2.recovery()->pending();
        QVERIFY(pending.has_value());
        QVERIFY(!pending->savedAt.isEmpty());
        w2.recovery()->restore();
        QCOMPARE(w2.project().layout.pp, 4);
        QVERIFY(w2.document()->isModified());   // restored work is still unsaved
        // Saving makes the recovery copy obsolete.
        QVERIFY(w2.saveFile(tmp_.filePath(QStringLiteral("recovered.paraplan.json"))));
        QVERIFY(!w2.recovery()->pending().has_value());
    }

    // The one-minute autosave writes on a worker (autosave() returns while it is written) from
    // the document's snapshot, and writes nothing while the content is what it last wrote.
    void autosaveWritesOnAWorkerOncePerChange() {
        const QString dir = recoveryDir("autosave");
        MainWindow w(nullptr, dir);
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        Recovery* r = w.recovery();
        r->autosave();
        QVERIFY(!r->writing());   // clean: nothing to write
        QVERIFY(w.document()->applyChanges(QStringLiteral("Set pp to 4"), {{"/layout/pp", 4}}));
        r->autosave();
        QVERIFY(r->writing());   // on its worker: this thread did not wait for it
        QTRY_VERIFY_WITH_TIMEOUT(!r->writing(), 30000);
        QVERIFY(r->pending().has_value());
        QCOMPARE(paraplan::load_project(r->recoveryFile().toStdString()), w.project());

        // Nothing changed since: the next minute writes nothing.
        QVERIFY(QFile::remove(r->recoveryFile()));
        r->autosave();
        QVERIFY(!r->writing());
        QVERIFY(!QFile::exists(r->recoveryFile()));

        // An edit, then a save while its autosave is on the worker: no recovery file is left.
        QVERIFY(w.document()->applyChanges(QStringLiteral("Set pp to 2"), {{"/layout/pp", 2}}));
        r->autosave();
        QVERIFY(r->writing());
        QVERIFY(w.saveFile(tmp_.filePath(QStringLiteral("autosaved.paraplan.json"))));
        QTRY_VERIFY_WITH_TIMEOUT(!r->writing(), 30000);
        QVERIFY(!r->pending().has_value());
    }

    void cleanDocumentWritesNoRecovery() {
        const QString dir = recoveryDir("clean");
        MainWindow w(nullptr, dir);
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        w.recovery()->writeNow();
        QVERIFY(!w.recovery()->pending().has_value());
    }

    void refusedEditLeavesNoStep() {
        MainWindow w(nullptr, recoveryDir("r8"));
        w.setProject(paraplan::load_example("gpt2-1node"), QString());
        QString err;
        QVERIFY(!w.document()->applyChanges(QStringLiteral("Set tp to -1"), {{"/layout/tp", -1}}, &err));
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY2(err.contains(QStringLiteral("/layout/tp")), qPrintable(err));
        QCOMPARE(w.document()->undoStack()->count(), 0);
        QVERIFY(!w.document()->applyChanges(QStringLiteral("bad"), {{"/nowhere/at/all", 1}}, &err));
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w.document()->undoStack()->count(), 0);
    }
};

QTEST_MAIN(TestDocument)
#include "tst_document.moc"
