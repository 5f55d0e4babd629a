// The cluster canvas: drag nodes and GPUs from the palette, move GPUs between
// nodes, select, delete, duplicate, rename; every change is one undo step.
#include "catalog/catalog.h"
#include "canvas/clustercanvas.h"
#include "canvas/clustermime.h"
#include "guitest.h"
#include "mainwindow.h"
#include "canvas/nodeitem.h"
#include "project/project.h"
#include "projectdocument.h"

#include <QAction>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QGraphicsScene>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QMimeData>
#include <QScrollBar>
#include <QSplitter>
#include <QTest>

using paraplan::Project;

class TestCanvas : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    // Synthesizes the drag-enter/move/drop sequence a real drag produces.
    static bool dropAt(CanvasView* view, const QPoint& pos, const QString& format, const QJsonObject& payload) {
        QMimeData mime;
        mime.setData(format, QJsonDocument(payload).toJson(QJsonDocument::Compact));
        QWidget* vp = view->viewport();
        QDragEnterEvent enter(pos, Qt::CopyAction | Qt::MoveAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(vp, &enter);
        if (!enter.isAccepted()) return false;
        QDragMoveEvent move(pos, Qt::CopyAction | Qt::MoveAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(vp, &move);
        if (!move.isAccepted()) return false;
        QDropEvent drop(QPointF(pos), Qt::CopyAction | Qt::MoveAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(vp, &drop);
        return drop.isAccepted();
    }
    static QPoint centreOf(ClusterCanvas* c, int node, int tile = 0) {
        NodeItem* n = c->nodeItems().at(static_cast<std::size_t>(node));
        return c->view()->mapFromScene(n->mapToScene(n->tileRect(tile).center()));
    }
    static QPoint emptySpot(ClusterCanvas* c) {
        // Just outside the last node, inside the scene's margin.
        const QRectF r = c->scene()->sceneRect();
        return c->view()->mapFromScene(r.topLeft() + QPointF(4, 4));
    }
    std::unique_ptr<MainWindow> window(const char* example) {
        auto w = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec")));
        w->setProject(paraplan::load_example(example), QString());
        w->show();
        if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
        w->canvas()->zoomToFit();
        return w;
    }

    // The palette's entries it does not show whole (with the width each needs).
    static QString cutEntries(QListWidget* palette) {
        QString cut;
        for (int i = 0; i < palette->count(); ++i) {
            QListWidgetItem* it = palette->item(i);
            const int need = palette->visualItemRect(it).x() +
                             palette->sizeHintForIndex(palette->indexFromItem(it)).width();
            if (need > palette->viewport()->width())
                cut +=
                    QStringLiteral(" \"%1\" (%2 of %3 px)").arg(it->text()).arg(need).arg(palette->viewport()->width());
        }
        return cut;
    }

private slots:
    // Beside a canvas of ordinary width the palette shows every name whole ("8 × h100-96g-500w");
    // in a narrow one the cluster keeps 500 px to work in; a width the user dragged stays.
    void paletteShowsNamesWholeWhereThereIsRoom() {
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec-palette")));
        w.setProject(paraplan::load_example("llama3.1-70b-4nodes"), QString());
        ClusterCanvas canvas(w.document());
        canvas.setAttribute(Qt::WA_DontShowOnScreen);
        canvas.resize(900, 600);   // the centre of a 1600 px window
        canvas.show();
        QTest::qWait(20);   // the layout pass
        auto* palette = canvas.findChild<QListWidget*>(QStringLiteral("palette"));
        QVERIFY(palette);
        QVERIFY(palette->count() > 20);
        QVERIFY2(cutEntries(palette).isEmpty(), qPrintable(cutEntries(palette)));
        QVERIFY(!palette->horizontalScrollBar()->isVisible());

        canvas.resize(560, 600);   // a small screen: the cluster comes first
        QTest::qWait(20);
        QVERIFY2(palette->width() <= std::max(palette->minimumWidth(), 560 - 500),
                 qPrintable(QString::number(palette->width())));
        QVERIFY(!cutEntries(palette).isEmpty());   // the long names scroll now

        auto* split = canvas.findChild<QSplitter*>();
        QVERIFY(split);
        QSplitterHandle* handle = split->handle(1);
        QTest::mousePress(handle, Qt::LeftButton, {}, QPoint(2, 10));
        QTest::mouseMove(handle, QPoint(42, 10));
        QTest::mouseRelease(handle, Qt::LeftButton, {}, QPoint(42, 10));
        const int dragged = palette->width();
        canvas.resize(900, 600);
        QTest::qWait(20);
        QCOMPARE(palette->width(), dragged);
    }

    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void dropNodeTemplateAddsNode() {
        auto w = window("gpt2-1node");
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        QCOMPARE(c->nodeItems().size(), std::size_t(1));
        const std::string gpu = w->project().cluster.nodes[0].gpu;
        QVERIFY(dropAt(c->view(), emptySpot(c), clustermime::kNodeTemplate,
                       {{"gpu", QString::fromStdString(gpu)}, {"gpus", 4}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(2));
        QCOMPARE(w->project().cluster.nodes[1].gpus, 4);
        QCOMPARE(w->project().cluster.nodes[1].gpu, gpu);
        QCOMPARE(w->project().world_size(), 12);
        QCOMPARE(c->nodeItems().size(), std::size_t(2));   // the view followed
        QCOMPARE(c->nodeItems()[1]->tiles().size(), 4);
        QCOMPARE(c->nodeItems()[1]->tiles()[0].rank, 8);   // fill order: node0 holds ranks 0-7
        QVERIFY(w->document()->undoStack()->text(0).startsWith(QStringLiteral("Add node")));
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(1));
        QCOMPARE(c->nodeItems().size(), std::size_t(1));
        w->document()->undoStack()->redo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().world_size(), 12);
    }

    void dropGpuOntoNode() {
        auto w = window("gpt2-1node");
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        const QString gpu = QString::fromStdString(w->project().cluster.nodes[0].gpu);
        QVERIFY(dropAt(c->view(), centreOf(c, 0, 3), clustermime::kGpuType, {{"gpu", gpu}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes[0].gpus, 9);
        QCOMPARE(c->nodeItems()[0]->tiles().size(), 9);
        // A GPU dropped on empty space has no node to go to: refused.
        QVERIFY(!dropAt(c->view(), emptySpot(c), clustermime::kGpuType, {{"gpu", gpu}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes[0].gpus, 9);
        // A different GPU type does not mix into the node.
        QString other;
        for (const auto& g : paraplan::catalog::gpus())
            if (g.id != gpu.toStdString()) other = QString::fromStdString(g.id);
        QVERIFY(!other.isEmpty());
        dropAt(c->view(), centreOf(c, 0, 0), clustermime::kGpuType, {{"gpu", other}});
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes[0].gpus, 9);
        QCOMPARE(w->project().cluster.nodes[0].gpu, gpu.toStdString());
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes[0].gpus, 8);
    }

    void moveGpuBetweenNodes() {
        auto w = window("llama3.1-70b-4nodes");
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        QVERIFY(dropAt(c->view(), centreOf(c, 2, 5), clustermime::kGpu, {{"node", 0}, {"local_rank", 1}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes[0].gpus, 7);
        QCOMPARE(w->project().cluster.nodes[2].gpus, 9);
        QCOMPARE(w->project().world_size(), 32);
        QCOMPARE(w->document()->undoStack()->text(0), QStringLiteral("Move GPU from node0 to node2"));
        // Ranks re-flow in node order: node1 now starts at rank 7.
        QCOMPARE(c->nodeItems()[1]->tiles()[0].rank, 7);
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes[0].gpus, 8);
        QCOMPARE(w->project().cluster.nodes[2].gpus, 8);
    }

    // A node dragged by its title bar onto another takes that place; ranks follow node order.
    void moveNodeChangesRankOrder() {
        auto w = window("llama3.1-70b-4nodes");
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        const std::string before = paraplan::project_to_json(w->project()).dump();
        QVERIFY(dropAt(c->view(), centreOf(c, 0, 3), clustermime::kNode, {{"node", 3}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        const auto& nodes = w->project().cluster.nodes;
        QCOMPARE(QString::fromStdString(nodes[0].name), QStringLiteral("node3"));
        QCOMPARE(QString::fromStdString(nodes[1].name), QStringLiteral("node0"));
        QCOMPARE(QString::fromStdString(nodes[3].name), QStringLiteral("node2"));
        QCOMPARE(w->document()->undoStack()->text(0),
                 QStringLiteral("Move node3 to place 1 of 4 (the rank order changes; Ctrl+Z undoes it)"));
        // Rank 0 now runs on node3's host, and the canvas shows it there.
        const auto placement = w->project().cluster.placement();
        QCOMPARE(QString::fromStdString(nodes[std::size_t(placement[0].node)].host), QStringLiteral("gpu-d"));
        QCOMPARE(c->nodeItems()[0]->tiles()[0].rank, 0);
        // Dropped on empty space, a node goes last.
        QVERIFY(dropAt(c->view(), emptySpot(c), clustermime::kNode, {{"node", 0}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(QString::fromStdString(w->project().cluster.nodes[3].name), QStringLiteral("node3"));
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(paraplan::project_to_json(w->project()).dump() == before);
        // Onto itself: nothing changes and no undo step is made.
        const int steps = w->document()->undoStack()->count();
        dropAt(c->view(), centreOf(c, 1, 0), clustermime::kNode, {{"node", 1}});
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->document()->undoStack()->count(), steps);
    }

    void rubberBandSelectDeleteDuplicateRename() {
        auto w = window("llama3.1-70b-4nodes");
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        QWidget* vp = c->view()->viewport();
        // Rubber band from empty space across the first node only.
        NodeItem* n0 = c->nodeItems()[0];
        const QPoint from = c->view()->mapFromScene(n0->sceneBoundingRect().topLeft() - QPointF(10, 10));
        const QPoint to = c->view()->mapFromScene(n0->sceneBoundingRect().center());
        QTest::mousePress(vp, Qt::LeftButton, Qt::NoModifier, from);
        QTest::mouseMove(vp, (from + to) / 2);
        QTest::mouseMove(vp, to);
        QTest::mouseRelease(vp, Qt::LeftButton, Qt::NoModifier, to);
        QCOMPARE(c->selectedNodes(), std::vector<int>{0});

        QAction* dup = nullptr;
        QAction* del = nullptr;
        for (QAction* a : c->editActions()) {
            if (a->text() == QLatin1String("Duplicate")) dup = a;
            if (a->text() == QLatin1String("Delete")) del = a;
        }
        QVERIFY(dup && del);
        dup->trigger();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(5));
        QCOMPARE(w->project().cluster.nodes[4].gpus, 8);
        QCOMPARE(w->project().cluster.nodes[4].name, std::string("node4"));

        c->nodeItems()[0]->setSelected(false);
        c->nodeItems()[1]->setSelected(true);
        c->nodeItems()[2]->setSelected(true);
        del->trigger();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(3));
        QCOMPARE(w->project().cluster.nodes[1].name, std::string("node3"));
        QCOMPARE(w->document()->undoStack()->text(1), QStringLiteral("Delete 2 nodes"));

        QVERIFY(c->renameNode(0, QStringLiteral("alpha")));
        QCOMPARE(w->project().cluster.nodes[0].name, std::string("alpha"));
        QVERIFY(!c->renameNode(1, QStringLiteral("alpha")));   // names stay unique
        QVERIFY(c->setHost(0, QStringLiteral("gpu-x.example")));
        QCOMPARE(w->project().cluster.nodes[0].host, std::string("gpu-x.example"));

        // Everything undoes step by step back to the opened project.
        while (w->document()->undoStack()->canUndo()) w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(4));
        QCOMPARE(w->project().cluster.nodes[0].name, std::string("node0"));
        QVERIFY(!w->document()->isModified());
    }

    void largeClusterIsOneItemPerNode() {
        auto w = window("gpt2-1node");
        QVERIFY(w);
        QVERIFY(w->document()->edit(QStringLiteral("Grow"), [](Project& p) {
            p.cluster.nodes.resize(512, p.cluster.nodes[0]);
            for (std::size_t i = 0; i < p.cluster.nodes.size(); ++i) p.cluster.nodes[i].name = "n" + std::to_string(i);
        }));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->project().world_size(), 4096);
        // One item per node plus their layer, the group-links and far-zoom overview overlays and
        // the domain outlines (empty here): tiles and text are painted, not items.
        QCOMPARE(w->canvas()->scene()->items().size(), 512 + 4);
        QCOMPARE(w->canvas()->nodeItems()[511]->tiles()[7].rank, 4095);
    }
};

QTEST_MAIN(TestCanvas)
#include "tst_canvas.moc"
