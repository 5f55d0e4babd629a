// The built-in lessons (resources/lessons/*.json): every one loads, and every step's change
// does to the real estimate what the lesson says it does. Bad lesson files get messages
// that name the file and the JSON pointer.
#include "estimate/config.h"
#include "lessons/lesson.h"
#include "rules/apply_fix.h"
#include "util/input_error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <fstream>
#include <set>

using namespace paraplan;
using namespace paraplan::lessons;

class TestLessons : public QObject {
    Q_OBJECT
private slots:
    void atLeastSixLessonsCoveringTheTopics() {
        const auto ids = lesson_ids();
        QVERIFY2(ids.size() >= 6, std::to_string(ids.size()).c_str());
        std::set<std::string> topics;
        for (const auto& id : ids) topics.insert(load_lesson(id).topic);
        for (const char* t : {"zero", "tensor-parallelism-1d-2d-25d-3d", "pipeline-parallelism",
                              "pipeline-schedules-and-their-bubbles", "sequence-parallelism", "expert-parallelism"})
            QVERIFY2(topics.count(t), t);
    }

    // Every step of every lesson, in order, from the lesson's starting project.
    void everyStepDoesWhatItSays() {
        for (const auto& id : lesson_ids()) {
            const Lesson l = load_lesson(id);
            QVERIFY2(l.steps.size() >= 2, id.c_str());
            Project p = start_project(l);
            for (std::size_t i = 0; i < l.steps.size(); ++i) {
                const Step& s = l.steps[i];
                const std::string where = id + " step " + std::to_string(i);
                QVERIFY2(!s.look.empty() && !s.predict.empty() && !s.explain.empty(), where.c_str());
                QVERIFY2(!s.expect.empty(), where.c_str());
                Project next;
                const StepOutcome o = run_step(p, s, &next);
                QCOMPARE(o.before.size(), s.figures.size());
                for (std::size_t f = 0; f < s.figures.size(); ++f) {
                    QVERIFY2(o.before[f].has_value(), (where + " before: " + s.figures[f].path).c_str());
                    QVERIFY2(o.after[f].has_value(), (where + " after: " + s.figures[f].path).c_str());
                }
                QVERIFY2(o.failed.empty(), (where + ": " + (o.failed.empty() ? "" : o.failed.front())).c_str());
                p = next;
            }
        }
    }

    // Lessons 3 (the bubble) and 4 (the schedules): every step names its sources, every figure
    // its text quotes is the estimator's (or the timeline's) figure by the quote's definition, so
    // a drift in the estimate fails here, and the timeline draws the step's schedule.
    void quotedFiguresAreTheEstimators() {
        int checked = 0;
        for (const auto& id : lesson_ids()) {
            const bool pipeline = id.rfind("3-", 0) == 0 || id.rfind("4-", 0) == 0;
            const Lesson l = load_lesson(id);
            Project p = start_project(l);
            for (std::size_t i = 0; i < l.steps.size(); ++i) {
                const Step& s = l.steps[i];
                const std::string where = id + " step " + std::to_string(i);
                if (pipeline) {
                    QVERIFY2(!s.source.empty(), where.c_str());
                    QVERIFY2(!s.quotes.empty(), where.c_str());
                }
                const Project next = apply_step(p, s);
                const nlohmann::json before = figures_json(p), after = figures_json(next);
                if (s.view == "timeline") {
                    // The timeline draws, and it draws the schedule the estimate prices.
                    const auto* tl = after.find("timeline") != after.end() ? &after["timeline"] : nullptr;
                    QVERIFY2(tl, where.c_str());
                    QVERIFY2(figure_value(after, "timeline.bubble_fraction").has_value(), where.c_str());
                    QCOMPARE((*tl)["schedule"].get<std::string>(),
                             std::string(estimate::simulator_name(
                                 *estimate::parse_schedule(next.layout.schedule, next.layout.framework))));
                }
                const std::string text = s.look + "\n" + s.predict + "\n" + s.explain;
                for (const auto& q : s.quotes) {
                    const std::string w = where + " quote '" + q.text + "' (" + q.path + ")";
                    QVERIFY2(text.find(q.text) != std::string::npos, (w + ": not in the text").c_str());
                    const auto v = figure_value(q.after ? after : before, q.path);
                    QVERIFY2(v.has_value(), (w + ": no such figure").c_str());
                    QVERIFY2(format_quote(q, *v) == q.text, (w + ": the figure is " + format_quote(q, *v)).c_str());
                    ++checked;
                }
                p = next;
            }
        }
        QVERIFY(checked >= 40);
    }

