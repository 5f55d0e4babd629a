// Step playback speed (issue 16: >= 30 frames per second at 4,096 GPUs) on the cluster of
// bench_gui_edit: 512 nodes x 8 GPUs, Megatron tp 4, pp 64, 256 microbatches. One frame =
// advance the playhead by 1/30 s of wall time at 1x (core's active_at(), the heat per rank,
// the canvas and rank grid overlays, the timeline's playhead layer), then a synchronous
// repaint of the canvas, the rank grid and the timeline. Also times building the playback
// (step_playback(): estimate, simulated timeline, collectives, link traffic) once per edit.
// Run offscreen:
//   QT_QPA_PLATFORM=offscreen build/dev/tests/benchmarks/bench_gui_playback [frames]
#include <qcustomplot.h>

#include "canvas/clustercanvas.h"
#include "estimate/step_playback.h"
#include "mainwindow.h"
#include "project/project.h"
#include "../scale_project.h"
#include "bench_timing.h"
#include "views/rankgrid.h"
#include "views/stepplayer.h"
#include "views/timelineview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    double load_start[1] = {-1}, load_end[1] = {-1};
    getloadavg(load_start, 1);
    QStandardPaths::setTestModeEnabled(true);
    const int frames = argc > 1 ? std::max(3, std::atoi(argv[1])) : 90;
    QTemporaryDir tmp;
    MainWindow w(nullptr, tmp.path());
    paraplan::Project p = scale_project(512);
    w.setProject(p, QString());
    w.resize(1600, 1000);
    w.show();
    w.raiseView(QStringLiteral("grid"));
    w.raiseView(QStringLiteral("timeline"));
    QApplication::processEvents();
    w.canvas()->zoomToFit();
    QWidget* canvas = w.canvas()->view()->viewport();
    QWidget* grid = w.rankGrid()->findChild<QWidget*>(QStringLiteral("rankGridCanvas"));
    if (!grid) {
        std::fprintf(stderr, "rank grid canvas not found\n");
        return 1;
    }
    QCustomPlot* plot = w.timeline()->plot();
    StepPlayer* player = w.stepPlayer();
    if (!player->playback()) {
        std::fprintf(stderr, "no playback: %s\n", qPrintable(player->problem()));
        return 1;
    }
    std::vector<double> build_ms;
    for (int i = 0; i < 3; ++i) build_ms.push_back(ms([&] { (void)paraplan::estimate::step_playback(w.project()); }));

    player->setTime(0);   // shows the overlay (first frame switches the colouring)
    QApplication::processEvents();
    std::vector<double> advance_ms, canvas_ms, grid_ms, timeline_ms, total_ms, cpu_ms;
    player->setSpeed(1);
    for (int i = 0; i < frames; ++i) {
        const double cpu0 = process_cpu_ms();
        const double a = ms([&] { player->advance(1.0 / 30); });
        const double c = ms([&] { canvas->repaint(); });
        const double g = ms([&] { grid->repaint(); });
        const double t = ms([&] { plot->repaint(); });
        advance_ms.push_back(a);
        canvas_ms.push_back(c);
        grid_ms.push_back(g);
        timeline_ms.push_back(t);
        total_ms.push_back(a + c + g + t);
        cpu_ms.push_back(process_cpu_ms() - cpu0);
    }
    // The same repaints with nothing changed since the last one (the cost of painting alone).
    std::vector<double> canvas_again, grid_again;
    for (int i = 0; i < 10; ++i) {
        canvas_again.push_back(ms([&] { canvas->repaint(); }));
        grid_again.push_back(ms([&] { grid->repaint(); }));
    }
    // Where the advance goes: core's active set and the heat per rank, then each view's overlay.
    const auto& pb = *player->playback();
    std::vector<double> core_ms, canvas_set_ms, grid_set_ms;
    for (int i = 0; i < 10; ++i) {
        const double t = pb.step_s * (i + 0.5) / 10;
        LiveOverlay o;
        o.playback = true;   // as the player feeds it
        core_ms.push_back(ms([&] { o.utilization = StepPlayer::heatmapAt(pb, paraplan::estimate::active_at(pb, t)); }));
        canvas_set_ms.push_back(ms([&] { w.canvas()->setLiveOverlay(o); }));
        grid_set_ms.push_back(ms([&] { w.rankGrid()->setLiveOverlay(o); }));
    }
    getloadavg(load_end, 1);
    std::printf("load average (1 min): %.2f at start, %.2f at end\n", load_start[0], load_end[0]);
    std::printf("canvas zoom (level of detail): %.3f\n", w.canvas()->view()->transform().m11());
    std::printf("GPUs %d, pipeline stages %d, microbatches %d, ops %zu, collectives %zu, links %zu, frames %d\n",
                w.project().world_size(), pb.pp, pb.timeline.microbatches, pb.timeline.ops.size(), pb.comms.size(),
                pb.links.size(), frames);
    std::printf("build playback (once per edit): median %.1f ms (max %.1f)\n", median(build_ms), worst(build_ms));
    std::printf("advance playhead + overlays:    median %.1f ms (max %.1f)\n", median(advance_ms), worst(advance_ms));
    std::printf("canvas repaint:                 median %.1f ms (max %.1f)\n", median(canvas_ms), worst(canvas_ms));
    std::printf("rank grid repaint:              median %.1f ms (max %.1f)\n", median(grid_ms), worst(grid_ms));
    std::printf("timeline repaint:               median %.1f ms (max %.1f)\n", median(timeline_ms), worst(timeline_ms));
    std::printf("canvas / grid repaint, unchanged: median %.1f / %.1f ms\n", median(canvas_again), median(grid_again));
    std::printf("  of it: active set + heat %.1f ms, canvas overlay %.1f ms, grid overlay %.1f ms\n", median(core_ms),
                median(canvas_set_ms), median(grid_set_ms));
    std::printf("frame total:                    median %.1f ms (max %.1f) = %.1f frames per second\n",
                median(total_ms), worst(total_ms), 1000.0 / median(total_ms));
    std::printf("frame CPU time:                 median %.1f ms (max %.1f) = %.1f frames per second on an idle core\n",
                median(cpu_ms), worst(cpu_ms), 1000.0 / median(cpu_ms));
    return 0;
}
