#pragma once
// The machines a job runs on: nodes with GPUs, and the network between them.
#include "catalog/gpu.h"
#include "network/system.h"
#include "topofile/slurm_topology_conf.h"
#include "util/cow_json.h"
#include "util/cow_vector.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan {

struct Node {
    std::string name;   // "node0"
    std::string host;   // SSH host or ~/.ssh/config alias ("" = same as name)
    std::string gpu;    // GPU catalog id
    int gpus = 8;
    std::string user;                        // SSH user ("" = default)
    int port = 0;                            // SSH port (0 = default)
    std::string identity;                    // SSH identity file ("" = default)
    std::optional<double> intra_node_gbps;   // override of the GPU's link bandwidth, GB/s
    CowJson extra;                           // unknown keys, kept on save (shared between copies)

    bool operator==(const Node&) const = default;
};

struct Network {
    double inter_node_gbps = 400;   // total network bandwidth of one node, Gbit/s
    double latency_us = 5;
    // Explicit tiers from the GPU outwards (cluster.network.tiers, each as a tier of
    // resources/catalog/systems.json); empty: the system's, else two tiers from the two numbers above.
    std::vector<network::Tier> tiers;
    // The Slurm cluster's switch tree or blocks (cluster.network.slurm_topology, topology.conf
    // text); unset: none known. Export writes it back and places sbatch jobs by it.
    std::optional<topofile::SlurmTopology> slurm_topology;
    CowJson extra;

    bool operator==(const Network&) const = default;
};

// A node's host as a project may name it: a host name, address or ~/.ssh/config alias of letters,
// digits, '.', '_', '-' and ':' (IPv6), not starting with '-'. It reaches ssh command lines and
// the exported host files, so nothing a shell or a key file would read passes.
bool is_host_name(std::string_view host);
// A user name: letters, digits, '.', '_', '-', not starting with '-'.
bool is_user_name(std::string_view user);

// Where one global rank runs.
struct GpuSlot {
    int node = 0;         // index into Cluster::nodes
    int local_rank = 0;   // GPU index inside the node

    bool operator==(const GpuSlot&) const = default;
};

// nodes and rank_order are copy-on-write: copies of a Cluster (each undo state, each fix the
// rules try, each worker's snapshot) share them until one side writes (see util/cow_vector.h).
struct Cluster {
    CowVector<Node> nodes;
    Network network;
    std::string system;   // systems-catalog id (cluster.system; "" = none): its tiers (network::system_of)
    // Optional explicit rank order from the canvas: rank_order[r] is where rank r
    // runs. Empty: ranks fill nodes in order (node 0 local 0..g-1, node 1, ...).
    CowVector<GpuSlot> rank_order;
    bool short_form = false;   // loaded from {"gpu","nodes":N,"gpus_per_node"}; saved the same way if still uniform
    // GPUs defined in the project ("gpu_specs": {id: GPU}), in id order; their ids are used like
    // catalog ids in nodes[].gpu. Look GPUs up with find_gpu(cluster, id) (project/project_gpu.h).
    std::vector<GpuSpec> gpu_specs;

    int world_size() const;
    bool uniform() const;                     // same GPU type and count on every node
    int gpus_per_node() const;                // of node 0 (0 when empty)
    std::vector<GpuSlot> placement() const;   // rank -> slot, rank_order or fill order

    bool operator==(const Cluster&) const = default;
};

}   // namespace paraplan
