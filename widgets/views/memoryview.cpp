#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "views/memoryview.h"

#include "common/plotpalette.h"
#include "document/projecteditor.h"
#include "common/theme.h"

#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>

using paraplan::estimate::kGiB;

namespace {
struct Part {
    const char* name;
    double paraplan::estimate::StageMemory::*field;
};
const Part kParts[] = {
    {"parameters", &paraplan::estimate::StageMemory::params},
    {"gradients", &paraplan::estimate::StageMemory::grads},
    {"optimizer states", &paraplan::estimate::StageMemory::optimizer},
    {"activations", &paraplan::estimate::StageMemory::activations},
    {"other", &paraplan::estimate::StageMemory::other},
};
}   // namespace

MemoryView::MemoryView(ProjectEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("memorySummary"));
    summary_->setTextFormat(Qt::RichText);
    summary_->setWordWrap(true);
    summary_->setContentsMargins(8, 4, 8, 0);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    outer->addWidget(summary_);

    auto* split = new QSplitter(Qt::Horizontal, this);
    memPlot_ = new QCustomPlot(split);
    memPlot_->setObjectName(QStringLiteral("memoryPlot"));
    memPlot_->setMinimumSize(240, 160);
    memPlot_->xAxis->setLabel(tr("pipeline stage"));
    memPlot_->yAxis->setLabel(tr("GiB per GPU"));
    // The legend has its own row under the axes, so it never covers a bar (it hid stage 0).
    memPlot_->legend->setVisible(true);
    memPlot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    memPlot_->legend->setWrap(3);
    memPlot_->plotLayout()->addElement(1, 0, memPlot_->legend);
    memPlot_->plotLayout()->setRowStretchFactor(1, 0.001);
    memPlot_->legend->setMargins(QMargins(4, 2, 4, 2));
    QCPBars* below = nullptr;
    for (const Part& part : kParts) {
        auto* b = new QCPBars(memPlot_->xAxis, memPlot_->yAxis);
        b->setName(tr(part.name));
        b->setWidth(0.6);
        b->setStackingGap(0);
        if (below) b->moveAbove(below);
        below = b;
        memBars_.append(b);
    }
    timePlot_ = new QCustomPlot(split);
    timePlot_->setObjectName(QStringLiteral("timePlot"));
    timePlot_->setMinimumSize(240, 160);
    timePlot_->xAxis->setLabel(tr("seconds per step"));
    split->addWidget(memPlot_);
    split->addWidget(timePlot_);
    outer->addWidget(split, 1);
}

int MemoryView::stageCount() const { return memBars_.isEmpty() ? 0 : memBars_.first()->data()->size(); }

QString MemoryView::summaryText() const { return summary_->text(); }

void MemoryView::refresh() {
    // Estimated with the rest of the edit's analysis, off the GUI thread, over its rank map.
    const auto a = editor_->analysis();
    estimate_ = a->estimate;
    error_ = QString::fromStdString(a->estimate_error);
    drawMemory();
    drawTime();
    if (!estimate_) {
        summary_->setText(tr("<b>No estimate:</b> %1").arg(error_.toHtmlEscaped()));
        return;
    }
    const auto& t = estimate_->time;
    const auto& m = estimate_->memory;
    const QPalette pal = palette();
    const QString fit = m.fits ? tr("fits")
                               : QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                                     .arg(theme::errorColor(pal).name(), tr("does not fit"));
    // The error band beside the step (error_band.h): what published runs like this one missed by.
    const auto& band = estimate_->step_band;
    const QString step = band.high_s > band.low_s ? tr("%1 s (likely %2 to %3)")
                                                        .arg(t.step_s, 0, 'f', 3)
                                                        .arg(band.low_s, 0, 'f', 3)
                                                        .arg(band.high_s, 0, 'f', 3)
                                                  : tr("%1 s").arg(t.step_s, 0, 'f', 3);
    summary_->setText(tr("Peak %1 of %2 GiB per GPU (%3) · step %4 · MFU %5% · %6 tokens/s")
                          .arg(m.peak_bytes / kGiB, 0, 'f', 1)
                          .arg(m.capacity_bytes / kGiB, 0, 'f', 1)
                          .arg(fit, step)
                          .arg(100 * t.mfu, 0, 'f', 1)
                          .arg(QLocale().toString(t.tokens_per_s, 'f', 0)));
}

