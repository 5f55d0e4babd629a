// Every dialog the app can show, opened as a user opens it (its menu action, its button, the
// canvas's edit action), fits the screen at 1024×700, 1280×800, 1600×1000 and 2560×1440 under a
// window manager (issue 31 item 9): its frame inside the available area, every button it shows
// inside the screen and the frame. The texts are the worst a user can meet: an error naming a
// path of thousands of characters and quoting a long token, an import with 200 notes, a file
// name of 240 characters. The Qt file dialogs the app opens are measured on the way (under xcb
// without a desktop's platform theme Qt shows its own widget dialog). The parent (Xvfb + openbox
// per size) and the measures are in window_fit.h, shared with tst_window_fit.
#include "canvas/clustercanvas.h"
#include "guitest.h"
#include "mainwindow.h"
#include "canvas/nodeitem.h"
#include "projectdocument.h"
#include "recovery.h"
#include "run/run_panel.h"
#include "runtime/e2e_common.h"
#include "views/stepplayer.h"
#include "window_fit.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QStatusBar>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>

#include <functional>
#include <vector>

using namespace windowfit;

namespace {
// The dialogs shown now.
QList<QPointer<QWidget>> shownDialogs() {
    QList<QPointer<QWidget>> out;
    for (QWidget* w : QApplication::topLevelWidgets())
        if (qobject_cast<QDialog*>(w) && w->isVisible()) out << w;
    return out;
}

// A dialog shown now that is not one of `seen`.
QWidget* newDialog(const QList<QPointer<QWidget>>& seen) {
    for (QWidget* w : QApplication::topLevelWidgets())
        if (qobject_cast<QDialog*>(w) && w->isVisible() && !seen.contains(w)) return w;
    return nullptr;
}

void closeDialog(QWidget* d) {
    if (auto* dialog = qobject_cast<QDialog*>(d)) dialog->reject();
    else d->close();
}

void clickButton(QWidget* d, const QString& text) {
    for (QAbstractButton* b : d->findChildren<QAbstractButton*>())
        if (b->text().remove(QLatin1Char('&')) == text) return b->click();
    qWarning("no button %s", qPrintable(text));
    closeDialog(d);
}

// Shows a message box's Details and measures it again: empty when it still fits.
QString detailsProblem(QWidget* d, const QString& what) {
    auto* box = qobject_cast<QMessageBox*>(d);
    if (!box || box->detailedText().isEmpty()) return what + QStringLiteral(": no Details");
    for (QAbstractButton* b : box->buttons())
        if (box->buttonRole(b) == QMessageBox::ActionRole) b->click();   // Show Details…
    QTest::qWait(100);
    return fitProblem(d, what + QStringLiteral(" with its Details shown"));
}

void clickStandard(QWidget* d, QMessageBox::StandardButton which) {
    auto* box = qobject_cast<QMessageBox*>(d);
    if (box && box->button(which)) box->button(which)->click();
    else closeDialog(d);
}

// Chooses `path` in a Qt file dialog and clicks its Open (or Choose) button.
void choosePath(QWidget* d, const QString& path) {
    auto* fd = qobject_cast<QFileDialog*>(d);
    auto* box = fd ? fd->findChild<QDialogButtonBox*>() : nullptr;
    if (!box) return closeDialog(d);
    // Typed into its file name field, as a user can type a whole path there (selectFile() does
    // not set the field while it has the focus).
    auto* name = fd->findChild<QLineEdit*>(QStringLiteral("fileNameEdit"));
    if (!name) return closeDialog(d);
    name->setText(path);
    for (QAbstractButton* b : box->buttons()) {
        if (box->buttonRole(b) != QDialogButtonBox::AcceptRole) continue;
        // Enabled once the dialog's file model has read the folder (on a thread of its own).
        if (QTest::qWaitFor([b] { return b->isEnabled(); }, 10000)) return b->click();
    }
    qWarning("the file dialog would not take %s", qPrintable(path.left(200)));
    closeDialog(d);
}

// A folder path of about `chars` characters under `base` (names of 200 characters).
QString deepFolder(const QString& base, int chars) {
    QString path = base;
    for (int i = 0; path.size() < chars; ++i)
        path += QLatin1Char('/') + QStringLiteral("folder-%1-").arg(i) + QString(188, QLatin1Char('d'));
    return QDir().mkpath(path) ? path : QString();
}

bool writeFile(const QString& path, const QByteArray& text) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}
}   // namespace

