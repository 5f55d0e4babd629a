#pragma once
// Guided lessons: a built-in project plus steps. Each step names the view to look at,
// says in plain words what to look at, asks the learner to predict what one change will
// do, makes that change (one knob, sometimes with the field it drags along), and shows
// the effect with the estimate's real numbers. Lessons are data (resources/lessons/*.json,
// format in docs/concepts.md#guided-lessons), so a teacher writes one without C++.
#include "estimate/pass_times.h"
#include "project/project.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace paraplan::lessons {

// A number the step shows before and after its change: a dotted path into figures_json()
// ("time.step_s", "memory.stages.0.optimizer_gib", "process_groups.tp.groups_crossing_nodes").
struct Figure {
    std::string path;
    std::string label;
};

// What the change must do to a figure; the lesson test holds every lesson to it.
enum class Trend { Increases, Decreases, Same };
std::string to_string(Trend t);

// The kind of question a step asks (lessons/question.h): "ask" in the lesson file, "trend" when
// it is left out; {"group": kind, "rank": r} or "accepted".
enum class Ask { Trend, Group, Accepted };

struct Expectation {
    std::string path;
    Trend trend = Trend::Same;
};

// A figure the step's text quotes: `text` appears in its look, predict or explain, and is
// `path`'s value (before or after the step's change) written with `digits` decimals, as a
// percentage (x 100, then "%") when `percent`. The lesson test fails when the two drift apart.
struct Quote {
    std::string text;
    std::string path;
    bool after = true;
    int digits = 3;
    bool percent = false;
};
// `value` written the way `q` quotes it.
std::string format_quote(const Quote& q, double value);

struct Step {
    std::string title;
    std::string view;                // the main window's view id (canvas, grid, timeline, memory, links, ...)
    std::string colour_by;           // what the canvas and rank grid colour by (kColourAxes); empty: as they are
    std::string look;                // what to look at, before the change
    std::string predict;             // the question to answer before making the change
    std::vector<FixChange> change;   // the knob (and any field it drags along), as project-file pointers
    std::string change_label;        // "Set ZeRO stage to 1"
    std::vector<Figure> figures;
    std::vector<Expectation> expect;
    std::string explain;   // shown with the numbers after the change
    std::string source;    // the public sources of the step's statements (paper + section/table)
    std::vector<Quote> quotes;
    // The pass times the timeline is drawn with during the step, before and after its change
    // ("pass_times": {"mode": "equal" | "estimate" | "custom", custom: "forward", "backward_input",
    // "backward_weight"}); equal (Qi et al.'s F = B = W) when the step leaves it out.
    estimate::PassTimesChoice pass_times;
    // The question (lessons/question.h): trend asks about the headline figure; group asks which
    // GPUs share rank `group_rank`'s group of kind `group_kind` after the change; accepted asks
    // whether the framework starts the layout after it. Group and accepted steps may change nothing.
    Ask ask = Ask::Trend;
    std::string group_kind;
    int group_rank = 0;
};

// The names a step's "colour_by" may hold: "node" and the axes and group kinds the frameworks'
// meshes name (core/topology/*_mesh.cpp); a name the step's project has no axis of leaves the
// colouring as it is (the lesson test holds each built-in lesson to axes its project has).
inline constexpr const char* kColourAxes[] = {"node", "tp",     "pp",  "dp",  "ep",       "cp",
                                              "sp",   "moe_dp", "edp", "etp", "dp_shard", "dp_replicate"};

// The expectation the learner predicts: the one on the earliest listed figure (the
// "expect" object has no order of its own). nullptr when the step expects nothing.
const Expectation* headline(const Step& s);

struct Lesson {
    std::string id;   // the file name without .json
    std::string title;
    std::string summary;
    std::string topic;              // anchor in docs/concepts.md
    std::string example;            // built-in example project it starts from
    std::vector<FixChange> setup;   // changes applied to the example first
    std::vector<Step> steps;
    // A lesson written for one project (lessons/own_project.h) starts from it, not from `example`.
    std::optional<Project> project;
};

// Throws InputError naming `where` and the JSON pointer of a bad or missing field.
Lesson lesson_from_json(const nlohmann::json& j, const std::string& id, const std::string& where);
std::vector<std::string> lesson_ids();              // built-in (resources/lessons/*.json), sorted
Lesson load_lesson(const std::string& id);          // built-in by id
Lesson load_lesson_file(const std::string& path);   // a teacher's own file

// The lesson's starting project: the example with `setup` applied.
Project start_project(const Lesson& l);
// The project after the step's change.
Project apply_step(const Project& p, const Step& s);

// What figure paths read: `paraplan-cli estimate --json`'s object, plus
// "process_groups": {kind: {group_size, num_groups, groups_crossing_nodes, max_nodes_spanned}}
// and "derived": {"bubble_share": bubble_s / step_s (the bubble as a share of the estimated step),
// "bubble_ratio_1f1b": (pp - 1) / (chunks x microbatches) (Narayanan et al. 2021 section 2.2: the
// bubble over the ideal compute time, stages alike), "errors": number of error findings},
// and "timeline": {"schedule", "bubble_fraction" (idle share of all stages over the span),
// "span_bubble_rate", "bubble_per_stage" (makespan x bubble_fraction, in the timeline's unit),
// "bubble_vs_1f1b" (that over 1F1B's (p - 1)(F + B + W) for the same work), "pass_times": {"mode",
// "forward", "backward_input", "backward_weight" (relative, what it is drawn with), "forward_ms"
// (estimate mode)}} of the timeline view's simulation with `pass_times` (estimate/pass_times.h;
// default F = B = W = 1); no "timeline" when the schedule cannot be drawn; and "traffic": the Link traffic view's
// figures from the same step playback (estimate/step_playback.h): {links, total_gib, cross_node_links, cross_node_gib,
// cross_node_gib_by_group: {tp, cp, ep, pp, dp, edp}, tiers: {name: {gib, busy}}}, GiB per step over all links
// (cross_node: those between two nodes); no "traffic" without a playback.
nlohmann::json figures_json(const Project& p, const estimate::PassTimesChoice& pass_times = {});
std::optional<double> figure_value(const nlohmann::json& figures, const std::string& path);

struct StepOutcome {
    std::vector<std::optional<double>> before, after;   // one per step figure
    std::vector<std::string> failed;                    // expectations that do not hold, in words
    // The validator's findings after the change: how many errors, and the first few ("rule: message").
    int errors_after = 0;
    std::vector<std::string> error_messages_after;
};
// Runs the step from `before`: the figures before and after its change (the timeline's with the
// step's pass times), and which expectations fail.
StepOutcome run_step(const Project& before, const Step& s, Project* after = nullptr);

}   // namespace paraplan::lessons
