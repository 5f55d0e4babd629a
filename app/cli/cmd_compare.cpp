// paraplan-cli compare A B [C D] [--json]: projects side by side (core/compare/).
#include "cli/command.h"
#include "compare/compare.h"
#include "estimate/memory.h"

#include <cstdio>
#include <iostream>
#include <set>

namespace paraplan::cli {
namespace {

using compare::Comparison;
using estimate::kGiB;

// One row: a label, then one value per project (empty where the project has no estimate).
template <class F>
void row(const Comparison& c, const char* label, F value) {
    std::printf("%-22s", label);
    for (const auto& e : c.entries) std::printf(" %18s", e.report.estimate ? value(*e.report.estimate).c_str() : "-");
    std::printf("\n");
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string short_name(const std::string& file) {
    const auto slash = file.find_last_of('/');
    std::string n = slash == std::string::npos ? file : file.substr(slash + 1);
    if (n.size() > 18) n = n.substr(0, 17) + "~";
    return n;
}

void print_text(const Comparison& c) {
    std::printf("%-22s", "");
    for (const auto& e : c.entries) std::printf(" %18s", short_name(e.file).c_str());
    std::printf("\n");
    std::printf("%-22s", "GPUs");
    for (const auto& e : c.entries) std::printf(" %18d", e.project.world_size());
    std::printf("\n");
    std::printf("%-22s", "layout");
    for (const auto& e : c.entries) {
        const auto& l = e.project.layout;
        const std::string s = "tp" + std::to_string(l.tp) + " pp" + std::to_string(l.pp) +
                              (l.ep > 1 ? " ep" + std::to_string(l.ep) : "") +
                              (l.cp > 1 ? " cp" + std::to_string(l.cp) : "") +
                              (l.sp > 1 ? " sp" + std::to_string(l.sp) : "") + " z" + std::to_string(l.zero_stage);
        std::printf(" %18s", s.c_str());
    }
    std::printf("\n");
    std::size_t max_stages = 0;
    for (const auto& e : c.entries)
        if (e.report.estimate) max_stages = std::max(max_stages, e.report.estimate->memory.stages.size());
    for (std::size_t s = 0; s < max_stages; ++s) {
        const std::string label = "memory stage " + std::to_string(s) + " GiB";
        row(c, label.c_str(), [&](const estimate::Estimate& e) {
            return s < e.memory.stages.size() ? fmt("%.2f", e.memory.stages[s].total() / kGiB) : std::string("");
        });
    }
    row(c, "peak memory GiB",
        [](const auto& e) { return fmt("%.2f", e.memory.peak_bytes / kGiB) + (e.memory.fits ? "" : " !"); });
    row(c, "step s", [](const auto& e) { return fmt("%.3f", e.time.step_s); });
    row(c, "  compute s", [](const auto& e) { return fmt("%.3f", e.time.compute_s); });
    row(c, "  bubble s", [](const auto& e) { return fmt("%.3f", e.time.bubble_s); });
    row(c, "  tp comm s", [](const auto& e) { return fmt("%.3f", e.time.comm_tp_s); });
    row(c, "  cp comm s", [](const auto& e) { return fmt("%.3f", e.time.comm_cp_s); });
    row(c, "  ep comm s", [](const auto& e) { return fmt("%.3f", e.time.comm_ep_s); });
    row(c, "  pp comm s", [](const auto& e) { return fmt("%.3f", e.time.comm_pp_s); });
    row(c, "  dp comm s", [](const auto& e) { return fmt("%.3f", e.time.comm_dp_s); });
    row(c, "  optimizer s", [](const auto& e) { return fmt("%.3f", e.time.optimizer_s); });
    row(c, "MFU %", [](const auto& e) { return fmt("%.1f", 100 * e.time.mfu); });
    row(c, "tokens/s", [](const auto& e) { return fmt("%.0f", e.time.tokens_per_s); });
    row(c, "time to train days",
        [](const auto& e) { return e.time_to_train_s > 0 ? fmt("%.1f", e.time_to_train_s / 86400) : "-"; });
    for (const auto& e : c.entries)
        if (e.report.error)
            std::printf("%s: cannot estimate: %s (%s)\n", e.file.c_str(), e.report.error->message.c_str(),
                        e.report.error->field.c_str());
    for (const auto& d : c.differences) {
        std::printf("\n%s against %s:\n", d.file.c_str(), d.baseline.c_str());
        for (const auto& k : d.knobs)
            std::printf("  %s: %s -> %s\n", k.field.c_str(), k.from.dump().c_str(), k.to.dump().c_str());
        const auto changed = d.changed_groups();
        if (changed.empty()) std::printf("  process groups: the same\n");
        for (const auto* g : changed) {
            std::printf("  %-12s %-9s", g->kind.c_str(), g->change.c_str());
            if (g->before) std::printf(" %d x %d", g->before->num_groups, g->before->group_size);
            std::printf(" ->");
            if (g->after) std::printf(" %d x %d", g->after->num_groups, g->after->group_size);
            if (g->after) std::printf(", %d crossing nodes", g->after->groups_crossing_nodes);
            if (g->now_crosses_nodes) std::printf("  NOW CROSSES NODES");
            if (g->no_longer_crosses_nodes) std::printf("  no longer crosses nodes");
            std::printf("\n");
        }
    }
}

int run_compare(const Args& a) {
    if (a.positional.size() < 2) throw UsageError("compare needs at least two project files");
    if (a.positional.size() > 8) throw UsageError("compare takes at most eight project files");
    std::set<std::string> seen;
    std::vector<std::pair<std::string, Project>> projects;
    for (const auto& f : a.positional) {
        if (!seen.insert(f).second) throw UsageError("'" + f + "' is named twice");
        projects.emplace_back(f, load_project(f));
    }
    const Comparison c = compare::compare_projects(projects);
    if (a.flag("json")) print_json(compare::to_json(c).dump(2));
    else print_text(c);
    bool ok = true;
    for (const auto& e : c.entries) ok = ok && e.report.ok();
    return ok ? kOk : kFindings;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "compare",
    .summary = "put two to eight projects side by side: memory, step time, MFU, throughput, process groups",
    .synopsis = {"A.paraplan.json B.paraplan.json [C ...] [--json]"},
    .description = "Estimates every project and shows them side by side: memory per pipeline stage, the\n"
                   "step-time breakdown (compute, bubble, TP/CP/EP/PP/DP communication, optimizer), MFU,\n"
                   "tokens/s and time to train; then, for each project against the first, the knobs that\n"
                   "differ and the process groups that change (added, removed, resized, regrouped) or now\n"
                   "cross nodes. Exit 0 when every project fits and is valid, 1 otherwise, 2 when a file\n"
                   "cannot be read.\n",
    .options = {{"json", "",
                 "print {\"files\", \"baseline\", \"projects\": {FILE: <estimate FILE --json>},\n"
                 "\"process_groups\": {FILE: [...]}, \"differences\": [{\"file\", \"baseline\",\n"
                 "\"metrics\": {\"step_s\": {baseline, value, delta, ratio}, ...}, \"knobs\": [...],\n"
                 "\"groups\": [{kind, change, before, after, now_crosses_nodes, no_longer_crosses_nodes}]}]}"}},
    .run = run_compare});

}   // namespace paraplan::cli