// The child: runs on the Xvfb screen the parent started, under openbox.
class DialogFitChild : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    std::unique_ptr<MainWindow> w_;

    // One dialog expected: what it is, and how the user answers it (by default it is closed).
    // An answer runs from the event loop after the dialog is measured; it may open the next.
    struct Step {
        QString what;
        std::function<void(QWidget*)> answer;
    };

    // Runs `open` from the event loop (it may wait in a dialog's exec(), or return at once as
    // open() does) and measures each dialog that shows, in `steps`' order; the dialogs are
    // answered and gone when it returns. Empty when every dialog showed and fit.
    QStringList runDialogs(const std::function<void()>& open, const std::vector<Step>& steps) {
        const QList<QPointer<QWidget>> before = shownDialogs();
        QList<QPointer<QWidget>> seen = before;
        std::size_t next = 0;
        bool busy = false;
        QStringList problems;
        QTimer poll;
        poll.setInterval(20);
        QElapsedTimer clock;
        clock.start();
        bool late = false;
        connect(&poll, &QTimer::timeout, this, [&] {
            // A dialog that never comes, or an answer that did not close its dialog, would leave
            // `open` waiting in a dialog's exec() for ever: after a minute every dialog it opened
            // is closed, and this says so.
            if (clock.elapsed() > 60000) {
                if (!late)
                    problems << QStringLiteral("%1: not shown and answered in a minute")
                                    .arg(next < steps.size() ? steps[next].what : QStringLiteral("the last dialog"));
                late = true;
                next = steps.size();
                if (QWidget* d = newDialog(before)) closeDialog(d);
                return;
            }
            if (busy || next >= steps.size()) return;
            QWidget* d = newDialog(seen);
            if (!d) return;
            seen << d;
            busy = true;   // the measure waits in the event loop, where this timer fires too
            QPointer<QWidget> p = d;
            const QString problem = fitProblem(d, steps[next].what);
            if (!problem.isEmpty()) problems << problem;
            const auto answer = steps[next].answer;
            ++next;
            busy = false;
            QTimer::singleShot(0, this, [p, answer] {
                if (!p) return;
                if (answer) answer(p);
                else closeDialog(p);
            });
        });
        poll.start();
        QTimer::singleShot(0, this, open);
        if (!QTest::qWaitFor([&] { return next >= steps.size() && !newDialog(before); }, 70000))
            problems << QStringLiteral("the dialogs were not answered in 70 s");
        poll.stop();
        if (newDialog(before)) problems << QStringLiteral("a dialog stayed open");
        return problems;
    }

    QAction* action(const QString& nameOrText) const {
        for (QAction* a : w_->findChildren<QAction*>())
            if (a->objectName() == nameOrText || a->text().remove(QLatin1Char('&')) == nameOrText) return a;
        return nullptr;
    }

    QAction* canvasAction(const QString& text) const {
        for (QAction* a : w_->canvas()->editActions())
            if (a->text().remove(QLatin1Char('&')) == text) return a;
        return nullptr;
    }

    // The project saved, so that File > Open and File > New ask nothing first.
    void saveIfModified() {
        if (w_->document()->isModified()) QVERIFY(w_->saveFile(tmp_.filePath(QStringLiteral("saved.paraplan.json"))));
    }

