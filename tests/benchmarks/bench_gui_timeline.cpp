// Pipeline timeline replot with many gradient-accumulation flushes: the Llama 3.1 70B example
// (ColossalAI, pp 4, 32 microbatches per flush, 256 blocks per flush) with its global batch
// set to k flushes, k = 1 ... 2,048. The timeline draws every flush from the one simulated;
// past 60,000 blocks in view it stamps runs of flushes from one image. Each row: the median
// and worst synchronous replot (QCustomPlot::rpImmediateRefresh) of the whole step with the
// median GUI-thread CPU time of one (the machine may be shared), and of two flushes zoomed in. Run offscreen:
//   QT_QPA_PLATFORM=offscreen build/dev/tests/benchmarks/bench_gui_timeline [replots]
#include <qcustomplot.h>

#include "bench_timing.h"
#include "views/ganttplottable.h"
#include "mainwindow.h"
#include "projectdocument.h"
#include "project/project.h"
#include "views/timelineview.h"

#include <QApplication>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    double load_start[1] = {-1}, load_end[1] = {-1};
    getloadavg(load_start, 1);
    QStandardPaths::setTestModeEnabled(true);
    const int replots = argc > 1 ? std::max(3, std::atoi(argv[1])) : 20;
    QTemporaryDir tmp;
    MainWindow w(nullptr, tmp.path());
    w.setProject(paraplan::load_example("llama3.1-70b-4nodes"), QString());
    w.resize(1600, 1000);
    w.show();
    w.raiseView(QStringLiteral("timeline"));
    QApplication::processEvents();
    TimelineView* t = w.timeline();
    QCustomPlot* plot = t->plot();
    GanttPlottable* g = t->gantt();
    std::printf("timeline plot %d x %d px, %d replots per row\n", plot->width(), plot->height(), replots);
    std::printf("%8s %10s %9s %14s %14s %14s %14s\n", "flushes", "blocks", "stamped", "whole step", "(worst)", "(CPU)",
                "2 flushes");
    for (int k : {1, 8, 64, 512, 2048}) {
        // global = micro 1 x dp 1 x 32 microbatches x k
        if (!w.document()->applyChanges(QStringLiteral("Batch"), {{"/training/global_batch_size", 32 * k}}) ||
            !w.document()->waitForAnalysis()) {
            std::fprintf(stderr, "edit failed at k = %d\n", k);
            return 1;
        }
        t->refresh();
        plot->rescaleAxes();
        std::vector<double> whole, zoomed;
        int blocks = 0;
        bool stamped = false;
        std::vector<double> cpu;
        for (int i = 0; i < replots; ++i) {
            const double c0 = thread_cpu_ms();
            whole.push_back(ms([&] { plot->replot(QCustomPlot::rpImmediateRefresh); }));
            cpu.push_back(thread_cpu_ms() - c0);
        }
        blocks = g->lastDrawnBlocks();
        stamped = g->lastStamped();
        plot->xAxis->setRange(g->flushStart(std::max(0, k / 2 - 1)),
                              g->flushStart(std::max(0, k / 2 - 1)) + 2 * g->flushLength());
        for (int i = 0; i < replots; ++i) zoomed.push_back(ms([&] { plot->replot(QCustomPlot::rpImmediateRefresh); }));
        std::printf("%8d %10d %9s %11.1f ms %11.1f ms %11.1f ms %11.1f ms\n", g->flushes().count, blocks,
                    stamped ? "yes" : "no", median(whole), worst(whole), median(cpu), median(zoomed));
    }
    getloadavg(load_end, 1);
    std::printf("load average (1 min): %.2f at start, %.2f at end\n", load_start[0], load_end[0]);
    return 0;
}
