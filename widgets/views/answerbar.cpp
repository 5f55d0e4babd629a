#include "views/answerbar.h"

#include "document/projecteditor.h"
#include "common/theme.h"

#include <QHBoxLayout>
#include <QLocale>
#include <QToolButton>

using paraplan::estimate::kGiB;

namespace {
QToolButton* figureButton(QWidget* parent, const QString& name, const QString& tip) {
    auto* b = new QToolButton(parent);
    b->setObjectName(name);
    b->setAutoRaise(true);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setFocusPolicy(Qt::TabFocus);
    b->setToolTip(tip);
    b->setProperty("baseToolTip", tip);   // without the updating note (applyLook)
    return b;
}
}   // namespace

AnswerBar::AnswerBar(ProjectEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
    setObjectName(QStringLiteral("answerBar"));
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(4, 0, 4, 0);
    row->setSpacing(2);
    memory_ = figureButton(this, QStringLiteral("answerMemory"),
                           tr("Peak memory of one GPU (the fullest pipeline stage) against the GPU's capacity: "
                              "click for the breakdown"));
    step_ = figureButton(this, QStringLiteral("answerStep"), tr("Time of one training step: click for the breakdown"));
    mfu_ = figureButton(this, QStringLiteral("answerMfu"),
                        tr("Model FLOPs utilisation: the model's FLOPs per second over the GPUs' peak"));
    tokens_ = figureButton(this, QStringLiteral("answerTokens"), tr("Training tokens per second over all GPUs"));
    problem_ = figureButton(this, QStringLiteral("answerProblem"), QString());
    for (QToolButton* b : {memory_, step_, mfu_, tokens_, problem_}) {
        row->addWidget(b);
        connect(b, &QToolButton::clicked, this, [this] { emit viewRequested(QStringLiteral("memory")); });
    }
    refresh();
}

// The step's tooltip: where a click leads, and the band around the figure (error_band.h).
QString AnswerBar::stepToolTip(const paraplan::estimate::Estimate& e) {
    const QString click = tr("Time of one training step: click for the breakdown");
    const auto& b = e.step_band;
    if (!(b.high_s > b.low_s)) return click;
    return tr("%1\nLikely %2 to %3 s: how far %4 held-out published runs like this one (%5) fell from their "
              "estimates, applied to this one; about %6% of runs like these land inside.")
        .arg(click)
        .arg(b.low_s, 0, 'f', 3)
        .arg(b.high_s, 0, 'f', 3)
        .arg(b.runs)
        .arg(QString::fromStdString(paraplan::estimate::alike_text(b)))
        .arg(100 * b.coverage, 0, 'f', 0);
}

void AnswerBar::refresh() {
    const auto a = editor_->latestAnalysis();
    const bool has = a && a->estimate;
    for (QToolButton* b : {memory_, step_, mfu_, tokens_}) b->setVisible(has);
    problem_->setVisible(!has);
    if (!has) {
        const QString why = a ? QString::fromStdString(a->estimate_error) : QString();
        problem_->setText(tr("No estimate"));
        problem_->setProperty("baseToolTip", why.isEmpty() ? tr("The estimate is being worked out") : why);
        applyLook();
        return;
    }
    const auto& m = a->estimate->memory;
    const auto& t = a->estimate->time;
    memory_->setText((m.fits ? tr("%1 / %2 GiB per GPU") : tr("%1 / %2 GiB per GPU: does not fit"))
                         .arg(m.peak_bytes / kGiB, 0, 'f', 1)
                         .arg(m.capacity_bytes / kGiB, 0, 'f', 1));
    fits_ = m.fits;
    step_->setText(tr("step %1 s").arg(t.step_s, 0, 'f', 3));
    step_->setProperty("baseToolTip", stepToolTip(*a->estimate));
    mfu_->setText(tr("MFU %1%").arg(100 * t.mfu, 0, 'f', 1));
    tokens_->setText(tr("%1 tokens/s").arg(QLocale().toString(t.tokens_per_s, 'f', 0)));
    applyLook();
}

void AnswerBar::setUpdating(bool on) {
    if (on == updating_) return;
    updating_ = on;
    applyLook();
}

void AnswerBar::applyLook() {
    for (QToolButton* b : {memory_, step_, mfu_, tokens_, problem_}) {
        QPalette pal = palette();
        if (updating_) pal.setColor(QPalette::ButtonText, pal.color(QPalette::PlaceholderText));
        else if (b == memory_ && !fits_) pal.setColor(QPalette::ButtonText, theme::errorColor(palette()));
        b->setPalette(pal);
        // The tooltip as built, with the note in front while the figure is of the state before.
        const QString tip = b->property("baseToolTip").toString();
        b->setToolTip(updating_ ? tr("Updating for the last edit: this is the figure before it.\n%1").arg(tip) : tip);
    }
}

QToolButton* AnswerBar::button(const QString& figure) const {
    if (figure == QLatin1String("memory")) return memory_;
    if (figure == QLatin1String("step")) return step_;
    if (figure == QLatin1String("mfu")) return mfu_;
    if (figure == QLatin1String("tokens")) return tokens_;
    if (figure == QLatin1String("problem")) return problem_;
    return nullptr;
}

QString AnswerBar::text(const QString& figure) const {
    const QToolButton* b = button(figure);
    return b && !b->isHidden() ? b->text() : QString();
}
