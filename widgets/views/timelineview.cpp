#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "views/timelineview.h"
#include "common/wording.h"

#include "estimate/project_timeline.h"
#include "estimate/step_flushes.h"
#include "views/passtimesbar.h"
#include "views/ganttplottable.h"
#include "document/projecteditor.h"
#include "schedule/generate.h"
#include "schedule/simulate.h"
#include "schedule/trace_export.h"
#include "common/picture_export.h"
#include "common/theme.h"
#include "topology/rank_map.h"

#include <algorithm>

#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

using namespace paraplan::schedule;

namespace {
// How the step the estimate prices lays out the schedule drawn `tl`, in `tl`'s unit (`unit_s`
// seconds; <= 0: relative, the reduction then keeps its share of a flush). One flush and no
// reduction without an estimate of this schedule.
GanttPlottable::Flushes flushesOf(const paraplan::estimate::Estimate* e, const Timeline& tl, bool repeat, double unit_s,
                                  QString* note, double* sync_ms) {
    GanttPlottable::Flushes fl;
    note->clear();
    *sync_ms = 0;
    if (!e || tl.ops.empty() || (repeat && e->config.num_microbatches != tl.microbatches)) return fl;
    const paraplan::estimate::StepFlushes sf = paraplan::estimate::step_flushes(*e);
    if (sf.flush_s <= 0) return fl;
    const double per_s = unit_s > 0 ? 1 / unit_s : tl.makespan / sf.flush_s;
    fl.count = sf.flushes;
    fl.repeat = repeat;
    fl.flush = repeat ? 0 : sf.flush_s * per_s;
    fl.sync = sf.sync_s * per_s;
    fl.sync_each_flush = sf.sync_each_flush;
    *sync_ms = sf.sync_s * 1e3;
    if (sf.flushes == 1 && sf.sync_s <= 0) return fl;   // the schedule drawn is the whole step
    const auto ms_at = [](double s, int d) { return QString::number(s * 1e3, 'f', d); };
    const auto decimals = [](double s) { return s < 1 ? 1 : 0; };
    const auto ms = [&](double s) { return ms_at(s, decimals(s)); };
    // The factors are the priced values with enough digits that count x per-flush (+ syncs x per-sync)
    // rounds to the total as shown (8 flushes x 5200.18 ms = 41601 ms, not 8 x 5200 ms = 41601 ms).
    const int total_decimals = decimals(sf.pipeline_s());
    const QString total = ms(sf.pipeline_s());
    const int syncs = sf.sync_s > 0 ? std::max(1, sf.syncs) : 0;
    int digits = total_decimals;
    while (digits < total_decimals + 4 && QString::number(sf.flushes * ms_at(sf.flush_s, digits).toDouble() +
                                                              syncs * ms_at(sf.sync_s, digits).toDouble(),
                                                          'f', total_decimals) != total)
        ++digits;
    const auto factor = [&](double s) { return ms_at(s, digits); };
    *note = sf.flushes > 1 ? QObject::tr("<b>%1 flushes</b> × %2 ms").arg(sf.flushes).arg(factor(sf.flush_s))
                           : QObject::tr("1 flush of %1 ms").arg(factor(sf.flush_s));
    if (sf.sync_s > 0) {
        const QString mark = QStringLiteral("<span style='color:%1'>■</span> ")
                                 .arg(GanttPlottable::syncColor(QApplication::palette()).name());
        *note += sf.syncs > 1
                     ? QObject::tr(" + %1gradient sync %2 × %3 ms").arg(mark).arg(sf.syncs).arg(factor(sf.sync_s))
                     : QObject::tr(" + %1gradient sync %2 ms").arg(mark, factor(sf.sync_s));
    }
    *note = QObject::tr("step (estimate): %1 = %2 ms, then the optimizer %3 ms")
                .arg(*note, total, ms(sf.optimizer_s + sf.offload_s));
    return fl;
}
// The bubble per stage in the timeline's unit and against 1F1B's for the same passes (core's
// timeline_bubble(): Qi et al. 2024 Table 2), e.g. ", 5.39 per stage = 0.61 × 1F1B's".
QString bubbleReadout(const Timeline& t, const paraplan::estimate::PassTimes& passes) {
    const paraplan::estimate::TimelineBubble b = paraplan::estimate::timeline_bubble(t, passes);
    if (t.pp < 2) return {};
    return QObject::tr(", %1 per stage = %2 × 1F1B's").arg(b.per_stage, 0, 'f', 2).arg(b.vs_1f1b, 0, 'f', 2);
}
}   // namespace

