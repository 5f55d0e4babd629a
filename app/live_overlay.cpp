#include "live_overlay.h"

#include "canvas/clustercanvas.h"
#include "estimate/estimate.h"
#include "document/projecteditor.h"
#include "views/rankgrid.h"

#include <QTimer>

#include <exception>

using namespace paraplan;

LiveOverlayFeeder::LiveOverlayFeeder(ProjectEditor* editor, ClusterCanvas* canvas, RankGrid* grid, QObject* parent)
    : QObject(parent), editor_(editor), canvas_(canvas), grid_(grid), timer_(new QTimer(this)) {
    connect(timer_, &QTimer::timeout, this, &LiveOverlayFeeder::tick);
}

bool LiveOverlayFeeder::running() const { return timer_->isActive(); }

LiveOverlay LiveOverlayFeeder::overlay(const runtime::TelemetryStore& store, const topology::RankMap& map,
                                       const runtime::HeatOptions& options) {
    LiveOverlay o;
    o.utilization = heat::fromTelemetry(runtime::telemetry_heat(store, map, runtime::HeatMetric::Utilization, options));
    o.memory = heat::fromTelemetry(runtime::telemetry_heat(store, map, runtime::HeatMetric::Memory, options));
    return o;
}

void LiveOverlayFeeder::start(runtime::TelemetryMonitor* monitor, int interval_ms) {
    if (!monitor) return stop();
    monitor_ = monitor;
    ticks_ = 0;
    // The memory each rank should hold: the estimate's per-stage total (none when the
    // project cannot be estimated, e.g. a model missing from the catalog).
    expected_mib_.clear();
    try {
        const auto e = estimate::estimate_project(editor_->project());
        std::vector<double> stages;
        for (const auto& s : e.memory.stages) stages.push_back(s.total());
        expected_mib_ = runtime::expected_mib_by_stage(editor_->rankMap(), stages);
    } catch (const std::exception&) {}
    timer_->start(interval_ms);
    tick();
}

void LiveOverlayFeeder::stop() {
    timer_->stop();
    monitor_ = nullptr;
    if (paused_) return;   // the views show the step playback, not this job
    if (canvas_) canvas_->clearLiveOverlay();
    if (grid_) grid_->clearLiveOverlay();
}

void LiveOverlayFeeder::setPaused(bool paused) {
    if (paused == paused_) return;
    paused_ = paused;
    if (!paused_ && monitor_) tick();
}

void LiveOverlayFeeder::tick() {
    if (!monitor_) return stop();
    runtime::HeatOptions o;
    o.now_s = monitor_->now_s();
    o.expected_mib = expected_mib_;
    ++ticks_;
    if (paused_) return;
    const LiveOverlay live = overlay(monitor_->store(), editor_->rankMap(), o);
    if (canvas_) canvas_->setLiveOverlay(live);
    if (grid_) grid_->setLiveOverlay(live);
}