void MemoryView::drawMemory() {
    const QPalette pal = palette();
    memPlot_->clearItems();
    QVector<double> keys;
    QVector<QString> labels;
    if (estimate_)
        for (const auto& s : estimate_->memory.stages) {
            keys << s.stage;
            labels << QString::number(s.stage);
        }
    for (int i = 0; i < memBars_.size(); ++i) {
        QVector<double> values;
        if (estimate_)
            for (const auto& s : estimate_->memory.stages) values << s.*(kParts[i].field) / kGiB;
        memBars_[i]->setData(keys, values, true);
        const QColor c = theme::groupColor(i, pal);
        memBars_[i]->setBrush(c);
        memBars_[i]->setPen(QPen(c.darker(130)));
    }
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTicks(keys, labels);
    memPlot_->xAxis->setTicker(ticker);
    double top = 1;
    if (estimate_) {
        for (const auto& s : estimate_->memory.stages) top = std::max(top, s.total() / kGiB);
        const double cap = estimate_->memory.capacity_bytes / kGiB;
        top = std::max(top, cap);
        auto* line = new QCPItemStraightLine(memPlot_);
        line->setObjectName(QStringLiteral("capacityLine"));
        line->point1->setCoords(0, cap);
        line->point2->setCoords(1, cap);
        line->setPen(QPen(theme::errorColor(pal), 2, Qt::DashLine));
        memPlot_->yAxis->setLabel(tr("GiB per GPU (capacity %1)").arg(cap, 0, 'f', 0));
    }
    memPlot_->xAxis->setRange(keys.isEmpty() ? -0.5 : keys.first() - 0.6, keys.isEmpty() ? 0.5 : keys.last() + 0.6);
    memPlot_->yAxis->setRange(0, top * 1.1);
    applyPlotPalette(memPlot_, pal);
    memPlot_->replot();
}

void MemoryView::drawTime() {
    const QPalette pal = palette();
    timePlot_->clearPlottables();
    applyPlotPalette(timePlot_, pal);
    if (!estimate_) {
        timePlot_->replot();
        return;
    }
    const auto& t = estimate_->time;
    const std::pair<QString, double> parts[] = {
        {tr("compute"), t.compute_s}, {tr("tp comm"), t.comm_tp_s},     {tr("cp comm"), t.comm_cp_s},
        {tr("ep comm"), t.comm_ep_s}, {tr("pp comm"), t.comm_pp_s},     {tr("dp comm"), t.comm_dp_s},
        {tr("bubble"), t.bubble_s},   {tr("optimizer"), t.optimizer_s}, {tr("offload"), t.offload_s},
    };
    QVector<double> keys, values;
    QVector<QString> labels;
    int k = 0;
    for (const auto& [name, v] : parts) {
        keys << k;
        values << v;
        labels << name;
        ++k;
    }
    // Horizontal bars: the key axis is the y axis.
    auto* bars = new QCPBars(timePlot_->yAxis, timePlot_->xAxis);
    bars->setObjectName(QStringLiteral("timeBars"));
    bars->setData(keys, values, true);
    bars->setWidth(0.7);
    bars->setBrush(theme::groupColor(1, pal));
    bars->setPen(Qt::NoPen);
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    ticker->addTicks(keys, labels);
    timePlot_->yAxis->setTicker(ticker);
    timePlot_->yAxis->setRangeReversed(true);
    timePlot_->yAxis->setRange(-0.6, k - 0.4);
    double top = 0;
    for (double v : values) top = std::max(top, v);
    timePlot_->xAxis->setRange(0, top > 0 ? top * 1.1 : 1);
    timePlot_->xAxis->setLabel(tr("seconds per step (total %1 s)").arg(t.step_s, 0, 'f', 3));
    applyPlotPalette(timePlot_, pal);   // again, now that the term axis has its text ticker
    timePlot_->replot();
}
