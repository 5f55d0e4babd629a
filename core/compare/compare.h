#pragma once
// Side by side: two or more projects' reports (compare/report.h) and what differs
// from the first one (the baseline): the headline figures, the layout and training
// knobs, and the process groups (which kinds appear, vanish, change size or members,
// and which now cross nodes or no longer do).
#include "compare/report.h"
#include "project/project.h"
#include "schedule/timeline.h"
#include "topology/rank_map.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace paraplan::compare {

struct Entry {
    std::string file;
    Project project;
    ProjectReport report;
    topology::RankMap ranks;   // the framework's groups for the project's cluster (invalid map: no groups)
};

// A headline figure of the candidate against the baseline; nullopt where one has no estimate.
struct MetricDelta {
    std::string name;   // "step_s", "peak_gib", "mfu", "tokens_per_s", "bubble_s", "time_to_train_s"
    std::optional<double> baseline, value;
    double delta() const { return baseline && value ? *value - *baseline : 0; }
    // value / baseline (0 when either is missing or the baseline is 0).
    double ratio() const { return baseline && value && *baseline != 0 ? *value / *baseline : 0; }
};

// A project-file knob that differs ("/layout/tp": 2 -> 4).
struct KnobChange {
    std::string field;   // JSON pointer
    nlohmann::json from, to;
};

struct GroupChange {
    std::string kind;   // "tp", "dp", ...
    // "added" (only the candidate has it), "removed", "resized" (group size changes),
    // "regrouped" (same size, other members), "same".
    std::string change;
    std::optional<topology::GroupSummary> before, after;
    bool now_crosses_nodes = false;         // some group crosses nodes in the candidate, none did before
    bool no_longer_crosses_nodes = false;   // the reverse
};

struct Difference {
    std::string file, baseline;
    std::vector<MetricDelta> metrics;
    std::vector<KnobChange> knobs;
    std::vector<GroupChange> groups;   // every kind either has, by name
    // Only the kinds that differ (change != "same" or crossing changed).
    std::vector<const GroupChange*> changed_groups() const;
};

struct Comparison {
    std::vector<Entry> entries;            // in the order given; entries[0] is the baseline
    std::vector<Difference> differences;   // entries[1..] against entries[0]
};

// The headline figures compare reports by.
double metric(const estimate::Estimate& e, const std::string& name);
const std::vector<std::string>& metric_names();

Entry make_entry(const std::string& file, const Project& p);
Difference difference(const Entry& baseline, const Entry& candidate);
// Files as named; projects already loaded. Needs at least one entry.
Comparison compare_projects(const std::vector<std::pair<std::string, Project>>& projects);

// One training step's pipeline timeline in seconds, from the estimate's own schedule and
// per-stage costs (estimate::pipeline_timeline, what the estimate's bubble comes from), so
// candidates can be drawn on one time axis. nullopt (and *why) when it cannot be simulated.
std::optional<schedule::Timeline> step_timeline(const estimate::Estimate& e, std::string* why = nullptr);

// `paraplan-cli compare --json`:
// {"files": [...], "baseline": FILE,
//  "projects": {FILE: <the object of `paraplan-cli estimate FILE --json`>, ...},
//  "process_groups": {FILE: [{kind, group_size, num_groups, groups_crossing_nodes, max_nodes_spanned}], ...},
//  "differences": [{"file", "baseline", "metrics": {step_s: {baseline, value, delta, ratio}, ...},
//                   "knobs": [{field, from, to}], "groups": [{kind, change, before, after,
//                   now_crosses_nodes, no_longer_crosses_nodes}] (changed kinds only)}]}
nlohmann::json to_json(const Comparison& c);

}   // namespace paraplan::compare
