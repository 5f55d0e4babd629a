#pragma once
// The pipeline timeline: the project's schedule, generated and simulated by core,
// drawn as a Gantt chart (one lane per pipeline stage): the whole step as the estimate
// prices it, its k pipeline flushes back to back with the gradient reduction after every
// flush or after the last (estimate/step_flushes.h). Zoom and pan along time,
// hover for the op, bubble fraction and peak in-flight microbatches, export as
// PNG/SVG/PDF or a Perfetto trace. The pass-times row picks how long F, B and W are drawn
// (equal as in Qi et al., the estimate's, or the user's; core/estimate/pass_times.h), and the
// timeline with its bubble readout follows.
#include "document/projectanalysis.h"
#include "estimate/pass_times.h"
#include "schedule/timeline.h"
#include "util/diagnostic.h"

#include <QPalette>
#include <QWidget>

#include <memory>

#include <optional>

class ProjectEditor;
class QCPItemStraightLine;
class QCustomPlot;
class QLabel;
class GanttPlottable;
class PassTimesBar;

class TimelineView : public QWidget {
    Q_OBJECT
public:
    explicit TimelineView(ProjectEditor* editor, QWidget* parent = nullptr);

    void refresh();
    // Marks the lanes of these pipeline stages (empty: none) and replots.
    void highlightStages(const std::vector<int>& stages);
    // The timeline drawn: the analysis's simulation (F = B = W) or, with other pass times, the view's own.
    const std::optional<paraplan::schedule::Timeline>& timeline() const;
    // The pass times the timeline is drawn with: a lesson step sets them; the row edits them.
    void setPassTimes(const paraplan::estimate::PassTimesChoice& c);
    const paraplan::estimate::PassTimesChoice& passTimes() const;
    const paraplan::estimate::ResolvedPassTimes& drawnPassTimes() const { return passDrawn_; }
    PassTimesBar* passTimesBar() const { return passBar_; }

public slots:
    // The row's first two choices, for `paraplan --screenshot --invoke` (docs pictures).
    void usePaperPassTimes() { setPassTimes({}); }
    void useEstimatesPassTimes() { setPassTimes({paraplan::estimate::PassTimesMode::Estimate, {}}); }

public:
    QCustomPlot* plot() const { return plot_; }
    GanttPlottable* gantt() const { return gantt_; }
    QString summaryText() const;

    // Step playback: draws `estimated` (seconds, the estimate's simulated timeline of all the
    // step's flushes; shown in ms) instead of the relative schedule, with a vertical playhead
    // and `priced`'s flushes and gradient reductions marked; null returns to the relative
    // schedule (as refresh() does).
    void setPlayback(const paraplan::schedule::Timeline* estimated,
                     const paraplan::estimate::Estimate* priced = nullptr);
    bool showsPlayback() const { return playback_.has_value(); }
    // Moves the playhead to `t_s` seconds into the step (< 0 hides it) and repaints it.
    void setPlayhead(double t_s);
    QCPItemStraightLine* playhead() const { return playhead_; }
    double playheadSeconds() const { return playheadS_; }

    // Exports by file extension: .png .svg .pdf, or .json (Perfetto / Chrome trace).
    bool exportTo(const QString& path, QString* error = nullptr);

private:
    void exportDialog();
    ProjectEditor* editor_;
    QCustomPlot* plot_;
    GanttPlottable* gantt_;
    QLabel* summary_;
    PassTimesBar* passBar_;
    paraplan::estimate::ResolvedPassTimes passDrawn_;
    // The timeline simulated with passDrawn_ when that is not F = B = W: the request of ownFor_
    // (the analysis's simulation) drawn with ownTimes_.
    std::optional<paraplan::schedule::Timeline> own_;
    std::shared_ptr<const PipelineSimulation> ownFor_;
    paraplan::estimate::PassTimes ownTimes_;
    QString ownProblem_;
    // The simulation shown (the analysis's, shared: not copied), with the note and palette it
    // was drawn with: a refresh that finds all three unchanged leaves the chart as it is.
    std::shared_ptr<const PipelineSimulation> sim_;
    QString note_;
    QPalette palette_;
    QString stepNote_;    // the step's flushes and reductions (the analysis's estimate)
    double syncMs_ = 0;   // one exposed gradient reduction, as priced
    std::optional<paraplan::schedule::Timeline> playback_;   // in ms
    QCPItemStraightLine* playhead_ = nullptr;
    double playheadS_ = -1;
};
