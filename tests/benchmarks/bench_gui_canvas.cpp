// Cluster canvas repaint at each level of detail, without edits: fitted (the whole cluster),
// node blocks, blocks of nodes, and zoomed in to readable tiles; plus the first repaint after
// a recolour (the blocks are recomputed then) and the minimap. NODES (default 16384) x 8 GPUs.
// Run offscreen:
//   QT_QPA_PLATFORM=offscreen build/dev/tests/benchmarks/bench_gui_canvas [iterations] [nodes]
#include "../scale_project.h"
#include "bench_timing.h"
#include "canvas/canvasminimap.h"
#include "canvas/clustercanvas.h"
#include "canvas/clusteroverviewitem.h"
#include "mainwindow.h"
#include "canvas/nodeitem.h"

#include <QApplication>
#include <QGraphicsScene>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <cstdio>
#include <vector>

namespace {
const char* detailName(ClusterOverviewItem::Detail d) {
    switch (d) {
    case ClusterOverviewItem::Detail::Tiles: return "tiles";
    case ClusterOverviewItem::Detail::Nodes: return "node blocks";
    case ClusterOverviewItem::Detail::Groups: return "blocks of nodes";
    }
    return "?";
}
}   // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QStandardPaths::setTestModeEnabled(true);
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
    const int nodes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 16384;
    QTemporaryDir tmp;
    MainWindow w(nullptr, tmp.path());
    w.setProject(scale_project(nodes), QString());
    w.resize(1600, 1000);
    w.show();
    QApplication::processEvents();
    ClusterCanvas* c = w.canvas();
    c->zoomToFit();
    QApplication::processEvents();
    QWidget* vp = c->view()->viewport();
    auto repaints = [&](const char* what) {
        vp->repaint();   // once to settle
        std::vector<double> t;
        for (int i = 0; i < iterations; ++i) t.push_back(ms([&] { vp->repaint(); }));
        std::printf("%-34s scale %.4f, %-15s median %6.1f ms (max %.1f), %d blocks\n", what,
                    c->view()->transform().m11(), detailName(c->overview()->lastPaintDetail()), median(t), worst(t),
                    c->overview()->lastPaintBlocks());
    };
    std::printf("GPUs %d on %d nodes, canvas %dx%d, iterations %d\n", w.project().world_size(), nodes, vp->width(),
                vp->height(), iterations);
    repaints("fitted");
    // A recolour: the first repaint recomputes every block.
    std::vector<double> first;
    for (int i = 0; i < std::min(iterations, 5); ++i) {
        c->setColourAxis(i % 2 ? QStringLiteral("pp") : QStringLiteral("dp"));
        first.push_back(ms([&] { vp->repaint(); }));
    }
    std::printf("%-34s median %6.1f ms (max %.1f)\n", "fitted, first repaint after recolour", median(first),
                worst(first));
    std::vector<double> rebuild;
    for (int i = 0; i < std::min(iterations, 5); ++i) {
        c->overview()->invalidate();
        rebuild.push_back(ms([&] { (void)c->overview()->nodeBlocks(); }));
    }
    std::printf("%-34s median %6.1f ms (max %.1f)\n", "blocks recomputed (part of that)", median(rebuild),
                worst(rebuild));
    const QPointF middle = c->scene()->sceneRect().center();
    for (double scale : {0.05, 0.01, 0.3, 1.0}) {
        c->view()->zoomBy(scale / c->view()->transform().m11());   // as the user zooms
        c->view()->centerOn(middle);
        c->minimap()->sync();
        QApplication::processEvents();
        const QByteArray label = QStringLiteral("scale %1").arg(scale).toUtf8();
        repaints(label.constData());
    }
    // The minimap while zoomed in: its picture once, then the viewport outline only.
    c->overview()->invalidate();
    const double mapFirst = ms([&] { c->minimap()->repaint(); });
    std::vector<double> mapT;
    for (int i = 0; i < iterations; ++i) mapT.push_back(ms([&] { c->minimap()->repaint(); }));
    std::printf("%-34s first %.1f ms, then median %.1f ms (max %.1f), %s, %dx%d\n", "minimap repaint", mapFirst,
                median(mapT), worst(mapT), c->minimap()->isVisible() ? "shown" : "hidden", c->minimap()->width(),
                c->minimap()->height());
    return 0;
}
