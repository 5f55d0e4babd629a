#include "views/stepplayer.h"

#include "canvas/clustercanvas.h"
#include "document/projecteditor.h"
#include "views/rankgrid.h"
#include "views/timelineview.h"

#include <QComboBox>
#include <QtConcurrent/QtConcurrentRun>
#include <QDateTime>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QSlider>
#include <QCoreApplication>
#include <QThread>
#include <QThreadPool>
#include <QTimer>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <exception>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {
constexpr int kSliderSteps = 10000;
constexpr int kFrameMs = 33;   // ~30 frames per second
// A deferred build starts at the latest this long after the analysis arrived, repaint or not.
constexpr int kFrameFallbackMs = 250;

// Position on the heat scale per activity (viridis: dark = idle, bright = backward).
double fraction_of(Activity a) {
    switch (a) {
    case Activity::idle: return 0.0;
    case Activity::forward: return 0.45;
    case Activity::backward_input:
    case Activity::full_backward: return 0.75;
    case Activity::backward_weight: return 1.0;
    case Activity::grad_sync: return 0.2;
    case Activity::optimizer: return 0.6;
    case Activity::offload: return 0.3;
    }
    return 0;
}
}   // namespace

StepPlayer::StepPlayer(ProjectEditor* editor, TimelineView* timeline, ClusterCanvas* canvas, RankGrid* grid,
                       QWidget* parent)
    : QWidget(parent), editor_(editor), timeline_(timeline), canvas_(canvas), grid_(grid), timer_(new QTimer(this)) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(8, 4, 8, 4);
    auto* bar = new QHBoxLayout;
    // The style's media icons: the ⏮ ⏭ glyphs are missing from common fonts (drawn as empty boxes).
    auto button = [&](const QString& name, QStyle::StandardPixmap icon, const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setObjectName(name);
        b->setIcon(style()->standardIcon(icon));
        b->setText(text);
        b->setAccessibleName(text);
        b->setToolTip(tip);
        bar->addWidget(b);
        return b;
    };
    prev_ = button(QStringLiteral("playPrev"), QStyle::SP_MediaSkipBackward, tr("Previous"),
                   tr("Back to the previous event"));
    play_ = button(QStringLiteral("playPlay"), QStyle::SP_MediaPlay, tr("Play"),
                   tr("Play the step (the canvas and rank grid follow the playhead)"));
    play_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    next_ = button(QStringLiteral("playNext"), QStyle::SP_MediaSkipForward, tr("Next"),
                   tr("On to the next event (an op or a collective starts or ends)"));
    stop_ = button(QStringLiteral("playStop"), QStyle::SP_MediaStop, tr("Stop"),
                   tr("Stop: the canvas, grid and timeline return to the layout"));
    speedBox_ = new QComboBox(this);
    speedBox_->setObjectName(QStringLiteral("playSpeed"));
    speedBox_->setToolTip(tr("Speed: at 1× one step plays in 10 seconds"));
    for (double s : {0.1, 0.25, 0.5, 1.0, 2.0, 4.0}) speedBox_->addItem(QStringLiteral("%1×").arg(s), s);
    speedBox_->setCurrentIndex(3);
    bar->addWidget(speedBox_);
    slider_ = new QSlider(Qt::Horizontal, this);
    slider_->setObjectName(QStringLiteral("playScrub"));
    slider_->setRange(0, kSliderSteps);
    slider_->setToolTip(tr("Scrub through the step"));
    bar->addWidget(slider_, 1);
    export_ = button(QStringLiteral("playExport"), QStyle::SP_DialogSaveButton, tr("Export…"),
                     tr("Save the playback as a PNG sequence (and an MP4 when ffmpeg is installed)"));
    export_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    clock_ = new QLabel(this);
    clock_->setObjectName(QStringLiteral("playClock"));
    bar->addWidget(clock_);
    outer->addLayout(bar);
    status_ = new QLabel(this);
    status_->setObjectName(QStringLiteral("playStatus"));
    status_->setTextFormat(Qt::RichText);
    status_->setWordWrap(true);
    status_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    // In a short row under the timeline (MainWindow::showPlayerWithTimeline) the lines naming the
    // collectives scroll; the controls above them stay in view.
    auto* statusScroll = new QScrollArea(this);
    statusScroll->setObjectName(QStringLiteral("playStatusScroll"));
    statusScroll->setFrameShape(QFrame::NoFrame);
    statusScroll->setWidgetResizable(true);
    statusScroll->setWidget(status_);
    outer->addWidget(statusScroll, 1);

    connect(play_, &QToolButton::clicked, this, [this] { playing() ? pause() : play(); });
    connect(next_, &QToolButton::clicked, this, &StepPlayer::stepForward);
    connect(prev_, &QToolButton::clicked, this, &StepPlayer::stepBack);
    connect(stop_, &QToolButton::clicked, this, &StepPlayer::stop);
    connect(export_, &QToolButton::clicked, this, &StepPlayer::exportRequested);
    connect(speedBox_, &QComboBox::currentIndexChanged, this, [this] { speed_ = speedBox_->currentData().toDouble(); });
    connect(slider_, &QSlider::valueChanged, this, [this](int v) {
        if (playback_) setTime(playback_->step_s * v / kSliderSteps);
    });
    connect(timer_, &QTimer::timeout, this, [this] {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        advance((now - lastTick_) / 1000.0);
        lastTick_ = now;
    });
    frameFallback_ = new QTimer(this);
    frameFallback_->setSingleShot(true);
    frameFallback_->setInterval(kFrameFallbackMs);
    connect(frameFallback_, &QTimer::timeout, this, [this] {
        if (frameWindow_) frameWindow_->removeEventFilter(this);
        frameWindow_ = nullptr;
        prepare();
    });
    pool_ = new QThreadPool(this);
    pool_->setMaxThreadCount(1);
    watcher_ = new QFutureWatcher<Built>(this);
    connect(watcher_, &QFutureWatcherBase::finished, this, [this] {
        building_ = false;
        // Moved out, not copied: at 131,072 GPUs the playback's vectors took 10-20 ms to copy.
        apply(watcher_->future().takeResult());
        if (stale_ && (showing_ || isVisible())) prepare();   // an edit came meanwhile
    });
    stale_ = true;
    if (showing_ || isVisible()) prepare();
}

