// One tick of live GPU heat on a large cluster: the overlay computed from a telemetry store
// (utilization and memory of every GPU) and fed to the cluster canvas and the rank grid, as the
// GPU monitor does once a second. NODES (default 512) x 8 GPUs, Megatron tp 8, pp 8.
// Run offscreen:
//   QT_QPA_PLATFORM=offscreen build/dev/tests/benchmarks/bench_gui_heat [iterations] [nodes]
#include "../heat_cluster.h"
#include "bench_timing.h"
#include "canvas/clustercanvas.h"
#include "live_overlay.h"
#include "projectdocument.h"
#include "views/rankgrid.h"

#include <QApplication>
#include <QStandardPaths>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
    const int nodes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 512;
    const paraplan::Project p = heat_cluster(nodes);
    ProjectDocument doc;
    doc.reset(p, QString());
    const paraplan::runtime::TelemetryStore store = heat_store(p.cluster);
    ClusterCanvas canvas(&doc);
    RankGrid grid(&doc);
    canvas.resize(1200, 800);
    grid.resize(800, 800);
    canvas.show();
    grid.show();
    QApplication::processEvents();
    paraplan::runtime::HeatOptions o;
    o.now_s = 2;
    std::vector<double> core_heat, heat, views;
    for (int i = 0; i < iterations; ++i) {
        core_heat.push_back(ms([&] {
            (void)paraplan::runtime::telemetry_heat(store, doc.rankMap(), paraplan::runtime::HeatMetric::Utilization,
                                                    o);
            (void)paraplan::runtime::telemetry_heat(store, doc.rankMap(), paraplan::runtime::HeatMetric::Memory, o);
        }));
        LiveOverlay live;
        heat.push_back(ms([&] { live = LiveOverlayFeeder::overlay(store, doc.rankMap(), o); }));
        views.push_back(ms([&] {
            canvas.setLiveOverlay(live);
            grid.setLiveOverlay(live);
            QApplication::processEvents();
        }));
    }
    std::printf("live heat tick, %d nodes x 8 GPUs, %d ticks\n", nodes, iterations);
    std::printf("  core heat (both metrics): median %.1f ms, worst %.1f ms\n", median(core_heat), worst(core_heat));
    std::printf("  overlay from the store: median %.1f ms, worst %.1f ms\n", median(heat), worst(heat));
    std::printf("  canvas + rank grid:     median %.1f ms, worst %.1f ms\n", median(views), worst(views));
    return 0;
}
