// GUI speed: one edit -> every view refreshed -> the canvas repainted, on a cluster
// of 512 nodes x 8 GPUs (4,096 GPUs). Run offscreen:
//   QT_QPA_PLATFORM=offscreen build/dev/tests/benchmarks/bench_gui_edit [iterations]
#include "clustercanvas.h"
#include "mainwindow.h"
#include "project/project.h"
#include "projectdocument.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
    QTemporaryDir tmp;
    MainWindow w(nullptr, tmp.path());
    paraplan::Project p = paraplan::load_example("gpt2-1node");
    p.cluster.short_form = false;
    p.cluster.nodes.resize(512, p.cluster.nodes[0]);
    for (std::size_t i = 0; i < p.cluster.nodes.size(); ++i) p.cluster.nodes[i].name = "n" + std::to_string(i);
    w.setProject(p, QString());
    w.resize(1600, 1000);
    w.show();
    QApplication::processEvents();
    w.canvas()->zoomToFit();
    QWidget* vp = w.canvas()->view()->viewport();

    std::vector<double> edit_ms, paint_ms, total_ms;
    const int tps[] = {4, 2};
    for (int i = 0; i < iterations; ++i) {
        QElapsedTimer t;
        t.start();
        w.document()->applyChanges(QStringLiteral("Set tp"), {{"/layout/tp", tps[i % 2]}});   // emits changed -> views
        const double e = static_cast<double>(t.nsecsElapsed()) / 1e6;
        vp->repaint();   // synchronous paint of the canvas at fit-to-window zoom
        const double all = static_cast<double>(t.nsecsElapsed()) / 1e6;
        edit_ms.push_back(e);
        paint_ms.push_back(all - e);
        total_ms.push_back(all);
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    std::printf("GPUs %d, iterations %d\n", w.project().world_size(), iterations);
    std::printf("edit + views refresh: median %.1f ms\n", median(edit_ms));
    std::printf("canvas repaint:       median %.1f ms\n", median(paint_ms));
    std::printf("edit -> redraw total: median %.1f ms (max %.1f)\n", median(total_ms),
                *std::max_element(total_ms.begin(), total_ms.end()));
    return 0;
}