bool StepPlayer::current() const {
    return !stale_ && builtProjectId_ == editor_->projectId() && builtRevision_ == editor_->revision();
}

void StepPlayer::refresh() {
    stale_ = true;
    if (showing_ || isVisible()) prepareAfterFrame();
}

void StepPlayer::prepareAfterFrame() {
    if (!stale_) return;
    QWidget* w = window();
    if (!w || !w->isVisible()) return prepare();
    // The window paints all its dirty widgets in one pass on its UpdateRequest: start the
    // build once that pass is done (a queued call after the event), so the edit's first
    // frame gets the cores first.
    if (frameWindow_ != w) {
        if (frameWindow_) frameWindow_->removeEventFilter(this);
        frameWindow_ = w;
        w->installEventFilter(this);
    }
    frameFallback_->start();
}

bool StepPlayer::eventFilter(QObject* o, QEvent* e) {
    if (o == frameWindow_ && e->type() == QEvent::UpdateRequest) {
        frameWindow_->removeEventFilter(this);
        frameWindow_ = nullptr;
        frameFallback_->stop();
        QMetaObject::invokeMethod(this, &StepPlayer::prepare, Qt::QueuedConnection);
    }
    return QWidget::eventFilter(o, e);
}

void StepPlayer::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    prepare();
}

void StepPlayer::prepare() {
    if (!stale_) return;
    // Never wait for an analysis here: while the current state's is being worked out, its
    // analysisReady brings refresh() (and this) again.
    if (!editor_->analysisCurrent()) return;
    const auto a = editor_->latestAnalysis();
    if (building_ && buildingProject_ == a->project_id && buildingRevision_ == a->revision) return;
    if (building_) {
        ++buildsDropped_;   // the watcher lets go of the older build: its result is never applied
        cancelRunning();    // and it stops at its next step
    }
    pool_->clear();   // an older build still queued never runs
    building_ = true;
    buildingProject_ = a->project_id;
    buildingRevision_ = a->revision;
    buildCancel_ = std::make_shared<std::atomic<bool>>(false);
    ++buildsStarted_;
    watcher_->setFuture(
        QtConcurrent::run(pool_, &StepPlayer::build, a, buildCancel_));   // an older build's result is ignored
    emit buildStarted(a->revision);
}

void StepPlayer::cancelRunning() {
    if (buildCancel_) buildCancel_->store(true);
}

void StepPlayer::documentChanged() {
    // Undo back to the state being built keeps the build.
    if (building_ && (buildingProject_ != editor_->projectId() || buildingRevision_ != editor_->revision()))
        cancelRunning();
}

