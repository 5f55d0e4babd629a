#include "topofile/cluster_topology.h"

#include "network/systems.h"
#include "util/input_error.h"

#include <algorithm>

namespace paraplan::topofile {

namespace {

bool is_switch(const network::Tier& t) { return t.kind == network::TierKind::Switch; }

// The cluster's one GPU count per node; refuses nodes that differ (a switch tier counts GPUs
// as nodes times that count).
int uniform_gpus(const Cluster& c) {
    const int g = c.nodes.front().gpus;
    for (std::size_t i = 0; i < c.nodes.size(); ++i)
        if (c.nodes[i].gpus != g)
            throw InputError("/cluster/nodes/" + std::to_string(i) + "/gpus",
                             "node " + c.nodes[i].name + " has " + std::to_string(c.nodes[i].gpus) + " GPUs and node " +
                                 c.nodes.front().name + " " + std::to_string(g) +
                                 ": an imported topology needs the same GPU count on every node");
    return g;
}

// The file's scale-up tier, completed from the project's where the file is silent.
network::Tier merged_scale_up(const ImportedTopology& t, const network::Tier& now, std::vector<std::string>& notes) {
    network::Tier u = scale_up_tier(t.scale_up);
    const bool same_kind = now.kind == u.kind;
    if (same_kind) {
        // The file carries no latency and no in-network reduction: the project's stay.
        u.latency_us = now.latency_us;
        u.reduction = now.reduction;
    }
    const char* tier = network::tier_kind_name(u.kind);
    if (u.links_per_gpu <= 0 || u.link_gbps <= 0) {
        if (!same_kind)
            throw InputError("/cluster/network/tiers/0", std::string("the file does not give the ") + tier +
                                                             " link speed and the project's scale-up tier is " +
                                                             network::tier_kind_name(now.kind) + ", not " + tier +
                                                             ": set cluster.network.tiers/0 to a " + tier +
                                                             " tier with links_per_gpu and link_gbps first");
        if (u.links_per_gpu <= 0) u.links_per_gpu = now.links_per_gpu;
        if (u.link_gbps <= 0) u.link_gbps = now.link_gbps;
        if (u.generation.empty()) u.generation = now.generation;
        notes.push_back(std::string("the file does not give the ") + tier + " link speed: kept the project's " +
                        std::to_string(u.links_per_gpu) + " link(s) at " + std::to_string(u.link_gbps) + " GB/s");
    }
    return u;
}

// The file's NICs as a tier, named and completed from the project's scale-out tier where it has one.
network::Tier merged_scale_out(const ImportedTopology& t, const network::Tier* now, std::vector<std::string>& notes) {
    network::Tier o = scale_out_tier(t.scale_out);
    if (now) {
        o.name = now->name;
        o.latency_us = now->latency_us;
        o.reduction = now->reduction;
    }
    if (o.nic_gbit <= 0) {
        if (!now)
            throw InputError("/cluster/network/tiers",
                             "the file does not give the NIC speed and the project has no scale-out tier to take it "
                             "from: add one to cluster.network.tiers first");
        o.nic_gbit = now->nic_gbit;
        notes.push_back("the file does not give the NIC speed: kept the project's " + std::to_string(o.nic_gbit) +
                        " Gbit/s");
    }
    return o;
}

}   // namespace

ClusterImport import_into_cluster(const Cluster& c, const ImportedTopology& t) {
    if (c.nodes.empty()) throw InputError("/cluster/nodes", "the cluster has no nodes");
    ClusterImport r;
    r.cluster = c;
    const network::System now = network::system_of(c);
    const network::Tier* now_out = now.scale_out();
    std::vector<network::Tier> tiers;
    if (t.format == Format::SlurmTopology) {
        if (!t.slurm) throw InputError("", "the Slurm topology holds no switches or blocks");
        const int gpn = uniform_gpus(c);
        const std::size_t slurm_nodes = t.slurm->all_nodes().size();
        if (slurm_nodes < c.nodes.size())
            throw InputError("/cluster/nodes", "the topology.conf names " + std::to_string(slurm_nodes) +
                                                   " node(s) and the project's cluster has " +
                                                   std::to_string(c.nodes.size()) +
                                                   ": a job cannot run on more nodes than the Slurm cluster has");
        for (const auto& tier : now.tiers)
            if (!is_switch(tier)) tiers.push_back(tier);
        for (auto& tier : to_tiers(t, {gpn}))
            if (is_switch(tier)) tiers.push_back(std::move(tier));
        r.cluster.network.slurm_topology = *t.slurm;
    } else {
        const int file_gpn = t.gpus_per_node();
        for (const auto& n : t.nodes)
            if (n.gpus != file_gpn)
                throw InputError("", "the file's node " + n.name + " has " + std::to_string(n.gpus) + " GPUs and " +
                                         t.nodes.front().name + " " + std::to_string(file_gpn) +
                                         ": the project's nodes all get one network");
        for (std::size_t i = 0; i < c.nodes.size(); ++i) {
            const Node& n = c.nodes[i];
            const std::string at = "/cluster/nodes/" + std::to_string(i);
            if (file_gpn > 0 && n.gpus != file_gpn)
                throw InputError(at + "/gpus", "the file shows " + std::to_string(file_gpn) +
                                                   " GPUs per node and node " + n.name + " has " +
                                                   std::to_string(n.gpus) + ": not a topology of this cluster");
            const std::string& file_gpu = t.nodes.empty() ? std::string() : t.nodes.front().gpu_catalog;
            const bool own_gpu = std::any_of(c.gpu_specs.begin(), c.gpu_specs.end(),
                                             [&](const GpuSpec& g) { return g.id == n.gpu; });
            if (!file_gpu.empty() && !own_gpu && n.gpu != file_gpu)
                throw InputError(at + "/gpu", "the file shows " + file_gpu + " GPUs and node " + n.name + " has " +
                                                  n.gpu + ": not a topology of this cluster");
        }
        if (t.scale_up.domain_gpus > 0) tiers.push_back(merged_scale_up(t, now.domain(), r.notes));
        else tiers.push_back(now.domain());
        if (t.scale_out.nics_per_node > 0) tiers.push_back(merged_scale_out(t, now_out, r.notes));
        else if (now_out) tiers.push_back(*now_out);
        for (const auto& tier : now.tiers)
            if (is_switch(tier)) tiers.push_back(tier);
    }
    r.cluster.network.tiers = std::move(tiers);
    return r;
}

}   // namespace paraplan::topofile
