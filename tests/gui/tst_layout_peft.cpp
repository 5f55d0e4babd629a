// Fine-tuning and FP4 in the Layout dock (issue 27): the LoRA example shows its layout.peft in the
// fine-tuning group; the rank typed there, a target clicked off, full training chosen are each one
// undo step that reaches the project and the estimate (trainable parameters, memory); a value
// core's reader refuses is refused with its message. The FP4 recipe combo writes
// layout.fp4_recipe, and nvfp4 on H100s is the kernel.fp4_gpu error in the Diagnostics. All on a
// 1280 x 800 laptop screen, where the new fields scroll into view whole.
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "guitest.h"
#include "mainwindow.h"
#include "plan/diagnosticspanel.h"
#include "plan/layoutpanel.h"
#include "project/project.h"
#include "projectdocument.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>

#include <algorithm>

namespace {

constexpr const char* kLora = "llama3.1-70b-lora-1node";   // 8 x H100, Megatron, LoRA rank 16 on all four linears

template <class T>
T* field(MainWindow& w, const char* name) {
    return w.layoutPanel()->findChild<T*>(QString::fromLatin1(name));
}

// Picks the entry of the closed combo by typing the start of its text, as a user does (one
// activation); true when that entry is the current one then.
bool choose(QComboBox* c, const QString& text) {
    if (c->findText(text) < 0) return false;
    c->setFocus();
    QTest::qWait(QApplication::keyboardInputInterval() + 10);    // a new search, not the last one's tail
    QTest::keyClicks(c, text.section(QLatin1Char(' '), 0, 0));   // a space would open the list
    return c->currentText() == text;
}

// Scrolls the panel to the field and clicks it in its middle, as the user does.
void clickField(MainWindow& w, QWidget* f) {
    QScrollArea* scroll = w.layoutPanel()->findChild<QScrollArea*>();
    scroll->ensureWidgetVisible(f);
    QTest::mouseClick(f, Qt::LeftButton, {}, f->rect().center());
}

// Types `text` into the spin box as a new value and commits it with Enter.
void typeInto(MainWindow& w, QAbstractSpinBox* spin, const QString& text) {
    clickField(w, spin);
    spin->setFocus();
    QTest::keyClick(spin, Qt::Key_A, Qt::ControlModifier);   // select what is there
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
}

struct Figures {
    double trainable = -1;   // estimate peft.trainable_params
    double perGpu = -1;      // estimate peft.adapter_params_per_gpu
    double peak = -1;        // estimate memory.peak_bytes
    bool peft = false;
};

Figures figures(MainWindow& w) {
    Figures f;
    if (!w.document()->waitForAnalysis()) return f;
    const auto a = w.document()->analysis();
    if (!a->estimate) return f;
    f.trainable = a->estimate->peft.trainable_params;
    f.perGpu = a->estimate->peft.adapter_params_per_gpu;
    f.peak = a->estimate->memory.peak_bytes;
    f.peft = a->estimate->peft.present;
    return f;
}

QStringList ruleIds(MainWindow& w) {
    QStringList ids;
    QTreeWidget* tree = w.diagnosticsPanel()->tree();
    for (int i = 0; i < tree->topLevelItemCount(); ++i) ids << tree->topLevelItem(i)->text(1);
    return ids;
}

// The millions of adapter parameters as the panel writes them ("%1 M adapters").
QString millions(double params) { return QLocale().toString(params / 1e6, 'f', 1); }

}   // namespace

