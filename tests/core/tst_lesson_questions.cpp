// Lesson questions graded on the project (lessons/question.h): a group question on the framework's
// rank map, an accepted question on the validator, a trend on the estimate's measured figure; and
// the lesson written for a learner's own project (lessons/own_project.h).
#include "compare/compare.h"
#include "lessons/lesson.h"
#include "lessons/own_project.h"
#include "lessons/question.h"
#include "rules/apply_fix.h"
#include "rules/validate.h"
#include "util/input_error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <numeric>

using namespace paraplan;
using namespace paraplan::lessons;

namespace {

// Megatron-LM's own worked example (megatron/core/parallel_state.py initialize_model_parallel,
// core_v0.19.0 docstring): 16 GPUs, tensor-parallel size 2, pipeline size 4.
Project megatronDocstringProject() {
    return project_from_text(R"({"paraplan": 1, "name": "docstring",
      "cluster": {"gpu": "h100-sxm", "nodes": 2, "gpus_per_node": 8, "network": {"inter_node_gbps": 400, "latency_us": 5}},
      "model": {"preset": "llama3.1-8b"},
      "training": {"global_batch_size": 16, "micro_batch_size": 1, "seq_len": 4096, "precision": "bf16"},
      "layout": {"framework": "megatron", "tp": 2, "pp": 4}})");
}

Step groupStep(const std::string& kind, int rank) {
    Step s;
    s.ask = Ask::Group;
    s.group_kind = kind;
    s.group_rank = rank;
    s.figures = {{"mfu", "MFU"}};
    return s;
}

int count(const std::vector<std::string>& v, const std::string& x) { return int(std::count(v.begin(), v.end(), x)); }

}   // namespace

class TestLessonQuestions : public QObject {
    Q_OBJECT
private slots:
    void formatRanks() {
        QCOMPARE(format_ranks(std::vector<int>{3, 1, 2, 0}), std::string("{0, 1, 2, 3}"));
        std::vector<int> strided;
        for (int i = 0; i < 16; ++i) strided.push_back(5 + 8 * i);
        QCOMPARE(format_ranks(strided), std::string("{5, 13, 21, …, 125} (16 GPUs, 8 apart)"));
        std::vector<int> row(12);
        std::iota(row.begin(), row.end(), 24);
        QCOMPARE(format_ranks(row), std::string("{24, 25, 26, …, 35} (12 GPUs, in a row)"));
        QCOMPARE(format_ranks(std::vector<int>{0, 1, 2, 3, 8, 9, 10, 11, 16, 17}),
                 std::string("{0, 1, 2, 3, …, 16, 17} (10 GPUs)"));
    }

    // The rank-1 groups of Megatron's docstring: pipeline [g1, g5, g9, g13], data [g1, g3].
    void groupQuestionIsGradedOnTheRankMap() {
        const Project p = megatronDocstringProject();
        for (const auto& [kind, truth] : std::vector<std::pair<std::string, std::string>>{
                 {"pp", "{1, 5, 9, 13}"}, {"dp", "{1, 3}"}, {"tp", "{0, 1}"}}) {
            const Step s = groupStep(kind, 1);
            const Question q = question(s, p);
            QVERIFY2(q.choices.size() >= 2, kind.c_str());
            QCOMPARE(count(q.choices, truth), 1);
            QCOMPARE(q.choices[std::size_t(q.answer)], truth);
            QCOMPARE(grade(s, q, run_step(p, s)), q.answer);
            QVERIFY(std::is_sorted(q.choices.begin(), q.choices.end()));
            QVERIFY2(q.graded_on.find("rank map") != std::string::npos, q.graded_on.c_str());
        }
        // After a change the question is on the new map: tp 2 -> 4 with pp 4 -> 2 (dp stays 2), Megatron's
        // order tp-cp-ep-dp-pp puts rank 1's pipeline group at stride tp x dp = 8.
        Step s = groupStep("pp", 1);
        s.change = {{"/layout/tp", 4}, {"/layout/pp", 2}};
        const Question q = question(s, p);
        QCOMPARE(q.choices[std::size_t(q.answer)], std::string("{1, 9}"));
        // The group before the change is offered too: a learner who ignores the change is marked wrong.
        QCOMPARE(count(q.choices, "{1, 5, 9, 13}"), 1);
        // No such group on this layout: no question.
        QVERIFY(question(groupStep("ep", 1), p).choices.empty());
        QVERIFY(question(groupStep("pp", 99), p).choices.empty());
    }

