// Finding one's way on a large cluster canvas: level of detail (far out, nodes and blocks of
// nodes are drawn as single blocks; near, the tiles), the minimap (click or drag to move the
// view) and "Go to rank N / node X" (Ctrl+G), on the real main window.
#include "canvas/canvasminimap.h"
#include "canvas/clustercanvas.h"
#include "canvas/clusteroverviewitem.h"
#include "canvas/gotobar.h"
#include "guitest.h"
#include "mainwindow.h"
#include "canvas/nodeitem.h"
#include "project/project.h"
#include "projectdocument.h"
#include "views/rankgrid.h"
#include "common/theme.h"
#include "../scale_project.h"

#include <QAction>
#include <QApplication>
#include <QGraphicsScene>
#include <QLineEdit>
#include <QPainter>
#include <QMenuBar>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <set>

using paraplan::Project;

class TestCanvasNavigation : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    std::unique_ptr<MainWindow> window(const char* example, int nodes = 0) {
        auto w = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec")));
        Project p = paraplan::load_example(example);
        if (nodes > 0) {
            p.cluster.short_form = false;
            p.cluster.nodes.resize(std::size_t(nodes), p.cluster.nodes[0]);
            for (std::size_t i = 0; i < p.cluster.nodes.size(); ++i) p.cluster.nodes[i].name = "n" + std::to_string(i);
        }
        w->setProject(p, QString());
        w->resize(1400, 900);
        w->show();
        if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
        w->canvas()->zoomToFit();
        return w;
    }
    // The scene point at the centre of the view.
    static QPointF viewCentre(ClusterCanvas* c) {
        return c->view()->mapToScene(c->view()->viewport()->rect().center());
    }
    static void zoomTo(ClusterCanvas* c, double scale, const QPointF& centre) {
        emit c->view()->userZoomed();   // as a wheel zoom does: no refit on the next refresh
        c->view()->setTransform(QTransform::fromScale(scale, scale));
        c->view()->centerOn(centre);
        c->view()->viewport()->repaint();
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    // The block colour: the fill most tiles have; under a heat map the mean of the samples.
    void blockColourIsMajorityOrMeanHeat() {
        GpuTile a, b, c;
        a.fill = Qt::red;
        b.fill = Qt::blue;
        c.fill = Qt::blue;
        const GpuTile* three[] = {&a, &b, &c};
        QCOMPARE(ClusterOverviewItem::aggregate(three, 3), QColor(Qt::blue));
        QCOMPARE(ClusterOverviewItem::aggregate(three, 1), QColor(Qt::red));
        QVERIFY(!ClusterOverviewItem::aggregate(three, 0).isValid());
        GpuTile h1, h2, h3;
        h1.heat = HeatCell{};
        h1.heat->has = true;
        h1.heat->fraction = 0.2;
        h2.heat = HeatCell{};
        h2.heat->has = true;
        h2.heat->fraction = 0.6;
        h3.heat = HeatCell{};   // no sample: not counted as 0
        const GpuTile* heat[] = {&h1, &h2, &h3};
        QCOMPARE(ClusterOverviewItem::aggregate(heat, 3), heat::colour(0.4));
        h3.heat->failed = true;
        QCOMPARE(ClusterOverviewItem::aggregate(heat, 3), heat::failedColour());
        GpuTile none;
        none.heat = HeatCell{};
        const GpuTile* missing[] = {&none};
        QVERIFY(!ClusterOverviewItem::aggregate(missing, 1).isValid());
    }

    // 512 nodes x 8 GPUs: zoomed out, the nodes are blocks (then blocks of 32 nodes); zoomed
    // in, the tiles again.
    void farZoomDrawsBlocksNearZoomDrawsTiles() {
        auto w = window("gpt2-1node", 512);
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        QCOMPARE(w->project().world_size(), 4096);
        c->setColourAxis(QStringLiteral("node"));
        ClusterOverviewItem* ov = c->overview();
        NodeItem* first = c->nodeItems().front();
        const QPointF middle = c->scene()->sceneRect().center();

        zoomTo(c, 0.05, middle);   // a tile is under 4 x 3 pixels
        QCOMPARE(ov->lastPaintDetail(), ClusterOverviewItem::Detail::Nodes);
        QVERIFY(ov->lastPaintBlocks() > 0);
        QVERIFY(ov->lastPaintBlocks() <= 512);
        QCOMPARE(ov->nodeBlocks().size(), std::size_t(512));
        // Coloured by node: each block shows its node's colour; the node items drew no tiles.
        for (int n : {7, 20, 21, 300})
            QCOMPARE(ov->nodeBlocks()[std::size_t(n)].colour.rgba(),
                     c->nodeItems()[std::size_t(n)]->tiles()[0].fill.rgba());
        QVERIFY(ov->nodeBlocks()[20].colour.rgba() != ov->nodeBlocks()[21].colour.rgba());
        QVERIFY(!c->nodeItems()[7]->drawn());
        // The blocks still find their node: under the mouse (drops, tooltips), and for a rubber band.
        const QPointF at5 = c->nodeItems()[5]->sceneBoundingRect().center();
        zoomTo(c, 0.05, at5);
        QCOMPARE(c->view()->nodeAt(c->view()->mapFromScene(at5)), c->nodeItems()[5]);
        QWidget* vp = c->view()->viewport();
        const QPoint from = c->view()->mapFromScene(c->nodeItems()[5]->sceneBoundingRect().topLeft() - QPointF(9, 9));
        const QPoint to = c->view()->mapFromScene(c->nodeItems()[6]->sceneBoundingRect().center());
        QTest::mousePress(vp, Qt::LeftButton, Qt::NoModifier, from);
        QTest::mouseMove(vp, (from + to) / 2);
        QTest::mouseMove(vp, to);
        QTest::mouseRelease(vp, Qt::LeftButton, Qt::NoModifier, to);
        QCOMPARE(c->selectedNodes(), (std::vector<int>{5, 6}));
        QVERIFY(ov->nodeBlocks()[5].marked);   // a selected node's block is marked
        QVERIFY(!ov->nodeBlocks()[8].marked);
        c->scene()->clearSelection();
        c->nodeItems()[9]->setSelected(true);
        QVERIFY(ov->nodeBlocks()[9].marked);
        QVERIFY(!ov->nodeBlocks()[5].marked);

        // A picture of the scene at its own (near) scale while the view is far out still shows
        // the tiles: the overview draws the node items it stands in for.
        {
            NodeItem* n0 = c->nodeItems()[0];
            const QRectF src = n0->sceneBoundingRect();
            QImage img(src.size().toSize(), QImage::Format_ARGB32);
            img.fill(Qt::white);
            QPainter painter(&img);
            c->scene()->render(&painter, QRectF(QPointF(0, 0), src.size()), src);
            painter.end();
            QCOMPARE(ov->lastPaintDetail(), ClusterOverviewItem::Detail::Tiles);
            const QPoint inTile = (n0->tileRect(0).center() - src.topLeft() + n0->pos()).toPoint() + QPoint(0, -6);
            QCOMPARE(QColor(img.pixel(inTile)).rgb(), n0->tiles()[0].fill.rgb());
        }

        zoomTo(c, 0.01, middle);   // a node is about 3 pixels wide: blocks of 32 nodes
        QCOMPARE(ov->lastPaintDetail(), ClusterOverviewItem::Detail::Groups);
        QVERIFY(ov->lastPaintBlocks() >= 512 / ClusterOverviewItem::kGroupNodes);
        QVERIFY(ov->lastPaintBlocks() < 512 / 4);
        int covered = 0;
        for (const auto& b : ov->groupBlocks()) covered += b.nodeCount;
        QCOMPARE(covered, 512);
        QVERIFY(ov->groupBlocks().front().marked);   // holds the selected node 9

        // The user zooms back in with the canvas's zoom action: tiles, no blocks.
        zoomTo(c, 0.05, first->sceneBoundingRect().center());
        QAction* zoomIn = nullptr;
        for (QAction* a : c->actions())
            if (a->text() == QLatin1String("Zoom in")) zoomIn = a;
        QVERIFY(zoomIn);
        while (c->view()->transform().m11() < 0.5) zoomIn->trigger();
        c->view()->centerOn(first);
        c->view()->viewport()->repaint();
        QCOMPARE(ov->lastPaintDetail(), ClusterOverviewItem::Detail::Tiles);
        QCOMPARE(ov->lastPaintBlocks(), 0);
        QVERIFY(first->drawn());
        QVERIFY(first->paintedTiles());
        QVERIFY(c->nodeItems()[9]->isSelected());   // kept through the zooms
    }

    void editRefreshesOnlyTheNodesOnScreen() {
        // An edit re-colours the canvas's tiles without touching its node items: far out, where
        // blocks stand for the nodes, no node item makes its tiles; near, only those on screen
        // do, when they are painted. (Each refresh used to rebuild the tiles and texts of every
        // node item: 16,384 of them at 131,072 GPUs.)
        auto w = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec-edit")));
        w->setProject(scale_project(256), QString());   // 2,048 GPUs, Megatron tp 4, pp 64
        w->resize(1400, 900);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QVERIFY(w->document()->waitForAnalysis());
        ClusterCanvas* c = w->canvas();
        c->setColourAxis(QStringLiteral("tp"));
        zoomTo(c, 0.05, c->scene()->sceneRect().center());   // a tile is under 4 x 3 pixels
        QCOMPARE(c->detailLevel(), int(ClusterOverviewItem::Detail::Nodes));
        ClusterOverviewItem* ov = c->overview();
        const QRgb node1Before = ov->nodeBlocks()[1].colour.rgba();
        const auto builds = [c] {
            long long b = 0;
            for (const NodeItem* n : c->nodeItems()) b += n->tileBuilds();
            return b;
        };
        const long long before = builds();
        QVERIFY(w->document()->applyChanges(QStringLiteral("Set tp"),
                                            {{"/layout/tp", 8}, {"/training/global_batch_size", 1024}}));
        QVERIFY(w->document()->waitForAnalysis());
        QApplication::processEvents();
        c->view()->viewport()->repaint();
        QCOMPARE(builds(), before);
        // The blocks show the new tp groups: node n holds ranks 8n..8n+7, now one tp group.
        const auto& m = w->document()->rankMap();
        QCOMPARE(m.group_set("tp")->group_size, 8);
        for (int n : {0, 1, 100, 255})
            QCOMPARE(ov->nodeBlocks()[std::size_t(n)].colour.rgba(),
                     theme::groupColor(m.group_set("tp")->group_index[std::size_t(8 * n)], c->palette()).rgba());
        QVERIFY(ov->nodeBlocks()[1].colour.rgba() != node1Before);

        // Near: the nodes on screen make their tiles when painted, from the new layout.
        zoomTo(c, 1.0, c->nodeItems()[100]->sceneBoundingRect().center());
        const long long near = builds() - before;
        QVERIFY2(near > 0 && near < 40, qPrintable(QString::number(near)));
        NodeItem* n100 = c->nodeItems()[100];
        QVERIFY(n100->paintedTiles());
        QCOMPARE(n100->tiles()[3].rank, 803);
        QCOMPARE(n100->tiles()[3].fill.rgba(), ov->nodeBlocks()[100].colour.rgba());
        QVERIFY2(n100->tileCaption(3).contains(QStringLiteral("tp3")), qPrintable(n100->tileCaption(3)));
        QCOMPARE(n100->title(), QStringLiteral("n100"));
        // Undo while near: again only the nodes on screen.
        const long long beforeUndo = builds();
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());
        QApplication::processEvents();
        c->view()->viewport()->repaint();
        const long long undoBuilds = builds() - beforeUndo;
        QVERIFY2(undoBuilds > 0 && undoBuilds < 40, qPrintable(QString::number(undoBuilds)));
        QCOMPARE(n100->tiles()[3].fill.rgba(),
                 theme::groupColor(w->document()->rankMap().group_set("tp")->group_index[803], c->palette()).rgba());
    }

    void minimapClickMovesTheViewport() {
        auto w = window("gpt2-1node", 512);
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        CanvasMinimap* map = c->minimap();
        QAction* toggle = w->findChild<QAction*>(QStringLiteral("minimapAction"));
        QVERIFY(toggle);
        QVERIFY(toggle->isChecked());
        // The whole cluster in view: nothing to navigate to, no minimap.
        QVERIFY(!map->isVisible());
        // In the View menu.
        bool inViewMenu = false;
        for (QAction* m : w->menuBar()->actions())
            if (m->menu() && m->text().remove(QLatin1Char('&')) == QLatin1String("View"))
                inViewMenu = m->menu()->actions().contains(toggle);
        QVERIFY(inViewMenu);

        zoomTo(c, 1.0, c->nodeItems().front()->sceneBoundingRect().center());
        QTRY_VERIFY(map->isVisible());
        // Click where node 300 is on the map: the view centres there.
        const QPointF target = c->nodeItems()[300]->sceneBoundingRect().center();
        const QPoint at = map->toMap(QRectF(target, QSizeF(0, 0))).topLeft().toPoint();
        QTest::mouseClick(map, Qt::LeftButton, Qt::NoModifier, at);
        const double mapPixel = c->scene()->sceneRect().width() / map->mapArea().width();
        QVERIFY2(QLineF(viewCentre(c), target).length() < 2 * mapPixel,
                 qPrintable(QStringLiteral("centre %1,%2 target %3,%4")
                                .arg(viewCentre(c).x())
                                .arg(viewCentre(c).y())
                                .arg(target.x())
                                .arg(target.y())));
        QVERIFY(c->view()
                    ->mapToScene(c->view()->viewport()->rect())
                    .boundingRect()
                    .contains(c->nodeItems()[300]->sceneBoundingRect()));
        // The outlined part of the map follows the view.
        QVERIFY(map->viewportOnMap().contains(at));
        // A drag moves it on.
        const QPointF target2 = c->nodeItems()[40]->sceneBoundingRect().center();
        const QPoint at2 = map->toMap(QRectF(target2, QSizeF(0, 0))).topLeft().toPoint();
        QTest::mousePress(map, Qt::LeftButton, Qt::NoModifier, at);
        QTest::mouseMove(map, (at + at2) / 2);
        QTest::mouseMove(map, at2);
        QTest::mouseRelease(map, Qt::LeftButton, Qt::NoModifier, at2);
        QVERIFY(QLineF(viewCentre(c), target2).length() < 2 * mapPixel);

        // A recolour while zoomed in reaches the minimap's picture too.
        map->repaint();
        const quint64 before = map->pictureGeneration();
        QCOMPARE(before, c->overview()->generation());
        c->setColourAxis(QStringLiteral("gpu"));
        QVERIFY(c->overview()->generation() > before);
        map->repaint();
        QCOMPARE(map->pictureGeneration(), c->overview()->generation());
        // View > Minimap switches it off and on.
        toggle->trigger();
        QVERIFY(!map->isVisible());
        toggle->trigger();
        QVERIFY(map->isVisible());
    }

    void minimapOfAHugeClusterDrawsRunsOfNodes() {
        // 16,384 nodes in a minimap at most 220 pixels wide: a node would be about two pixels,
        // so its picture is drawn from the runs of 32 nodes (a few hundred fills), not one fill
        // per node.
        auto w = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec-huge")));
        w->setProject(scale_project(16384), QString());
        w->resize(1400, 900);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QVERIFY(w->document()->waitForAnalysis());
        ClusterCanvas* c = w->canvas();
        c->setColourAxis(QStringLiteral("node"));
        zoomTo(c, 1.0, c->nodeItems()[5000]->sceneBoundingRect().center());
        CanvasMinimap* mm = c->minimap();
        QVERIFY(mm->isVisible());
        mm->repaint();
        const auto& runs = c->overview()->groupBlocks();
        QCOMPARE(mm->pictureBlocks(), int(runs.size()));
        QVERIFY(mm->pictureBlocks() < 16384 / 16);
        // Rows of nodes are under a pixel high here, so the picture is checked as a whole: it
        // shows the nodes' many colours, not one fill.
        const QImage img = mm->grab().toImage();
        std::set<QRgb> colours;
        for (int y = 4; y < img.height() - 4; y += 3)
            for (int x = 4; x < img.width() - 4; x += 3) colours.insert(img.pixel(x, y));
        QVERIFY2(colours.size() > 10, qPrintable(QString::number(colours.size())));
    }

    void goToRankCentresAndSelects() {
        auto w = window("llama3.1-70b-4nodes");
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        QAction* go = w->findChild<QAction*>(QStringLiteral("goToAction"));
        QVERIFY(go);
        QCOMPARE(go->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_G));
        bool inEditMenu = false;
        for (QAction* m : w->menuBar()->actions())
            if (m->menu() && m->text().remove(QLatin1Char('&')) == QLatin1String("Edit"))
                inEditMenu = m->menu()->actions().contains(go);
        QVERIFY(inEditMenu);
        // Ctrl+G from the window opens the field with the focus in it.
        w->activateWindow();
        QTest::keyClick(w.get(), Qt::Key_G, Qt::ControlModifier);
        QTRY_VERIFY(c->goToBar()->isVisible());
        QLineEdit* field = c->goToBar()->field();
        QTRY_VERIFY(field->hasFocus());
        QTest::keyClicks(field, QStringLiteral("19"));
        QTest::keyClick(field, Qt::Key_Return);
        // Rank 19 fills node 2 (8 GPUs a node), GPU 3.
        const auto placement = w->project().cluster.placement();
        QCOMPARE(placement[19].node, 2);
        QCOMPARE(c->selectedNodes(), std::vector<int>{2});
        const auto& group = c->selectedGroup();
        QVERIFY(std::find(group.begin(), group.end(), 19) != group.end());
        // The rank grid's selection follows.
        const auto gridRanks = w->rankGrid()->highlightedRanks();
        QVERIFY(std::find(gridRanks.begin(), gridRanks.end(), 19) != gridRanks.end());
        // In view, close enough to read it (four nodes fit at 1:1, so there is no scrolling to
        // centre them: goToRankOnALargeClusterCentresIt checks the centring).
        NodeItem* n2 = c->nodeItems()[2];
        const QPointF tile = n2->mapToScene(n2->tileRect(placement[19].local_rank).center());
        QVERIFY(c->view()->mapToScene(c->view()->viewport()->rect()).boundingRect().contains(tile));
        QVERIFY(c->view()->transform().m11() >= 1.0);
        QVERIFY(!c->autoFit());
        QVERIFY(!c->goToBar()->isVisible());
        QVERIFY(w->statusBar()->currentMessage().startsWith(QStringLiteral("Rank 19")));

        // A node by name, and by host.
        QVERIFY(c->goTo(QStringLiteral("node1")));
        QCOMPARE(c->selectedNodes(), std::vector<int>{1});
        QVERIFY(c->goTo(QStringLiteral("gpu-d")));
        QCOMPARE(c->selectedNodes(), std::vector<int>{3});
        QVERIFY(c->goTo(QStringLiteral("rank 0")));
        QCOMPARE(c->selectedNodes(), std::vector<int>{0});
    }

    // 4,096 GPUs seen whole (far out): going to a rank zooms in to 1:1 and centres its tile.
    void goToRankOnALargeClusterCentresIt() {
        auto w = window("gpt2-1node", 512);
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        QVERIFY(c->view()->transform().m11() < 0.5);
        QVERIFY(c->goTo(QStringLiteral("r2051")));   // node 256, GPU 3
        QCOMPARE(c->selectedNodes(), std::vector<int>{256});
        NodeItem* n = c->nodeItems()[256];
        QCOMPARE(n->tiles()[3].rank, 2051);
        const QPointF tile = n->mapToScene(n->tileRect(3).center());
        QVERIFY(QLineF(viewCentre(c), tile).length() < 2);
        QCOMPARE(c->view()->transform().m11(), 1.0);
        c->view()->viewport()->repaint();
        QVERIFY(n->paintedTiles());
        QCOMPARE(c->overview()->lastPaintDetail(), ClusterOverviewItem::Detail::Tiles);
        // A node by name, centred as well.
        QVERIFY(c->goTo(QStringLiteral("n40")));
        QCOMPARE(c->selectedNodes(), std::vector<int>{40});
        QVERIFY(QLineF(viewCentre(c), c->nodeItems()[40]->sceneBoundingRect().center()).length() < 2);
    }

    void goToUnknownRankOrNodeSaysWhy() {
        auto w = window("llama3.1-70b-4nodes");
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        const QTransform before = c->view()->transform();
        c->openGoTo();
        QLineEdit* field = c->goToBar()->field();
        QTest::keyClicks(field, QStringLiteral("99999"));
        QTest::keyClick(field, Qt::Key_Return);
        const QString why = QStringLiteral("No rank 99999: this cluster has ranks 0 to 31.");
        QCOMPARE(c->goToBar()->error(), why);
        QVERIFY(c->goToBar()->isVisible());   // stays open to correct the text
        QCOMPARE(w->statusBar()->currentMessage(), why);
        QVERIFY(c->selectedNodes().empty());
        QCOMPARE(c->view()->transform(), before);
        QVERIFY(c->selectedGroup().empty());

        QVERIFY(!c->goTo(QStringLiteral("node9")));
        QCOMPARE(c->goToBar()->error(),
                 QStringLiteral("No rank or node \"node9\": type a rank from 0 to 31, or a node name (nodes are "
                                "node0 … node3)."));
        QVERIFY(!c->goTo(QStringLiteral("  ")));
        QCOMPARE(c->goToBar()->error(), QStringLiteral("Type a rank number or a node name."));
        // Typing again clears the reason; Escape closes the field.
        QTest::keyClick(field, Qt::Key_Backspace);
        QVERIFY(c->goToBar()->error().isEmpty());
        QTest::keyClick(field, Qt::Key_Escape);
        QVERIFY(!c->goToBar()->isVisible());
    }
};

int main(int argc, char** argv) {
    // A desktop screen, so that the 1400 x 900 window the tests ask for is not cut to the
    // offscreen platform's default 800 x 600 (which leaves the canvas a sliver beside the docks).
    QTemporaryDir screenDir;
    if (!useOffscreenScreen(screenDir, "desktop", 1920, 1080)) return 1;
    QApplication app(argc, argv);
    TestCanvasNavigation t;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&t, argc, argv);
}
#include "tst_canvas_navigation.moc"