TimelineView::TimelineView(ProjectEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* bar = new QHBoxLayout;
    bar->setContentsMargins(8, 4, 8, 0);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("timelineSummary"));
    summary_->setTextFormat(Qt::RichText);
    summary_->setWordWrap(true);
    bar->addWidget(summary_, 1);
    auto* fit = new QToolButton(this);
    fit->setText(tr("Fit"));
    fit->setToolTip(tr("Show the whole step"));
    bar->addWidget(fit);
    auto* exp = new QToolButton(this);
    exp->setText(tr("Export…"));
    exp->setToolTip(tr("Save the chart as PNG, SVG or PDF, or the timeline as a Perfetto/Chrome trace (.json)"));
    bar->addWidget(exp);
    outer->addLayout(bar);
    passBar_ = new PassTimesBar(this);
    passBar_->setContentsMargins(8, 0, 8, 0);
    outer->addWidget(passBar_);
    connect(passBar_, &PassTimesBar::choiceChanged, this, [this] { refresh(); });

    plot_ = new QCustomPlot(this);
    plot_->setObjectName(QStringLiteral("timelinePlot"));
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);   // pan and zoom along time only
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->setNoAntialiasingOnDrag(true);
    plot_->setPlottingHints(QCP::phCacheLabels | QCP::phFastPolylines);
    plot_->yAxis->setRangeReversed(true);   // stage 0 on top
    plot_->yAxis->setLabel(tr("pipeline stage"));
    plot_->yAxis->grid()->setVisible(false);
    plot_->setMouseTracking(true);
    gantt_ = new GanttPlottable(plot_->xAxis, plot_->yAxis);
    outer->addWidget(plot_, 1);

    connect(fit, &QToolButton::clicked, this, [this] {
        plot_->rescaleAxes();
        plot_->replot();
    });
    connect(exp, &QToolButton::clicked, this, &TimelineView::exportDialog);
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        int flush = 0;
        const TimelineOp* op = gantt_->opAt(e->position(), &flush);
        if (!op) {
            const int after = gantt_->syncAt(e->position());
            if (after >= 0)
                QToolTip::showText(e->globalPosition().toPoint(),
                                   tr("<b>gradient sync</b> (data parallel) after flush %1 of %2<br>%3 ms exposed "
                                      "(estimate)")
                                       .arg(after + 1)
                                       .arg(gantt_->flushes().count)
                                       .arg(syncMs_, 0, 'f', 1),
                                   plot_);
            else QToolTip::hideText();
            return;
        }
        const char* what = op->kind == OpKind::Forward          ? "forward (F)"
                           : op->kind == OpKind::BackwardInput  ? "backward for inputs (B)"
                           : op->kind == OpKind::BackwardWeight ? "backward for weights (W)"
                                                                : "backward (B, input + weight)";
        // A flush drawn from the first: its ops shifted along time, microbatches numbered on.
        const auto& fl = gantt_->flushes();
        const bool shifted = fl.repeat && fl.count > 1;
        const double off = shifted ? gantt_->flushStart(flush) : 0;
        const int mb = op->microbatch + (shifted && gantt_->timeline() ? flush * gantt_->timeline()->microbatches : 0);
        QString where = tr("stage %1 · microbatch %2 · chunk %3").arg(op->stage).arg(mb).arg(op->chunk);
        if (fl.count > 1) where += tr(" · flush %1 of %2").arg(flush + 1).arg(fl.count);
        QToolTip::showText(e->globalPosition().toPoint(),
                           tr("<b>%1</b><br>%2<br>%3 → %4 (%5)")
                               .arg(QString::fromLatin1(what), where)
                               .arg(op->start + off, 0, 'g', 4)
                               .arg(op->end + off, 0, 'g', 4)
                               .arg(op->end - op->start, 0, 'g', 3),
                           plot_);
    });
    refresh();
}

