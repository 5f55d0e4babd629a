#include "views/passtimesbar.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>

using paraplan::estimate::PassTimes;
using paraplan::estimate::PassTimesChoice;
using paraplan::estimate::PassTimesMode;

namespace {
const QString kPaper = QStringLiteral("Qi et al. 2024, Zero Bubble Pipeline Parallelism (arXiv 2401.10241)");
}   // namespace

PassTimesBar::PassTimesBar(QWidget* parent) : QWidget(parent) {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    auto* label = new QLabel(tr("&Pass times:"), this);
    row->addWidget(label);
    mode_ = new QComboBox(this);
    mode_->setObjectName(QStringLiteral("passTimesMode"));
    // In PassTimesMode's order.
    mode_->addItem(tr("Equal (paper)"));
    mode_->setItemData(0, tr("F = B = W, the assumption of %1, section 2.1").arg(kPaper), Qt::ToolTipRole);
    mode_->addItem(tr("Estimate's"));
    mode_->setItemData(
        1, tr("The forward, input-gradient and weight-gradient times the estimate prices for its slowest stage"),
        Qt::ToolTipRole);
    mode_->addItem(tr("Custom"));
    mode_->setItemData(2, tr("Your own relative F, B and W"), Qt::ToolTipRole);
    mode_->setToolTip(tr("How long the timeline draws each pass. Equal (paper): F = B = W (%1, section 2.1). "
                         "Estimate's: the estimate's own per-pass times of its slowest stage, relative to its "
                         "forward. Custom: your own. Per stage, 1F1B idles (p − 1)(F + B + W) and ZB-H1 "
                         "(p − 1)(F + B − W) (Table 2).")
                          .arg(kPaper));
    mode_->setAccessibleName(tr("Pass times"));
    label->setBuddy(mode_);
    row->addWidget(mode_);
    const QString names[3] = {QStringLiteral("F"), QStringLiteral("B"), QStringLiteral("W")};
    const QString tips[3] = {
        tr("Forward pass F of one microbatch on one chunk (relative)"),
        tr("Backward for the inputs B: the gradient the previous stage waits for (relative)"),
        tr("Backward for the weights W: nothing waits for it until the optimizer, so zero-bubble schedules "
           "fill the bubble with it (relative; Qi et al. 2024, section 2)")};
    const char* ids[3] = {"passTimeForward", "passTimeBackwardInput", "passTimeBackwardWeight"};
    for (int i = 0; i < 3; ++i) {
        auto* l = new QLabel(names[i], this);
        row->addWidget(l);
        auto* s = new QDoubleSpinBox(this);
        s->setObjectName(QString::fromLatin1(ids[i]));
        s->setRange(paraplan::estimate::kMinPassTime, paraplan::estimate::kMaxPassTime);
        s->setDecimals(2);
        s->setSingleStep(0.1);
        s->setValue(1);
        s->setKeyboardTracking(false);   // a typed value redraws once, on Enter or leaving the box
        s->setToolTip(tips[i]);
        s->setAccessibleName(tips[i]);
        l->setBuddy(s);
        row->addWidget(s);
        spins_[i] = s;
        connect(s, &QDoubleSpinBox::valueChanged, this, [this] {
            choice_ = {PassTimesMode::Custom, spinValues()};
            const QSignalBlocker b(mode_);
            mode_->setCurrentIndex(int(PassTimesMode::Custom));
            emit choiceChanged(choice_);
        });
    }
    note_ = new QLabel(this);
    note_->setObjectName(QStringLiteral("passTimesNote"));
    row->addWidget(note_);
    row->addStretch(1);
    connect(mode_, &QComboBox::currentIndexChanged, this, [this](int i) {
        // Custom starts from the values shown (the estimate's, say), so one pass can be changed alone.
        choice_ = {PassTimesMode(i), i == int(PassTimesMode::Custom) ? spinValues() : PassTimes{}};
        emit choiceChanged(choice_);
    });
}

PassTimes PassTimesBar::spinValues() const { return {spins_[0]->value(), spins_[1]->value(), spins_[2]->value()}; }

void PassTimesBar::showValues(const PassTimes& t) {
    const double v[3] = {t.forward, t.backward_input, t.backward_weight};
    for (int i = 0; i < 3; ++i) {
        const QSignalBlocker b(spins_[i]);
        spins_[i]->setValue(v[i]);
    }
}

void PassTimesBar::setChoice(const PassTimesChoice& c) {
    choice_ = c;
    const QSignalBlocker b(mode_);
    mode_->setCurrentIndex(int(c.mode));
    if (c.mode == PassTimesMode::Custom) showValues(c.custom);
}

void PassTimesBar::showDrawn(const paraplan::estimate::ResolvedPassTimes& r) {
    showValues(r.times);
    QString note, tip;
    if (!r.note.empty()) {
        note = tr("(%1)").arg(QString::fromStdString(r.note));
    } else if (r.mode == PassTimesMode::Estimate) {
        note = tr("(F = %1 ms)").arg(r.forward_s * 1e3, 0, 'f', 1);
        tip = tr("F = %1 ms, B = %2 ms, W = %3 ms per microbatch on the estimate's slowest stage "
                 "(compute and exposed communication)")
                  .arg(r.forward_s * 1e3, 0, 'f', 2)
                  .arg(r.forward_s * r.times.backward_input * 1e3, 0, 'f', 2)
                  .arg(r.forward_s * r.times.backward_weight * 1e3, 0, 'f', 2);
    }
    // Only a change relays the row out (and so the chart under it).
    if (note != note_->text()) note_->setText(note);
    if (tip != note_->toolTip()) note_->setToolTip(tip);
}
