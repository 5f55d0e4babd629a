// The built-in lessons (resources/lessons/*.json): every one loads, and every step's change
// does to the real estimate what the lesson says it does. Bad lesson files get messages
// that name the file and the JSON pointer.
#include "lessons/lesson.h"
#include "util/input_error.h"

#include <QTemporaryDir>
#include <QtTest>

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