    // Lesson 2 grades each step on the quantity its question asks: the exposed tensor-parallel
    // time (not the groups crossing nodes), and whether the model fits (not the weights).
    void lessonTwoGradesWhatItAsks() {
        const Lesson l = load_lesson("2-tensor-parallel");
        QCOMPARE(l.steps.size(), std::size_t(3));
        const char* asked[] = {"time.comm_s.tp", "time.comm_s.tp", "memory.fits"};
        Project p = start_project(l);
        for (std::size_t i = 0; i < 3; ++i) {
            const Step& s = l.steps[i];
            const Expectation* h = headline(s);
            QVERIFY(h);
            QCOMPARE(h->path, std::string(asked[i]));
            QCOMPARE(s.figures.front().path, h->path);
            // One question per step.
            QCOMPARE(std::count(s.predict.begin(), s.predict.end(), '?'), std::ptrdiff_t(1));
            // The graded answer is what the estimate does.
            Project next;
            const StepOutcome o = run_step(p, s, &next);
            QVERIFY(o.before.front() && o.after.front());
            const double b = *o.before.front(), a = *o.after.front();
            QCOMPARE(h->trend == Trend::Increases ? a > b : h->trend == Trend::Decreases ? a < b : a == b, true);
            p = next;
        }
        // Step 3: tp 4 no longer fits (81.7 GiB against 80).
        const auto f = figures_json(p);
        QCOMPARE(*figure_value(f, "memory.fits"), 0.0);
        QVERIFY(*figure_value(f, "memory.peak_gib") > 80);
    }

    // The same figure quoted two ways.
    void quoteFormats() {
        Quote q;
        q.digits = 1;
        q.percent = true;
        QCOMPARE(format_quote(q, 3.0 / 7), std::string("42.9%"));
        q.percent = false;
        q.digits = 3;
        QCOMPARE(format_quote(q, 0.75), std::string("0.750"));
        q.digits = 0;
        QCOMPARE(format_quote(q, 16.0), std::string("16"));
    }

    // The predicted figure is the first listed one with an expectation, not the first in the
    // (unordered) expect object.
    void headlineFollowsTheFigureOrder() {
        for (const auto& id : lesson_ids()) {
            if (id.find("schedules") == std::string::npos) continue;
            const Lesson l = load_lesson(id);
            const Step& s = l.steps.at(1);
            QCOMPARE(s.figures.front().path, std::string("time.bubble_s"));
            QCOMPARE(headline(s)->path, std::string("time.bubble_s"));
            QCOMPARE(headline(s)->trend, Trend::Decreases);
        }
    }

    void figurePaths() {
        const nlohmann::json j = figures_json(load_example("gpt2-1node"));
        QCOMPARE(figure_value(j, "layout.tp").value_or(-1), 2.0);
        QVERIFY(figure_value(j, "memory.stages.1.total_gib").value_or(0) > 0);
        QCOMPARE(figure_value(j, "process_groups.tp.group_size").value_or(-1), 2.0);
        QVERIFY(!figure_value(j, "memory.stages.9.total_gib"));
        QVERIFY(!figure_value(j, "no.such.path"));
        QVERIFY(figure_value(j, "derived.bubble_share").value_or(-1) > 0);
        // The Link traffic view's figures: one node, so nothing crosses nodes.
        QVERIFY(figure_value(j, "traffic.total_gib").value_or(0) > 0);
        QCOMPARE(figure_value(j, "traffic.cross_node_gib").value_or(-1), 0.0);
        QCOMPARE(figure_value(j, "traffic.cross_node_links").value_or(-1), 0.0);
        // Two nodes on DGX H100 tiers: the per-group and per-tier sums are the cross-node total.
        Project two = load_example("mixtral-8x7b-2nodes-ep");
        set_field(two, "/cluster/system", "dgx-h100");
        const nlohmann::json t = figures_json(two);
        const double cross = figure_value(t, "traffic.cross_node_gib").value_or(0);
        QVERIFY(cross > 0);
        QCOMPARE(figure_value(t, "traffic.cross_node_links").value_or(-1), 1.0);
        double by = 0;
        for (const char* g : {"tp", "cp", "ep", "pp", "dp", "edp"})
            by += *figure_value(t, std::string("traffic.cross_node_gib_by_group.") + g);
        QVERIFY(std::abs(by - cross) < 1e-9 * cross);
        QVERIFY(std::abs(*figure_value(t, "traffic.tiers.infiniband.gib") - cross) < 1e-9 * cross);
        QVERIFY(*figure_value(t, "traffic.tiers.infiniband.busy") > 0);
        QVERIFY(*figure_value(t, "traffic.tiers.nvlink.gib") > 0);
    }

