// The mouse wheel over the Layout panel scrolls the panel; it changes a field only when the user
// has put keyboard focus in it (wheel_guard.h). Before, scrolling down to a lower field turned
// every combo or spin box that passed under the pointer (offload none -> cpu -> nvme).
#include "guitest.h"
#include "plan/layoutpanel.h"
#include "projectdocument.h"

#include <QApplication>
#include <QComboBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QWheelEvent>
#include <QtTest>

class TestWheel : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    // One notch of the wheel (down) over the centre of `w`; true when `w` took it. An event the
    // widget does not take is offered to its parents by QApplication (for the window system's
    // own, spontaneous events), so the panel's scroll area scrolls instead.
    static bool wheelDown(QWidget* w) {
        const QPointF at(w->width() / 2.0, w->height() / 2.0);
        QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
        QApplication::sendEvent(w, &e);
        return e.isAccepted();
    }

private slots:
    void initTestCase() { isolateSettings(tmp_); }

    void wheelScrollsThePanelNotTheFields() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        w->resize(1024, 600);   // short enough that the Layout panel scrolls
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        auto* panel = w->layoutPanel();
        auto* offload = panel->findChild<QComboBox*>(QStringLiteral("offload"));
        auto* zero = panel->findChild<QSpinBox*>(QStringLiteral("zero_stage"));
        QVERIFY(offload && zero);
        auto* bar = panel->findChild<QScrollArea*>()->verticalScrollBar();
        QVERIFY2(bar->maximum() > 0, "the panel does not scroll at this size");
        const QString offloadBefore = offload->currentText();
        const int zeroBefore = zero->value();
        const QString fileBefore = QString::fromUtf8(to_string(w->project().layout.offload));
        QVERIFY(!wheelDown(offload));
        QVERIFY(!wheelDown(zero));
        QCOMPARE(offload->currentText(), offloadBefore);
        QCOMPARE(zero->value(), zeroBefore);
        QCOMPARE(QString::fromUtf8(to_string(w->project().layout.offload)), fileBefore);
        // The same notch over the panel itself scrolls it.
        bar->setValue(0);
        QVERIFY(wheelDown(panel->findChild<QScrollArea*>()->viewport()));
        QVERIFY2(bar->value() > 0, "the wheel did not scroll the panel");
        QVERIFY(!w->document()->undoStack()->canUndo());   // nothing was edited

        // With focus (a click or Tab into the field), the wheel is the user's edit.
        offload->setFocus(Qt::TabFocusReason);
        QTRY_VERIFY(offload->hasFocus());
        QVERIFY(wheelDown(offload));
        QVERIFY(offload->currentText() != offloadBefore);
        QCOMPARE(QString::fromUtf8(to_string(w->project().layout.offload)), offload->currentText());   // held as shown
        QVERIFY(w->document()->undoStack()->canUndo());
    }
};

QTEST_MAIN(TestWheel)
#include "tst_wheel.moc"