    // Accepted is graded on the validator: Megatron refuses a tp that does not divide the attention
    // heads (TransformerConfig.__post_init__, core_v0.19.0: "num_attention_heads (12) must be a multiple
    // of tensor_model_parallel_size (8)"); GPT-2 small has 12.
    void acceptedIsGradedOnTheValidator() {
        Project p = load_example("gpt2-1node");
        set_field(p, "/layout/framework", "megatron");
        set_field(p, "/layout/tp", 1);
        set_field(p, "/layout/pp", 1);
        QCOMPARE(p.model.heads, 12);
        Step s;
        s.ask = Ask::Accepted;
        s.figures = {{"derived.errors", "Errors"}};
        const Question q = question(s, p);
        QCOMPARE(q.choices.size(), std::size_t(2));
        s.change = {{"/layout/tp", 4}};
        Project after;
        StepOutcome o = run_step(p, s, &after);
        QCOMPARE(o.errors_after, 0);
        QVERIFY(!has_errors(validate(after)));
        QCOMPARE(grade(s, q, o), 0);
        s.change = {{"/layout/tp", 8}};
        o = run_step(p, s, &after);
        QVERIFY(has_errors(validate(after)));
        QVERIFY(o.errors_after > 0);
        QVERIFY(!o.error_messages_after.empty());
        QVERIFY2(o.error_messages_after.front().rfind("megatron.heads_divisible_tp: ", 0) == 0,
                 o.error_messages_after.front().c_str());
        QCOMPARE(grade(s, q, o), 1);
    }

    // A trend is graded on what the figure does, not on what the lesson file expects.
    void trendIsGradedOnTheMeasuredFigure() {
        const Project p = megatronDocstringProject();
        Step s;
        s.change = {{"/layout/tp", 4}, {"/layout/pp", 2}};
        s.figures = {{"memory.stages.0.params_gib", "Weights per GPU"}};
        s.expect = {{"memory.stages.0.params_gib", Trend::Increases}};   // wrong: twice the tp, half the weights
        const Question q = question(s, p);
        QCOMPARE(q.choices, (std::vector<std::string>{"goes up", "goes down", "stays the same"}));
        QCOMPARE(q.graded_on, std::string("Weights per GPU"));
        const StepOutcome o = run_step(p, s);
        QVERIFY(*o.after[0] < *o.before[0]);
        QCOMPARE(grade(s, q, o), 1);
        QCOMPARE(o.failed.size(), std::size_t(1));   // and the lesson is told its expectation is wrong
    }

