// GUI speed (issue 7: an edit to redraw under 50 ms, a repaint under 16 ms) on a cluster
// of 512 nodes x 8 GPUs (4,096 GPUs) with a 64-stage pipeline of 256 microbatches: one
// layout edit -> every view refreshed (validate, rank map, canvas, rank grid, timeline
// simulation, memory, Explain) -> then a synchronous repaint of the canvas, the rank grid
// and the timeline, each timed alone. NODES (default 512) x 8 GPUs sets the scale, e.g.
// 2048 nodes for 16,384 GPUs and 16384 for 131,072. Run offscreen:
//   QT_QPA_PLATFORM=offscreen build/dev/tests/benchmarks/bench_gui_edit [iterations] [nodes]
#include <qcustomplot.h>

#include "clustercanvas.h"
#include "mainwindow.h"
#include "project/project.h"
#include "../scale_project.h"
#include "bench_timing.h"
#include "projectdocument.h"
#include "rankgrid.h"
#include "timelineview.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
    const int nodes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 512;
    QTemporaryDir tmp;
    MainWindow w(nullptr, tmp.path());
    paraplan::Project p = scale_project(nodes);
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

    std::vector<double> edit_ms, canvas_ms, grid_ms, timeline_ms, total_ms;
    // tp 4 <-> 8 (dp 16 <-> 8) with the global batch following, so both layouts are valid and
    // every pipeline keeps 256 microbatches.
    for (int i = 0; i < iterations; ++i) {
        const int tp = i % 2 ? 4 : 8;
        const int dp = nodes * 8 / (tp * 64);
        const double e = ms([&] {
            w.document()->applyChanges(QStringLiteral("Set tp"), {{"/layout/tp", tp},
                                                                  {"/training/global_batch_size", 256 * dp}});
        });
        const double c = ms([&] { canvas->repaint(); });
        const double g = ms([&] { grid->repaint(); });
        const double t = ms([&] { plot->replot(QCustomPlot::rpImmediateRefresh); });
        edit_ms.push_back(e);
        canvas_ms.push_back(c);
        grid_ms.push_back(g);
        timeline_ms.push_back(t);
        total_ms.push_back(e + c + g + t);
    }
    const auto& tl = w.timeline()->timeline();
    std::printf("GPUs %d, pipeline stages %d, microbatches %d, timeline ops %zu, iterations %d\n",
                w.project().world_size(), w.project().layout.pp, w.project().layout.num_microbatches,
                tl ? tl->ops.size() : std::size_t(0), iterations);
    std::printf("edit + all views refreshed: median %.1f ms (max %.1f)\n", median(edit_ms), worst(edit_ms));
    std::printf("canvas repaint:             median %.1f ms (max %.1f)\n", median(canvas_ms), worst(canvas_ms));
    std::printf("rank grid repaint:          median %.1f ms (max %.1f)\n", median(grid_ms), worst(grid_ms));
    std::printf("timeline replot:            median %.1f ms (max %.1f)\n", median(timeline_ms), worst(timeline_ms));
    std::printf("edit -> redraw total:       median %.1f ms (max %.1f)\n", median(total_ms), worst(total_ms));
    return 0;
}