class TestLayoutPeft : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void loraExampleShowsItsValues() {
        auto w = shownExampleWindow(tmp_, kLora);
        QVERIFY(w);
        const auto& peft = *w->project().layout.peft;
        const Figures f = figures(*w);
        QVERIFY(f.peft && f.trainable > 0);
        QTest::qWait(10);   // the panel refreshes on the analysis
        QCOMPARE(field<QComboBox>(*w, "peft_method")->currentText(), QStringLiteral("LoRA"));
        auto* rank = field<QSpinBox>(*w, "peft_rank");
        QVERIFY(rank && rank->isEnabled());
        QCOMPARE(rank->value(), peft.rank);
        QCOMPARE(rank->value(), 16);
        QCOMPARE(field<QDoubleSpinBox>(*w, "peft_alpha")->value(), 32.0);
        for (const char* t : {"linear_qkv", "linear_proj", "linear_fc1", "linear_fc2"}) {
            auto* c = w->layoutPanel()->findChild<QCheckBox*>(QStringLiteral("peft_target_") + QLatin1String(t));
            QVERIFY2(c && c->isChecked() && c->isEnabled(), t);
        }
        QCOMPARE(field<QComboBox>(*w, "peft_base_dtype")->currentText(), QStringLiteral("bf16"));
        QCOMPARE(field<QComboBox>(*w, "fp4_recipe")->currentText(), QStringLiteral("none"));
        // The trainable parameters the estimate counts, in the panel.
        auto* trainable = field<QLabel>(*w, "peft_trainable");
        QTRY_VERIFY2(trainable->text().contains(millions(f.trainable) + QStringLiteral(" M adapters")),
                     qPrintable(trainable->text() + QStringLiteral(" vs ") + millions(f.trainable)));

