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

namespace {
double ms(const std::function<void()>& f) {
    QElapsedTimer t;
    t.start();
    f();
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
double worst(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }
}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
    const int nodes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 512;
    QTemporaryDir tmp;
    MainWindow w(nullptr, tmp.path());
    // GPT-2 widths with 128 layers, so 64 pipeline stages hold 2 layers each.
    paraplan::Project p = paraplan::load_example("gpt2-1node");
    p.model_preset.clear();
    p.model.layers = 128;
    p.cluster.short_form = false;
    p.cluster.nodes.resize(std::size_t(nodes), p.cluster.nodes[0]);
    for (std::size_t i = 0; i < p.cluster.nodes.size(); ++i) p.cluster.nodes[i].name = "n" + std::to_string(i);
    p.layout.framework = "megatron";
    p.layout.tp = 4;
    p.layout.pp = 64;
    p.layout.sp = 1;
    p.layout.sp_mode = "none";
    p.layout.zero_stage = 0;
    p.layout.schedule = "1f1b";
    p.layout.chunks = 1;
    p.layout.num_microbatches = 256;
    p.training.micro_batch_size = 1;
    p.training.global_batch_size = 256 * (nodes * 8 / 256);   // dp at tp 4
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
