#pragma once
// The built-in systems catalog (resources/catalog/systems.json), and the two-tier system a
// project's cluster stands for until it names one.
#include "network/system.h"
#include "project/cluster.h"

#include <string>
#include <string_view>
#include <vector>

namespace paraplan::network {

const std::vector<System>& systems();
const System* find_system(const std::string& id);   // nullptr if unknown
std::vector<std::string> system_ids();

// {"systems": [...]}; errors name /systems/<i>/<field>.
std::vector<System> parse_system_catalog(std::string_view json_text);

// A project's cluster as tiers: node 0's GPU and its link (NVLink/xGMI/PCIe, the node's GPUs,
// intra_node_gbps of the node or the GPU) and one scale-out tier carrying network.inter_node_gbps
// shared by the node's GPUs, with network.latency_us as its hop latency. Throws InputError for an
// unknown GPU or an empty cluster.
System system_from_cluster(const Cluster& c);

// The system a project's cluster runs on: its explicit cluster.network.tiers (with node 0's GPU),
// else its cluster.system from the catalog, else system_from_cluster's two tiers. Throws
// InputError for an unknown system id or an empty cluster.
System system_of(const Cluster& c);

}   // namespace paraplan::network
