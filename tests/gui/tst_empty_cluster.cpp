// Node edits on the canvas as a user makes them: a cluster built from nothing (a node template
// dropped anywhere on an empty canvas, or Edit > Add Node / Enter for people who do not drag),
// and a selection that after Delete holds only what the user chose and still exists.
#include "canvas/canvasview.h"
#include "canvas/clustercanvas.h"
#include "canvas/clustermime.h"
#include "canvas/clusterpalette.h"
#include "guitest.h"
#include "canvas/nodeitem.h"
#include "projectdocument.h"
#include "scale_project.h"

#include <QAction>
#include <QDropEvent>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QMimeData>
#include <QtTest>

class TestEmptyCluster : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    static paraplan::Project emptyProject() {
        paraplan::Project p = paraplan::load_example("gpt2-1node");
        p.cluster.nodes.clear();
        p.cluster.rank_order.clear();
        p.cluster.short_form = false;
        p.name = "from nothing";
        return p;
    }

    // A drop at `at` (view coordinates) as QDrag delivers it: enter, move, drop.
    static bool dropTemplate(QWidget* viewport, QPoint at, const char* gpu, int gpus) {
        QMimeData mime;
        mime.setData(clustermime::kNodeTemplate,
                     QByteArray("{\"gpu\": \"") + gpu + "\", \"gpus\": " + QByteArray::number(gpus) + "}");
        QDragEnterEvent enter(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(viewport, &enter);
        if (!enter.isAccepted()) return false;
        QDragMoveEvent move(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(viewport, &move);
        if (!move.isAccepted()) return false;
        QDropEvent drop(QPointF(at), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(viewport, &drop);
        return drop.isAccepted();
    }

private slots:
    void initTestCase() { isolateSettings(tmp_); }

    void dropOnAnEmptyCanvasAddsTheFirstNode() {
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec")));
        w.setProject(emptyProject(), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.document()->waitForAnalysis());
        QCOMPARE(w.project().cluster.nodes.size(), std::size_t(0));
        auto* viewport = w.canvas()->view()->viewport();
        QVERIFY(viewport->isVisible());
        for (const QPoint at : {QPoint(10, 10), QPoint(viewport->width() / 2, viewport->height() / 2)}) {
            const std::size_t before = w.project().cluster.nodes.size();
            QVERIFY2(dropTemplate(viewport, at, "h100-sxm", 8), "the empty canvas refused the drop");
            QVERIFY(w.document()->waitForAnalysis());
            QCOMPARE(w.project().cluster.nodes.size(), before + 1);
        }
        QCOMPARE(w.project().world_size(), 16);
        QCOMPARE(w.project().cluster.nodes[0].gpu, std::string("h100-sxm"));
        w.document()->undoStack()->undo();
        w.document()->undoStack()->undo();
        QCOMPARE(w.project().cluster.nodes.size(), std::size_t(0));
    }

    // Without dragging: Enter on a palette template, then Edit > Add Node (Insert), which adds
    // another like the last; the empty canvas says how.
    void keyboardPathAddsNodes() {
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec2")));
        w.setProject(emptyProject(), QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QVERIFY(w.document()->waitForAnalysis());
        auto* info = w.canvas()->findChild<QLabel*>();
        bool told = false;
        for (auto* l : w.canvas()->findChildren<QLabel*>()) told = told || l->text().contains(QStringLiteral("Insert"));
        QVERIFY2(told, info ? qPrintable(info->text()) : "no label");
        auto* palette = w.canvas()->paletteList();
        palette->setFocus();
        QTRY_VERIFY(palette->hasFocus());
        int row = -1;
        for (int i = 0; i < palette->count(); ++i)
            if (palette->item(i)->text() == QStringLiteral("4 × a100-80g")) row = i;
        QVERIFY(row >= 0);
        palette->setCurrentRow(row);
        QTest::keyClick(palette, Qt::Key_Return);
        QVERIFY(w.document()->waitForAnalysis());
        QCOMPARE(w.project().cluster.nodes.size(), std::size_t(1));
        QCOMPARE(w.project().world_size(), 4);
        auto* add = w.findChild<QAction*>(QStringLiteral("addNodeAction"));
        QVERIFY(add);
        palette->setCurrentRow(0);   // a heading: the new node is like the last one
        add->trigger();
        QVERIFY(w.document()->waitForAnalysis());
        QCOMPARE(w.project().cluster.nodes.size(), std::size_t(2));
        QCOMPARE(w.project().cluster.nodes[1].gpu, std::string("a100-80g"));
        QCOMPARE(w.project().world_size(), 8);
        bool inEdit = false;
        for (QAction* top : w.menuBar()->actions())
            if (top->text().remove(QLatin1Char('&')) == QLatin1String("Edit"))
                inEdit = top->menu()->actions().contains(add);
        QVERIFY(inEdit);
    }

    // Delete node1 of four with node1 and node3 selected... then only node3 stays selected; a
    // second Delete removes node3, not the nodes that slid into the freed places (it once removed
    // whatever sat where the deleted ones had been).
    void deleteLeavesOnlyTheChosenSelected() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        auto* c = w->canvas();
        QCOMPARE(c->nodeItems().size(), std::size_t(4));
        c->nodeItems()[1]->setSelected(true);
        QVERIFY(c->deleteNodes({1}));
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(3));
        QVERIFY(c->selectedNodes().empty());    // node2 slid into item 1: not selected
        c->nodeItems()[2]->setSelected(true);   // node3, now the third
        QCOMPARE(c->selectedNodes(), std::vector<int>{2});
        QVERIFY(c->moveNode(2, 0));   // node3 to the front: the selection follows it
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().cluster.nodes[0].name, std::string("node3"));
        QCOMPARE(c->selectedNodes(), std::vector<int>{0});
        w->document()->undoStack()->undo();   // node3 back to the end
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(c->selectedNodes(), std::vector<int>{2});
        QVERIFY(c->deleteNodes(c->selectedNodes()));
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(2));
        QCOMPARE(w->project().cluster.nodes[0].name, std::string("node0"));
        QCOMPARE(w->project().cluster.nodes[1].name, std::string("node2"));
        QVERIFY(c->selectedNodes().empty());
    }

    // Delete (the key, on the canvas) on more than a few hundred nodes, or on nodes out of view,
    // asks first and says how many; Cancel keeps them all, the question's Delete removes exactly
    // the nodes it named. A few nodes in view go at once, as before. (The issue: a second Delete
    // once removed 3,503 nodes at once without a word.)
    void deleteOfManyOrUnseenNodesAsks() {
        auto w = std::make_unique<MainWindow>(nullptr, tmp_.filePath(QStringLiteral("rec-ask")));
        w->setProject(scale_project(512), QString());
        w->resize(1280, 800);
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QVERIFY(w->document()->waitForAnalysis());
        auto* c = w->canvas();
        QCOMPARE(c->nodeItems().size(), std::size_t(512));
        const auto question = [] {
            return QApplication::activeModalWidget() ? qobject_cast<QMessageBox*>(QApplication::activeModalWidget())
                                                     : nullptr;
        };
        const auto pressDelete = [c] {
            c->view()->setFocus();
            QTest::keyClick(c->view()->viewport(), Qt::Key_Delete);
        };

        // 300 of 512 selected: asked, with the count; Cancel deletes nothing.
        for (int i = 0; i < 300; ++i) c->nodeItems()[static_cast<std::size_t>(i)]->setSelected(true);
        pressDelete();
        QTRY_VERIFY(question());
        QCOMPARE(question()->objectName(), QStringLiteral("confirmDelete"));
        QCOMPARE(question()->text(), QStringLiteral("Delete 300 nodes?"));
        question()->button(QMessageBox::Cancel)->click();
        QTRY_VERIFY(!question());
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(512));

        // Asked again; its Delete removes the 300 it named.
        pressDelete();
        QTRY_VERIFY(question());
        QPushButton* del = nullptr;
        for (QAbstractButton* b : question()->buttons())
            if (question()->buttonRole(b) == QMessageBox::DestructiveRole) del = qobject_cast<QPushButton*>(b);
        QVERIFY(del);
        QCOMPARE(del->text(), QStringLiteral("Delete 300 Nodes"));
        del->click();
        QTRY_COMPARE(w->project().cluster.nodes.size(), std::size_t(212));
        QCOMPARE(w->project().cluster.nodes.front().name, std::string("n300"));
        QCOMPARE(w->document()->undoStack()->text(w->document()->undoStack()->index() - 1),
                 QStringLiteral("Delete 300 nodes"));

        // Two nodes: one in view, one scrolled out of it; the question says one cannot be seen.
        QVERIFY(w->document()->waitForAnalysis());
        c->view()->resetTransform();   // 1:1, so that the cluster does not fit the view
        c->scene()->clearSelection();
        NodeItem* first = c->nodeItems().front();
        NodeItem* last = c->nodeItems().back();
        c->view()->centerOn(first);
        const QRectF seen = c->view()->mapToScene(c->view()->viewport()->rect()).boundingRect();
        QVERIFY(seen.intersects(first->sceneBoundingRect()));
        QVERIFY(!seen.intersects(last->sceneBoundingRect()));
        first->setSelected(true);
        last->setSelected(true);
        pressDelete();
        QTRY_VERIFY(question());
        QCOMPARE(question()->text(), QStringLiteral("Delete 2 nodes?"));
        QVERIFY2(question()->informativeText().startsWith(QStringLiteral("1 of them is not in view.")),
                 qPrintable(question()->informativeText()));
        question()->button(QMessageBox::Cancel)->click();
        QTRY_VERIFY(!question());
        QCOMPARE(w->project().cluster.nodes.size(), std::size_t(212));

        // Two nodes in view: deleted at once, no question.
        last->setSelected(false);
        NodeItem* near = nullptr;
        for (NodeItem* n : c->nodeItems())
            if (n != first && seen.intersects(n->sceneBoundingRect())) near = n;
        QVERIFY(near);
        near->setSelected(true);
        QCOMPARE(c->selectedNodes().size(), std::size_t(2));
        pressDelete();
        QTRY_COMPARE(w->project().cluster.nodes.size(), std::size_t(210));
        QVERIFY(!question());
    }
};

QTEST_MAIN(TestEmptyCluster)
#include "tst_empty_cluster.moc"
