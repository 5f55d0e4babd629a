// Closing a modal dialog opened from the main window gives the window back its activation and
// the widget focused before its focus, so the window's keys work again at once: without a window
// manager nothing else re-activates the window, and Ctrl+N, Ctrl+E, ... did nothing until it was
// clicked. Covered: dialogs opened with open() (New Project, Export, an error box) and with exec()
// (the unsaved-changes question, the Open file picker), each opened by its key and closed by Esc.
#include "exportdialog.h"
#include "guitest.h"
#include "plan/layoutpanel.h"
#include "mainwindow.h"
#include "newprojectdialog.h"
#include "project/project.h"
#include "projectdocument.h"

#include <QApplication>
#include <QDialog>
#include <QFileDialog>
#include <QMessageBox>
#include <QTest>
#include <QTimer>

#include <functional>

namespace {

// The shown modal dialog of type T, if any.
template <typename T>
T* shownDialog() {
    for (QWidget* w : QApplication::topLevelWidgets())
        if (auto* d = qobject_cast<T*>(w); d && d->isVisible()) return d;
    return nullptr;
}

// Types a key where a window system sends it: the focused widget of the active window.
bool press(Qt::Key key, Qt::KeyboardModifiers mods = Qt::NoModifier) {
    QWidget* to = QApplication::focusWidget() ? QApplication::focusWidget() : QApplication::activeWindow();
    if (to) QTest::keyClick(to, key, mods);
    return to != nullptr;
}

// Closes, with Esc once it is the active window, each dialog of type T shown while a key opens it
// and waits in its own event loop (exec(): QMessageBox::warning, QFileDialog::getOpenFileName).
template <typename T>
class EscWhenShown {
public:
    EscWhenShown() {
        timer_.setInterval(10);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            T* d = shownDialog<T>();
            if (!d) return;
            if (QApplication::activeWindow() != d) {   // a modal dialog takes the keys
                // Never active: closed anyway (so the test fails instead of waiting for ever).
                if (++inactiveTicks_ < 300) return;
                titles_ << QStringLiteral("(never active) ") + d->windowTitle();
                inactiveTicks_ = 0;
                d->reject();
                return;
            }
            inactiveTicks_ = 0;
            titles_ << d->windowTitle();
            QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : d, Qt::Key_Escape);
        });
        timer_.start();
    }
    QStringList titles() const { return titles_; }

private:
    QTimer timer_;
    QStringList titles_;
    int inactiveTicks_ = 0;
};

}   // namespace

class TestDialogFocus : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    // The main window shown and active (as a click on it makes it) with a Layout field focused:
    // not the widget Qt would pick by itself, so the test sees whose focus comes back.
    std::unique_ptr<MainWindow> activeWindow(QWidget** focused) {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        w->show();
        w->activateWindow();
        if (!QTest::qWaitForWindowActive(w.get())) return nullptr;
        *focused = w->layoutPanel()->fieldWidget(QStringLiteral("/layout/pp"));
        if (!*focused || !w->layoutPanel()->focusField(QStringLiteral("/layout/pp"))) return nullptr;
        if (!QTest::qWaitFor([&] { return QApplication::focusWidget() == *focused; })) return nullptr;
        return w;
    }

    // The window key `key` opens a dialog (open(): the key returns at once) found by `shown`;
    // Esc closes it. Twice, then the key opens it once more.
    void openedByKeyClosedByEsc(Qt::Key key, const std::function<QDialog*()>& shown) {
        QWidget* focused = nullptr;
        auto w = activeWindow(&focused);
        QVERIFY(w);
        for (int round = 0; round < 2; ++round) {
            QVERIFY2(press(key, Qt::ControlModifier), "no active window to type into");
            QTRY_VERIFY(shown());
            QDialog* d = shown();
            QTRY_COMPARE(QApplication::activeWindow(), d);   // the modal dialog takes the keys
            QVERIFY(press(Qt::Key_Escape));
            QTRY_VERIFY(!shown());
            // With no click: the main window is active and the field focused before has the focus.
            QTRY_COMPARE(QApplication::activeWindow(), w.get());
            QCOMPARE(QApplication::focusWidget(), focused);
        }
        QVERIFY(press(key, Qt::ControlModifier));
        QTRY_VERIFY(shown());
        shown()->reject();
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void newProjectCtrlN() {
        openedByKeyClosedByEsc(Qt::Key_N, [] { return shownDialog<NewProjectDialog>(); });
    }

    void exportCtrlE() {
        openedByKeyClosedByEsc(Qt::Key_E, [] { return shownDialog<ExportDialog>(); });
    }

    // Ctrl+N with unsaved changes asks first (QMessageBox::warning, in its own event loop); Esc
    // cancels, and the window has the keys again: the next Ctrl+N asks again.
    void unsavedChangesQuestion() {
        QWidget* focused = nullptr;
        auto w = activeWindow(&focused);
        QVERIFY(w);
        QVERIFY(w->renameProject(QStringLiteral("edited")));
        QVERIFY(w->document()->isModified());
        focused->setFocus();   // back to the field (the rename left it there, but say so)
        QTRY_COMPARE(QApplication::focusWidget(), focused);
        EscWhenShown<QMessageBox> closer;
        for (int round = 1; round <= 2; ++round) {
            QVERIFY(press(Qt::Key_N, Qt::ControlModifier));   // returns once the question is answered
            QCOMPARE(closer.titles().size(), round);
            QCOMPARE(closer.titles().back(), QStringLiteral("Unsaved changes"));
            QVERIFY(!shownDialog<NewProjectDialog>());   // cancelled: no new project
            QVERIFY(w->document()->isModified());
            QTRY_COMPARE(QApplication::activeWindow(), w.get());
            QCOMPARE(QApplication::focusWidget(), focused);
        }
    }

    // An error box (opened with open()) closed by Esc: the window's next key works.
    void errorBoxThenCtrlN() {
        QWidget* focused = nullptr;
        auto w = activeWindow(&focused);
        QVERIFY(w);
        QVERIFY(w->openFile(tmp_.filePath(QStringLiteral("missing.paraplan.json"))));
        QVERIFY(!w->waitForOpen());
        QTRY_VERIFY(shownDialog<QMessageBox>());
        QTRY_COMPARE(QApplication::activeWindow(), shownDialog<QMessageBox>());
        QVERIFY(press(Qt::Key_Escape));
        QTRY_VERIFY(!shownDialog<QMessageBox>());
        QTRY_COMPARE(QApplication::activeWindow(), w.get());
        QCOMPARE(QApplication::focusWidget(), focused);
        QVERIFY(press(Qt::Key_N, Qt::ControlModifier));
        QTRY_VERIFY(shownDialog<NewProjectDialog>());
        shownDialog<NewProjectDialog>()->reject();
    }

    // Ctrl+O's file picker (Qt's own dialog here, in its own event loop), cancelled with Esc.
    void openFilePickerCtrlO() {
        QWidget* focused = nullptr;
        auto w = activeWindow(&focused);
        QVERIFY(w);
        EscWhenShown<QFileDialog> closer;
        for (int round = 1; round <= 2; ++round) {
            QVERIFY(press(Qt::Key_O, Qt::ControlModifier));   // returns once the picker is closed
            QCOMPARE(closer.titles().size(), round);
            QCOMPARE(closer.titles().back(), QStringLiteral("Open project"));
            QTRY_COMPARE(QApplication::activeWindow(), w.get());
            QCOMPARE(QApplication::focusWidget(), focused);
        }
    }
};

QTEST_MAIN(TestDialogFocus)
#include "tst_dialog_focus.moc"
