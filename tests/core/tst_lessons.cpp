// The built-in lessons (resources/lessons/*.json): every one loads, and every step's change
// does to the real estimate what the lesson says it does. Bad lesson files get messages
// that name the file and the JSON pointer.
#include "compare/compare.h"
#include "estimate/config.h"
#include "estimate/memory.h"
#include "lessons/lesson.h"
#include "rules/apply_fix.h"
#include "rules/validate.h"
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

    // Lessons 1 (ZeRO), 2 (tensor parallelism), 3 (the bubble), 4 (the schedules), 5 (sequence
    // parallelism) and 6 (experts): every step names its
    // sources, every figure its text quotes is the estimator's (or the timeline's, or the link
    // traffic's) figure by the quote's definition, so a drift in the estimate fails here, and the
    // timeline draws the step's schedule.
    void quotedFiguresAreTheEstimators() {
        int checked = 0;
        std::set<std::string> sourced;
        for (const auto& id : lesson_ids()) {
            const bool checkedLesson = id.rfind("1-", 0) == 0 || id.rfind("2-", 0) == 0 || id.rfind("3-", 0) == 0 ||
                                       id.rfind("4-", 0) == 0 || id.rfind("5-", 0) == 0 || id.rfind("6-", 0) == 0;
            const Lesson l = load_lesson(id);
            Project p = start_project(l);
            for (std::size_t i = 0; i < l.steps.size(); ++i) {
                const Step& s = l.steps[i];
                const std::string where = id + " step " + std::to_string(i);
                if (checkedLesson) {
                    QVERIFY2(!s.source.empty(), where.c_str());
                    QVERIFY2(!s.quotes.empty(), where.c_str());
                    sourced.insert(id.substr(0, 2));
                }
                const Project next = apply_step(p, s);
                // The timeline's figures as the step draws it (its pass times, equal unless it says).
                const nlohmann::json before = figures_json(p, s.pass_times), after = figures_json(next, s.pass_times);
                if (s.view == "timeline") {
                    // The timeline draws, and it draws the schedule the estimate prices.
                    const auto* tl = after.find("timeline") != after.end() ? &after["timeline"] : nullptr;
                    QVERIFY2(tl, where.c_str());
                    QVERIFY2(figure_value(after, "timeline.bubble_fraction").has_value(), where.c_str());
                    QCOMPARE((*tl)["pass_times"]["mode"].get<std::string>(),
                             std::string(estimate::to_string(s.pass_times.mode)));
                    QCOMPARE((*tl)["schedule"].get<std::string>(),
                             std::string(estimate::simulator_name(
                                 resolved_schedule(next.layout.schedule, next.layout.framework))));
                }
                if (s.view == "links") {
                    // The Link traffic view's figures come from the step's playback.
                    QVERIFY2(figure_value(after, "traffic.total_gib").value_or(0) > 0, where.c_str());
                    QVERIFY2(figure_value(after, "traffic.cross_node_gib").has_value(), where.c_str());
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
        QCOMPARE(sourced, (std::set<std::string>{"1-", "2-", "3-", "4-", "5-", "6-"}));
        QVERIFY2(checked >= 100, std::to_string(checked).c_str());
    }

    // Lessons 1, 2, 4, 5 and 6 ask one question per step and grade the quantity it asks about: the first
    // figure listed, the one with the step's headline expectation.
    void eachStepGradesWhatItAsks() {
        const std::vector<std::pair<std::string, std::vector<std::string>>> asked = {
            {"1-data-parallel-zero",
             {"memory.stages.0.optimizer_gib", "memory.stages.0.grads_gib", "traffic.cross_node_gib"}},
            {"2-tensor-parallel", {"time.comm_s.tp", "time.comm_s.tp", "memory.peak_gib"}},
            {"4-pipeline-schedules",
             {"memory.stages.0.activations_gib", "time.bubble_s", "timeline.bubble_fraction",
              "timeline.bubble_fraction", "time.bubble_s"}},
            {"5-sequence-context-parallel", {"memory.stages.0.activations_gib", "time.comm_s.cp", "time.comm_s.cp"}},
            {"6-expert-parallel", {"memory.stages.0.params_gib", "time.comm_s.dp", "time.step_s", "time.comm_s.ep"}},
        };
        for (const auto& [id, paths] : asked) {
            const Lesson l = load_lesson(id);
            QCOMPARE(l.steps.size(), paths.size());
            for (std::size_t i = 0; i < paths.size(); ++i) {
                const Step& s = l.steps[i];
                const std::string where = id + " step " + std::to_string(i);
                QVERIFY2(headline(s), where.c_str());
                QCOMPARE(headline(s)->path, paths[i]);
                QCOMPARE(s.figures.front().path, paths[i]);
                QCOMPARE(std::count(s.predict.begin(), s.predict.end(), '?'), std::ptrdiff_t(1));
            }
        }
    }

    // Lesson 1 runs on two DGX H100 nodes (dp 16 across InfiniBand) in fp16, and its bars hold the
    // bytes per parameter the text names: ZeRO's 2 + 2 + 12 with DeepSpeed's 4-byte fp32 gradient
    // copy counted as optimizer state (16 bytes there, 20 in all), DeepSpeed's 2 + 18/Nd at ZeRO 2,
    // and ZeRO 3's traffic between the nodes 1.5 times ZeRO 2's (3 model sizes against 2).
    void lessonOneBytesAndTraffic() {
        const Lesson l = load_lesson("1-data-parallel-zero");
        Project p = start_project(l);
        QCOMPARE(p.cluster.system, std::string("dgx-h100"));
        QCOMPARE(int(p.cluster.nodes.size()), 2);
        QCOMPARE(p.world_size(), 16);
        QCOMPARE(p.training.precision, Precision::fp16);
        std::vector<nlohmann::json> f = {figures_json(p)};
        for (const auto& s : l.steps) {
            p = apply_step(p, s);
            f.push_back(figures_json(p));
        }
        for (int zero = 0; zero <= 3; ++zero) QCOMPARE(*figure_value(f[zero], "layout.zero_stage"), double(zero));
        const double n = *figure_value(f[0], "memory.stages.0.params_per_gpu");
        QVERIFY(std::abs(n - 8.03e9) < 0.01e9);
        auto bytes = [&](int zero, const char* part) {
            return *figure_value(f[zero], std::string("memory.stages.0.") + part) * estimate::kGiB / n;
        };
        auto near = [](double a, double b) { return std::abs(a - b) < 1e-9 * std::max(1.0, std::abs(b)); };
        const double nd = 16;
        QCOMPARE(*figure_value(f[0], "process_groups.dp.group_size"), nd);
        QCOMPARE(*figure_value(f[0], "process_groups.dp.groups_crossing_nodes"), 1.0);
        // ZeRO 0: 2 + 2 + (12 + 4) bytes per parameter on every GPU.
        QVERIFY(near(bytes(0, "params_gib"), 2));
        QVERIFY(near(bytes(0, "grads_gib"), 2));
        QVERIFY(near(bytes(0, "optimizer_gib"), 16));
        // ZeRO 1: the optimizer's 16 over the 16 GPUs.
        QVERIFY(near(bytes(1, "optimizer_gib"), 16 / nd));
        QVERIFY(near(bytes(1, "grads_gib"), 2));
        // ZeRO 2: DeepSpeed's estimate_zero2_model_states_mem_needs, 2 + 18 / Nd.
        QVERIFY(near(bytes(2, "params_gib") + bytes(2, "grads_gib") + bytes(2, "optimizer_gib"), 2 + 18 / nd));
        // ZeRO 3: everything over the 16 GPUs, 20 / Nd.
        QVERIFY(near(bytes(3, "params_gib") + bytes(3, "grads_gib") + bytes(3, "optimizer_gib"), 20 / nd));
        // Traffic between the nodes: the same for ZeRO 0, 1 and 2, half as much again for ZeRO 3,
        // all of it the data-parallel group's.
        const double x0 = *figure_value(f[0], "traffic.cross_node_gib");
        QVERIFY(x0 > 50);
        QVERIFY(near(*figure_value(f[1], "traffic.cross_node_gib"), x0));
        QVERIFY(near(*figure_value(f[2], "traffic.cross_node_gib"), x0));
        QVERIFY(near(*figure_value(f[3], "traffic.cross_node_gib"), 1.5 * x0));
        QVERIFY(near(*figure_value(f[3], "traffic.cross_node_gib_by_group.dp"), 1.5 * x0));
        QVERIFY(near(*figure_value(f[3], "traffic.tiers.infiniband.gib"), 1.5 * x0));
        // The estimate hides ZeRO 3's gathers behind the compute: the step time does not move.
        QCOMPARE(*figure_value(f[3], "time.comm_s.dp"), 0.0);
        QCOMPARE(*figure_value(f[3], "time.step_s"), *figure_value(f[2], "time.step_s"));
    }

    // Lesson 6's gradient reduction drops at ep 8 because no expert is held by more than one GPU
    // of a stage any more (at ep 4 every moe_dp group of 2 spans both nodes) and the dense dp
    // group becomes one node; the pipeline's groups cross nodes instead. Dropping the pipeline
    // brings the cross-node expert groups back.
    void lessonSixGroupsAcrossNodes() {
        const Lesson l = load_lesson("6-expert-parallel");
        Project p = start_project(l);
        QCOMPARE(p.cluster.system, std::string("dgx-h100"));
        std::vector<nlohmann::json> f = {figures_json(p)};
        for (const auto& s : l.steps) {
            p = apply_step(p, s);
            f.push_back(figures_json(p));
        }
        auto v = [&](std::size_t i, const char* path) { return *figure_value(f[i], path); };
        // ep 4 (after step 0): 8 moe_dp groups of 2 GPUs, every one across the two nodes.
        QCOMPARE(v(1, "layout.ep"), 4.0);
        QCOMPARE(v(1, "process_groups.moe_dp.group_size"), 2.0);
        QCOMPARE(v(1, "process_groups.moe_dp.num_groups"), 8.0);
        QCOMPARE(v(1, "process_groups.moe_dp.groups_crossing_nodes"), 8.0);
        QCOMPARE(v(1, "process_groups.dp.groups_crossing_nodes"), 2.0);
        QCOMPARE(v(1, "process_groups.pp.groups_crossing_nodes"), 0.0);
        QVERIFY(v(1, "traffic.cross_node_gib_by_group.edp") > 100);
        // The optimizer states per GPU do not move with ep: ep x moe_dp = 8 GPUs share each expert's.
        QCOMPARE(v(1, "memory.stages.0.optimizer_gib"), v(0, "memory.stages.0.optimizer_gib"));
        // ep 8: moe_dp groups of 1, nothing of the experts to reduce, the dense dp group one node.
        QCOMPARE(v(2, "process_groups.moe_dp.group_size"), 1.0);
        QCOMPARE(v(2, "process_groups.moe_dp.groups_crossing_nodes"), 0.0);
        QCOMPARE(v(2, "process_groups.dp.groups_crossing_nodes"), 0.0);
        QCOMPARE(v(2, "traffic.cross_node_gib_by_group.edp"), 0.0);
        QCOMPARE(v(2, "traffic.cross_node_gib_by_group.dp"), 0.0);
        QCOMPARE(v(2, "process_groups.pp.groups_crossing_nodes"), 8.0);
        QVERIFY(v(2, "time.comm_s.dp") < 0.05 * v(1, "time.comm_s.dp"));
        // pp 1: moe_dp 2 again, across the nodes.
        QCOMPARE(v(3, "layout.pp"), 1.0);
        QCOMPARE(v(3, "process_groups.moe_dp.group_size"), 2.0);
        QCOMPARE(v(3, "process_groups.moe_dp.groups_crossing_nodes"), 8.0);
        QVERIFY(v(3, "traffic.cross_node_gib_by_group.edp") > 100);
        QCOMPARE(v(3, "process_groups.ep.groups_crossing_nodes"), 0.0);
        QCOMPARE(v(3, "traffic.cross_node_gib_by_group.ep"), 0.0);
        // tp 2 (tp innermost, ep next): each ep group is every other GPU, 4 on each node, and the
        // all-to-all crosses InfiniBand.
        QCOMPARE(v(4, "layout.tp"), 2.0);
        QCOMPARE(v(4, "process_groups.ep.group_size"), 8.0);
        QCOMPARE(v(4, "process_groups.ep.groups_crossing_nodes"), 2.0);
        QCOMPARE(v(4, "process_groups.ep.max_nodes_spanned"), 2.0);
        QVERIFY(v(4, "traffic.cross_node_gib_by_group.ep") > 1000);
        QVERIFY(v(4, "time.comm_s.ep") > 5 * v(3, "time.comm_s.ep"));
    }

    // Lesson 2 runs on four DGX H100 nodes. tp 16 puts each tp group on two nodes, so its traffic
    // crosses InfiniBand, and ColossalAI rejects it (8 key/value heads), which the step says; tp 8
    // is one node again; tp 4 is faster but no longer fits. Each graded answer is what the estimate
    // does, and step 3 grades the peak memory it asks about (not "fits", whose "goes down" meant "no").
    void lessonTwoAcrossNodesAndFit() {
        const Lesson l = load_lesson("2-tensor-parallel");
        QCOMPARE(l.steps.size(), std::size_t(3));
        Project p = start_project(l);
        QCOMPARE(p.cluster.system, std::string("dgx-h100"));
        QCOMPARE(int(p.cluster.nodes.size()), 4);
        QCOMPARE(p.world_size(), 32);
        std::vector<nlohmann::json> f = {figures_json(p)};
        std::vector<std::vector<Diagnostic>> d = {validate(p)};
        for (const auto& s : l.steps) {
            Project next;
            const StepOutcome o = run_step(p, s, &next);
            const Expectation* h = headline(s);
            QVERIFY(h && o.before.front() && o.after.front());
            const double b = *o.before.front(), a = *o.after.front();
            QCOMPARE(h->trend == Trend::Increases ? a > b : h->trend == Trend::Decreases ? a < b : a == b, true);
            p = next;
            f.push_back(figures_json(p));
            d.push_back(validate(p));
        }
        auto v = [&](std::size_t i, const char* path) { return *figure_value(f[i], path); };
        auto errors = [&](std::size_t i) {
            std::vector<std::string> ids;
            for (const auto& x : d[i])
                if (x.severity == Severity::Error) ids.push_back(x.rule);
            return ids;
        };
        // tp 8, pp 4: each tp group one node; only the pipeline crosses nodes.
        QCOMPARE(v(0, "process_groups.tp.group_size"), 8.0);
        QCOMPARE(v(0, "process_groups.tp.groups_crossing_nodes"), 0.0);
        QCOMPARE(v(0, "traffic.cross_node_gib_by_group.tp"), 0.0);
        QCOMPARE(v(0, "traffic.cross_node_gib"), v(0, "traffic.cross_node_gib_by_group.pp"));
        QVERIFY(errors(0).empty());
        // tp 16, pp 2: both tp groups span two nodes, their traffic crosses InfiniBand, the exposed
        // tp time about doubles, and ColossalAI's Llama policy rejects tp 16 with 8 kv heads.
        QCOMPARE(v(1, "process_groups.tp.group_size"), 16.0);
        QCOMPARE(v(1, "process_groups.tp.groups_crossing_nodes"), 2.0);
        QCOMPARE(v(1, "process_groups.tp.max_nodes_spanned"), 2.0);
        QVERIFY(v(1, "traffic.cross_node_gib_by_group.tp") > 10000);
        QVERIFY(v(1, "time.comm_s.tp") > 1.5 * v(0, "time.comm_s.tp"));
        QCOMPARE(errors(1), std::vector<std::string>{"colossalai.tp_divides_kv_heads"});
        // tp 8, pp 2, dp 2: one node per tp group, the same tp time as at the start, valid again.
        QCOMPARE(v(2, "process_groups.tp.groups_crossing_nodes"), 0.0);
        QCOMPARE(v(2, "traffic.cross_node_gib_by_group.tp"), 0.0);
        QCOMPARE(v(2, "time.comm_s.tp"), v(0, "time.comm_s.tp"));
        QVERIFY(std::abs(v(2, "memory.stages.0.params_gib") / v(1, "memory.stages.0.params_gib") - 2) < 0.01);
        QVERIFY(errors(2).empty());
        // tp 4: weights and activations double, the peak passes 80 GiB, the step would be faster.
        QCOMPARE(v(3, "memory.capacity_gib"), 80.0);
        QVERIFY(v(2, "memory.peak_gib") < 80 && v(3, "memory.peak_gib") > 80);
        QCOMPARE(v(2, "memory.fits"), 1.0);
        QCOMPARE(v(3, "memory.fits"), 0.0);
        QVERIFY(std::abs(v(3, "memory.stages.0.params_gib") / v(2, "memory.stages.0.params_gib") - 2) < 0.01);
        QVERIFY(std::abs(v(3, "memory.stages.0.activations_gib") / v(2, "memory.stages.0.activations_gib") - 2) < 0.01);
        QVERIFY(v(3, "time.step_s") < v(2, "time.step_s"));
    }

    // Lesson 5: split_gather shares the tp group and moves the same bytes (the exposed tp time does
    // not move); all_to_all halves every activation against no sequence parallelism but turns the
    // tp layers back to all-reduces (ColossalAI does not stack the two); ring_attn hides the
    // sequence communication and keeps the activations.
    void lessonFiveSequenceModes() {
        const Lesson l = load_lesson("5-sequence-context-parallel");
        Project p = start_project(l);
        QCOMPARE(p.world_size(), 8);
        std::vector<nlohmann::json> f = {figures_json(p)};
        for (const auto& s : l.steps) {
            p = apply_step(p, s);
            f.push_back(figures_json(p));
            const auto ds = validate(p);
            QVERIFY(
                std::none_of(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; }));
        }
        auto v = [&](std::size_t i, const char* path) { return *figure_value(f[i], path); };
        auto near = [](double a, double b) { return std::abs(a - b) < 1e-9 * std::max(1.0, std::abs(b)); };
        QCOMPARE(v(0, "process_groups.tp.group_size"), 4.0);
        QCOMPARE(v(0, "process_groups.dp.group_size"), 2.0);
        // split_gather: the sp group is the tp group; the same tp bytes, fewer activations, a shorter step.
        // A reduce-scatter and an all-gather move an all-reduce's bytes; NCCL's model charges each its
        // own start-up latency and chunk fill, so the tp time rises, by under 2%.
        QCOMPARE(v(1, "process_groups.sp.group_size"), 4.0);
        QVERIFY(v(1, "time.comm_s.tp") > v(0, "time.comm_s.tp"));
        QVERIFY(v(1, "time.comm_s.tp") < 1.02 * v(0, "time.comm_s.tp"));
        QVERIFY(v(1, "memory.stages.0.activations_gib") < v(0, "memory.stages.0.activations_gib"));
        QVERIFY(v(1, "time.step_s") < v(0, "time.step_s"));
        // all_to_all over sp 2: half of every activation against sp_mode none, dp 1, the step back up.
        QCOMPARE(v(2, "process_groups.sp.group_size"), 2.0);
        QCOMPARE(v(2, "process_groups.dp.group_size"), 1.0);
        QVERIFY(near(v(2, "memory.stages.0.activations_gib"), v(0, "memory.stages.0.activations_gib") / 2));
        QVERIFY(v(2, "time.comm_s.cp") > 0);
        QVERIFY(v(2, "time.step_s") > v(1, "time.step_s"));
        // ring_attn: the ring's transfers hidden, the same activations, a longer step.
        QCOMPARE(v(3, "time.comm_s.cp"), 0.0);
        QVERIFY(near(v(3, "memory.stages.0.activations_gib"), v(2, "memory.stages.0.activations_gib")));
        QVERIFY(v(3, "time.step_s") > v(2, "time.step_s"));
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

    // A step that sets the colouring names a group kind (or coordinate) that the project it is shown
    // on has, so the canvas and rank grid can colour by it; the steps that talk about groups set one.
    void colourByNamesAnAxisOfTheStep() {
        int coloured = 0;
        for (const auto& id : lesson_ids()) {
            const Lesson l = load_lesson(id);
            Project p = start_project(l);
            for (std::size_t i = 0; i < l.steps.size(); ++i) {
                const Step& s = l.steps[i];
                const std::string where = id + " step " + std::to_string(i) + " colour_by " + s.colour_by;
                if (!s.colour_by.empty() && s.colour_by != "node") {
                    const auto ranks = compare::make_entry("", p).ranks;
                    const auto& names = ranks.coord_names;
                    QVERIFY2(ranks.has_group(s.colour_by) ||
                                 std::find(names.begin(), names.end(), s.colour_by) != names.end(),
                             where.c_str());
                    ++coloured;
                }
                p = apply_step(p, s);
            }
        }
        QVERIFY2(coloured >= 8, std::to_string(coloured).c_str());
        QCOMPARE(load_lesson("2-tensor-parallel").steps[1].colour_by, std::string("tp"));
        QCOMPARE(load_lesson("6-expert-parallel").steps[1].colour_by, std::string("moe_dp"));
        QVERIFY(load_lesson("1-data-parallel-zero").steps[0].colour_by.empty());   // a memory step: as it is
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
        // A step's pass times: a mode the timeline knows, custom values in range, none without custom.
        const auto passTimes = [&](const char* name, const char* pt) {
            const std::string text = std::string(R"({"title": "t", "summary": "s", "example": "gpt2-1node", "steps": [
            {"title": "x", "look": "l", "predict": "p", "explain": "e", "change": {"/layout/tp": 1},
             "figures": ["mfu"], "pass_times": )") +
                                     pt + "}]}";
            return message(write(name, text.c_str()));
        };
        std::tie(ptr, what) = passTimes("e.json", R"({"mode": "paper"})");
        QCOMPARE(ptr, std::string("/steps/0/pass_times/mode"));
        QVERIFY2(what.find("e.json") != std::string::npos, what.c_str());
        std::tie(ptr, what) = passTimes("f.json", R"({"mode": "custom", "forward": 1, "backward_input": 1})");
        QCOMPARE(ptr, std::string("/steps/0/pass_times/backward_weight"));
        std::tie(ptr, what) = passTimes(
            "g.json", R"({"mode": "custom", "forward": 1, "backward_input": 100, "backward_weight": 1})");
        QCOMPARE(ptr, std::string("/steps/0/pass_times/backward_input"));
        QVERIFY2(what.find("from 0.05 to 20") != std::string::npos, what.c_str());
        std::tie(ptr, what) = passTimes("h.json", R"({"mode": "equal", "forward": 2})");
        QCOMPARE(ptr, std::string("/steps/0/pass_times/forward"));
        std::tie(ptr, what) = passTimes("i.json", R"("estimate")");
        QCOMPARE(ptr, std::string("/steps/0/pass_times"));
        const Lesson ok = load_lesson_file(write("j.json", R"({"title": "t", "summary": "s", "example": "gpt2-1node",
            "steps": [{"title": "x", "look": "l", "predict": "p", "explain": "e", "change": {"/layout/tp": 1},
             "figures": ["mfu"], "pass_times": {"mode": "custom", "forward": 1, "backward_input": 1.5,
             "backward_weight": 0.5}}, {"title": "y", "look": "l", "predict": "p", "explain": "e",
             "change": {"/layout/tp": 2}, "figures": ["mfu"]}]})"));
        QCOMPARE(ok.steps[0].pass_times.mode, estimate::PassTimesMode::Custom);
        QCOMPARE(ok.steps[0].pass_times.custom, (estimate::PassTimes{1, 1.5, 0.5}));
        QCOMPARE(ok.steps[1].pass_times, estimate::PassTimesChoice{});
        // colour_by: a name of kColourAxes, nothing else (not a number, not a guess at a name).
        const char* colourStep = R"({"title": "t", "summary": "s", "example": "gpt2-1node", "steps": [
            {"title": "x", "look": "l", "predict": "p", "explain": "e", "change": {"/layout/tp": 1},
             "figures": ["mfu"], "colour_by": %1}]})";
        for (const char* bad : {"\"tensor\"", "\"TP\"", "2", "\"\""}) {
            const std::string path = write(
                "k.json", QString::fromLatin1(colourStep).arg(QLatin1String(bad)).toUtf8().constData());
            std::tie(ptr, what) = message(path);
            QCOMPARE(ptr, std::string("/steps/0/colour_by"));
            QVERIFY2(what.find("k.json") != std::string::npos, what.c_str());
            QVERIFY2(what.find("one of node, tp, pp, dp") != std::string::npos, what.c_str());
        }
        const std::string good = write(
            "l.json", QString::fromLatin1(colourStep).arg(QLatin1String("\"pp\"")).toUtf8().constData());
        QCOMPARE(load_lesson_file(good).steps.front().colour_by, std::string("pp"));
        const std::string syntax = write("d.json", "{\"title\": \n,}");
        std::tie(ptr, what) = message(syntax);
        QVERIFY2(what.find("d.json") != std::string::npos && what.find("line 2") != std::string::npos, what.c_str());
    }
};

QTEST_GUILESS_MAIN(TestLessons)
#include "tst_lessons.moc"
