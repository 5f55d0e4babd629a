#include "compare/compare.h"

#include "estimate/memory.h"
#include "estimate/simulated_pipeline.h"
#include "topology/build_rank_map.h"

#include <algorithm>
#include <set>
#include <stdexcept>

namespace paraplan::compare {

const std::vector<std::string>& metric_names() {
    static const std::vector<std::string> n = {"step_s",       "peak_gib", "mfu",
                                               "tokens_per_s", "bubble_s", "time_to_train_s"};
    return n;
}

double metric(const estimate::Estimate& e, const std::string& name) {
    if (name == "step_s") return e.time.step_s;
    if (name == "peak_gib") return e.memory.peak_bytes / estimate::kGiB;
    if (name == "mfu") return e.time.mfu;
    if (name == "tokens_per_s") return e.time.tokens_per_s;
    if (name == "bubble_s") return e.time.bubble_s;
    if (name == "time_to_train_s") return e.time_to_train_s;
    throw std::invalid_argument("unknown metric '" + name + "'");
}

Entry make_entry(const std::string& file, const Project& p) {
    Entry e;
    e.file = file;
    e.project = p;
    e.report = report_project(p, file);
    try {
        e.ranks = topology::build_rank_map(topology::from_project(p), &p.cluster);
    } catch (const std::exception&) {
        e.ranks = {};   // no groups to compare; the report's diagnostics say why
    }
    return e;
}

namespace {

// The knobs a user changes between candidates: every /layout and /training key, and the world size.
std::vector<KnobChange> knob_changes(const Project& a, const Project& b) {
    std::vector<KnobChange> out;
    if (a.world_size() != b.world_size()) out.push_back({"/cluster/world_size", a.world_size(), b.world_size()});
    const nlohmann::json ja = project_to_json(a), jb = project_to_json(b);
    for (const char* section : {"layout", "training"}) {
        const nlohmann::json& sa = ja.contains(section) ? ja[section] : nlohmann::json::object();
        const nlohmann::json& sb = jb.contains(section) ? jb[section] : nlohmann::json::object();
        std::set<std::string> keys;
        for (auto it = sa.begin(); it != sa.end(); ++it) keys.insert(it.key());
        for (auto it = sb.begin(); it != sb.end(); ++it) keys.insert(it.key());
        for (const auto& k : keys) {
            const nlohmann::json va = sa.contains(k) ? sa[k] : nlohmann::json();
            const nlohmann::json vb = sb.contains(k) ? sb[k] : nlohmann::json();
            if (va != vb) out.push_back({std::string("/") + section + "/" + k, va, vb});
        }
    }
    return out;
}

bool crosses(const std::optional<topology::GroupSummary>& s) { return s && s->groups_crossing_nodes > 0; }

GroupChange group_change(const topology::RankMap& a, const topology::RankMap& b, const std::string& kind) {
    GroupChange c;
    c.kind = kind;
    if (a.has_group(kind)) c.before = a.summary(kind);
    if (b.has_group(kind)) c.after = b.summary(kind);
    if (!c.before) c.change = "added";
    else if (!c.after) c.change = "removed";
    else if (c.before->group_size != c.after->group_size || c.before->num_groups != c.after->num_groups)
        c.change = "resized";
    else if (a.group_set(kind)->members != b.group_set(kind)->members) c.change = "regrouped";
    else c.change = "same";
    c.now_crosses_nodes = crosses(c.after) && !crosses(c.before);
    c.no_longer_crosses_nodes = crosses(c.before) && !crosses(c.after);
    return c;
}

nlohmann::json summary_json(const std::optional<topology::GroupSummary>& s) {
    if (!s) return nullptr;
    return {{"group_size", s->group_size},
            {"num_groups", s->num_groups},
            {"groups_crossing_nodes", s->groups_crossing_nodes},
            {"max_nodes_spanned", s->max_nodes_spanned}};
}

nlohmann::json opt_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

}   // namespace

std::vector<const GroupChange*> Difference::changed_groups() const {
    std::vector<const GroupChange*> out;
    for (const auto& g : groups)
        if (g.change != "same" || g.now_crosses_nodes || g.no_longer_crosses_nodes) out.push_back(&g);
    return out;
}

Difference difference(const Entry& base, const Entry& cand) {
    Difference d;
    d.file = cand.file;
    d.baseline = base.file;
    for (const auto& n : metric_names()) {
        MetricDelta m;
        m.name = n;
        if (base.report.estimate) m.baseline = metric(*base.report.estimate, n);
        if (cand.report.estimate) m.value = metric(*cand.report.estimate, n);
        d.metrics.push_back(m);
    }
    d.knobs = knob_changes(base.project, cand.project);
    std::set<std::string> kinds;
    for (const auto& [k, g] : base.ranks.groups) kinds.insert(k);
    for (const auto& [k, g] : cand.ranks.groups) kinds.insert(k);
    for (const auto& k : kinds) d.groups.push_back(group_change(base.ranks, cand.ranks, k));
    return d;
}

Comparison compare_projects(const std::vector<std::pair<std::string, Project>>& projects) {
    if (projects.empty()) throw std::invalid_argument("compare needs at least one project");
    Comparison c;
    for (const auto& [file, p] : projects) c.entries.push_back(make_entry(file, p));
    for (std::size_t i = 1; i < c.entries.size(); ++i) c.differences.push_back(difference(c.entries[0], c.entries[i]));
    return c;
}

std::optional<schedule::Timeline> step_timeline(const estimate::Estimate& e, std::string* why) {
    const auto& c = e.config;
    std::vector<estimate::StageCost> costs;
    for (const auto& st : e.time.stages) costs.push_back(st.cost());
    return estimate::pipeline_timeline(c.schedule, c.pp, c.num_microbatches, c.chunks, costs,
                                       c.link[estimate::kPp].latency_s, why);
}

nlohmann::json to_json(const Comparison& c) {
    using nlohmann::json;
    json files = json::array(), projects = json::object(), groups = json::object(), diffs = json::array();
    for (const auto& e : c.entries) {
        files.push_back(e.file);
        projects[e.file] = to_json(e.report);
        json gs = json::array();
        for (const auto& s : e.ranks.summaries()) {
            json j = summary_json(s);
            j["kind"] = s.kind;
            gs.push_back(j);
        }
        groups[e.file] = gs;
    }
    for (const auto& d : c.differences) {
        json metrics = json::object();
        for (const auto& m : d.metrics)
            metrics[m.name] = {{"baseline", opt_json(m.baseline)},
                               {"value", opt_json(m.value)},
                               {"delta", m.baseline && m.value ? json(m.delta()) : json()},
                               {"ratio", m.baseline && m.value && *m.baseline != 0 ? json(m.ratio()) : json()}};
        json knobs = json::array();
        for (const auto& k : d.knobs) knobs.push_back({{"field", k.field}, {"from", k.from}, {"to", k.to}});
        json gch = json::array();
        for (const auto* g : d.changed_groups())
            gch.push_back({{"kind", g->kind},
                           {"change", g->change},
                           {"before", summary_json(g->before)},
                           {"after", summary_json(g->after)},
                           {"now_crosses_nodes", g->now_crosses_nodes},
                           {"no_longer_crosses_nodes", g->no_longer_crosses_nodes}});
        diffs.push_back(
            {{"file", d.file}, {"baseline", d.baseline}, {"metrics", metrics}, {"knobs", knobs}, {"groups", gch}});
    }
    return {{"files", files},
            {"baseline", c.entries.empty() ? json() : json(c.entries[0].file)},
            {"projects", projects},
            {"process_groups", groups},
            {"differences", diffs}};
}

}   // namespace paraplan::compare
