#pragma once
// While a job runs, the cluster canvas and the rank grid are coloured live: once a
// second the telemetry store becomes the heat per rank, pipeline stage and group
// (core/runtime/telemetry_heat.h, memory checked against the project's estimate) and
// both views get it; when the job ends they return to their layout colours.
#include "common/heatmap.h"
#include "runtime/telemetry.h"
#include "telemetry/telemetry_heat.h"

#include <QObject>
#include <QPointer>

#include <optional>
#include <vector>

class ClusterCanvas;
class ProjectEditor;
class QTimer;
class RankGrid;

class LiveOverlayFeeder : public QObject {
    Q_OBJECT
public:
    LiveOverlayFeeder(ProjectEditor* editor, ClusterCanvas* canvas, RankGrid* grid, QObject* parent = nullptr);

    // Feeds both views from `monitor` every interval_ms (null: stop). Not owned.
    void start(paraplan::runtime::TelemetryMonitor* monitor, int interval_ms = 1000);
    void stop();   // clears both views
    bool running() const;
    int ticks() const { return ticks_; }
    // While paused (the step playback colours the views) ticks keep reading the telemetry but
    // leave both views alone, and stop() does not clear them; resuming shows the latest tick.
    void setPaused(bool paused);
    bool paused() const { return paused_; }

    // Both metrics of one moment, for the views.
    static LiveOverlay overlay(const paraplan::runtime::TelemetryStore& store, const paraplan::topology::RankMap& map,
                               const paraplan::runtime::HeatOptions& options);

public slots:
    void tick();

private:
    ProjectEditor* editor_;
    QPointer<ClusterCanvas> canvas_;
    QPointer<RankGrid> grid_;
    QPointer<paraplan::runtime::TelemetryMonitor> monitor_;
    QTimer* timer_;
    std::vector<std::optional<double>> expected_mib_;   // per rank, from the estimate
    int ticks_ = 0;
    bool paused_ = false;
};
