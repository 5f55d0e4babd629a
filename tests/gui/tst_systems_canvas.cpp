// The canvas palette's systems: dropping a GB200 NVL72 rack makes the cluster 18 trays of 4
// GPUs in one 72-GPU NVLink domain (cluster.system gb200-nvl72), one undo step; the canvas
// outlines each domain around its nodes, and a group's links are dashed where they leave the
// domain, not where they leave a node.
#include "catalog/catalog.h"
#include "canvas/clustercanvas.h"
#include "canvas/clustermime.h"
#include "canvas/clusterpalette.h"
#include "canvas/domainsitem.h"
#include "guitest.h"
#include "canvas/grouplinksitem.h"
#include "mainwindow.h"
#include "network/systems.h"
#include "canvas/nodeitem.h"
#include "project/project.h"
#include "projectdocument.h"

#include <QDropEvent>
#include <QGraphicsScene>
#include <QLabel>
#include <QMimeData>
#include <QTest>
#include <QUndoStack>

class TestSystemsCanvas : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    std::unique_ptr<MainWindow> window(const char* example) {
        auto w = exampleWindow(tmp_, example);
        w->resize(1400, 900);
        w->show();
        if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
        w->raiseView(QStringLiteral("canvas"));
        w->canvas()->zoomToFit();
        return w;
    }
    // The palette row of a system (by the id its drag carries); -1 if none.
    static int systemRow(ClusterPalette* palette, const QString& id) {
        for (int i = 0; i < palette->count(); ++i) {
            std::unique_ptr<QMimeData> m(palette->model()->mimeData({palette->model()->index(i, 0)}));
            if (!m || !m->hasFormat(clustermime::kSystem)) continue;
            if (QString::fromUtf8(m->data(clustermime::kSystem)).contains(QLatin1Char('"') + id + QLatin1Char('"')))
                return i;
        }
        return -1;
    }
    // The drag-enter/move/drop sequence a real drag of `mime` onto the view produces.
    static bool dropAt(CanvasView* view, const QPoint& pos, const QMimeData* mime) {
        QWidget* vp = view->viewport();
        QDragEnterEvent enter(pos, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(vp, &enter);
        if (!enter.isAccepted()) return false;
        QDragMoveEvent move(pos, Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(vp, &move);
        if (!move.isAccepted()) return false;
        QDropEvent drop(QPointF(pos), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(vp, &drop);
        return drop.isAccepted();
    }
    // The index of the domain outline holding a scene point (-1: none).
    static int domainAt(const DomainsItem* d, const QPointF& p) {
        for (std::size_t i = 0; i < d->domains().size(); ++i)
            if (d->domains()[i].rect.contains(p)) return static_cast<int>(i);
        return -1;
    }
    static int nodeAt(ClusterCanvas* c, const QPointF& p) {
        for (NodeItem* n : c->nodeItems())
            if (n->sceneBoundingRect().contains(p)) return n->index();
        return -1;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void dropNvl72RackFromThePalette() {
        auto w = window("gpt2-1node");
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        ClusterPalette* palette = c->paletteList();
        const int row = systemRow(palette, QStringLiteral("gb200-nvl72"));
        QVERIFY2(row >= 0, "no GB200 NVL72 rack in the palette");
        const paraplan::network::System& sys = *paraplan::network::find_system("gb200-nvl72");
        const int trays = sys.domain().domain_gpus / sys.gpus_per_tray;   // 72 / 4 (the datasheet's 18)
        QCOMPARE(trays, 18);

        // The palette's own drag data, dropped on the canvas's empty corner.
        std::unique_ptr<QMimeData> mime(palette->model()->mimeData({palette->model()->index(row, 0)}));
        QVERIFY(mime);
        const QPoint corner = c->view()->mapFromScene(c->scene()->sceneRect().topLeft() + QPointF(4, 4));
        QVERIFY(dropAt(c->view(), corner, mime.get()));
        QVERIFY(w->document()->waitForAnalysis());
        const auto& cl = w->project().cluster;
        QCOMPARE(cl.system, std::string("gb200-nvl72"));
        QCOMPARE(cl.nodes.size(), std::size_t(trays));
        QCOMPARE(w->project().world_size(), 72);
        for (const auto& n : cl.nodes) {
            QCOMPARE(n.gpu, sys.gpu);
            QCOMPARE(n.gpus, 4);
        }
        QVERIFY(w->document()
                    ->undoStack()
                    ->text(w->document()->undoStack()->index() - 1)
                    .contains(QStringLiteral("gb200-nvl72")));

        // One outline, around all 18 trays, titled with the domain's size.
        QCOMPARE(c->nodeItems().size(), std::size_t(trays));
        const auto& domains = c->domainsItem()->domains();
        QCOMPARE(domains.size(), std::size_t(1));
        QCOMPARE(domains[0].firstNode, 0);
        QCOMPARE(domains[0].nodes, trays);
        for (NodeItem* n : c->nodeItems())
            QVERIFY2(domains[0].rect.contains(n->sceneBoundingRect()), qPrintable(n->title()));
        QVERIFY2(domains[0].title.contains(QStringLiteral("72 GPUs")), qPrintable(domains[0].title));
        QVERIFY2(domains[0].title.contains(QStringLiteral("NVLink")), qPrintable(domains[0].title));
        QVERIFY2(domains[0].tiers.contains(QStringLiteral("leaf")), qPrintable(domains[0].tiers));
        QVERIFY(c->domainsItem()->scene() == c->scene());
        // The view shows the whole rack, the outline with it.
        const QRect shown = c->view()->mapFromScene(domains[0].rect).boundingRect();
        QVERIFY2(c->view()->viewport()->rect().contains(shown), "the rack is not fitted to the view");

        // Ctrl+Z: back to the one 8-GPU node, no system, no outline.
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(1));
        QCOMPARE(w->project().world_size(), 8);
        QVERIFY(w->project().cluster.system.empty());
        QCOMPARE(c->nodeItems().size(), std::size_t(1));
        QVERIFY(c->domainsItem()->domains().empty());
    }

    // A second rack by the keyboard (Enter on the palette's system): two domains. The links of
    // every group kind are dashed exactly where their two ends lie in two outlines.
    void linksLeaveDomainsNotNodes() {
        auto w = window("gpt2-1node");
        QVERIFY(w);
        ClusterCanvas* c = w->canvas();
        ClusterPalette* palette = c->paletteList();
        const int row = systemRow(palette, QStringLiteral("gb200-nvl72"));
        QVERIFY(row >= 0);
        palette->setFocus();
        palette->setCurrentRow(row);
        QTest::keyClick(palette, Qt::Key_Return);   // replaces the A100 node with a rack
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().world_size(), 72);
        QTest::keyClick(palette, Qt::Key_Return);   // the same system: a second rack after it
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().world_size(), 144);
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(36));
        QCOMPARE(w->project().cluster.nodes[18].name, std::string("rack1-tray0"));
        const auto& domains = c->domainsItem()->domains();
        QCOMPARE(domains.size(), std::size_t(2));
        QCOMPARE(domains[1].firstNode, 18);
        QVERIFY(!domains[0].rect.intersects(domains[1].rect));
        const auto& m = w->document()->rankMap();
        QVERIFY(m.valid());

        int leaving = 0, insideAcrossNodes = 0;
        for (const auto& [kind, set] : m.groups) {
            c->setColourAxis(QString::fromStdString(kind));
            QVERIFY(w->document()->waitForAnalysis());
            // Click rank 0's tile (node 0, GPU 0) as a user would, close enough to read it (the
            // canvas's dock is small in a window on the offscreen 800 x 600 screen).
            NodeItem* n0 = c->nodeItems().at(0);
            const QPointF tile = n0->mapToScene(n0->tileRect(0).center());
            c->view()->setTransform(QTransform::fromScale(1, 1));
            c->view()->centerOn(tile);
            const QPoint at = c->view()->mapFromScene(tile);
            QVERIFY(c->view()->viewport()->rect().contains(at));
            c->view()->viewport()->repaint();   // the level of detail follows the zoom when painted
            QCOMPARE(c->detailLevel(), 0);
            QTest::mouseClick(c->view()->viewport(), Qt::LeftButton, {}, at);
            QTRY_VERIFY(!c->selectedGroup().empty());
            int dashed = 0;
            const GroupLinksItem* links = nullptr;
            for (QGraphicsItem* it : c->scene()->items())
                if (auto* g = dynamic_cast<GroupLinksItem*>(it)) links = g;
            QVERIFY(links);
            for (const auto& l : links->links()) {
                const int a = domainAt(c->domainsItem(), l.line.p1()), b = domainAt(c->domainsItem(), l.line.p2());
                QVERIFY(a >= 0 && b >= 0);
                QCOMPARE(l.leavesDomain, a != b);
                dashed += l.leavesDomain;
                if (a == b && nodeAt(c, l.line.p1()) != nodeAt(c, l.line.p2())) ++insideAcrossNodes;
            }
            QCOMPARE(c->crossingLinks(), dashed);
            leaving += dashed;
            // The status line names the tier: inside one domain, or the domains and tiers crossed.
            const auto* info = c->findChild<QLabel*>(QStringLiteral("canvasInfo"));
            QVERIFY(info);
            QVERIFY2(info->text().contains(dashed ? QStringLiteral("crosses 2 NVLink domains over infiniband")
                                                  : QStringLiteral("inside one NVLink domain")),
                     qPrintable(QString::fromStdString(kind) + QStringLiteral(": ") + info->text()));
        }
        QVERIFY2(leaving > 0, "no group of the layout leaves a rack");
        QVERIFY2(insideAcrossNodes > 0, "no group joins two trays of one rack");
    }
};

QTEST_MAIN(TestSystemsCanvas)
#include "tst_systems_canvas.moc"
