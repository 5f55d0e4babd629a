#include "launch/slurm_gpus.h"

#include <algorithm>
#include <map>
#include <set>

namespace paraplan::runtime {

namespace {
std::string type_name(const std::string& t) { return t.empty() ? std::string("untyped gpu") : "gpu type " + t; }

// "g1, g2, g3 and 4 more"
std::string name_nodes(const std::vector<std::string>& names) {
    std::string s;
    const std::size_t shown = std::min<std::size_t>(names.size(), 4);
    for (std::size_t i = 0; i < shown; ++i) s += (i ? ", " : "") + names[i];
    if (names.size() > shown) s += " and " + std::to_string(names.size() - shown) + " more";
    return s;
}
}   // namespace

SlurmGpuChoice choose_slurm_gpus(const std::vector<SlurmNodeGpus>& nodes, const std::string& partition,
                                 int nodes_needed, int gpus_per_node) {
    SlurmGpuChoice c;
    const std::string where = partition.empty() ? "the default partition" : "partition " + partition;
    const std::string G = std::to_string(gpus_per_node), N = std::to_string(nodes_needed);
    // sinfo -N prints a node once per partition; a node's gres is the same in each.
    std::vector<const SlurmNodeGpus*> in;
    std::set<std::string> seen;
    for (const auto& n : nodes)
        if ((partition.empty() ? n.default_partition : n.partition == partition) && seen.insert(n.node).second)
            in.push_back(&n);
    if (in.empty()) {
        c.note = "sinfo lists no node in " + where + ": not asking for GPUs";
        return c;
    }
    std::map<std::string, std::vector<std::string>> kinds;   // gres as printed -> nodes
    std::map<std::string, std::vector<std::string>> fit;     // gpu type -> nodes with >= G of it
    std::map<std::string, long long> fewest;                 // gpu type -> fewest GPUs on one of its fitting nodes
    long long most = 0;
    int fit_any = 0;   // nodes with >= G GPUs of any types together
    for (const auto* n : in) {
        if (n->gpus.empty()) continue;
        kinds[n->gres].push_back(n->node);
        if (n->total() >= gpus_per_node) ++fit_any;
        for (const auto& [type, count] : n->gpus) {
            most = std::max(most, count);
            if (count < gpus_per_node) continue;
            fit[type].push_back(n->node);
            auto f = fewest.find(type);
            if (f == fewest.end() || count < f->second) fewest[type] = count;
        }
    }
    if (kinds.empty()) {
        c.note = where + " has no gpu gres (sinfo -N -o '%N %P %G'): not asking for GPUs";
        return c;
    }
    std::string has;
    for (const auto& [gres, names] : kinds) has += (has.empty() ? "" : "; ") + gres + " on " + name_nodes(names);
    std::vector<std::string> candidates;
    for (const auto& [type, names] : fit)
        if (static_cast<int>(names.size()) >= nodes_needed) candidates.push_back(type);
    if (candidates.empty()) {
        c.ok = false;
        if (most < gpus_per_node) {
            c.error = where + " has at most " + std::to_string(most) + " GPUs of one type per node (" + has +
                      "), the plan needs " + G +
                      " per node: plan for fewer GPUs per node (the cluster's gpus), or choose a partition with "
                      "larger nodes (runtime.slurm.partition)";
        } else {
            std::string by_type;
            for (const auto& [type, names] : fit)
                by_type += (by_type.empty() ? "" : "; ") + type_name(type) + ": " + name_nodes(names);
            c.error = where + " has no GPU type with " + G + " or more GPUs on " + N + " nodes (" + by_type +
                      "; the partition has " + has +
                      "): plan for fewer nodes or choose another partition "
                      "(runtime.slurm.partition)";
            if (fit_any >= nodes_needed)
                c.error += ", or set runtime.slurm.gpus to \"gres\" to let Slurm mix the GPU types";
        }
        return c;
    }
    // The fewest GPUs per node that still fit, then the most nodes, then the name.
    std::sort(candidates.begin(), candidates.end(), [&](const std::string& a, const std::string& b) {
        if (fewest[a] != fewest[b]) return fewest[a] < fewest[b];
        if (fit[a].size() != fit[b].size()) return fit[a].size() > fit[b].size();
        return a < b;
    });
    const std::string& type = candidates.front();
    c.sbatch_args.push_back("--gpus-per-node=" + (type.empty() ? std::string() : type + ":") + G);
    if (type.empty() && fit.size() > 1) {
        // An untyped request matches any node with G GPUs of any type: keep to the untyped ones.
        std::set<std::string> keep(fit[type].begin(), fit[type].end());
        std::vector<std::string> others;
        for (const auto& [t, names] : fit)
            for (const auto& n : names)
                if (!keep.count(n) && std::find(others.begin(), others.end(), n) == others.end()) others.push_back(n);
        std::string ex;
        for (const auto& n : others) ex += (ex.empty() ? "" : ",") + n;
        c.sbatch_args.push_back("--exclude=" + ex);
    }
    std::string args;
    for (const auto& a : c.sbatch_args) args += " " + a;
    c.note = where + " has " + has + "; " + N + " node(s) with " + G + " GPUs each fit " + type_name(type) + " (" +
             name_nodes(fit[type]) + "): asking" + args;
    return c;
}

}   // namespace paraplan::runtime
