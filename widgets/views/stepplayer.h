#pragma once
// Play one training step: a playhead over the pipeline timeline (play, pause, step to
// the next or previous event, speed, scrub) and, at each instant, the cluster canvas
// and the rank grid coloured by what every GPU does (F/B/W of which microbatch and
// chunk, idle in the bubble, gradient sync, optimizer) through their live-heatmap
// overlay, plus a line naming the collectives running then with bytes and time. The
// events are core's step playback (estimate/step_playback.h): the estimate's own
// simulated timeline and communication terms.
#include "estimate/step_playback.h"
#include "common/heatmap.h"
#include "document/projectanalysis.h"

#include <QFutureWatcher>
#include <QPointer>
#include <QWidget>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

class ClusterCanvas;
class ProjectEditor;
class QComboBox;
class QLabel;
class QSlider;
class QThreadPool;
class QTimer;
class QToolButton;
class RankGrid;
class TimelineView;

class StepPlayer : public QWidget {
    Q_OBJECT
public:
    StepPlayer(ProjectEditor* editor, TimelineView* timeline, ClusterCanvas* canvas, RankGrid* grid,
               QWidget* parent = nullptr);

    // On every document analysis: rebuilds the playback when the panel is visible or the
    // overlay is shown (keeping the playhead, clamped), else on first use -- building it costs
    // an estimate and a schedule simulation, which edits need not pay for while nobody looks.
    // The build runs on a worker over the analysis's snapshot and rank map; its result is
    // dropped when another edit came meanwhile. It starts only once the window has painted
    // the frame that shows the analysis (see prepareAfterFrame), so it never competes for
    // the cores with the edit's own analysis and first frame.
    void refresh();
    // Starts building the current project's playback (on a worker) if it is stale and the
    // current state's analysis is at hand (never waits for it: analysisReady brings refresh).
    void prepare();
    // prepare() once the window's next repaint is done (or at once when it is not shown).
    // A newer edit before then makes the pending start its own.
    void prepareAfterFrame();
    // The document now shows another state: a build running for the one before stops early
    // (its cancel flag is set), so it leaves the cores to the new state's analysis and frame.
    void documentChanged();
    // Builds started and build results dropped because another edit came meanwhile; of the
    // results dropped, how many came back stopped early by their cancel flag.
    int buildsStarted() const { return buildsStarted_; }
    int buildsDropped() const { return buildsDropped_; }
    int buildsCancelled() const { return buildsCancelled_; }
    // Whether the last applied playback was built on the worker (not waited for on the GUI thread).
    bool lastBuildOnWorker() const { return lastBuildOnWorker_; }
    // The playback of the current project (waited for, or built here, when stale).
    const std::optional<paraplan::estimate::StepPlayback>& playback() const;
    // The playback applied is the current state's (no edit came since it was built).
    bool current() const;
    QString problem() const;

    double time() const { return t_; }   // seconds into the step
    // Moves the playhead (scrub); the first call shows the overlay on the canvas and grid.
    void setTime(double t_s);
    void play();
    void pause();
    bool playing() const;
    void stepForward();   // to the next event (an op or collective starting or ending)
    void stepBack();
    // Step-seconds per wall-clock second = speed x (step time / 10): at 1x a step plays in 10 s.
    void setSpeed(double factor);
    double speed() const { return speed_; }
    // Advances the playhead as the play timer does after `wall_s` seconds (wraps at the end).
    void advance(double wall_s);
    // Stops showing the playback on the canvas, grid and timeline.
    void stop();
    bool showing() const { return showing_; }

    QString statusText() const;
    const paraplan::estimate::ActiveSet& active() const { return active_; }
    // What the canvas and grid show at `a`: one cell per rank.
    static Heatmap heatmapAt(const paraplan::estimate::StepPlayback& pb, const paraplan::estimate::ActiveSet& a);

    QToolButton* playButton() const { return play_; }
    QSlider* slider() const { return slider_; }
    QLabel* statusLabel() const { return status_; }

signals:
    void timeChanged(double t_s);
    // The playback started or stopped colouring the canvas and rank grid (it wins over a
    // running job's live colouring, which the main window pauses meanwhile).
    void showingChanged(bool showing);
    // The playback was rebuilt (the link-traffic view follows it).
    void playbackChanged();
    // A playback build started on a worker for this state (ProjectEditor::revision).
    void buildStarted(quint64 revision);
    // The panel's Export… button: save the playback as pictures (the main window does it).
    void exportRequested();

protected:
    void showEvent(QShowEvent* e) override;
    bool eventFilter(QObject* o, QEvent* e) override;

private:
    struct Built {
        std::uint64_t project_id = 0, revision = 0;
        std::optional<paraplan::estimate::StepPlayback> playback;
        QString problem;
        bool on_worker = false;   // built off the GUI thread
        bool cancelled = false;   // stopped early: nothing in it is complete
    };
    static Built build(std::shared_ptr<const ProjectAnalysis> a, std::shared_ptr<std::atomic<bool>> cancel = nullptr);
    void cancelRunning();
    void apply(Built b);
    void ensure() const;
    void show(bool on);
    void update_views();
    ProjectEditor* editor_;
    QPointer<TimelineView> timeline_;
    QPointer<ClusterCanvas> canvas_;
    QPointer<RankGrid> grid_;
    std::optional<paraplan::estimate::StepPlayback> playback_;
    paraplan::estimate::ActiveSet active_;
    QString problem_;
    bool stale_ = true;
    std::uint64_t builtProjectId_ = 0, builtRevision_ = 0;   // the state of the playback applied
    QFutureWatcher<Built>* watcher_;
    // The builds' own worker (one thread): a newer build drops the queued older ones. Not at
    // QThread::IdlePriority: on Linux that is SCHED_IDLE, and under load a stale build then
    // held the window's close for seconds (the pool waits for a running build).
    QThreadPool* pool_;
    std::uint64_t buildingProject_ = 0, buildingRevision_ = 0;
    bool building_ = false;
    std::shared_ptr<std::atomic<bool>> buildCancel_;   // the running build's
    QPointer<QWidget> frameWindow_;                    // whose next repaint a deferred prepare() waits for
    QTimer* frameFallback_;                            // prepare() anyway if no repaint comes
    int buildsStarted_ = 0, buildsDropped_ = 0, buildsCancelled_ = 0;
    bool lastBuildOnWorker_ = false;
    double t_ = 0;
    double speed_ = 1;
    bool showing_ = false;
    QTimer* timer_;
    QToolButton *play_, *next_, *prev_, *stop_, *export_;
    QComboBox* speedBox_;
    QSlider* slider_;
    QLabel* clock_;
    QLabel* status_;
    qint64 lastTick_ = 0;
};
