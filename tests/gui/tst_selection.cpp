// One selection across views: a group clicked on the cluster canvas is highlighted on the
// rank grid and its pipeline stages on the timeline; a rank picked on the grid selects the
// same group on the canvas.
#include <qcustomplot.h>

#include "canvas/clustercanvas.h"
#include "views/ganttplottable.h"
#include "guitest.h"
#include "mainwindow.h"
#include "canvas/nodeitem.h"
#include "project/project.h"
#include "projectdocument.h"
#include "views/rankgrid.h"
#include "views/timelineview.h"

#include <QComboBox>
#include <QTest>

class TestSelection : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    static QPoint tileCentre(ClusterCanvas* c, int node, int tile) {
        NodeItem* n = c->nodeItems().at(static_cast<std::size_t>(node));
        return c->view()->mapFromScene(n->mapToScene(n->tileRect(tile).center()));
    }
    static std::vector<int> sorted(std::vector<int> v) {
        std::sort(v.begin(), v.end());
        return v;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void canvasGridTimelineAgree() {
        auto win = exampleWindow(tmp_, "llama3.1-70b-4nodes");   // tp 8 x pp 4 on 4 nodes
        MainWindow& w = *win;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.canvas()->zoomToFit();
        const auto& m = w.document()->rankMap();
        QVERIFY(m.valid());
        ClusterCanvas* c = w.canvas();
        RankGrid* g = w.rankGrid();
        GanttPlottable* gantt = w.timeline()->gantt();

        // Click node1's second GPU (rank 9) with the canvas coloured by tp.
        c->setColourAxis(QStringLiteral("tp"));
        QTest::mouseClick(c->view()->viewport(), Qt::LeftButton, {}, tileCentre(c, 1, 1));
        QVERIFY(win->document()->waitForAnalysis());   // the views follow the edit's analysis
        const auto tp9 = m.group_of("tp", 9);
        QCOMPARE(c->selectedGroup(), std::vector<int>(tp9.begin(), tp9.end()));
        QCOMPARE(g->groupCombo()->currentData().toString(), QStringLiteral("tp"));
        QCOMPARE(sorted(g->highlightedRanks()), sorted(std::vector<int>(tp9.begin(), tp9.end())));
        QCOMPARE(gantt->highlightedStages(), std::vector<int>{m.coord(9, "pp")});

        // Coloured by pp, the same click selects the pipeline group: every stage is marked.
        c->setColourAxis(QStringLiteral("pp"));
        QTest::mouseClick(c->view()->viewport(), Qt::LeftButton, {}, tileCentre(c, 1, 1));
        QVERIFY(win->document()->waitForAnalysis());   // the views follow the edit's analysis
        const auto pp9 = m.group_of("pp", 9);
        QCOMPARE(int(pp9.size()), 4);
        QCOMPARE(g->groupCombo()->currentData().toString(), QStringLiteral("pp"));
        QCOMPARE(sorted(g->highlightedRanks()), sorted(std::vector<int>(pp9.begin(), pp9.end())));
        QCOMPARE(gantt->highlightedStages(), (std::vector<int>{0, 1, 2, 3}));

        // Picking rank 27 on the grid (tp groups) selects its group on the canvas too.
        g->setGroupKind(QStringLiteral("tp"));
        g->selectRank(27);
        const auto tp27 = m.group_of("tp", 27);
        QCOMPARE(c->colourAxis(), QStringLiteral("tp"));
        QCOMPARE(c->selectedGroup(), std::vector<int>(tp27.begin(), tp27.end()));
        QCOMPARE(gantt->highlightedStages(), std::vector<int>{m.coord(27, "pp")});
        QCOMPARE(m.coord(27, "pp"), 3);

        // An edit keeps the selection and its marks consistent with the new layout.
        QVERIFY(w.document()->applyChanges(QStringLiteral("pp 2"), {{"/layout/pp", 2}, {"/layout/tp", 8}}));
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        const auto& m2 = w.document()->rankMap();
        if (!c->selectedGroup().empty())
            QCOMPARE(gantt->highlightedStages(), std::vector<int>{m2.coord(c->selectedGroup().front(), "pp")});
        else QVERIFY(gantt->highlightedStages().empty());
    }
};

QTEST_MAIN(TestSelection)
#include "tst_selection.moc"
