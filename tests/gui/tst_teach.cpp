// Teaching and deciding views on the real main window: the ShardFormer checklist beside
// the model follows the project's model family and layout; the Compare view puts layouts
// side by side with the estimate's own figures and their steps on one time axis.
#include <qcustomplot.h>

#include "compare/compare.h"
#include "plan/compareview.h"
#include "estimate/estimate.h"
#include "views/ganttplottable.h"
#include "guitest.h"
#include "teach/lessonpanel.h"
#include "lessons/lesson.h"
#include "lessons/question.h"
#include "views/linktrafficview.h"
#include "plan/planmodel.h"
#include "plan/plannerpanel.h"
#include "search/apply_plan.h"
#include "mainwindow.h"
#include "project/project.h"
#include "projectdocument.h"
#include "rules/shardformer.h"
#include "plan/shardformerchecklist.h"
#include "views/passtimesbar.h"
#include "views/timelineview.h"

#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>

namespace {
// The timeline view's bubble readout for figures_json()'s "timeline" (core's timeline_bubble()); a
// pipeline of one stage has no 1F1B bubble to compare with.
QString bubbleReadout(const nlohmann::json& f, int pp = 2) {
    const auto v = [&](const char* path) { return paraplan::lessons::figure_value(f, path).value_or(-1); };
    if (pp < 2) return QStringLiteral("bubble %1%</b> · ").arg(100 * v("timeline.bubble_fraction"), 0, 'f', 1);
    return QStringLiteral("bubble %1%</b>, %2 per stage = %3 × 1F1B's")
        .arg(100 * v("timeline.bubble_fraction"), 0, 'f', 1)
        .arg(v("timeline.bubble_per_stage"), 0, 'f', 2)
        .arg(v("timeline.bubble_vs_1f1b"), 0, 'f', 2);
}
}   // namespace

