// The Layout panel's fields: one builder per kind of value (whole numbers, divisors of the world size,
// choices, switches, decimals, the cluster profile), each edit applied as one undoable step.
#include "plan/layoutpanel.h"
#include "util/divisors.h"
#include "common/wheel_guard.h"

#include "catalog/catalog.h"
#include "estimate/moe.h"
#include "estimate/profile.h"
#include "project/project_gpu.h"
#include "document/projecteditor.h"
#include "project/framework.h"
#include "schedule/generate.h"
#include "common/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QRegularExpression>
#include <QRegularExpressionValidator>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

using paraplan::Project;

namespace {
constexpr int kOpenFileRole = Qt::UserRole + 1;   // the profile field's "Open file..." entry

nlohmann::json toJson(const QVariant& v) {
    switch (v.typeId()) {
    case QMetaType::Bool: return v.toBool();
    case QMetaType::Int: return v.toInt();
    case QMetaType::Double: return v.toDouble();
    default: return v.toString().toStdString();
    }
}

QString valueText(const QVariant& v) {
    if (v.typeId() == QMetaType::Bool) return v.toBool() ? QStringLiteral("on") : QStringLiteral("off");
    return v.toString();
}
}   // namespace

QFormLayout* LayoutPanel::addGroup(const QString& title) {
    auto* box = new QGroupBox(title, this);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    form->setContentsMargins(8, 4, 8, 4);   // compact: the primary fields fit an 800 px screen
    form->setVerticalSpacing(4);
    groups_->addWidget(box);
    return form;
}

void LayoutPanel::addField(QFormLayout* form, const QString& pointer, const QString& label, QWidget* w,
                           const QString& tooltip, std::function<void()> load) {
    auto* l = new QLabel(label, this);
    l->setToolTip(tooltip);
    l->setBuddy(w);
    paraplan::widgets::guardWheel(w);   // the wheel scrolls the panel unless the field has focus
    w->setToolTip(tooltip);
    w->setWhatsThis(tooltip);
    form->addRow(l, w);
    fields_.insert(pointer, Field{w, l, std::move(load), tooltip, {}});
}

void LayoutPanel::apply(const QString& label, const QString& pointer, const QVariant& value) {
    if (loading_) return;
    QString err;
    if (!editor_->applyChanges(tr("Set %1 to %2").arg(label, valueText(value)),
                               {{pointer.toStdString(), toJson(value)}}, &err)) {
        emit editFailed(err);
        refresh();   // put the widget back to the project's value
    }
}

void LayoutPanel::addInt(QFormLayout* form, const QString& pointer, const QString& label, const QString& name, int min,
                         int max, const QString& tooltip, const std::function<int(const Project&)>& get,
                         const QString& zeroText) {
    auto* spin = new QSpinBox(this);
    spin->setObjectName(name);
    spin->setRange(min, max);
    spin->setKeyboardTracking(false);   // one undo step per committed value, not per keystroke
    spin->setAccelerated(true);
    if (!zeroText.isEmpty()) spin->setSpecialValueText(zeroText);
    addField(form, pointer, label, spin, tooltip, [this, spin, get] { spin->setValue(get(editor_->project())); });
    connect(spin, &QSpinBox::valueChanged, this, [this, name, pointer](int v) { apply(name, pointer, v); });
}

