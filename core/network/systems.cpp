#include "network/systems.h"

#include "catalog/catalog.h"
#include "project/project_gpu.h"
#include "util/input_error.h"
#include "util/json_read.h"
#include "util/resources.h"

#include <set>

namespace paraplan::network {

namespace {

// NVLink generation from the GPU catalog's link name; the default two-tier cluster has one link.
std::string generation_of(const GpuSpec& g) {
    if (g.intra_node_link.rfind("nvlink", 0) == 0 || g.intra_node_link.rfind("pcie", 0) == 0) return g.intra_node_link;
    return "xgmi3";
}

TierKind kind_of(const std::string& generation) {
    if (generation.rfind("nvlink", 0) == 0) return TierKind::NvLink;
    if (generation.rfind("pcie", 0) == 0) return TierKind::Pcie;
    return TierKind::Xgmi;
}

}   // namespace

std::vector<System> parse_system_catalog(std::string_view json_text) {
    const auto j = json_read::parse(json_text);
    const json_read::Obj root(j, "");
    const auto& arr = root.array("systems");
    std::vector<System> out;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < arr.size(); ++i) {
        const std::string p = "/systems/" + std::to_string(i);
        out.push_back(system_from_json(arr[i], p));
        if (!seen.insert(out.back().id).second) throw InputError(p + "/id", "duplicate id \"" + out.back().id + "\"");
        if (!catalog::find_gpu(out.back().gpu)) throw InputError(p + "/gpu", "unknown GPU \"" + out.back().gpu + "\"");
    }
    return out;
}

const std::vector<System>& systems() {
    static const std::vector<System> all = [] {
        const auto text = resources::find("catalog/systems.json");
        if (!text) throw InputError("", "built-in resource catalog/systems.json is missing from the library");
        return parse_system_catalog(*text);
    }();
    return all;
}

const System* find_system(const std::string& id) {
    for (const auto& s : systems())
        if (s.id == id) return &s;
    return nullptr;
}

std::vector<std::string> system_ids() {
    std::vector<std::string> ids;
    for (const auto& s : systems()) ids.push_back(s.id);
    return ids;
}

System system_from_cluster(const Cluster& c) {
    if (c.nodes.empty()) throw InputError("/cluster/nodes", "the cluster has no nodes");
    const Node& n = c.nodes[0];
    const GpuSpec* g = find_gpu(c, n.gpu);   // a project GPU (cluster.gpu_specs) too
    if (!g) throw InputError("/cluster/nodes/0/gpu", "unknown GPU \"" + n.gpu + "\"");
    System s;
    s.id = "project";
    s.name = "the project's cluster";
    s.gpu = n.gpu;
    s.gpus_per_node = s.gpus_per_tray = n.gpus;
    Tier up;
    up.name = "intra_node";
    up.generation = generation_of(*g);
    up.kind = kind_of(up.generation);
    up.domain_gpus = n.gpus;
    up.links_per_gpu = 1;
    up.link_gbps = n.intra_node_gbps.value_or(g->intra_node_gbps);
    if (up.kind == TierKind::NvLink && g->arch != "volta") up.reduction = g->arch == "ampere" ? "" : "nvls";
    Tier out;
    out.name = "inter_node";
    out.kind = TierKind::ScaleOut;
    out.nics_per_gpu = 1.0 / n.gpus;   // inter_node_gbps is the node's total: one NIC's worth shared
    out.nic_gbit = c.network.inter_node_gbps;
    out.rails = 1;
    out.latency_us = c.network.latency_us;
    s.tiers = {up, out};
    s.source = "the project's cluster and network";
    return s;
}

System system_of(const Cluster& c) {
    if (!c.network.tiers.empty()) {
        if (c.nodes.empty()) throw InputError("/cluster/nodes", "the cluster has no nodes");
        System s;
        s.id = c.system.empty() ? "project" : c.system;
        s.name = "the project's tiers";
        s.gpu = c.nodes[0].gpu;
        s.gpus_per_node = s.gpus_per_tray = c.nodes[0].gpus;
        s.tiers = c.network.tiers;
        s.source = "the project's cluster.network.tiers";
        return s;
    }
    if (!c.system.empty()) {
        const System* s = find_system(c.system);
        if (!s) throw InputError("/cluster/system", "unknown system \"" + c.system + "\"");
        // Its tiers are its own GPU's links and NICs: no price for other GPUs (rule cluster.system_gpus).
        for (const auto& n : c.nodes)
            if (n.gpu != s->gpu)
                throw InputError("/cluster/system", "system " + s->id + " is built of " + s->gpu + " GPUs but node " +
                                                        n.name + " has " + n.gpu +
                                                        "; name a system of that GPU, or give the nodes its GPU");
        return *s;
    }
    return system_from_cluster(c);
}

}   // namespace paraplan::network
