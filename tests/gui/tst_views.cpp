// Views over core results follow the document: rank grid (topology), pipeline
// timeline (schedule), canvas group colouring and links, Explain panel.
#include <qcustomplot.h>

#include "canvas/clustercanvas.h"
#include "teach/explainpanel.h"
#include "views/ganttplottable.h"
#include "guitest.h"
#include "plan/layoutpanel.h"
#include "mainwindow.h"
#include "canvas/nodeitem.h"
#include "project/project.h"
#include "projectdocument.h"
#include "views/rankgrid.h"
#include "common/theme.h"
#include "views/timelineview.h"
#include "../scale_project.h"

#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QLabel>
#include <QScrollArea>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QTest>
#include <QTextDocument>

#include <set>

class TestViews : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    std::unique_ptr<MainWindow> window(const char* example) { return exampleWindow(tmp_, example); }
    static void setTp(MainWindow& w, int tp) {
        auto* combo = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("tp"));
        combo->lineEdit()->selectAll();
        QTest::keyClicks(combo->lineEdit(), QString::number(tp));
        QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void rankGridFollowsEditsAndUndo() {
        auto w = window("gpt2-1node");   // 8 GPUs, tp 2, pp 2
        RankGrid* g = w->rankGrid();
        const auto& m = w->document()->rankMap();
        QVERIFY(m.valid());
        // Every rank has its own cell.
        std::set<std::pair<int, int>> cells;
        for (int r = 0; r < m.world_size; ++r) cells.insert({g->cellOf(r).x(), g->cellOf(r).y()});
        QCOMPARE(int(cells.size()), m.world_size);
        g->setGroupKind(QStringLiteral("tp"));
        g->selectRank(5);
        const auto tp5 = m.group_of("tp", 5);
        QCOMPARE(g->highlightedRanks(), std::vector<int>(tp5.begin(), tp5.end()));
        QCOMPARE(int(tp5.size()), 2);

        setTp(*w, 4);
        QCOMPARE(w->project().layout.tp, 4);
        const auto& m2 = w->document()->rankMap();
        QVERIFY(m2.valid());
        QCOMPARE(m2.group_set("tp")->group_size, 4);
        QVERIFY(g->groupCombo()->currentText().contains(QStringLiteral("× 4")));
        g->selectRank(5);
        QCOMPARE(int(g->highlightedRanks().size()), 4);
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w->document()->rankMap().group_set("tp")->group_size, 2);
        QVERIFY(g->groupCombo()->currentText().contains(QStringLiteral("× 2")));
    }

    void rankGridPaintsOnlyTheCellsInView() {
        // 2,048 ranks in a dock a few hundred pixels wide: a repaint draws the cells the scroll
        // area shows, not every rank (at 131,072 ranks a full repaint took about 0.1 s).
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("grid-rec")));
        w.setProject(scale_project(256), QString());
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.raiseView(QStringLiteral("grid"));
        QVERIFY(w.document()->waitForAnalysis());
        QApplication::processEvents();
        RankGrid* g = w.rankGrid();
        const auto& m = w.document()->rankMap();
        QCOMPARE(m.world_size, 2048);
        auto* scroll = g->findChild<QScrollArea*>();
        QVERIFY(scroll);
        QWidget* cells = g->findChild<QWidget*>(QStringLiteral("rankGridCanvas"));
        QVERIFY(cells->width() > scroll->viewport()->width() || cells->height() > scroll->viewport()->height());
        scroll->viewport()->repaint();
        const int painted = g->lastPaintedCells();
        QVERIFY2(painted > 0 && painted < m.world_size / 2, qPrintable(QString::number(painted)));
        // A cell's colour is its rank's: tp coordinate (the default "Colour by"), wherever it is.
        g->setColourAxis(QStringLiteral("tp"));
        for (int rank : {0, 1, 777, m.world_size - 1}) {
            const QRect box = g->cellRect(rank);
            const QImage img = cells->grab(box).toImage();   // paints just that rectangle
            QVERIFY(g->lastPaintedCells() <= 4);
            const QColor expected = theme::groupColor(m.coord(rank, "tp"), cells->palette());
            const QColor got = img.pixelColor(img.width() / 2, 2);   // the top of the cell, above its label
            QVERIFY2(std::abs(got.red() - expected.red()) + std::abs(got.green() - expected.green()) +
                             std::abs(got.blue() - expected.blue()) <
                         12,
                     qPrintable(QStringLiteral("rank %1: %2 vs %3").arg(rank).arg(got.name(), expected.name())));
        }
    }

    // The rank grid's "Colour by" and "Groups of" choices show their whole text ("tp (4 × 8)"),
    // also after another project brings longer ones.
    void rankGridChoicesAreWhole() {
        // Shown before the project's analysis arrives, as when the app opens a file.
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec-choices")));
        RankGrid grid(w.document());   // at the width of its dock in a 1600 px window
        grid.setAttribute(Qt::WA_DontShowOnScreen);
        grid.resize(420, 480);
        grid.show();
        QTest::qWait(20);
        for (const char* next :
             {"llama3.1-70b-4nodes", "mixtral-8x7b-2nodes-ep", "gpt2-1node", "@280", "llama3.1-405b-128nodes"}) {
            if (*next == '@') {   // the dock's width on a 1280 px screen: "Groups of" goes below
                grid.resize(QString::fromLatin1(next + 1).toInt(), 480);
                QTest::qWait(20);
                continue;
            }
            w.setProject(paraplan::load_example(next), QString());
            QVERIFY(w.document()->waitForAnalysis());
            grid.refresh();     // as the main window does for its own grid
            QTest::qWait(20);   // the layout pass
            for (const char* name : {"gridColourBy", "gridGroups"}) {
                auto* c = grid.findChild<QComboBox*>(QString::fromLatin1(name));
                QVERIFY(c);
                QVERIFY(c->count() > 0);
                const int right = c->mapTo(&grid, QPoint(c->width(), 0)).x();   // inside the view
                QVERIFY2(right <= grid.width(),
                         qPrintable(QStringLiteral("%1 in %2 ends at %3 of %4 px")
                                        .arg(QString::fromLatin1(name), QString::fromLatin1(next))
                                        .arg(right)
                                        .arg(grid.width())));
                QStyleOptionComboBox opt;
                opt.initFrom(c);
                opt.editable = c->isEditable();
                const int room =
                    c->style()->subControlRect(QStyle::CC_ComboBox, &opt, QStyle::SC_ComboBoxEditField, c).width();
                for (int i = 0; i < c->count(); ++i) {
                    const int need = c->fontMetrics().horizontalAdvance(c->itemText(i));
                    QVERIFY2(room >= need,
                             qPrintable(QStringLiteral("%1 in %2: \"%3\" needs %4 px, has %5")
                                            .arg(QString::fromLatin1(name), QString::fromLatin1(next), c->itemText(i))
                                            .arg(need)
                                            .arg(room)));
                }
            }
        }
    }

    // In a narrow dock the rank grid's header (the mesh line, the tensor mode) wraps at the
    // view's width: every line lies inside the view, none cut off at the right edge.
    void rankGridHeaderWrapsWhenNarrow() {
        auto w = window("gpt2-1node");   // colossalai, tp 2 (1d), pp 2 on 8 GPUs
        RankGrid grid(w->document());
        grid.setAttribute(Qt::WA_DontShowOnScreen);
        grid.resize(240, 480);
        grid.show();
        QTest::qWait(20);   // the layout pass
        const QString text = grid.headerText();
        QVERIFY2(text.contains(QStringLiteral("8 ranks")) && text.contains(QStringLiteral("Tensor mode")),
                 qPrintable(text));
        const QRect r = grid.headerRect();
        QVERIFY2(grid.rect().contains(r), qPrintable(QStringLiteral("header %1,%2 %3x%4 in a %5 px view")
                                                         .arg(r.x())
                                                         .arg(r.y())
                                                         .arg(r.width())
                                                         .arg(r.height())
                                                         .arg(grid.width())));
        // The text laid out at the header's width: no line wider than it, every line within it.
        auto* label = grid.findChild<QLabel*>(QStringLiteral("gridHeader"));
        QVERIFY(label);
        QCOMPARE(label->geometry(), r);
        const QRect inner = label->contentsRect();
        QTextDocument doc;
        doc.setDocumentMargin(0);
        doc.setDefaultFont(label->font());
        doc.setHtml(text);
        doc.setTextWidth(inner.width());
        QVERIFY2(doc.idealWidth() <= inner.width() + 1,
                 qPrintable(QStringLiteral("%1 px of text in %2 px").arg(doc.idealWidth()).arg(inner.width())));
        QVERIFY2(doc.size().height() <= inner.height() + 1,
                 qPrintable(QStringLiteral("%1 px of text in %2 px").arg(doc.size().height()).arg(inner.height())));
        QVERIFY(doc.size().height() > 2 * label->fontMetrics().height());   // it did wrap: more than two lines
    }

    void timelineFollowsEditsAndExports() {
        auto w = window("gpt2-1node");
        TimelineView* t = w->timeline();
        QVERIFY(t->timeline().has_value());
        QCOMPARE(t->timeline()->pp, w->project().layout.pp);
        QVERIFY(t->summaryText().contains(QStringLiteral("bubble")));
        QVERIFY(w->document()->applyChanges(QStringLiteral("Set pp to 4"), {{"/layout/pp", 4}, {"/layout/tp", 2}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(t->timeline().has_value());
        const auto& tl = *t->timeline();
        QCOMPARE(tl.pp, 4);
        // 1F1B with a full backward: one F and one B per microbatch on every stage.
        QCOMPARE(int(tl.ops.size()), 4 * tl.microbatches * 2);
        QVERIFY(tl.bubble_fraction > 0 && tl.bubble_fraction < 1);
        QVERIFY(t->summaryText().contains(QString::number(100.0 * tl.bubble_fraction, 'f', 1)));
        // Hovering the middle of the first op of stage 0 finds it.
        t->resize(900, 300);
        t->plot()->replot();
        const auto& op = tl.ops.front();
        const QPointF px(t->plot()->xAxis->coordToPixel((op.start + op.end) / 2),
                         t->plot()->yAxis->coordToPixel(op.stage));
        const auto* hit = t->gantt()->opAt(px);
        QVERIFY(hit);
        QCOMPARE(hit->microbatch, op.microbatch);
        QCOMPARE(int(hit->kind), int(op.kind));

        for (const char* ext : {"png", "svg", "pdf", "json"}) {
            const QString path = tmp_.filePath(QStringLiteral("timeline.") + QLatin1String(ext));
            QString err;
            QVERIFY2(t->exportTo(path, &err), qPrintable(err));
            QVERIFY(QFileInfo(path).size() > 100);
        }
        QFile f(tmp_.filePath(QStringLiteral("timeline.json")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(QJsonDocument::fromJson(f.readAll()).object().contains(QStringLiteral("traceEvents")));

        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(t->timeline()->pp, 2);
    }

    void impossibleScheduleShowsWhyInsteadOfATimeline() {
        auto w = window("gpt2-1node");
        // ZB-H2 runs one chunk per stage: the simulator refuses two (schedule.zbh2.single_chunk).
        QVERIFY(w->document()->applyChanges(QStringLiteral("Set schedule"),
                                            {{"/layout/schedule", "zbh2"}, {"/layout/chunks", 2}}));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(!w->timeline()->timeline().has_value());
        QVERIFY2(w->timeline()->summaryText().contains(QStringLiteral("No timeline")),
                 qPrintable(w->timeline()->summaryText()));
        QVERIFY2(w->timeline()->summaryText().contains(QStringLiteral("one model chunk per stage")),
                 qPrintable(w->timeline()->summaryText()));
    }

    void canvasColoursByGroupAndDrawsLinks() {
        auto w = window("llama3.1-70b-4nodes");   // tp 8 inside each node, pp 4 across nodes
        ClusterCanvas* c = w->canvas();
        const auto& m = w->document()->rankMap();
        c->setColourAxis(QStringLiteral("tp"));
        QCOMPARE(c->colourAxis(), QStringLiteral("tp"));
        // Tiles of one tp group share a colour; different groups differ.
        const auto& n0 = c->nodeItems()[0]->tiles();
        const auto& n1 = c->nodeItems()[1]->tiles();
        QCOMPARE(m.group_set("tp")->group_index[static_cast<std::size_t>(n0[0].rank)],
                 m.group_set("tp")->group_index[static_cast<std::size_t>(n0[7].rank)]);
        QCOMPARE(n0[0].fill, n0[7].fill);
        QVERIFY(n0[0].fill != n1[0].fill);
        QVERIFY(c->nodeItems()[0]->tileCaption(0).contains(QStringLiteral("tp0")));

        c->selectGroupOf(3);
        const auto tp = m.group_of("tp", 3);
        QCOMPARE(c->selectedGroup(), std::vector<int>(tp.begin(), tp.end()));
        QCOMPARE(c->crossingLinks(), 0);   // a tp group inside one node
        c->setColourAxis(QStringLiteral("pp"));
        c->selectGroupOf(3);
        const auto pp = m.group_of("pp", 3);
        QCOMPARE(c->selectedGroup(), std::vector<int>(pp.begin(), pp.end()));
        QVERIFY(m.group_span("pp", m.group_set("pp")->group_index[3]).crosses_nodes);
        QVERIFY(c->crossingLinks() > 0);   // pipeline neighbours sit on other nodes
        int highlighted = 0;
        for (auto* n : c->nodeItems())
            for (const auto& t : n->tiles()) highlighted += t.highlighted;
        QCOMPARE(highlighted, int(pp.size()));
    }

    void explainFollowsFocusAndLayout() {
        auto w = window("llama3.1-70b-4nodes");
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        QWidget* pp = w->layoutPanel()->fieldWidget(QStringLiteral("/layout/pp"));
        pp->setFocus();
        QTRY_COMPARE(w->explainPanel()->topic(), QStringLiteral("pp"));
        const auto s = w->document()->rankMap().summary("pp");
        QVERIFY(w->explainPanel()->text().contains(
            QStringLiteral("%1 groups of %2 GPUs").arg(s.num_groups).arg(s.group_size)));
    }

    // Every concept the Explain panel teaches names its source, and the statements the issue
    // found wrong say what the sources say: tp all-reduces twice per layer each way (Shoeybi et
    // al., Fig. 4), sequence parallelism on the tp group adds no traffic (Korthikanti et al.,
    // Sec. 4.2.2), ZeRO-3 is 1.5 times the data-parallel traffic (Rajbhandari et al., Sec. 7).
    void explainTextsNameTheirSources() {
        auto w = window("llama3.1-70b-4nodes");
        ExplainPanel* e = w->explainPanel();
        for (const char* topic : {"tp", "pp", "sp", "cp", "ep", "dp", "zero_stage", "schedule", "num_microbatches",
                                  "micro_batch_size", "chunks", "recompute", "framework"}) {
            e->explain(QString::fromLatin1(topic));
            QCOMPARE(e->topic(), QString::fromLatin1(topic));
            QVERIFY2(e->text().contains(QStringLiteral("Source: ")), topic);
        }
        e->explain(QStringLiteral("tp"));
        QVERIFY(e->text().contains(QStringLiteral("twice in the forward pass")));
        QVERIFY(e->text().contains(QStringLiteral("twice in the backward pass")));
        QVERIFY(!e->text().contains(QStringLiteral("an all-reduce per layer")));
        e->explain(QStringLiteral("sp"));
        QVERIFY(e->text().contains(QStringLiteral("no extra traffic")));
        e->explain(QStringLiteral("zero_stage"));
        QVERIFY(e->text().contains(QStringLiteral("1.5 times the data-parallel traffic")));
    }
};

QTEST_MAIN(TestViews)
#include "tst_views.moc"