#define CHECK_DIALOGS(...)                                                             \
    do {                                                                               \
        const QStringList problems = runDialogs(__VA_ARGS__);                          \
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QStringLiteral("\n")))); \
    } while (false)

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
        QCOMPARE(QGuiApplication::platformName(), QStringLiteral("xcb"));
        w_ = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec")));
        w_->openProject(paraplan::load_example("llama3.1-405b-128nodes"), QString());
        w_->show();
        QVERIFY2(waitFramed(w_.get()), "the main window was never framed by the window manager");
        QVERIFY(w_->document()->waitForAnalysis());
    }

    void renameProject() {
        QAction* a = action(QStringLiteral("renameProjectAction"));
        QVERIFY(a);
        CHECK_DIALOGS([a] { a->trigger(); }, {{QStringLiteral("Rename project"), {}}});
    }

    void about() {
        QAction* a = action(QStringLiteral("About Paraplan"));
        QVERIFY(a);
        CHECK_DIALOGS([a] { a->trigger(); }, {{QStringLiteral("About Paraplan"), {}}});
    }

    // File > New on a changed project saved under a file name of 240 characters.
    void unsavedChanges() {
        const QString path = tmp_.filePath(QString(222, QLatin1Char('n')) + QStringLiteral(".paraplan.json"));
        QVERIFY(w_->saveFile(path));
        QVERIFY(w_->renameProject(QStringLiteral("changed")));
        QAction* a = action(QStringLiteral("newAction"));
        QVERIFY(a);
        CHECK_DIALOGS([a] { a->trigger(); },
                      {{QStringLiteral("Unsaved changes"), [](QWidget* d) { clickStandard(d, QMessageBox::Cancel); }}});
        QVERIFY(w_->document()->isModified());   // Cancel kept the change
        QCOMPARE(w_->document()->path(), path);
    }

    // At start, the question about work an earlier session left, which names the project's
    // path (here about 3000 characters).
    void recoveryQuestion() {
        const QString dir = tmp_.filePath(QStringLiteral("rec-crash"));
        const QString folder = deepFolder(tmp_.filePath(QStringLiteral("deep")), 3000);
        QVERIFY(!folder.isEmpty());
        {
            MainWindow crashed(nullptr, dir);
            crashed.setProject(paraplan::load_example("gpt2-1node"), QString());
            QVERIFY(crashed.saveFile(folder + QStringLiteral("/work.paraplan.json")));
            QVERIFY(crashed.document()->applyChanges(QStringLiteral("Set pp to 4"), {{"/layout/pp", 4}}));
            QVERIFY(crashed.document()->waitForAnalysis());
            QVERIFY(crashed.document()->isModified());
            crashed.recovery()->writeNow();   // what the one-minute timer does
            QVERIFY(QFile::exists(crashed.recovery()->recoveryFile()));
            // The window goes away without a clean close: like a crash.
        }
        MainWindow w(nullptr, dir);
        w.openProject(paraplan::load_example("gpt2-1node"), QString());
        w.show();   // as main() does before it offers the recovery
        QVERIFY(waitFramed(&w));
        QVERIFY(w.recovery()->pending().has_value());
        CHECK_DIALOGS([&w] { w.offerRecovery(); }, {{QStringLiteral("Restore unsaved work?"),
                                                     [](QWidget* d) { clickStandard(d, QMessageBox::No); }}});
        QVERIFY(!w.recovery()->pending().has_value());   // No discarded it
    }

    // File > Import Framework Config: the file dialog, the question which framework wrote a
    // file that does not say, and the notes of an import that read 200 settings it does not
    // know (some with names of 400 characters).
    void importWithManyNotes() {
        saveIfModified();
        QByteArray json = "{\"train_micro_batch_size_per_gpu\": 1";
        for (int i = 0; i < 200; ++i)
            json += ", \"unknown_setting_" + QByteArray::number(i) + "_" + QByteArray(i % 20 == 0 ? 400 : 20, 'k') +
                    "\": " + QByteArray::number(i);
        json += "}";
        // No format in its name or text: the app asks which framework wrote it.
        QByteArray text = json;
        text.replace("train_micro_batch_size_per_gpu", "unknown_batch_setting");
        const QString path = tmp_.filePath(QStringLiteral("settings-") + QString(200, QLatin1Char('s')) +
                                           QStringLiteral(".txt"));
        QVERIFY(writeFile(path, text));
        QAction* a = action(QStringLiteral("Import Framework Config…"));
        QVERIFY(a);
        const int undoBefore = w_->document()->undoStack()->count();
        QStringList details;
        CHECK_DIALOGS(
            [a] { a->trigger(); },
            {{QStringLiteral("Import framework config (file dialog)"), [path](QWidget* d) { choosePath(d, path); }},
             {QStringLiteral("Which framework's config"),
              [](QWidget* d) {
                  if (auto* combo = d->findChild<QComboBox*>())
                      combo->setCurrentIndex(combo->findText(QStringLiteral("deepspeed")));
                  qobject_cast<QDialog*>(d)->accept();
              }},
             {QStringLiteral("Imported with notes (200 notes)"), [&details](QWidget* d) {
                  details << detailsProblem(d, QStringLiteral("Imported with notes"));
                  closeDialog(d);
              }}});
        QCOMPARE(details.size(), 1);
        QVERIFY2(details[0].isEmpty(), qPrintable(details[0]));
        QCOMPARE(w_->document()->undoStack()->count(), undoBefore + 1);   // imported
        QVERIFY2(w_->lastImportMessages().size() >= 200, qPrintable(QString::number(w_->lastImportMessages().size())));
        w_->document()->undoStack()->undo();
    }

    // File > Open of a broken project file whose path is about 3000 characters long: the error
    // names the path and quotes the parser's message, which quotes a token of 5000 characters.
    void errorWithLongText() {
        saveIfModified();
        const QString folder = deepFolder(tmp_.filePath(QStringLiteral("deep-error")), 3000);
        QVERIFY(!folder.isEmpty());
        const QString path = folder + QStringLiteral("/broken.paraplan.json");
        QVERIFY(writeFile(path, "{\"name\": " + QByteArray(5000, 'x') + "}"));
        QAction* a = action(QStringLiteral("Open…"));
        QVERIFY(a);
        QStringList details;
        CHECK_DIALOGS([a] { a->trigger(); },
                      {{QStringLiteral("Open project (file dialog)"), [path](QWidget* d) { choosePath(d, path); }},
                       {QStringLiteral("Cannot open (long error)"), [&details](QWidget* d) {
                            details << detailsProblem(d, QStringLiteral("Cannot open"));
                            closeDialog(d);
                        }}});
        QCOMPARE(details.size(), 1);
        QVERIFY2(details[0].isEmpty(), qPrintable(details[0]));
        qInfo("the error's text: %lld characters", static_cast<long long>(w_->lastError().size()));
        QVERIFY2(w_->lastError().contains(path), qPrintable(w_->lastError().left(200)));
    }

    // File > Save As: Qt's save dialog, closed.
    void saveAsFileDialog() {
        QAction* a = action(QStringLiteral("saveAsAction"));
        QVERIFY(a);
        CHECK_DIALOGS([a] { a->trigger(); }, {{QStringLiteral("Save project (file dialog)"), {}}});
    }

    // The canvas's Rename… and Set host… on the selected node (as its context menu or F2 does).
    void canvasNodeDialogs() {
        QVERIFY(!w_->canvas()->nodeItems().empty());
        w_->canvas()->nodeItems().front()->setSelected(true);
        QCOMPARE(w_->canvas()->selectedNodes().size(), std::size_t(1));
        for (const QString& text : {QStringLiteral("Rename…"), QStringLiteral("Set host…")}) {
            QAction* a = canvasAction(text);
            QVERIFY2(a, qPrintable(text));
            CHECK_DIALOGS([a] { a->trigger(); }, {{QStringLiteral("Canvas ") + text, {}}});
        }
    }

    // Tools > SSH Profiles… then its New… button.
    void sshProfilesNew() {
        QAction* a = action(QStringLiteral("sshProfilesAction"));
        QVERIFY(a);
        QPointer<QWidget> profiles;
        CHECK_DIALOGS([a] { a->trigger(); }, {{QStringLiteral("SSH Profiles"),
                                               [&profiles](QWidget* d) {
                                                   profiles = d;
                                                   clickButton(d, QStringLiteral("New…"));
                                               }},
                                              {QStringLiteral("New SSH Profile"), [&profiles](QWidget* d) {
                                                   closeDialog(d);
                                                   QTimer::singleShot(0, profiles,
                                                                      [&profiles] { closeDialog(profiles); });
                                               }}});
    }

    // The playback's Export…: the folder dialog, then the progress dialog (cancelled).
    void playbackExport() {
        QTRY_VERIFY_WITH_TIMEOUT(w_->stepPlayer()->playback().has_value(), 60000);
        auto* button = w_->stepPlayer()->findChild<QToolButton*>(QStringLiteral("playExport"));
        QVERIFY(button && button->isEnabled());
        const QString dir = tmp_.filePath(QStringLiteral("frames"));
        QVERIFY(QDir().mkpath(dir));
        CHECK_DIALOGS(
            [button] { button->click(); },
            {{QStringLiteral("Save the playback frames in (folder dialog)"), [dir](QWidget* d) { choosePath(d, dir); }},
             {QStringLiteral("Export Playback (progress)"), [](QWidget* d) { closeDialog(d); }}});
        QTRY_VERIFY_WITH_TIMEOUT(!w_->findChild<QProgressDialog*>(QStringLiteral("playbackExportProgress")), 60000);
        QVERIFY(!QDir(dir).entryList({QStringLiteral("frame_*.png")}, QDir::Files).isEmpty());   // it did export
    }

    // Closing the window while a job runs (on the loopback sshd) asks first.
    void jobRunningOnQuit() {
        SshdFixture sshd;
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        use_local_profile(tmp_.path(), loopback_profile(sshd));
        paraplan::Project p;
        p.name = "dialog fit";
        p.cluster = loopback_cluster(sshd);
        const auto rc = loopback_runtime(stub_bin(tmp_.path()));
        p.runtime = {{"python", "/bin/sh"},
                     {"script", "-c"},
                     {"args", {"echo up $RANK; sleep 60"}},
                     {"path_prepend", rc.path_prepend},
                     {"workdir", (tmp_.path() + "/run").toStdString()},
                     {"stop_grace_s", 2}};
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec-job")));
        w.setProject(p, QString());
        w.runPanel()->setProject(w.project(), tmp_.path() + "/jobs");
        w.runPanel()->launch();
        QVERIFY(w.runPanel()->job());
        QTRY_VERIFY_WITH_TIMEOUT(w.runPanel()->logText().contains("up 3"), 30000);
        w.show();
        QVERIFY(waitFramed(&w));
        CHECK_DIALOGS([&w] { w.close(); }, {{QStringLiteral("A job is running"),
                                             [](QWidget* d) { clickStandard(d, QMessageBox::Cancel); }}});
        QVERIFY(w.isVisible());   // Cancel kept the window
        w.runPanel()->stop();
        QTRY_VERIFY_WITH_TIMEOUT(w.runPanel()->job()->done(), 30000);
    }

    void cleanupTestCase() { w_.reset(); }
};

// The parent: one Xvfb and openbox per screen size, the child run on it.
class TestDialogFit : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { requireXTools(); }
    void everyDialogFits_data() { addScreenRows(); }
    void everyDialogFits() {
        QFETCH(QSize, screen);
        runChildOnScreen(screen, 200000, {QStringLiteral("sshd")});
    }
};

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsSet(kChildEnv)) {
        QApplication app(argc, argv);
        QApplication::setStyle(QStringLiteral("Fusion"));   // as the app
        DialogFitChild t;
        QTEST_SET_MAIN_SOURCE_PATH
        return QTest::qExec(&t, argc, argv);
    }
    QCoreApplication app(argc, argv);
    TestDialogFit t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}

#include "tst_dialog_fit.moc"