        // A full-training example: the LoRA fields are there but off.
        auto full = shownExampleWindow(tmp_, "llama3.1-70b-4nodes");
        QVERIFY(full);
        QVERIFY(!full->project().layout.peft);
        QCOMPARE(field<QComboBox>(*full, "peft_method")->currentText(), QStringLiteral("full training"));
        QVERIFY(!field<QSpinBox>(*full, "peft_rank")->isEnabled());
        QVERIFY(!field<QWidget>(*full, "peft_targets")->isEnabled());
    }

    void rankTypedChangesTheEstimateAndUndoes() {
        auto w = shownExampleWindow(tmp_, kLora);
        QVERIFY(w);
        const Figures r16 = figures(*w);
        auto* rank = field<QSpinBox>(*w, "peft_rank");
        typeInto(*w, rank, QStringLiteral("64"));
        const Figures r64 = figures(*w);
        QCOMPARE(w->project().layout.peft->rank, 64);
        QCOMPARE(w->document()->undoStack()->undoText(), QStringLiteral("Set peft_rank to 64"));
        // LoRA's adapters are r (in + out) per targeted linear: four times the rank, four times the
        // adapters, and the memory grows (their gradients and optimizer states are the trainable part).
        QVERIFY2(std::abs(r64.trainable - 4 * r16.trainable) < 1e-6 * r64.trainable,
                 qPrintable(QStringLiteral("%1 vs %2").arg(r64.trainable).arg(r16.trainable)));
        QVERIFY2(r64.peak > r16.peak, qPrintable(QStringLiteral("%1 vs %2").arg(r64.peak).arg(r16.peak)));
        QTRY_VERIFY(field<QLabel>(*w, "peft_trainable")->text().startsWith(millions(r64.trainable) + " M"));

        QTest::keyClick(w.get(), Qt::Key_Z, Qt::ControlModifier);
        const Figures back = figures(*w);
        QCOMPARE(w->project().layout.peft->rank, 16);
        QCOMPARE(rank->value(), 16);
        QCOMPARE(back.trainable, r16.trainable);
        QCOMPARE(back.peak, r16.peak);
        QTest::keyClick(w.get(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);   // redo
        QCOMPARE(w->project().layout.peft->rank, 64);
        QCOMPARE(rank->value(), 64);
    }

    void targetsAndBaseDtype() {
        auto w = shownExampleWindow(tmp_, kLora);
        QVERIFY(w);
        const Figures all = figures(*w);
        auto* fc1 = field<QCheckBox>(*w, "peft_target_linear_fc1");
        clickField(*w, fc1);
        const Figures three = figures(*w);
        QVERIFY(!w->project().layout.peft->has_target(paraplan::LoraTarget::linear_fc1));
        QCOMPARE(int(w->project().layout.peft->targets.size()), 3);
        QVERIFY(three.trainable < all.trainable && three.trainable > 0);
        QCOMPARE(w->document()->undoStack()->undoText(),
                 QStringLiteral("Set LoRA targets to linear_qkv, linear_proj, linear_fc2"));
        // Clicked off down to none: core's reader refuses an empty list, the message says so and
        // the last box is ticked again.
        for (const char* t : {"peft_target_linear_qkv", "peft_target_linear_proj"})
            clickField(*w, field<QCheckBox>(*w, t));
        QCOMPARE(int(w->project().layout.peft->targets.size()), 1);
        auto* fc2 = field<QCheckBox>(*w, "peft_target_linear_fc2");
        QSignalSpy failed(w->layoutPanel(), &LayoutPanel::editFailed);
        clickField(*w, fc2);
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed.front().front().toString().contains(QStringLiteral("/layout/peft/targets")),
                 qPrintable(failed.front().front().toString()));
        QVERIFY(fc2->isChecked());
        QCOMPARE(int(w->project().layout.peft->targets.size()), 1);

        // An NF4 base: Megatron-core has none (rule peft.framework), marked on the method field.
        QVERIFY(choose(field<QComboBox>(*w, "peft_base_dtype"), QStringLiteral("nf4")));
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().layout.peft->base_dtype, paraplan::PeftBaseDtype::nf4);
        QTRY_VERIFY(ruleIds(*w).contains(QStringLiteral("peft.framework")));
        QVERIFY(field<QComboBox>(*w, "peft_method")->property("invalid").toBool());
    }

    void fullTrainingRemovesPeftAndLoraComesBack() {
        auto w = shownExampleWindow(tmp_, kLora);
        QVERIFY(w);
        const Figures lora = figures(*w);
        auto* method = field<QComboBox>(*w, "peft_method");
        QVERIFY(choose(method, QStringLiteral("full training")));
        const Figures full = figures(*w);
        QVERIFY(!w->project().layout.peft);
        QVERIFY(!paraplan::project_to_json(w->project())["layout"].contains("peft"));
        QCOMPARE(w->document()->undoStack()->undoText(), QStringLiteral("Train the full model"));
        QVERIFY(!full.peft);
        // Every weight trains: gradients and optimizer states for all 70 B parameters.
        QVERIFY2(full.peak > 1.5 * lora.peak, qPrintable(QStringLiteral("%1 vs %2").arg(full.peak).arg(lora.peak)));
        QVERIFY(!field<QSpinBox>(*w, "peft_rank")->isEnabled());
        QTRY_COMPARE(field<QLabel>(*w, "peft_trainable")->text(), QStringLiteral("all weights (full training)"));

        QTest::keyClick(w.get(), Qt::Key_Z, Qt::ControlModifier);
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(w->project().layout.peft);
        QCOMPARE(w->project().layout.peft->rank, 16);
        QCOMPARE(method->currentText(), QStringLiteral("LoRA"));
        QCOMPARE(figures(*w).peak, lora.peak);

        // LoRA chosen on a full-training project: Megatron-Bridge's defaults, as core gives them.
        QVERIFY(choose(method, QStringLiteral("full training")));
        QVERIFY(choose(method, QStringLiteral("LoRA")));
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(w->project().layout.peft == paraplan::default_lora());
        QCOMPARE(field<QSpinBox>(*w, "peft_rank")->value(), paraplan::default_lora().rank);
        QCOMPARE(w->document()->undoStack()->undoText(), QStringLiteral("Fine-tune with LoRA"));
    }

    void nvfp4OnH100IsTheGpuError() {
        auto w = shownExampleWindow(tmp_, kLora);
        QVERIFY(w);
        QCOMPARE(QString::fromStdString(w->project().cluster.nodes[0].gpu), QStringLiteral("h100-sxm"));
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(!ruleIds(*w).contains(QStringLiteral("kernel.fp4_gpu")));
        auto* fp4 = field<QComboBox>(*w, "fp4_recipe");
        QVERIFY(fp4);
        w->layoutPanel()->findChild<QScrollArea*>()->ensureWidgetVisible(fp4);
        QVERIFY(choose(fp4, QStringLiteral("nvfp4")));
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().layout.fp4_recipe, paraplan::Fp4Recipe::nvfp4);
        QCOMPARE(w->document()->undoStack()->undoText(), QStringLiteral("Set fp4_recipe to nvfp4"));
        QTRY_VERIFY2(ruleIds(*w).contains(QStringLiteral("kernel.fp4_gpu")), qPrintable(ruleIds(*w).join(' ')));
        const auto& ds = w->diagnosticsPanel()->diagnostics();
        const auto it = std::find_if(ds.begin(), ds.end(), [](const auto& d) { return d.rule == "kernel.fp4_gpu"; });
        QVERIFY(it != ds.end() && it->severity == paraplan::Severity::Error);
        QVERIFY(fp4->property("invalid").toBool());
        QVERIFY(fp4->toolTip().contains(QString::fromStdString(it->message).toHtmlEscaped()));

        QTest::keyClick(w.get(), Qt::Key_Z, Qt::ControlModifier);
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().layout.fp4_recipe, paraplan::Fp4Recipe::none);
        QTRY_VERIFY(!ruleIds(*w).contains(QStringLiteral("kernel.fp4_gpu")));
        QCOMPARE(fp4->currentText(), QStringLiteral("none"));
    }

    // On the 1280 x 800 screen the new fields scroll into view whole, none cut at the right.
    void newFieldsFitTheLaptopScreen() {
        auto w = shownExampleWindow(tmp_, kLora);
        QVERIFY(w);
        QVERIFY(w->width() <= 1280 && w->height() <= 800);
        QVERIFY(w->document()->waitForAnalysis());
        QTest::qWait(50);   // the panel's width fit (queued)
        LayoutPanel* panel = w->layoutPanel();
        QScrollArea* scroll = panel->findChild<QScrollArea*>();
        QWidget* port = scroll->viewport();
        for (const char* name :
             {"peft_method", "peft_rank", "peft_alpha", "peft_target_linear_qkv", "peft_target_linear_proj",
              "peft_target_linear_fc1", "peft_target_linear_fc2", "peft_base_dtype", "peft_trainable", "fp4_recipe"}) {
            QWidget* f = panel->findChild<QWidget*>(QString::fromLatin1(name));
            QVERIFY2(f, name);
            // Scrolled to, as the wheel or the scroll bar does (ensureWidgetVisible keeps only a
            // spin box's text cursor in view).
            scroll->verticalScrollBar()->setValue(f->mapTo(scroll->widget(), QPoint(0, 0)).y() - 20);
            QTest::qWait(1);
            const QRect at(f->mapTo(port, QPoint(0, 0)), f->size());
            const QString where = QStringLiteral("%1 at y %2..%3 in a %4 px high view, scrolled to %5 of %6")
                                      .arg(QString::fromLatin1(name))
                                      .arg(at.top())
                                      .arg(at.bottom())
                                      .arg(port->height())
                                      .arg(scroll->verticalScrollBar()->value())
                                      .arg(scroll->verticalScrollBar()->maximum());
            QVERIFY2(port->rect().contains(at), qPrintable(where));
            QVERIFY2(f->width() >= f->minimumSizeHint().width(), name);
        }
    }
};

PARAPLAN_SCREEN_TEST_MAIN(TestLayoutPeft, "laptop", 1280, 800)

#include "tst_layout_peft.moc"