StepPlayer::Built StepPlayer::build(std::shared_ptr<const ProjectAnalysis> a,
                                    std::shared_ptr<std::atomic<bool>> cancel) {
    Built b;
    b.project_id = a->project_id;
    b.revision = a->revision;
    b.on_worker = QThread::currentThread() != QCoreApplication::instance()->thread();
    try {
        b.playback = step_playback(*a->project, *a->rank_map, cancel.get());
        if (b.playback->cancelled) {
            b.playback.reset();
            b.cancelled = true;
        }
    } catch (const std::exception& e) {
        b.problem = QString::fromStdString(e.what());
    }
    return b;
}

void StepPlayer::ensure() const {
    if (!stale_) return;
    auto* self = const_cast<StepPlayer*>(this);
    if (building_ && buildingProject_ == editor_->projectId() && buildingRevision_ == editor_->revision() &&
        !(buildCancel_ && buildCancel_->load())) {
        auto f = watcher_->future();
        f.waitForFinished();
        self->building_ = false;
        self->apply(f.result());
        return;
    }
    self->apply(build(editor_->analysis()));
}

const std::optional<StepPlayback>& StepPlayer::playback() const {
    ensure();
    return playback_;
}

QString StepPlayer::problem() const {
    ensure();
    return problem_;
}

void StepPlayer::apply(Built b) {
    if (b.cancelled) ++buildsCancelled_;
    if (b.cancelled || b.project_id != editor_->projectId() || b.revision != editor_->revision()) {   // stale
        ++buildsDropped_;
        return;
    }
    stale_ = false;
    builtProjectId_ = b.project_id;
    builtRevision_ = b.revision;
    lastBuildOnWorker_ = b.on_worker;
    problem_ = b.problem;
    playback_ = std::move(b.playback);
    if (!playback_) {
        pause();
        show(false);
        status_->setText(tr("<b>No playback:</b> %1").arg(problem_.toHtmlEscaped()));
        emit playbackChanged();
        return;
    }
    t_ = std::clamp(t_, 0.0, playback_->step_s);
    if (showing_) {
        if (timeline_) timeline_->setPlayback(&playback_->timeline, &playback_->estimate);
        update_views();
    } else {
        status_->setText(tr("One step of %1 ms: %2 ops, %3 collectives. Press play or drag the slider.")
                             .arg(playback_->step_s * 1e3, 0, 'f', 1)
                             .arg(playback_->timeline.ops.size())
                             .arg(playback_->comms.size()));
    }
    emit playbackChanged();
}

void StepPlayer::show(bool on) {
    if (on == showing_) return;
    showing_ = on;
    if (on) {
        if (timeline_ && playback_) timeline_->setPlayback(&playback_->timeline, &playback_->estimate);
    } else {
        if (timeline_) timeline_->setPlayback(nullptr);
        if (canvas_) canvas_->clearLiveOverlay();
        if (grid_) grid_->clearLiveOverlay();
    }
    emit showingChanged(on);
}

void StepPlayer::setTime(double t_s) {
    ensure();
    if (!playback_) return;
    t_ = std::clamp(t_s, 0.0, playback_->step_s);
    show(true);
    update_views();
    emit timeChanged(t_);
}

void StepPlayer::update_views() {
    if (!playback_) return;
    active_ = active_at(*playback_, t_);
    LiveOverlay o;
    o.playback = true;
    o.utilization = heatmapAt(*playback_, active_);
    if (canvas_) canvas_->updateLiveOverlay(o);
    if (grid_) grid_->setLiveOverlay(o);
    if (timeline_) timeline_->setPlayhead(t_);
    {
        const QSignalBlocker b(slider_);
        slider_->setValue(playback_->step_s > 0 ? int(t_ / playback_->step_s * kSliderSteps + 0.5) : 0);
    }
    clock_->setText(tr("%1 / %2 ms").arg(t_ * 1e3, 0, 'f', 2).arg(playback_->step_s * 1e3, 0, 'f', 2));
    status_->setText(statusText());
}

void StepPlayer::play() {
    ensure();
    if (!playback_) return;
    if (t_ >= playback_->step_s) t_ = 0;
    lastTick_ = QDateTime::currentMSecsSinceEpoch();
    timer_->start(kFrameMs);
    play_->setText(tr("Pause"));
    play_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    setTime(t_);
}

void StepPlayer::pause() {
    timer_->stop();
    play_->setText(tr("Play"));
    play_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
}

bool StepPlayer::playing() const { return timer_->isActive(); }

void StepPlayer::stepForward() {
    ensure();
    if (playback_) setTime(playback_->next_event(t_));
}

void StepPlayer::stepBack() {
    ensure();
    if (playback_) setTime(playback_->prev_event(t_));
}