void TimelineView::refresh() {
    const auto& p = editor_->project();
    // Simulated with the rest of the edit's analysis, off the GUI thread.
    const auto a = editor_->analysis();
    const PipelineSimulation& sim = *a->pipeline;
    QString note;
    if (sim.derived_dp > 0)
        note = tr(" (derived: global batch %1 / (microbatch %2 × dp %3))")
                   .arg(p.training.global_batch_size)
                   .arg(p.training.micro_batch_size)
                   .arg(sim.derived_dp);
    const QPalette pal = palette();
    // The step's flushes and reductions as the estimate prices them (an edit of the batch or dp
    // can change them under the same schedule).
    QString stepNote;
    double syncMs = 0;

    // The pass times drawn (core resolves the row's choice against this edit's estimate); with any
    // other than F = B = W the view simulates the schedule itself, once per request and pass times.
    const paraplan::estimate::ResolvedPassTimes drawn = paraplan::estimate::resolve_pass_times(
        passBar_->choice(), a->estimate ? &*a->estimate : nullptr);
    const bool equal = drawn.times == paraplan::estimate::PassTimes{};
    const bool passesSame = drawn.times == passDrawn_.times && drawn.mode == passDrawn_.mode &&
                            drawn.forward_s == passDrawn_.forward_s && drawn.note == passDrawn_.note;
    if (equal) {
        own_.reset();
        ownFor_.reset();
    } else if (ownFor_ != a->pipeline || !(ownTimes_ == drawn.times)) {
        paraplan::estimate::ProjectTimeline t = paraplan::estimate::relative_timeline(sim.request, drawn.times);
        own_ = std::move(t.timeline);
        ownProblem_ = QString::fromStdString(t.problem);
        ownFor_ = a->pipeline;
        ownTimes_ = drawn.times;
    }
    if (!passesSame) passBar_->showDrawn(drawn);
    passDrawn_ = drawn;
    const std::optional<Timeline>& tl = equal ? sim.timeline : own_;
    const GanttPlottable::Flushes fl = tl ? flushesOf(a->estimate ? &*a->estimate : nullptr, *tl, true, 0, &stepNote,
                                                      &syncMs)
                                          : GanttPlottable::Flushes{};
    const auto same = [](const GanttPlottable::Flushes& x, const GanttPlottable::Flushes& y) {
        return x.count == y.count && x.repeat == y.repeat && x.flush == y.flush && x.sync == y.sync &&
               x.sync_each_flush == y.sync_each_flush;
    };
    // The same simulation (an edit that left the schedule alone shares it), note and colours:
    // the chart already shows it, so it is not replotted (32,768 blocks at 64 stages x 256
    // microbatches).
    if (!playback_ && a->pipeline == sim_ && note == note_ && pal == palette_ && same(fl, gantt_->flushes()) &&
        stepNote == stepNote_ && passesSame)
        return;
    sim_ = a->pipeline;
    note_ = note;
    palette_ = pal;
    stepNote_ = stepNote;
    if (!playback_) syncMs_ = syncMs;
    const QString problem = equal || !ownProblem_.isEmpty() ? QString::fromStdString(sim.problem) : ownProblem_;

    gantt_->setTimeline(playback_ ? &*playback_ : tl ? &*tl : nullptr);
    if (!playback_) gantt_->setFlushes(fl);
    plot_->setBackground(pal.color(QPalette::Base));
    for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) {
        a->setBasePen(QPen(pal.color(QPalette::WindowText)));
        a->setTickPen(QPen(pal.color(QPalette::WindowText)));
        a->setSubTickPen(QPen(pal.color(QPalette::WindowText)));
        a->setTickLabelColor(pal.color(QPalette::WindowText));
        a->setLabelColor(pal.color(QPalette::WindowText));
        a->grid()->setPen(QPen(theme::subtle(pal), 1, Qt::DotLine));
    }
    if (tl) {
        const auto& t = *tl;
        int peak = 0;
        for (const auto& s : t.stages) peak = std::max(peak, s.peak_inflight);
        QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
        for (int s = 0; s < t.pp; ++s) ticker->addTick(s, tr("stage %1").arg(s));
        plot_->yAxis->setTicker(ticker);
        plot_->xAxis->setLabel(playback_                    ? tr("time (ms, estimated)")
                               : drawn.times.forward == 1.0 ? tr("time (one forward = 1)")
                                                            : tr("time (relative pass times)"));
        plot_->xAxis->setRange(0, gantt_->span() * 1.01);
        plot_->yAxis->setRange(gantt_->flushes().count > 1 ? -1.0 : -0.6, t.pp - 0.4);
        const QString f = GanttPlottable::opColor(OpKind::Forward, 0, pal).name();
        const QString b = GanttPlottable::opColor(OpKind::BackwardInput, 0, pal).name();
        const QString w = GanttPlottable::opColor(OpKind::BackwardWeight, 0, pal).name();
        const QString microbatches =
            (fl.count > 1 ? tr("%1 microbatches per flush") : tr("%1 microbatches")).arg(t.microbatches);
        summary_->setText(tr("<b>%1</b> · pp %2 · %3%4 · %5 · "
                             "<b>bubble %6%</b>%7 · peak in-flight %8 microbatches · "
                             "<span style='color:%9'>■ F</span> <span style='color:%10'>■ B</span> "
                             "<span style='color:%11'>■ W</span> · shaded: idle%12")
                              .arg(QString::fromStdString(t.schedule))
                              .arg(t.pp)
                              .arg(microbatches, note, wording::count(t.chunks, tr("1 chunk"), tr("%1 chunks")))
                              .arg(100.0 * t.bubble_fraction, 0, 'f', 1)
                              .arg(bubbleReadout(t, drawn.times))
                              .arg(peak)
                              .arg(f, b, w, stepNote.isEmpty() ? QString() : QStringLiteral("<br>") + stepNote));
    } else {
        summary_->setText(tr("<b>No timeline:</b> %1").arg(problem.toHtmlEscaped()));
    }
    plot_->replot(QCustomPlot::rpQueuedReplot);   // drawn with the next frame, once
}