void LayoutPanel::addDivisor(QFormLayout* form, const QString& pointer, const QString& label, const QString& name,
                             const QString& tooltip, const std::function<int(const Project&)>& get) {
    auto* combo = new QComboBox(this);
    combo->setObjectName(name);
    combo->setEditable(true);
    combo->setInsertPolicy(QComboBox::NoInsert);
    // Whatever is typed shows as typed (a validator that drops '-' or 'e' turned "-3" into 3 and
    // "1e9" into 19); on Enter or leaving the field a value that is not a whole number in range is
    // refused with the range, and the field shows the project's value again.
    combo->lineEdit()->setValidator(
        new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[-+0-9.,eE ]{0,16}")), combo));
    // No inline completion: a typed number is the number (with 32 GPUs, "3" and Enter must set 3,
    // not complete to the offered 32).
    combo->setCompleter(nullptr);
    addField(form, pointer, label, combo, tooltip, [this, combo, get] {
        const Project& p = editor_->project();
        // Offer the sizes that divide the world size; any other value can be typed
        // and is then reported by the rules. Refilled only when the world size changed.
        const int world = std::max(1, p.world_size());
        if (combo->property("world").toInt() != world) {
            combo->clear();
            for (int d : paraplan::divisors(world)) combo->addItem(QString::number(d), d);
            combo->setProperty("world", world);
        }
        const int v = get(p);
        const int i = combo->findData(v);
        if (i >= 0) combo->setCurrentIndex(i);
        combo->setEditText(QString::number(v));   // also over text typed but refused
    });
    auto commit = [this, combo, name, pointer, get] {
        constexpr int kMax = 1'000'000;
        bool ok = false;
        const QString text = combo->currentText().trimmed();
        const int v = text.toInt(&ok);
        if (!ok || v < 1 || v > kMax) {
            emit editFailed(tr("%1: \"%2\" is not allowed: a whole number from 1 to %3").arg(name, text).arg(kMax));
            refresh();   // show what the project holds
            return;
        }
        if (v != get(editor_->project())) apply(name, pointer, v);
    };
    connect(combo, &QComboBox::activated, this, commit);
    connect(combo->lineEdit(), &QLineEdit::editingFinished, this, commit);
}

void LayoutPanel::addChoice(QFormLayout* form, const QString& pointer, const QString& label, const QString& name,
                            const std::vector<std::string>& options, const QString& tooltip,
                            const std::function<std::string(const Project&)>& get, bool editable) {
    auto* combo = new QComboBox(this);
    combo->setObjectName(name);
    combo->setEditable(editable);
    for (const auto& o : options) combo->addItem(QString::fromStdString(o));
    addField(form, pointer, label, combo, tooltip, [this, combo, get] {
        const QString v = QString::fromStdString(get(editor_->project()));
        if (combo->findText(v) < 0) combo->addItem(v);
        combo->setCurrentText(v);
    });
    auto commit = [this, combo, name, pointer, get] {
        const QString v = combo->currentText();
        if (!v.isEmpty() && v.toStdString() != get(editor_->project())) apply(name, pointer, v);
    };
    connect(combo, &QComboBox::activated, this, commit);
    if (editable) connect(combo->lineEdit(), &QLineEdit::editingFinished, this, commit);
}

void LayoutPanel::addBool(QFormLayout* form, const QString& pointer, const QString& label, const QString& name,
                          const QString& tooltip, const std::function<bool(const Project&)>& get) {
    auto* check = new QCheckBox(this);
    check->setObjectName(name);
    addField(form, pointer, label, check, tooltip, [this, check, get] { check->setChecked(get(editor_->project())); });
    connect(check, &QCheckBox::toggled, this, [this, name, pointer](bool v) { apply(name, pointer, v); });
}

void LayoutPanel::addDouble(QFormLayout* form, const QString& pointer, const QString& label, const QString& name,
                            double min, double max, double step, const QString& tooltip,
                            const std::function<double(const Project&)>& get, const QString& specialText) {
    auto* spin = new QDoubleSpinBox(this);
    spin->setObjectName(name);
    spin->setRange(min, max);
    spin->setSingleStep(step);
    spin->setDecimals(2);
    spin->setKeyboardTracking(false);   // one undo step per committed value
    if (!specialText.isEmpty()) spin->setSpecialValueText(specialText);
    // The minimum shows the special text and stands for the project's 0 ("unset").
    addField(form, pointer, label, spin, tooltip, [this, spin, get, min] {
        const double v = get(editor_->project());
        spin->setValue(v == 0 ? min : v);
    });
    connect(spin, &QDoubleSpinBox::valueChanged, this,
            [this, name, pointer, min](double v) { apply(name, pointer, v <= min + 1e-9 ? 0.0 : v); });
}

void LayoutPanel::addKernelStack(QFormLayout* form) {
    auto* combo = new QComboBox(this);
    combo->setObjectName(QStringLiteral("kernels"));
    for (const auto& o : paraplan::kKernelStacks) combo->addItem(QString::fromStdString(o), QString::fromStdString(o));
    addField(form, QStringLiteral("/layout/kernels"), tr("Kernel stack"), combo,
             tr("Which kernels run the layers. te: Transformer Engine or the framework's fused kernels; compile: "
                "torch.compile fuses PyTorch's operations; eager: plain PyTorch operations, one kernel each. auto "
                "is the framework's default (in brackets). Faster kernels reach a larger share of the GPU's peak, "
                "which the time estimate uses."),
             [this, combo] {
                 using paraplan::to_string;
                 const Project& p = editor_->project();
                 paraplan::Layout l = p.layout;
                 l.kernels = paraplan::KernelStack::framework;   // "auto" for this framework and these switches
                 combo->setItemText(0, tr("auto (%1)").arg(QLatin1String(to_string(paraplan::kernel_stack(l)))));
                 combo->setCurrentIndex(std::max(0, combo->findData(QLatin1String(to_string(p.layout.kernels)))));
             });
    connect(combo, &QComboBox::activated, this, [this, combo](int i) {
        const QString v = combo->itemData(i).toString();
        if (!v.isEmpty() && v != QLatin1String(paraplan::to_string(editor_->project().layout.kernels)))
            apply(QStringLiteral("kernels"), QStringLiteral("/layout/kernels"), v);
    });
}

// The schedule table's names (project/layout_enums.h); "interleaved" shows which schedule it is for the
// layout's framework (resolved_schedule), as the Kernel stack's "auto" shows the framework's stack.
void LayoutPanel::addSchedule(QFormLayout* form) {
    auto* combo = new QComboBox(this);
    combo->setObjectName(QStringLiteral("schedule"));
    const auto names = paraplan::enum_names<paraplan::Schedule>();
    for (const auto& o : names) combo->addItem(QString::fromStdString(o), QString::fromStdString(o));
    const int own = combo->findData(QLatin1String(paraplan::to_string(paraplan::Schedule::interleaved)));
    addField(form, QStringLiteral("/layout/schedule"), tr("Schedule"), combo,
             tr("The order in which stages run forward (F) and backward (B, W) passes of the microbatches. gpipe: "
                "all forwards then all backwards; 1f1b: one forward, one backward once the pipe is full (less "
                "memory); interleaved: several model chunks per stage (smaller bubble), the framework's own (in "
                "brackets); zero-bubble schedules split the backward into input (B) and weight (W) gradients to "
                "fill the bubbles."),
             [this, combo, own] {
                 using paraplan::to_string;
                 const Project& p = editor_->project();
                 const paraplan::Schedule mine = paraplan::resolved_schedule(paraplan::Schedule::interleaved,
                                                                             p.layout.framework);
                 combo->setItemText(own, tr("interleaved (%1)").arg(QLatin1String(to_string(mine))));
                 combo->setCurrentIndex(std::max(0, combo->findData(QLatin1String(to_string(p.layout.schedule)))));
             });
    connect(combo, &QComboBox::activated, this, [this, combo](int i) {
        const QString v = combo->itemData(i).toString();
        if (!v.isEmpty() && v != QLatin1String(paraplan::to_string(editor_->project().layout.schedule)))
            apply(QStringLiteral("schedule"), QStringLiteral("/layout/schedule"), v);
    });
}

void LayoutPanel::addProfile(QFormLayout* form) {
    auto* combo = new QComboBox(this);
    combo->setObjectName(QStringLiteral("profile"));
    addField(form, QStringLiteral("/estimate/profile"), tr("Cluster profile"), combo,
             tr("Efficiency multipliers measured on your own cluster by paraplan-cli calibrate (from logged runs), "
                "applied to every estimate, the memory and timeline views and the planner. none: the built-in "
                "constants. Profiles are read from %1; Open file... picks any profile file.")
                 .arg(QDir::toNativeSeparators(QString::fromStdString(paraplan::estimate::profile_dir()))),
             [this, combo] { loadProfiles(combo); });
    connect(combo, &QComboBox::activated, this, [this, combo](int i) {
        if (loading_) return;
        QString v = combo->itemData(i).toString();
        if (combo->itemData(i, kOpenFileRole).toBool()) {
            v = chooseProfileFile_
                    ? chooseProfileFile_()
                    : QFileDialog::getOpenFileName(this, tr("Cluster profile"),
                                                   QString::fromStdString(paraplan::estimate::profile_dir()),
                                                   tr("Profiles (*.json)"));
            if (v.isEmpty()) return refresh();   // cancelled: show the project's profile again
            // A file in the profiles folder is kept by its name, as the CLI's --profile NAME.
            const QFileInfo fi(v);
            if (fi.suffix() == QLatin1String("json") &&
                fi.absoluteDir() == QDir(QString::fromStdString(paraplan::estimate::profile_dir())))
                v = fi.completeBaseName();
        }
        if (!setProfile(v)) refresh();
    });
}

void LayoutPanel::loadProfiles(QComboBox* combo) {
    combo->clear();
    combo->addItem(tr("none (built-in)"), QString());
    const QDir dir(QString::fromStdString(paraplan::estimate::profile_dir()));
    for (const QFileInfo& fi :
         dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files | QDir::Readable, QDir::Name)) {
        const QString name = fi.fileName().chopped(5);
        combo->addItem(name, name);
        combo->setItemData(combo->count() - 1, QDir::toNativeSeparators(fi.absoluteFilePath()), Qt::ToolTipRole);
    }
    const QString current = QString::fromStdString(
        paraplan::estimate::project_profile(editor_->project()).value_or(""));
    int at = combo->findData(current);
    if (at < 0) {
        // A file elsewhere, or a name whose file is gone (the findings say why it cannot be used).
        const QString path = QString::fromStdString(paraplan::estimate::profile_path(current.toStdString()));
        const QString shown = QFileInfo(current).fileName();
        combo->addItem(QFileInfo::exists(path) ? shown : tr("%1 (missing)").arg(shown), current);
        at = combo->count() - 1;
        combo->setItemData(at, QDir::toNativeSeparators(path), Qt::ToolTipRole);
    }
    combo->addItem(tr("Open file..."));
    combo->setItemData(combo->count() - 1, true, kOpenFileRole);
    combo->setCurrentIndex(at);
}

bool LayoutPanel::setProfile(const QString& nameOrFile) {
    const std::string v = nameOrFile.toStdString();
    if (v == paraplan::estimate::project_profile(editor_->project()).value_or("")) return true;
    QString err;
    const bool ok = editor_->edit(
        v.empty() ? tr("Estimate without a cluster profile")
                  : tr("Set cluster profile to %1").arg(QFileInfo(nameOrFile).fileName()),
        [&v](Project& p) {
            if (v.empty()) paraplan::estimate::clear_project_profile(p);
            else paraplan::estimate::set_project_profile(p, v);
        },
        &err);
    if (!ok) emit editFailed(err);
    return ok;
}

void LayoutPanel::enableWhen(const QString& pointer, std::function<bool(const Project&)> when) {
    const auto it = fields_.find(pointer);
    if (it != fields_.end()) it->enabled = std::move(when);
}
