#include "lessons/own_project.h"

#include "compare/compare.h"
#include "lessons/question.h"
#include "project/framework.h"
#include "rules/apply_fix.h"
#include "util/input_error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

namespace paraplan::lessons {

using nlohmann::json;

namespace {

const char* const kTpSource =
    "Shoeybi et al. 2019, Megatron-LM (arXiv 1909.08053), section 3 (two all-reduces per layer in the forward and two "
    "in the backward, on the critical path); Korthikanti et al. 2022 (arXiv 2205.05198), section 4.2.2 (with sequence "
    "parallelism each becomes an all-gather and a reduce-scatter of the same bytes).";

// One step's texts, with every figure they quote recorded as a Quote (lesson.h).
class Writer {
public:
    Writer(Step& s, json before, json after) : s_(s), before_(std::move(before)), after_(std::move(after)) {}
    bool has(const std::string& path, bool after) const {
        return figure_value(after ? after_ : before_, path).has_value();
    }
    double value(const std::string& path, bool after) const {
        return figure_value(after ? after_ : before_, path).value_or(0);
    }
    // The figure as text, quoted.
    std::string q(const std::string& path, bool after, int digits, bool percent = false) {
        if (!has(path, after)) return "n/a";
        Quote x{"", path, after, digits, percent};
        x.text = format_quote(x, value(path, after));
        s_.quotes.push_back(x);
        return x.text;
    }
    // "before → after" of one figure.
    std::string change(const std::string& path, int digits, bool percent = false) {
        const std::string b = q(path, false, digits, percent);
        return b + " → " + q(path, true, digits, percent);
    }
    // The step's headline figure expected to do what it does (the grade reads the same numbers).
    void expect_measured(const std::string& path) {
        s_.expect = {{path, measured_trend(value(path, false), value(path, true))}};
    }
    // The figure moves by more than 1%, or not at all: a trend question whose answer is not a
    // rounding difference the learner cannot see.
    bool clear_trend(const std::string& path) const {
        if (!has(path, false) || !has(path, true)) return false;
        const double b = value(path, false), a = value(path, true);
        return a == b || std::abs(a - b) > 0.01 * std::max(std::abs(a), std::abs(b));
    }

private:
    Step& s_;
    json before_, after_;
};

struct Sizes {
    int tp = 1, pp = 1, dp = 1, zero_stage = 0, micro_batch = 1;
};

std::optional<Sizes> sizes_of(const compare::Entry& e) {
    if (!e.report.estimate || !e.ranks.valid()) return std::nullopt;
    const auto& c = e.report.estimate->config;
    return Sizes{c.tp, c.pp, c.dp, c.zero_stage, c.micro_batch};
}

// The figures (figures_json) of `p` after the change, where that layout builds a rank map over the
// same GPUs and has an estimate (rules may still refuse it); nullopt otherwise.
std::optional<json> figures_after(const Project& p, const std::vector<FixChange>& change) {
    Project q = p;
    try {
        for (const auto& c : change) set_field(q, c.field, c.value);
        json f = figures_json(q);
        // With a valid rank map every kind of group is summarised; with an estimate there is a time.
        if (f.value("process_groups", json::object()).empty() || !f.contains("time")) return std::nullopt;
        return f;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// tp x2 (or /2 when it cannot grow), with dp (derived, or as written) or pp making room; `after`
// gets the figures of the layout it makes.
std::optional<std::vector<FixChange>> tp_trade(const Project& p, const Sizes& z, std::string* words, json* after) {
    const auto with_dp = [&](int tp, int dp) {
        std::vector<FixChange> c{{"/layout/tp", tp}};
        if (p.layout.dp > 0) c.push_back({"/layout/dp", dp});
        return c;
    };
    std::vector<std::pair<std::vector<FixChange>, std::string>> tries;
    const std::string tp2 = "tp " + std::to_string(z.tp) + " → " + std::to_string(2 * z.tp);
    if (z.dp % 2 == 0)
        tries.push_back({with_dp(2 * z.tp, z.dp / 2),
                         tp2 + " (dp " + std::to_string(z.dp) + " → " + std::to_string(z.dp / 2) + ")"});
    if (z.pp % 2 == 0)
        tries.push_back({{{"/layout/tp", 2 * z.tp}, {"/layout/pp", z.pp / 2}},
                         tp2 + " (pp " + std::to_string(z.pp) + " → " + std::to_string(z.pp / 2) + ")"});
    if (z.tp % 2 == 0)
        tries.push_back({with_dp(z.tp / 2, z.dp * 2), "tp " + std::to_string(z.tp) + " → " + std::to_string(z.tp / 2) +
                                                          " (dp " + std::to_string(z.dp) + " → " +
                                                          std::to_string(2 * z.dp) + ")"});
    for (auto& [c, w] : tries)
        if (auto f = figures_after(p, c)) {
            *words = w;
            *after = std::move(*f);
            return c;
        }
    return std::nullopt;
}

// The change that undoes `c` on `p`: each field as `p` has it.
std::vector<FixChange> undo_of(const Project& p, const std::vector<FixChange>& c) {
    const json j = project_to_json(p);
    std::vector<FixChange> out;
    for (const auto& x : c) out.push_back({x.field, j.value(json::json_pointer(x.field), json())});
    return out;
}

std::string num(int n) { return std::to_string(n); }
// "Step time (s)" -> "step time" for a question.
std::string lowered(std::string label) {
    if (const auto cut = label.find(" ("); cut != std::string::npos) label.resize(cut);
    if (!label.empty()) label[0] = char(std::tolower(static_cast<unsigned char>(label[0])));
    return label;
}
// "1 error", "2 errors" for a quoted count.
std::string counted(const std::string& quoted, const char* noun) {
    return quoted + " " + noun + (quoted == "1" ? "" : "s");
}

}   // namespace

Lesson lesson_on_project(const Project& p) {
    const compare::Entry start = compare::make_entry("", p);
    const std::optional<Sizes> z0 = sizes_of(start);
    if (!z0)
        throw InputError("/layout",
                         "no lesson on this project: its layout has no estimate or rank map (" +
                             (start.report.error ? start.report.error->message : std::string("see the Diagnostics")) +
                             ")");
    const FrameworkTraits& fw = traits_of(p.layout);
    const std::string framework = fw.display_name;
    Lesson l;
    l.id = kOwnProjectLessonId;
    l.title = "Your project" + (p.name.empty() ? std::string() : ": " + p.name);
    l.example = "";
    l.project = p;
    l.topic = "guided-lessons";
    // The project as the next step starts, and its figures (each project's worked out once).
    Project cur = p;
    json fcur = figures_json(p);
    const auto add = [&](Step s, json after) {
        const Project next = apply_step(cur, s);
        l.steps.push_back(std::move(s));
        cur = next;
        fcur = std::move(after);
    };
    const int world = start.ranks.world_size, nodes = start.ranks.num_nodes;

    // 1. The rank grid: a group of the widest pipeline or data axis, graded on the rank map.
    for (const char* kind : {"pp", "dp", "cp", "ep", "tp"}) {
        if (!start.ranks.has_group(kind) || start.ranks.summary(kind).group_size < 2 || world < 2) continue;
        Step s;
        s.ask = Ask::Group;
        s.group_kind = kind;
        s.group_rank = 1;
        s.view = "grid";
        s.colour_by = kind;
        if (question(s, cur).choices.size() < 2) continue;
        Writer w(s, fcur, fcur);
        const std::string k = kind, groups = "process_groups." + k + ".";
        s.title = "Your rank map: rank 1's " + k + " group";
        s.look = "The rank grid coloured by " + k + ": ";
        s.look += framework;
        s.look += " places your " + num(world) + " GPUs (";
        s.look += counted(num(nodes), "node");
        s.look += ") in " + w.q(groups + "num_groups", false, 0);
        s.look += " " + k + " groups of ";
        s.look += w.q(groups + "group_size", false, 0) + " GPUs each.";
        s.predict = "Which GPUs share rank 1's " + k + " group?";
        s.explain = "The rank grid shows " + framework;
        s.explain += "'s " + k + " groups as it builds them for this layout: ";
        if (w.value(groups + "groups_crossing_nodes", false) > 0) {
            s.explain += w.q(groups + "groups_crossing_nodes", false, 0);
            s.explain +=
                " of them cross nodes, so their collectives leave the NVLink domain for the network between "
                "the nodes.";
        } else {
            s.explain += "none of them crosses a node, so their collectives stay on the links inside each node.";
        }
        s.figures = {{groups + "group_size", "GPUs in each " + k + " group"},
                     {groups + "groups_crossing_nodes", k + " groups crossing nodes"}};
        s.source = std::string(fw.mesh_source) + ".";
        add(std::move(s), fcur);
        break;
    }

    // 2 and 3. Tensor parallelism doubled (or halved): accepted? Then back: the exposed TP time.
    std::string words;
    json traded;
    if (auto c = tp_trade(cur, *z0, &words, &traded)) {
        Step s;
        s.ask = Ask::Accepted;
        s.view = "diagnostics";
        s.colour_by = "tp";
        s.change = *c;
        s.change_label = "Set " + words;
        Writer w(s, fcur, traded);
        s.title = "A different tensor-parallel size";
        s.look = "Your layout runs tp " + num(z0->tp) + ": " +
                 w.q("process_groups.tp.groups_crossing_nodes", false, 0) +
                 " tp groups cross nodes, and the exposed tensor-parallel communication is " +
                 w.q("time.comm_s.tp", false, 3) + " s per step.";
        s.predict = words + " on the same GPUs: will " + framework + " start this layout?";
        const bool ok = w.value("derived.errors", true) == 0;
        s.explain = (ok ? "It starts: " + framework + "'s rules find no error."
                        : "It refuses it: " + framework + "'s rules find " +
                              counted(w.q("derived.errors", true, 0), "error") +
                              " (the Diagnostics list them, each with its reason and a fix).") +
                    " Exposed TP communication per step " + w.change("time.comm_s.tp", 3) + " s, peak memory per GPU " +
                    w.change("memory.peak_gib", 2) + " GiB.";
        s.figures = {{"derived.errors", "Errors in the Diagnostics"},
                     {"process_groups.tp.groups_crossing_nodes", "tp groups crossing nodes"},
                     {"time.comm_s.tp", "Exposed TP communication per step (s)"},
                     {"memory.peak_gib", "Peak memory per GPU (GiB)"}};
        s.source = std::string(fw.mesh_source) + "; " + kTpSource;
        const std::vector<FixChange> back = undo_of(cur, s.change);
        add(std::move(s), traded);

        Step b;
        b.view = "links";
        b.colour_by = "tp";
        b.change = back;
        b.change_label = "Set tp back to " + num(z0->tp);
        json restored = figures_json(apply_step(cur, b));
        Writer wb(b, fcur, restored);
        // The question on the first of these that moves clearly (the figures list it first).
        std::vector<Figure> figs = {{"time.comm_s.tp", "Exposed TP communication per step (s)"},
                                    {"time.step_s", "Step time (s)"},
                                    {"memory.stages.0.params_gib", "Weights per GPU (GiB)"}};
        const auto headline = std::find_if(figs.begin(), figs.end(),
                                           [&](const Figure& f) { return wb.clear_trend(f.path); });
        if (headline != figs.end()) std::rotate(figs.begin(), headline, headline + 1);
        b.title = "Tensor parallelism as you had it";
        b.look = "The Link traffic view with the changed tp: the tp groups' collectives run inside every layer.";
        b.predict = "Back to tp " + num(z0->tp) + ": what does the " + lowered(figs.front().label) + " do?";
        wb.expect_measured(figs.front().path);
        b.explain = "Exposed TP communication per step " + wb.change("time.comm_s.tp", 3) +
                    " s; tp groups crossing nodes " + wb.change("process_groups.tp.groups_crossing_nodes", 0) +
                    "; step time " + wb.change("time.step_s", 3) + " s; weights per GPU " +
                    wb.change("memory.stages.0.params_gib", 2) +
                    " GiB. A larger tp group moves more of every layer's activations over its links and splits the " +
                    "weights more finely: communication traded for memory.";
        b.figures = figs;
        b.figures.push_back({"process_groups.tp.groups_crossing_nodes", "tp groups crossing nodes"});
        b.source = kTpSource;
        add(std::move(b), std::move(restored));
    }

    // 4. With a pipeline: twice the microbatches per step; the bubble's share.
    if (z0->pp > 1) {
        Step s;
        s.view = "timeline";
        const int gbs = cur.training.global_batch_size;
        // Where the framework has a microbatch knob and the layout sets it, a larger batch is more
        // flushes of the same microbatches (project/derived_sizes.h): the knob goes up with it.
        const bool knob = fw.num_microbatches_knob && cur.layout.num_microbatches > 0;
        const bool halve = !knob && z0->micro_batch % 2 == 0;
        if (knob) {
            s.change = {{"/layout/num_microbatches", 2 * cur.layout.num_microbatches},
                        {"/training/global_batch_size", 2 * gbs}};
            s.change_label = "Double the microbatches (and the global batch)";
        } else if (halve) {
            s.change = {{"/training/micro_batch_size", z0->micro_batch / 2}};
            s.change_label = "Halve the micro-batch size";
        } else {
            s.change = {{"/training/global_batch_size", 2 * gbs}};
            s.change_label = "Double the global batch";
        }
        if (auto after = figures_after(cur, s.change)) {
            Writer w(s, fcur, *after);
            if (w.clear_trend("derived.bubble_share")) {
                s.title = "The pipeline bubble";
                s.look = "The timeline: with pp " + num(z0->pp) +
                         " the stages idle while the pipeline fills and "
                         "drains; the bubble is " +
                         w.q("derived.bubble_share", false, 1, true) + " of the estimated step.";
                s.predict =
                    std::string(
                        knob ? "Twice the microbatches per pipeline flush (the global batch doubles with them)"
                        : halve
                            ? "Half the micro-batch size (the same global batch) gives twice the microbatches per step"
                            : "Twice the global batch (the same micro-batch size) gives twice the microbatches per "
                              "step") +
                    ". What does the bubble's share of the step do?";
                w.expect_measured("derived.bubble_share");
                s.explain = "The bubble's share of the step goes " + w.change("derived.bubble_share", 1, true) +
                            ": the fill and drain cost about the same, over more microbatches. By Narayanan et al.'s "
                            "definition, (p - 1)/m of the ideal compute time: " +
                            w.change("derived.bubble_ratio_1f1b", 3) + ". Step time " + w.change("time.step_s", 3) +
                            " s.";
                s.figures = {{"derived.bubble_share", "Bubble share of the step"},
                             {"derived.bubble_ratio_1f1b", "(p - 1) / m"},
                             {"time.step_s", "Step time (s)"},
                             {"memory.peak_gib", "Peak memory per GPU (GiB)"}};
                s.source =
                    "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters "
                    "(arXiv 2104.04473), section 2.2 (the bubble of 1F1B is (p - 1)/m of the ideal time).";
                add(std::move(s), std::move(*after));
            }
        }
    }

    // 5. With data parallelism: the next ZeRO stage the framework accepts; peak memory.
    const auto& stages = zero_stages(fw, z0->pp);
    const auto next_stage = std::upper_bound(stages.begin(), stages.end(), cur.layout.zero_stage);
    if (z0->dp > 1 && (fw.zero == ZeroSemantics::stage || fw.zero == ZeroSemantics::distributed_optimizer) &&
        next_stage != stages.end()) {
        Step s;
        s.view = "memory";
        s.change = {{"/layout/zero_stage", *next_stage}};
        s.change_label = "Set ZeRO stage to " + num(*next_stage);
        if (auto after = figures_after(cur, s.change)) {
            Writer w(s, fcur, *after);
            if (w.value("derived.errors", true) <= w.value("derived.errors", false) &&
                w.clear_trend("memory.peak_gib")) {
                s.title = "Sharding the optimizer states";
                s.look = "The memory bars: a peak of " + w.q("memory.peak_gib", false, 2) +
                         " GiB per GPU, of which the optimizer states are " +
                         w.q("memory.stages.0.optimizer_gib", false, 2) + " GiB on the first stage.";
                s.predict = "ZeRO stage " + num(cur.layout.zero_stage) + " → " + num(*next_stage) + " over " +
                            num(z0->dp) + "-way data parallelism: what does the peak memory per GPU do?";
                w.expect_measured("memory.peak_gib");
                s.explain = "Peak memory per GPU " + w.change("memory.peak_gib", 2) + " GiB, optimizer states " +
                            w.change("memory.stages.0.optimizer_gib", 2) +
                            " GiB; exposed data-parallel communication " + w.change("time.comm_s.dp", 3) +
                            " s per step.";
                s.figures = {{"memory.peak_gib", "Peak memory per GPU (GiB)"},
                             {"memory.stages.0.optimizer_gib", "Optimizer states, first stage (GiB)"},
                             {"time.comm_s.dp", "Exposed DP communication per step (s)"},
                             {"time.step_s", "Step time (s)"}};
                s.source =
                    "Rajbhandari et al. 2020, ZeRO (arXiv 1910.02054), section 5 (stage 1 partitions the "
                    "optimizer states, stage 2 the gradients, stage 3 the parameters over the data-parallel "
                    "group).";
                add(std::move(s), std::move(*after));
            }
        }
    }
    if (l.steps.empty())
        throw InputError("/layout", "no lesson on this project: it runs on one GPU, with nothing to split");
    l.summary = "Each answer in this lesson was graded on your own project: the rank map " + framework +
                " builds on your cluster, its rules, and the estimate of your model. Every change stays in this "
                "lesson's copy; your project is as you left it. The planner (Tools) searches every layout of this "
                "cluster the same way.";
    return l;
}

}   // namespace paraplan::lessons
