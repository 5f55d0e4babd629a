#include "lessons/lesson.h"
#include "lessons/question.h"
#include "util/read_file.h"

#include "compare/compare.h"
#include "estimate/project_timeline.h"
#include "estimate/step_playback.h"
#include "rules/apply_fix.h"
#include "util/input_error.h"
#include "util/json_read.h"
#include "util/resources.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace paraplan::lessons {

using json_read::Obj;
using nlohmann::json;

std::string to_string(Trend t) {
    switch (t) {
    case Trend::Increases: return "increases";
    case Trend::Decreases: return "decreases";
    case Trend::Same: return "same";
    }
    return "same";
}

const Expectation* headline(const Step& s) {
    for (const auto& f : s.figures)
        for (const auto& e : s.expect)
            if (e.path == f.path) return &e;
    return s.expect.empty() ? nullptr : &s.expect.front();
}

std::string format_quote(const Quote& q, double value) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f%s", q.digits, q.percent ? 100 * value : value, q.percent ? "%" : "");
    return buf;
}

namespace {

std::vector<FixChange> read_changes(const Obj& o, std::string_view key) {
    std::vector<FixChange> out;
    const json* c = o.get(key);
    if (!c) return out;
    if (!c->is_object()) json_read::fail(o.at(key), "an object of project-file pointers to values", *c);
    for (auto it = c->begin(); it != c->end(); ++it) {
        const std::string& ptr = it.key();
        if (ptr.rfind("/layout/", 0) != 0 && ptr.rfind("/training/", 0) != 0 && ptr.rfind("/cluster/", 0) != 0)
            json_read::fail(o.at(key) + "/" + json_read::pointer_token(ptr),
                            "a /layout/, /training/ or /cluster/ pointer", json(ptr));
        out.push_back({ptr, it.value()});
    }
    return out;
}

// "pass_times": {"mode": "equal" | "estimate" | "custom"}; custom also needs "forward",
// "backward_input" and "backward_weight", each in [kMinPassTime, kMaxPassTime].
estimate::PassTimesChoice read_pass_times(const Obj& step) {
    estimate::PassTimesChoice c;
    const json* v = step.get("pass_times");
    if (!v) return c;
    if (!v->is_object()) json_read::fail(step.at("pass_times"), "an object with a \"mode\"", *v);
    const Obj o(*v, step.at("pass_times"));
    c.mode = *estimate::parse_pass_times_mode(o.one_of("mode", {"equal", "estimate", "custom"}, "equal"));
    if (c.mode != estimate::PassTimesMode::Custom) {
        for (const char* k : {"forward", "backward_input", "backward_weight"})
            if (o.has(k)) json_read::fail(o.at(k), "no pass time unless \"mode\" is \"custom\"", *o.get(k));
        return c;
    }
    const auto time = [&](const char* k) {
        const double t = o.positive_number(k);
        if (t < estimate::kMinPassTime || t > estimate::kMaxPassTime) {
            char range[64];
            std::snprintf(range, sizeof range, "a relative pass time from %g to %g", estimate::kMinPassTime,
                          estimate::kMaxPassTime);
            json_read::fail(o.at(k), range, *o.get(k));
        }
        return t;
    };
    c.custom = {time("forward"), time("backward_input"), time("backward_weight")};
    return c;
}

// "ask": "trend" (the default) | "accepted" | {"group": kind, "rank": r}.
void read_ask(const Obj& o, Step& s) {
    const json* a = o.get("ask");
    if (!a) return;
    if (a->is_string()) {
        const std::string k = o.one_of("ask", {"trend", "accepted"}, "trend");
        s.ask = k == "accepted" ? Ask::Accepted : Ask::Trend;
        return;
    }
    if (!a->is_object()) json_read::fail(o.at("ask"), "\"trend\", \"accepted\" or {\"group\": kind, \"rank\": r}", *a);
    const Obj g(*a, o.at("ask"));
    s.ask = Ask::Group;
    s.group_kind = g.string("group");
    s.group_rank = g.integer("rank", 0);
    if (s.group_rank < 0) json_read::fail(g.at("rank"), "a rank >= 0", *g.get("rank"));
}

Step read_step(const Obj& o) {
    Step s;
    s.title = o.string("title");
    s.view = o.one_of("view",
                      {"canvas", "layout", "explain", "grid", "history", "diagnostics", "timeline", "memory", "planner",
                       "shardformer", "compare", "links"},
                      "canvas");
    if (const json* c = o.get("colour_by")) {
        const auto& axes = kColourAxes;
        if (!c->is_string() || std::find(std::begin(axes), std::end(axes), c->get<std::string>()) == std::end(axes)) {
            std::string allowed;
            for (const char* a : axes) allowed += (allowed.empty() ? "" : ", ") + std::string(a);
            json_read::fail(o.at("colour_by"), "one of " + allowed, *c);
        }
        s.colour_by = c->get<std::string>();
    }
    s.look = o.string("look");
    s.predict = o.string("predict");
    read_ask(o, s);
    s.change = read_changes(o, "change");
    if (s.change.empty() && s.ask == Ask::Trend)
        json_read::fail(o.at("change"),
                        "at least one change (a step that changes nothing asks \"group\" or \"accepted\")",
                        o.get("change") ? *o.get("change") : json());
    s.change_label = o.string("change_label", "");
    s.explain = o.string("explain");
    const json& figs = o.array("figures");
    for (std::size_t i = 0; i < figs.size(); ++i) {
        const std::string at = o.at("figures") + "/" + std::to_string(i);
        if (figs[i].is_string()) {
            s.figures.push_back({figs[i].get<std::string>(), figs[i].get<std::string>()});
        } else {
            const Obj f(figs[i], at);
            s.figures.push_back({f.string("path"), f.string("label")});
        }
    }
    if (s.figures.empty()) json_read::fail(o.at("figures"), "at least one figure", figs);
    s.source = o.string("source", "");
    if (const json* q = o.get("quotes")) {
        if (!q->is_array()) json_read::fail(o.at("quotes"), "an array of quoted figures", *q);
        for (std::size_t i = 0; i < q->size(); ++i) {
            const Obj qo((*q)[i], o.at("quotes") + "/" + std::to_string(i));
            Quote x;
            x.text = qo.string("text");
            x.path = qo.string("path");
            x.after = qo.one_of("when", {"before", "after"}, "after") == "after";
            x.digits = qo.integer("digits", 3);
            x.percent = qo.boolean("percent", false);
            s.quotes.push_back(std::move(x));
        }
    }
    s.pass_times = read_pass_times(o);
    if (const json* e = o.get("expect")) {
        if (!e->is_object())
            json_read::fail(o.at("expect"), "an object of figure paths to increases/decreases/same", *e);
        const Obj eo(*e, o.at("expect"));
        for (auto it = e->begin(); it != e->end(); ++it) {
            const std::string t = eo.one_of(it.key(), {"increases", "decreases", "same"}, "same");
            s.expect.push_back({it.key(), t == "increases"   ? Trend::Increases
                                          : t == "decreases" ? Trend::Decreases
                                                             : Trend::Same});
        }
    }
    return s;
}

std::string read_text_file(const std::string& path) { return read_input_file(path, "lesson file"); }

// The Link traffic view's figures (widgets/views/linktrafficview.cpp) from the same step playback: the
// bytes one step puts on every link, those that cross nodes, per kind of group, and per tier.
json traffic_json(const estimate::StepPlayback& pb) {
    double total = 0, cross = 0;
    int crossing = 0;
    std::array<double, estimate::kGroupKinds> by{};
    for (const auto& l : pb.links) {
        total += l.bytes;
        if (!l.cross_node) continue;
        cross += l.bytes;
        ++crossing;
        for (int k = 0; k < estimate::kGroupKinds; ++k) by[std::size_t(k)] += l.by_group[std::size_t(k)];
    }
    json groups = json::object();
    for (int k = 0; k < estimate::kGroupKinds; ++k) {
        std::string name = estimate::group_label(estimate::GroupKind(k));
        std::transform(name.begin(), name.end(), name.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
        groups[name] = by[std::size_t(k)] / estimate::kGiB;
    }
    json tiers = json::object();
    for (const auto& t : pb.tiers) tiers[t.name] = {{"gib", t.bytes / estimate::kGiB}, {"busy", t.utilisation}};
    return {{"links", pb.links.size()},          {"total_gib", total / estimate::kGiB},
            {"cross_node_links", crossing},      {"cross_node_gib", cross / estimate::kGiB},
            {"cross_node_gib_by_group", groups}, {"tiers", tiers}};
}

}   // namespace

Lesson lesson_from_json(const json& j, const std::string& id, const std::string& where) {
    try {
        const Obj o(j, "");
        Lesson l;
        l.id = id;
        l.title = o.string("title");
        l.summary = o.string("summary");
        l.topic = o.string("topic", "");
        l.example = o.string("example");
        l.setup = read_changes(o, "setup");
        const json& steps = o.array("steps");
        for (std::size_t i = 0; i < steps.size(); ++i)
            l.steps.push_back(read_step(Obj(steps[i], "/steps/" + std::to_string(i))));
        if (l.steps.empty()) json_read::fail("/steps", "at least one step", steps);
        return l;
    } catch (const InputError& e) {
        throw InputError(e.pointer(), where + ": " + e.message(), e.line(), e.column());
    }
}

std::vector<std::string> lesson_ids() {
    std::vector<std::string> ids;
    for (const auto& path : resources::list("lessons/")) {
        const std::string ext = ".json";
        if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
            ids.push_back(path.substr(8, path.size() - 8 - ext.size()));
    }
    return ids;
}

Lesson load_lesson(const std::string& id) {
    const auto data = resources::find("lessons/" + id + ".json");
    if (!data) throw InputError("", "no built-in lesson named '" + id + "'");
    const std::string where = "resources/lessons/" + id + ".json";
    json j;
    try {
        j = json_read::parse(*data);
    } catch (const InputError& e) {
        throw InputError(e.pointer(), where + ": " + e.message(), e.line(), e.column());
    }
    return lesson_from_json(j, id, where);
}

Lesson load_lesson_file(const std::string& path) {
    std::string id = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
    if (id.size() > 5 && id.compare(id.size() - 5, 5, ".json") == 0) id.resize(id.size() - 5);
    json j;
    try {
        j = json_read::parse(read_text_file(path));
    } catch (const InputError& e) {
        throw InputError(e.pointer(), path + ": " + e.message(), e.line(), e.column());
    }
    return lesson_from_json(j, id, path);
}

Project start_project(const Lesson& l) {
    Project p = l.project ? *l.project : load_example(l.example);
    for (const auto& c : l.setup) set_field(p, c.field, c.value);
    return p;
}

Project apply_step(const Project& p, const Step& s) {
    Project q = p;
    for (const auto& c : s.change) set_field(q, c.field, c.value);
    return q;
}

namespace {
// The timeline view's figures: its simulation of the project's schedule drawn with `pt`.
std::optional<json> timeline_json(const Project& p, const estimate::PassTimesChoice& pt, const estimate::Estimate* e) {
    const estimate::ResolvedPassTimes r = estimate::resolve_pass_times(pt, e);
    const estimate::ProjectTimeline t = estimate::relative_timeline(estimate::project_schedule_request(p), r.times);
    if (!t.timeline) return std::nullopt;
    const estimate::TimelineBubble b = estimate::timeline_bubble(*t.timeline, r.times);
    json times = {{"mode", estimate::to_string(r.mode)},
                  {"forward", r.times.forward},
                  {"backward_input", r.times.backward_input},
                  {"backward_weight", r.times.backward_weight}};
    if (r.forward_s > 0) times["forward_ms"] = r.forward_s * 1e3;
    return json{{"schedule", t.timeline->schedule},
                {"bubble_fraction", t.timeline->bubble_fraction},
                {"span_bubble_rate", t.timeline->span_bubble_rate},
                {"bubble_per_stage", b.per_stage},
                {"bubble_vs_1f1b", b.vs_1f1b},
                {"pass_times", times}};
}
}   // namespace

json figures_json(const Project& p, const estimate::PassTimesChoice& pass_times) {
    const compare::Entry e = compare::make_entry("", p);
    json j = compare::to_json(e.report);
    json groups = json::object();
    for (const auto& s : e.ranks.summaries())
        groups[s.kind] = {{"group_size", s.group_size},
                          {"num_groups", s.num_groups},
                          {"groups_crossing_nodes", s.groups_crossing_nodes},
                          {"max_nodes_spanned", s.max_nodes_spanned}};
    j["process_groups"] = groups;
    int errors = 0;
    for (const auto& d : e.report.diagnostics) errors += d.severity == Severity::Error;
    json derived = {{"errors", errors}};
    if (e.report.estimate && e.report.estimate->time.step_s > 0)
        derived["bubble_share"] = e.report.estimate->time.bubble_s / e.report.estimate->time.step_s;
    if (e.report.estimate) {
        const auto& c = e.report.estimate->config;
        derived["bubble_ratio_1f1b"] = double(c.pp - 1) / (std::max(1, c.chunks) * std::max(1, c.num_microbatches));
    }
    j["derived"] = derived;
    if (e.report.estimate && e.ranks.world_size > 0 && e.ranks.valid()) {
        try {
            j["traffic"] = traffic_json(estimate::step_playback(p, e.ranks));
        } catch (const std::exception&) {
            // no playback for this layout: no traffic figures
        }
    }
    if (auto t = timeline_json(p, pass_times, e.report.estimate ? &*e.report.estimate : nullptr))
        j["timeline"] = std::move(*t);
    return j;
}

std::optional<double> figure_value(const json& figures, const std::string& path) {
    const json* cur = &figures;
    std::stringstream ss(path);
    std::string part;
    while (std::getline(ss, part, '.')) {
        if (cur->is_object()) {
            auto it = cur->find(part);
            if (it == cur->end()) return std::nullopt;
            cur = &*it;
        } else if (cur->is_array()) {
            std::size_t i = 0;
            try {
                i = std::stoul(part);
            } catch (const std::exception&) {
                return std::nullopt;
            }
            if (i >= cur->size()) return std::nullopt;
            cur = &(*cur)[i];
        } else {
            return std::nullopt;
        }
    }
    if (cur->is_boolean()) return cur->get<bool>() ? 1.0 : 0.0;
    if (cur->is_number()) return cur->get<double>();
    return std::nullopt;
}

StepOutcome run_step(const Project& before, const Step& s, Project* after) {
    const Project next = apply_step(before, s);
    const json fb = figures_json(before, s.pass_times), fa = figures_json(next, s.pass_times);
    StepOutcome o;
    for (const auto& f : s.figures) {
        o.before.push_back(figure_value(fb, f.path));
        o.after.push_back(figure_value(fa, f.path));
    }
    for (const auto& e : s.expect) {
        const auto b = figure_value(fb, e.path), a = figure_value(fa, e.path);
        if (!b || !a) {
            o.failed.push_back(e.path + ": no value " + (!b ? "before" : "after") + " the change");
            continue;
        }
        if (measured_trend(*b, *a) != e.trend)
            o.failed.push_back(e.path + " should be " + to_string(e.trend) + " but goes from " + std::to_string(*b) +
                               " to " + std::to_string(*a));
    }
    for (const auto& d : fa.value("diagnostics", json::array())) {
        if (d.value("severity", "") != "error") continue;
        if (++o.errors_after <= 3)
            o.error_messages_after.push_back(d.value("rule", "") + ": " + d.value("message", ""));
    }
    if (after) *after = next;
    return o;
}

}   // namespace paraplan::lessons