    // A lesson's setup may name a catalog system and, for a cluster written as a count, the node
    // count (set_field's /cluster/system and /cluster/nodes).
    void setupSetsTheCluster() {
        Project p = load_example("llama3.1-8b-pp4-1node");
        QVERIFY(p.cluster.short_form);
        set_field(p, "/cluster/nodes", 4);
        set_field(p, "/cluster/system", "dgx-h100");
        QCOMPARE(int(p.cluster.nodes.size()), 4);
        QCOMPARE(p.cluster.nodes[3].name, std::string("node3"));
        QCOMPARE(p.cluster.nodes[3].gpu, std::string("h100-sxm"));
        QCOMPARE(p.world_size(), 32);
        QCOMPARE(get_field(p, "/cluster/nodes"), nlohmann::json(4));
        QCOMPARE(get_field(p, "/cluster/system"), nlohmann::json("dgx-h100"));
        // The project file says the same.
        const Project back = project_from_json(project_to_json(p));
        QCOMPARE(int(back.cluster.nodes.size()), 4);
        QCOMPARE(back.cluster.system, std::string("dgx-h100"));
        set_field(p, "/cluster/system", "");
        QVERIFY(p.cluster.system.empty());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, set_field(p, "/cluster/system", "dgx-h999"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, set_field(p, "/cluster/nodes", 0));
        // A cluster of named nodes (hosts) has no count to change.
        Project named = load_example("gpt2-1node");
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, set_field(named, "/cluster/nodes", 2));
    }

    void badLessonsNameFileAndPointer() {
        QTemporaryDir dir;
        auto write = [&](const char* name, const char* text) {
            const std::string path = dir.filePath(QLatin1String(name)).toStdString();
            std::ofstream(path) << text;
            return path;
        };
        auto message = [](const std::string& path) -> std::pair<std::string, std::string> {
            try {
                load_lesson_file(path);
            } catch (const InputError& e) {
                return {e.pointer(), e.what()};
            }
            return {};
        };
        const std::string noSteps = write("a.json", R"({"title": "t", "summary": "s", "example": "gpt2-1node"})");
        auto [ptr, what] = message(noSteps);
        QCOMPARE(ptr, std::string("/steps"));
        QVERIFY2(what.find("a.json") != std::string::npos, what.c_str());
        const std::string badTrend = write("b.json",
                                           R"({"title": "t", "summary": "s", "example": "gpt2-1node", "steps": [
            {"title": "x", "look": "l", "predict": "p", "explain": "e", "change": {"/layout/tp": 1},
             "figures": ["time.step_s"], "expect": {"time.step_s": "sideways"}}]})");
        std::tie(ptr, what) = message(badTrend);
        QCOMPARE(ptr, std::string("/steps/0/expect/time.step_s"));
        const std::string badPointer = write("c.json",
                                             R"({"title": "t", "summary": "s", "example": "gpt2-1node", "steps": [
            {"title": "x", "look": "l", "predict": "p", "explain": "e", "change": {"/model/layers": 1}, "figures": ["mfu"]}]})");
        std::tie(ptr, what) = message(badPointer);
        QCOMPARE(ptr, std::string("/steps/0/change/~1model~1layers"));
        const std::string syntax = write("d.json", "{\"title\": \n,}");
        std::tie(ptr, what) = message(syntax);
        QVERIFY2(what.find("d.json") != std::string::npos && what.find("line 2") != std::string::npos, what.c_str());
    }
};

QTEST_GUILESS_MAIN(TestLessons)
#include "tst_lessons.moc"