    void lessonFilesAsk() {
        QTemporaryDir dir;
        const auto load = [&](const char* steps) -> std::pair<std::string, Lesson> {
            const std::string path = dir.filePath(QStringLiteral("q.json")).toStdString();
            std::ofstream(path) << R"({"title": "t", "summary": "s", "example": "gpt2-1node", "steps": [)" << steps
                                << "]}";
            try {
                return {"", load_lesson_file(path)};
            } catch (const InputError& e) {
                return {e.pointer(), {}};
            }
        };
        auto [err, l] = load(R"({"title": "x", "look": "l", "predict": "p", "explain": "e", "figures": ["mfu"],
                                 "ask": {"group": "tp", "rank": 3}})");
        QCOMPARE(err, std::string());
        QCOMPARE(l.steps[0].ask, Ask::Group);
        QCOMPARE(l.steps[0].group_kind, std::string("tp"));
        QCOMPARE(l.steps[0].group_rank, 3);
        QVERIFY(l.steps[0].change.empty());
        std::tie(err, l) = load(R"({"title": "x", "look": "l", "predict": "p", "explain": "e", "figures": ["mfu"],
                                    "ask": "accepted", "change": {"/layout/tp": 2}})");
        QCOMPARE(l.steps[0].ask, Ask::Accepted);
        std::tie(err, l) = load(R"({"title": "x", "look": "l", "predict": "p", "explain": "e", "figures": ["mfu"]})");
        QCOMPARE(err, std::string("/steps/0/change"));   // a trend needs a change
        std::tie(err, l) = load(R"({"title": "x", "look": "l", "predict": "p", "explain": "e", "figures": ["mfu"],
                                    "ask": "maybe"})");
        QCOMPARE(err, std::string("/steps/0/ask"));
        std::tie(err, l) = load(R"({"title": "x", "look": "l", "predict": "p", "explain": "e", "figures": ["mfu"],
                                    "ask": {"group": "tp", "rank": -1}})");
        QCOMPARE(err, std::string("/steps/0/ask/rank"));
    }

    // The lesson on a learner's own project: on each example and on Megatron's docstring layout, every
    // step can be asked and graded, every figure its text quotes is the estimate's, the project is
    // the learner's, and the accepted step's answer is the validator's.
    void ownProjectLesson() {
        std::vector<Project> projects{megatronDocstringProject()};
        for (const auto& name : example_names()) projects.push_back(load_example(name));
        int groups = 0, accepted = 0, trends = 0;
        for (const Project& p0 : projects) {
            const Lesson l = lesson_on_project(p0);
            QCOMPARE(project_to_json(start_project(l)), project_to_json(p0));
            QVERIFY2(l.steps.size() >= 2, p0.name.c_str());
            Project p = start_project(l);
            for (std::size_t i = 0; i < l.steps.size(); ++i) {
                const Step& s = l.steps[i];
                const std::string where = p0.name + " step " + std::to_string(i) + " (" + s.title + ")";
                QVERIFY2(!s.look.empty() && !s.predict.empty() && !s.explain.empty() && !s.source.empty(),
                         where.c_str());
                const Question q = question(s, p);
                QVERIFY2(q.choices.size() >= 2, where.c_str());
                Project next;
                const StepOutcome o = run_step(p, s, &next);
                const int right = grade(s, q, o);
                QVERIFY2(right >= 0 && right < int(q.choices.size()), where.c_str());
                QVERIFY2(o.failed.empty(), (where + ": " + (o.failed.empty() ? "" : o.failed.front())).c_str());
                if (s.ask == Ask::Accepted) {
                    QCOMPARE(right, has_errors(validate(next)) ? 1 : 0);
                    ++accepted;
                }
                if (s.ask == Ask::Group) {
                    const auto ranks = compare::make_entry("", next).ranks;
                    QCOMPARE(q.choices[std::size_t(right)], format_ranks(ranks.group_of(s.group_kind, s.group_rank)));
                    ++groups;
                }
                if (s.ask == Ask::Trend) {
                    QVERIFY2(headline(s) && headline(s)->path == s.figures.front().path, where.c_str());
                    ++trends;
                }
                const nlohmann::json before = figures_json(p, s.pass_times), after = figures_json(next, s.pass_times);
                const std::string text = s.look + "\n" + s.predict + "\n" + s.explain;
                QVERIFY2(!s.quotes.empty(), where.c_str());
                for (const auto& x : s.quotes) {
                    QVERIFY2(text.find(x.text) != std::string::npos, (where + ": " + x.text).c_str());
                    const auto v = figure_value(x.after ? after : before, x.path);
                    QVERIFY2(v && format_quote(x, *v) == x.text, (where + ": " + x.path).c_str());
                }
                p = next;
            }
        }
        QVERIFY(groups >= 5);
        QVERIFY(accepted >= 5);
        QVERIFY(trends >= 10);
    }

    // Lesson 3's first step asks for rank 1's pipeline on 8 GPUs with tp 2, pp 4 under ColossalAI:
    // its ProcessGroupMesh is row-major over (dp, pp, tp, sp) = (1, 4, 2, 1), so rank = 2 x stage + tp
    // index, and rank 1's stages are 1, 3, 5, 7 (the block 0-3 is offered as the wrong guess).
    void builtInLessonAsksTheRankMap() {
        const Lesson l = load_lesson("3-pipeline-bubble");
        const Step& s = l.steps.front();
        QCOMPARE(s.ask, Ask::Group);
        QVERIFY(s.change.empty());
        const Project p = start_project(l);
        const Question q = question(s, p);
        QCOMPARE(q.choices[std::size_t(grade(s, q, run_step(p, s)))], std::string("{1, 3, 5, 7}"));
        QCOMPARE(count(q.choices, "{0, 1, 2, 3}"), 1);
    }

    void noLessonOnOneGpu() {
        Project p = load_example("gpt2-1node");
        set_field(p, "/cluster/nodes/0/gpus", 1);
        set_field(p, "/layout/tp", 1);
        set_field(p, "/layout/pp", 1);
        QVERIFY_THROWS_EXCEPTION(InputError, lesson_on_project(p));
    }
};

QTEST_GUILESS_MAIN(TestLessonQuestions)
#include "tst_lesson_questions.moc"