class TestTeach : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void shardformerChecklistShowsTheFamily() {
        auto w = exampleWindow(tmp_, "gpt2-1node");   // GPT-2, tp 2, pp 2
        QVERIFY(w->raiseView(QStringLiteral("shardformer")));
        ShardformerChecklist* c = w->shardformerChecklist();
        QVERIFY(c);
        QCOMPARE(c->family(), QStringLiteral("gpt2"));
        QTableWidget* t = c->table();
        const auto& feats = paraplan::rules::shardformer_features();
        QCOMPARE(t->rowCount(), int(feats.size()));
        // GPT-2: all_to_all fails, ring becomes split_gather, JIT fuses GeLU.
        QCOMPARE(c->supportOf(QStringLiteral("sp_all_to_all")), QStringLiteral("error"));
        QCOMPARE(c->supportOf(QStringLiteral("sp_ring")), QStringLiteral("converted"));
        QCOMPARE(c->supportOf(QStringLiteral("jit_fused")), QStringLiteral("yes"));
        QVERIFY(c->header()->text().contains(QStringLiteral("policies/gpt2.py")));
        // The error row carries ColossalAI's own words.
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->item(r, 0)->data(Qt::UserRole).toString() == QLatin1String("sp_all_to_all"))
                QVERIFY(t->item(r, 1)->toolTip().contains(QStringLiteral("not supported for GPT2")));
        // tp 2 and pp 2 are in use: their rows are marked; all_to_all is not.
        auto marked = [&](const char* f) {
            for (int r = 0; r < t->rowCount(); ++r)
                if (t->item(r, 0)->data(Qt::UserRole).toString() == QLatin1String(f))
                    return t->item(r, 0)->font().bold();
            return false;
        };
        QVERIFY(marked("tp"));
        QVERIFY(marked("pp"));
        QVERIFY(!marked("sp_all_to_all"));
        // Under LowLevelZeroPlugin ShardFormer does not run: nothing is marked as used.
        QVERIFY(w->document()->edit(QStringLiteral("zero plugin"),
                                    [](paraplan::Project& p) { p.layout.framework = "colossalai-zero"; }));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(!marked("tp"));
        QVERIFY(c->header()->text().contains(QStringLiteral("applies under")));
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY(marked("tp"));

        // Switching the model family follows the document: Mistral ignores every sp mode.
        QVERIFY(
            w->document()->edit(QStringLiteral("family"), [](paraplan::Project& p) { p.model.family = "mistral"; }));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(c->family(), QStringLiteral("mistral"));
        for (const char* f : {"sp_split_gather", "sp_ring", "sp_all_to_all", "sp_ring_attn"})
            QCOMPARE(c->supportOf(QLatin1String(f)), QStringLiteral("ignored"));
        // A family without a policy says so and lists nothing.
        QVERIFY(
            w->document()->edit(QStringLiteral("family"), [](paraplan::Project& p) { p.model.family = "gpt_neox"; }));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(t->rowCount(), 0);
        QVERIFY(c->header()->text().contains(QStringLiteral("no policy")));
        // Undo brings GPT-2's rows back.
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(c->supportOf(QStringLiteral("sp_ring_attn")), QStringLiteral("ignored"));
        QVERIFY(w->viewNames().contains(QStringLiteral("shardformer")));
    }

    void compareViewSideBySide() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");   // 4 nodes x 8 H100, tp 8, pp 4
        QVERIFY(w->raiseView(QStringLiteral("compare")));
        CompareView* c = w->compareView();
        QVERIFY(c);
        QCOMPARE(c->count(), 0);
        const paraplan::Project a = w->project();
        c->addCurrentProject();
        QVERIFY(w->document()->edit(QStringLiteral("tp 16"), [](paraplan::Project& p) {
            p.layout.tp = 16;
            p.layout.pp = 2;
        }));
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        const paraplan::Project b = w->project();
        c->addCurrentProject();
        QCOMPARE(c->count(), 2);
        QCOMPARE(c->table()->columnCount(), 2);
        // The figures are the estimate's own (the same call `paraplan-cli estimate` makes).
        const auto ea = paraplan::estimate::estimate_project(a);
        const auto eb = paraplan::estimate::estimate_project(b);
        QCOMPARE(c->cellText(QStringLiteral("step_s"), 0), QString::number(ea.time.step_s, 'f', 3));
        QCOMPARE(c->cellText(QStringLiteral("step_s"), 1), QString::number(eb.time.step_s, 'f', 3));
        QCOMPARE(c->cellText(QStringLiteral("mfu"), 1), QString::number(100 * eb.time.mfu, 'f', 1));
        QCOMPARE(c->cellText(QStringLiteral("memory_stage_3"), 0),
                 QString::number(ea.memory.stages[3].total() / paraplan::estimate::kGiB, 'f', 2));
        QCOMPARE(c->cellText(QStringLiteral("memory_stage_3"), 1), QStringLiteral("–"));   // pp 2: no stage 3
        QCOMPARE(c->cellText(QStringLiteral("gpus"), 1), QStringLiteral("32"));
        // The tp groups now span two nodes: the differences say so.
        QTreeWidgetItem* top = c->differences()->topLevelItem(0);
        QVERIFY(top);
        bool tpCrosses = false, knob = false;
        for (int i = 0; i < top->childCount(); ++i) {
            const QString t = top->child(i)->text(0);
            tpCrosses = tpCrosses || (top->child(i)->data(0, Qt::UserRole).toString() == QLatin1String("tp") &&
                                      t.contains(QStringLiteral("now crosses nodes")));
            knob = knob || (t == QLatin1String("/layout/tp") && top->child(i)->text(2) == QLatin1String("16"));
        }
        QVERIFY(tpCrosses);
        QVERIFY(knob);
        // Both steps on one time axis: the simulated timelines (seconds) of the estimates.
        const auto& tls = c->timelines();
        QCOMPARE(int(tls.size()), 2);
        QVERIFY(tls[0] && tls[1]);
        QCOMPARE(tls[0]->pp, 4);
        QCOMPARE(tls[1]->pp, 2);
        // The pipeline the estimate's bubble comes from: makespan = compute + bubble of one flush.
        QVERIFY(qAbs(tls[0]->makespan - ea.time.pipeline.makespan_s) < 1e-9 * ea.time.pipeline.makespan_s);
        // Each row spans the whole step as the estimate prices it: 8 flushes (global batch 256 /
        // 32 microbatches of 1, dp 1) and the reductions, the step less the optimizer.
        for (int i = 0; i < 2; ++i) {
            const auto& e = i == 0 ? ea : eb;
            QCOMPARE(c->steps()[std::size_t(i)].flushes, 8);
            const double pipeline = e.time.step_s - e.time.optimizer_s - e.time.offload_s;
            QVERIFY2(qAbs(c->stepSpan(i) - pipeline) < 1e-9 * pipeline, qPrintable(QString::number(c->stepSpan(i))));
            QVERIFY(c->stepSpan(i) > 7.9 * tls[std::size_t(i)]->makespan);
        }
        QCOMPARE(c->timeAxisUpper(), std::max(c->stepSpan(0), c->stepSpan(1)));
        const auto rects = c->plot()->axisRects();
        QCOMPARE(rects.size(), 2);
        QVERIFY(rects[0]->axis(QCPAxis::atBottom)->range().upper >= c->timeAxisUpper());
        // The 70B row draws its 8 flushes: every forward of stage 0, 8 x 32.
        GanttPlottable* g0 = nullptr;
        for (int i = 0; i < c->plot()->plottableCount(); ++i)
            if (auto* g = qobject_cast<GanttPlottable*>(c->plot()->plottable(i));
                g && g->keyAxis()->axisRect() == rects[0])
                g0 = g;
        QVERIFY(g0);
        QCOMPARE(g0->flushes().count, 8);
        QVERIFY(qAbs(g0->span() - c->stepSpan(0)) < 1e-9 * c->stepSpan(0));
        c->resize(1200, 700);
        c->plot()->setGeometry(0, 0, 1200, 500);
        c->plot()->replot(QCustomPlot::rpImmediateRefresh);
        QCOMPARE(g0->lastDrawnForwards(0), 8 * 32);
        QCOMPARE(rects[0]->axis(QCPAxis::atBottom)->range(), rects[1]->axis(QCPAxis::atBottom)->range());
        rects[0]->axis(QCPAxis::atBottom)->setRange(0, tls[0]->makespan / 2);   // zoom one: both follow
        QCOMPARE(rects[1]->axis(QCPAxis::atBottom)->range().upper, tls[0]->makespan / 2);
        c->clear();
        QCOMPARE(c->count(), 0);
        QCOMPARE(c->table()->columnCount(), 0);
    }

    void compareFromPlannerRows() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        PlannerPanel* p = w->plannerPanel();
        p->setTop(10);
        QSignalSpy done(p, &PlannerPanel::finished);
        p->run();
        QVERIFY(!done.isEmpty() || done.wait(60'000));
        QVERIFY(p->model()->rowCount() >= 2);
        p->table()->selectRow(1);
        p->table()->selectionModel()->select(p->proxy()->index(0, 0),
                                             QItemSelectionModel::Select | QItemSelectionModel::Rows);
        QCOMPARE(w->compareSelectedPlannerRows(), 2);
        CompareView* c = w->compareView();
        QCOMPARE(c->count(), 2);
        // Column 0 is view row 0, applied to the open project: its step time is the planner's row.
        const auto& e0 = p->model()->entry(p->proxy()->mapToSource(p->proxy()->index(0, 0)).row());
        QCOMPARE(c->table()->horizontalHeaderItem(0)->text(), QString::fromStdString(paraplan::search::describe(e0)));
        paraplan::Project applied = w->project();
        paraplan::search::apply_entry(e0, applied);
        QCOMPARE(c->cellText(QStringLiteral("step_s"), 0),
                 QString::number(paraplan::estimate::estimate_project(applied).time.step_s, 'f', 3));
        QCOMPARE(c->comparison().entries.size(), std::size_t(2));
    }

    void wrongPredictionIsCorrected() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        LessonPanel* panel = w->lessonPanel();
        const QString id = panel->lessonIds().constFirst();
        QVERIFY(panel->startLesson(id));
        const auto* h = paraplan::lessons::headline(panel->lesson()->steps.front());
        panel->predict(h->trend == paraplan::lessons::Trend::Increases ? paraplan::lessons::Trend::Decreases
                                                                       : paraplan::lessons::Trend::Increases);
        QVERIFY(panel->applyStep());
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY2(panel->resultText().startsWith(QStringLiteral("Not quite:")), qPrintable(panel->resultText()));
        QVERIFY(!panel->applyStep());   // one change per step
        // Undo in the app takes the change back.
        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(paraplan::project_to_json(w->project()),
                 paraplan::project_to_json(paraplan::lessons::start_project(*panel->lesson())));
    }

    // The timeline's pass-times row, driven with the keyboard and the mouse: ZB-H1's bubble readout
    // follows core's figures for the pass times chosen (a third of 1F1B's with equal passes, more
    // with the estimate's shorter W, less again when W grows).
    void passTimesRowRedrawsTheBubble() {
        using paraplan::estimate::PassTimesChoice;
        using paraplan::estimate::PassTimesMode;
        auto w = exampleWindow(tmp_, "llama3.1-8b-pp4-1node");
        w->show();
        QVERIFY(w->raiseView(QStringLiteral("timeline")));
        QVERIFY(w->document()->applyChanges(QStringLiteral("schedule"),
                                            {{"/layout/schedule", "zb1p"}, {"/layout/chunks", 1}}));
        QVERIFY(w->document()->waitForAnalysis());
        TimelineView* tv = w->timeline();
        tv->refresh();
        PassTimesBar* bar = tv->passTimesBar();
        const auto figures = [&](const PassTimesChoice& c) { return paraplan::lessons::figures_json(w->project(), c); };
        const auto shows = [&](const nlohmann::json& f) {
            return tv->summaryText().contains(bubbleReadout(f)) &&
                   tv->timeline()->bubble_fraction == *paraplan::lessons::figure_value(f, "timeline.bubble_fraction");
        };
        const auto perStage = [](const nlohmann::json& f) {
            return *paraplan::lessons::figure_value(f, "timeline.bubble_per_stage");
        };
        // Equal (paper): a third of 1F1B's.
        QCOMPARE(bar->mode()->currentIndex(), int(PassTimesMode::Equal));
        const auto equal = figures({});
        QVERIFY2(shows(equal), qPrintable(tv->summaryText()));
        QVERIFY(tv->summaryText().contains(QStringLiteral("= 0.33 × 1F1B's")));

        // Alt+P (the row's mnemonic) reaches the list; Down picks the estimate's pass times.
        w->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(w.get()));
        QTest::keyClick(w.get(), Qt::Key_P, Qt::AltModifier);
        QTRY_VERIFY(bar->mode()->hasFocus());
        QTest::keyClick(bar->mode(), Qt::Key_Down);
        QCOMPARE(tv->passTimes().mode, PassTimesMode::Estimate);
        const auto est = figures({PassTimesMode::Estimate, {}});
        QVERIFY2(shows(est), qPrintable(tv->summaryText() + " / " + bubbleReadout(est)));
        QVERIFY(perStage(est) > perStage(equal));
        const double wEst = *paraplan::lessons::figure_value(est, "timeline.pass_times.backward_weight");
        QCOMPARE(bar->backwardWeight()->value(), std::round(wEst * 100) / 100);
        QVERIFY(bar->findChild<QLabel*>(QStringLiteral("passTimesNote"))->text().contains(QStringLiteral(" ms")));

        // A click into W and Up: Custom, W one step (0.1) longer, the bubble per stage (p - 1) x 0.1 shorter.
        QTest::mouseClick(bar->backwardWeight(), Qt::LeftButton, {}, QPoint(10, bar->backwardWeight()->height() / 2));
        QVERIFY(bar->backwardWeight()->hasFocus());
        QTest::keyClick(bar->backwardWeight(), Qt::Key_Up);
        QCOMPARE(bar->mode()->currentIndex(), int(PassTimesMode::Custom));
        const PassTimesChoice custom = tv->passTimes();
        QCOMPARE(custom.mode, PassTimesMode::Custom);
        QCOMPARE(custom.custom.backward_weight, std::round(wEst * 100) / 100 + 0.1);
        const auto longer = figures(custom);
        QVERIFY2(shows(longer), qPrintable(tv->summaryText() + " / " + bubbleReadout(longer)));
        const int pp = w->project().layout.pp;
        const auto rounded = [](double x) { return std::round(x * 100) / 100; };
        QVERIFY(std::abs(perStage(longer) -
                         (pp - 1) *
                             (1 + rounded(*paraplan::lessons::figure_value(est, "timeline.pass_times.backward_input")) -
                              custom.custom.backward_weight)) < 1e-9);
        QVERIFY(perStage(longer) < perStage(est));

        // Home on the list: back to the paper's equal passes and its third.
        bar->mode()->setFocus();
        QTest::keyClick(bar->mode(), Qt::Key_Home);
        QCOMPARE(tv->passTimes().mode, PassTimesMode::Equal);
        QVERIFY2(shows(equal), qPrintable(tv->summaryText()));
        // Every control names its source.
        QVERIFY(bar->mode()->toolTip().contains(QStringLiteral("arXiv 2401.10241")));
        QVERIFY(bar->mode()->focusPolicy() & Qt::TabFocus);
        QVERIFY(bar->backwardWeight()->focusPolicy() & Qt::TabFocus);
    }

    // Every step of every built-in lesson, through the panel on the real main window.
    void everyLessonStepRuns() {
        const auto ids = paraplan::lessons::lesson_ids();
        QVERIFY(ids.size() >= 6);
        for (const auto& id : ids) {
            auto w = exampleWindow(tmp_, "gpt2-1node");   // a fresh, unmodified document per lesson
            w->show();
            QVERIFY(w->raiseView(QStringLiteral("lessons")));
            LessonPanel* panel = w->lessonPanel();
            QVERIFY(panel->lessonIds().contains(QString::fromStdString(id)));
            QVERIFY2(panel->startLesson(QString::fromStdString(id)), id.c_str());
            const auto& lesson = *panel->lesson();
            // The lesson's own project is open.
            QCOMPARE(paraplan::project_to_json(w->project()),
                     paraplan::project_to_json(paraplan::lessons::start_project(lesson)));
            for (int i = 0; i < panel->stepCount(); ++i) {
                const auto& step = lesson.steps[std::size_t(i)];
                const std::string where = id + " step " + std::to_string(i);
                QCOMPARE(panel->stepIndex(), i);
                // The step's view is brought forward.
                if (step.view != "canvas") {
                    auto* dock = w->findChild<QDockWidget*>(QString::fromStdString(step.view) + QStringLiteral("Dock"));
                    QVERIFY2(dock && dock->isVisible(), where.c_str());
                }
                QVERIFY(panel->lookText().contains(QString::fromStdString(step.look)));
                QVERIFY(panel->predictText().contains(QString::fromStdString(step.predict)));
                // What the answer is graded on is named beside the choices: a trend's figure, a group's
                // rank map, an accepted step's rules.
                const paraplan::lessons::Question q = paraplan::lessons::question(step, w->project());
                QCOMPARE(panel->question().choices, q.choices);
                if (step.ask == paraplan::lessons::Ask::Trend)
                    for (const auto& f : step.figures)
                        if (f.path == paraplan::lessons::headline(step)->path) QCOMPARE(q.graded_on, f.label);
                QVERIFY2(
                    panel->predictText().contains(QStringLiteral("graded on: ") + QString::fromStdString(q.graded_on)),
                    where.c_str());
                const int right = paraplan::lessons::grade(step, q, paraplan::lessons::run_step(w->project(), step));
                QVERIFY2(right >= 0, where.c_str());
                if (step.ask == paraplan::lessons::Ask::Trend) {   // the file's expectation is what happens
                    const paraplan::lessons::Trend t = paraplan::lessons::headline(step)->trend;
                    const int expected = t == paraplan::lessons::Trend::Increases   ? 0
                                         : t == paraplan::lessons::Trend::Decreases ? 1
                                                                                    : 2;
                    QCOMPARE(right, expected);
                }
                panel->choose(right);
                // A timeline step draws with its own pass times (equal unless it says), the ones its figures quote.
                if (step.view == "timeline") QVERIFY2(w->timeline()->passTimes() == step.pass_times, where.c_str());
                const auto before = paraplan::lessons::figures_json(w->project(), step.pass_times);
                QVERIFY2(panel->applyStep(), where.c_str());
                QVERIFY(w->document()->waitForAnalysis());   // the views follow the edit's analysis
                QVERIFY(panel->applied());
                const auto after = paraplan::lessons::figures_json(w->project(), step.pass_times);
                // The table shows the real numbers, before and after.
                QTableWidget* t = panel->figuresTable();
                QCOMPARE(t->rowCount(), int(step.figures.size()));
                for (int r = 0; r < t->rowCount(); ++r) {
                    const auto b = paraplan::lessons::figure_value(before, step.figures[std::size_t(r)].path);
                    const auto a = paraplan::lessons::figure_value(after, step.figures[std::size_t(r)].path);
                    QVERIFY2(a && b, where.c_str());
                    QCOMPARE(*panel->outcome().before[std::size_t(r)], *b);
                    QCOMPARE(*panel->outcome().after[std::size_t(r)], *a);
                    QVERIFY2(t->item(r, 2)->text() != QLatin1String("?"), where.c_str());
                }
                QVERIFY2(panel->outcome().failed.empty(), where.c_str());
                // A timeline step draws its schedule, the one figures_json() quotes from.
                if (step.view == "timeline") {
                    TimelineView* tv = w->timeline();
                    tv->refresh();
                    QVERIFY2(tv->timeline().has_value(), (where + ": " + tv->summaryText().toStdString()).c_str());
                    QVERIFY2(!tv->timeline()->ops.empty(), where.c_str());
                    const auto drawn = paraplan::lessons::figure_value(after, "timeline.bubble_fraction");
                    QVERIFY2(drawn.has_value(), where.c_str());
                    QCOMPARE(tv->timeline()->bubble_fraction, *drawn);
                    QVERIFY2(tv->summaryText().contains(bubbleReadout(after, tv->timeline()->pp)),
                             qPrintable(tv->summaryText()));
                }
                // A links step: the Link traffic view shows the traffic figures the lesson quotes
                // (from the same step playback), once the player has built the step's playback.
                if (step.view == "links") {
                    const auto cross = paraplan::lessons::figure_value(after, "traffic.cross_node_gib");
                    QVERIFY2(cross.has_value(), where.c_str());
                    const QString shown = QStringLiteral("cross nodes with %1 GiB").arg(*cross, 0, 'f', 2);
                    QTRY_VERIFY2_WITH_TIMEOUT(w->linkTraffic()->summaryText().contains(shown),
                                              qPrintable(w->linkTraffic()->summaryText() + " / " + shown), 60000);
                }
                // The step's sources are shown after its figures.
                if (!step.source.empty())
                    QVERIFY2(panel->sourceText().contains(QString::fromStdString(step.source)), where.c_str());
                QVERIFY2(panel->resultText().startsWith(QStringLiteral("Right:")), qPrintable(panel->resultText()));
                // The verdict names what was graded and the right answer.
                QVERIFY2(panel->resultText().contains(QString::fromStdString(q.choices[std::size_t(right)])),
                         where.c_str());
                if (step.ask == paraplan::lessons::Ask::Trend)
                    QVERIFY2(panel->resultText().contains(QString::fromStdString(q.graded_on)), where.c_str());
                // One undoable step per change.
                if (!step.change.empty()) QVERIFY(w->document()->undoStack()->count() >= 1);
                QVERIFY(panel->next());   // from the last step: the lesson's end, its summary
            }
            QVERIFY(panel->finished());
            QVERIFY(!panel->next());
            // Back goes to the project as it was before the previous step.
            QVERIFY(panel->back());
            paraplan::lessons::Lesson l = lesson;
            paraplan::Project expected = paraplan::lessons::start_project(l);
            for (int i = 0; i < panel->stepIndex(); ++i)
                expected = paraplan::lessons::apply_step(expected, l.steps[std::size_t(i)]);
            QCOMPARE(paraplan::project_to_json(w->project()), paraplan::project_to_json(expected));
        }
    }
};

QTEST_MAIN(TestTeach)
#include "tst_teach.moc"