void StepPlayer::setSpeed(double factor) {
    speed_ = std::max(1e-3, factor);
    const int i = speedBox_->findData(factor);
    if (i >= 0) {
        const QSignalBlocker b(speedBox_);
        speedBox_->setCurrentIndex(i);
    }
}

void StepPlayer::advance(double wall_s) {
    ensure();
    if (!playback_) return;
    double t = t_ + wall_s * speed_ * playback_->step_s / 10.0;
    if (t > playback_->step_s) t = 0;   // loop
    setTime(t);
}

void StepPlayer::stop() {
    pause();
    show(false);
    t_ = 0;
    {
        const QSignalBlocker b(slider_);
        slider_->setValue(0);
    }
    refresh();
}

Heatmap StepPlayer::heatmapAt(const StepPlayback& pb, const ActiveSet& a) {
    Heatmap h;
    h.metric = QObject::tr("Step playback");
    h.low = QObject::tr("idle");
    h.high = QObject::tr("W");
    // One cell per stage, shared by its ranks (QString is shared, copies are cheap).
    std::vector<HeatCell> stage(std::size_t(std::max(1, pb.pp)));
    std::vector<QStringList> comms(stage.size());
    for (int k : a.comms) {
        const auto& c = pb.comms[std::size_t(k)];
        if (c.stage >= 0 && std::size_t(c.stage) < stage.size())
            comms[std::size_t(c.stage)] << QString::fromStdString(describe_comm(c)).toHtmlEscaped();
    }
    for (const auto& s : a.stages) {
        if (s.stage < 0 || std::size_t(s.stage) >= stage.size()) continue;
        HeatCell& c = stage[std::size_t(s.stage)];
        const bool second = c.has;   // an overlapped F&B unit: both ops
        c.has = true;
        c.fraction = std::max(c.fraction, fraction_of(s.activity));
        QString text = QString::fromLatin1(to_string(s.activity));
        if (s.microbatch >= 0) {
            text += QString::number(s.microbatch);
            if (pb.timeline.chunks > 1) text += QStringLiteral(".%1").arg(s.chunk);
        }
        c.text = second ? c.text + QStringLiteral("+") + text : text;
        c.flagged = c.flagged || s.communicating;
    }
    for (std::size_t s = 0; s < stage.size(); ++s) {
        QString what = stage[s].text == QLatin1String("idle") ? QObject::tr("idle (pipeline bubble)") : stage[s].text;
        stage[s].note = QObject::tr("stage %1: %2").arg(s).arg(what);
        if (!comms[s].isEmpty()) stage[s].note += QStringLiteral("<br>") + comms[s].join(QStringLiteral("<br>"));
        h.stageFraction.push_back(stage[s].fraction);
    }
    h.cells.resize(pb.stage_of_rank.size());
    for (std::size_t r = 0; r < pb.stage_of_rank.size(); ++r) {
        const int s = pb.stage_of_rank[r];
        if (s >= 0 && std::size_t(s) < stage.size()) h.cells[r] = stage[std::size_t(s)];
    }
    for (const auto& c : h.cells) h.flagged += c.flagged ? 1 : 0;
    // Kept the same from frame to frame: a changing line would re-lay out both views each frame
    // (the time and the collectives are in the Play a step panel).
    h.summary = QObject::tr(
        "Step playback: F/B/W and microbatch per GPU at the playhead; dark = idle, "
        "outlined = exchanging data");
    return h;
}

QString StepPlayer::statusText() const {
    if (!playback_) return tr("<b>No playback:</b> %1").arg(problem_.toHtmlEscaped());
    const auto& pb = *playback_;
    QStringList stages;
    for (const auto& s : active_.stages) {
        QString w = QString::fromLatin1(to_string(s.activity));
        if (s.microbatch >= 0)
            w += QString::number(s.microbatch) +
                 (pb.timeline.chunks > 1 ? QStringLiteral(".%1").arg(s.chunk) : QString());
        stages << tr("stage %1: %2").arg(s.stage).arg(w);
    }
    QStringList comms;
    for (int k : active_.comms)
        comms << QString::fromStdString(describe_comm(pb.comms[std::size_t(k)])).toHtmlEscaped();
    QString text = tr("<b>t = %1 ms</b> · %2").arg(t_ * 1e3, 0, 'f', 3).arg(stages.join(QStringLiteral(" · ")));
    text += comms.isEmpty() ? tr("<br>no collective on the links")
                            : QStringLiteral("<br>") + comms.join(QStringLiteral("<br>"));
    return text;
}