void TimelineView::setPlayback(const Timeline* estimated, const paraplan::estimate::Estimate* priced) {
    passBar_->setEnabled(!estimated);   // a playback draws the estimate's own passes, in ms
    if (!estimated) {
        playback_.reset();
        setPlayhead(-1);
        sim_.reset();   // the chart showed the playback: draw the schedule again
        refresh();
        return;
    }
    playback_ = *estimated;
    for (auto& op : playback_->ops) {
        op.start *= 1e3;
        op.end *= 1e3;
    }
    playback_->makespan *= 1e3;
    gantt_->setTimeline(&*playback_);
    QString stepNote;
    gantt_->setFlushes(flushesOf(priced, *playback_, false, 1e-3, &stepNote, &syncMs_));
    plot_->xAxis->setLabel(tr("time (ms, estimated)"));
    plot_->xAxis->setRange(0, gantt_->span() * 1.01);
    plot_->yAxis->setRange(gantt_->flushes().count > 1 ? -1.0 : -0.6, playback_->pp - 0.4);
    plot_->replot();
}

void TimelineView::setPlayhead(double t_s) {
    playheadS_ = t_s;
    if (!playhead_) {
        // On its own buffered layer, so that moving it repaints only the line (QCustomPlot's
        // layer replot), not the Gantt chart under it.
        if (!plot_->layer(QStringLiteral("playhead")))
            plot_->addLayer(QStringLiteral("playhead"), plot_->layer(QStringLiteral("overlay")), QCustomPlot::limBelow);
        QCPLayer* layer = plot_->layer(QStringLiteral("playhead"));
        layer->setMode(QCPLayer::lmBuffered);
        playhead_ = new QCPItemStraightLine(plot_);
        playhead_->setObjectName(QStringLiteral("playhead"));
        playhead_->setLayer(layer);
        playhead_->setPen(QPen(QColor(220, 40, 40), 2));
        playhead_->setSelectable(false);
    }
    const double x = playback_ ? t_s * 1e3 : t_s;
    playhead_->setVisible(t_s >= 0);
    playhead_->point1->setCoords(x, 0);
    playhead_->point2->setCoords(x, 1);
    playhead_->layer()->replot();
}

void TimelineView::highlightStages(const std::vector<int>& stages) {
    if (stages == gantt_->highlightedStages()) return;
    gantt_->setHighlightedStages(stages);
    plot_->replot();
}

QString TimelineView::summaryText() const { return summary_->text(); }

const std::optional<Timeline>& TimelineView::timeline() const {
    static const std::optional<Timeline> none;
    if (!sim_) return none;
    return passDrawn_.times == paraplan::estimate::PassTimes{} ? sim_->timeline : own_;
}

void TimelineView::setPassTimes(const paraplan::estimate::PassTimesChoice& c) {
    if (c == passBar_->choice()) return;
    passBar_->setChoice(c);
    refresh();
}

const paraplan::estimate::PassTimesChoice& TimelineView::passTimes() const { return passBar_->choice(); }

bool TimelineView::exportTo(const QString& path, QString* error) {
    const QString ext = QFileInfo(path).suffix().toLower();
    bool ok = false;
    if (picture::isPictureFormat(path)) {
        return picture::savePlot(plot_, path, tr("Pipeline timeline"), error);
    } else if (ext == QLatin1String("json")) {
        const auto& tl = timeline();
        if (!tl) {
            if (error) *error = tr("there is no timeline to export");
            return false;
        }
        // The whole step as drawn: the flushes and reductions the estimate prices (core lays them out).
        paraplan::estimate::StepLayout step;
        step.timeline = *tl;
        const auto a = editor_->analysis();
        if (a->estimate && a->estimate->config.num_microbatches == tl->microbatches)
            step = paraplan::estimate::lay_out_step(paraplan::estimate::step_flushes(*a->estimate), *tl);
        QFile f(path);
        ok = f.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
             f.write(QByteArray::fromStdString(
                 to_chrome_trace(step.timeline, 1000.0, step.flushes, step.grad_syncs).dump())) >= 0;
    } else {
        if (error) *error = tr("unknown export format \"%1\" (png, svg, pdf or json)").arg(ext);
        return false;
    }
    if (!ok && error) *error = tr("cannot write %1").arg(path);
    return ok;
}

void TimelineView::exportDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export timeline"), QStringLiteral("timeline.png"),
        tr("PNG image (*.png);;SVG drawing (*.svg);;PDF (*.pdf);;Perfetto / Chrome trace (*.json)"));
    if (path.isEmpty()) return;
    QString err;
    if (!exportTo(path, &err)) QToolTip::showText(mapToGlobal(QPoint(20, 20)), err, this);
}
