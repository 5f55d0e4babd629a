#pragma once
// One scale-up domain of a catalog system as the nodes a project lists, and adding it to a
// project's cluster (the canvas palette's systems). A node of a project is what runs one
// operating system: a DGX H100 is one node of 8 GPUs, a GB200 NVL72 rack 18 compute trays
// (nodes) of 4 GPUs in one 72-GPU NVLink domain.
#include "network/system.h"
#include "project/cluster.h"

namespace paraplan::network {

struct RackShape {
    int nodes = 1;
    int gpus_per_node = 8;
    int gpus() const { return nodes * gpus_per_node; }
};

// domain_gpus / gpus_per_tray trays of gpus_per_tray GPUs (at least one tray).
RackShape rack_shape(const System& s);

enum class RackAdded { Appended, Replaced };

// Whether add_rack would replace the cluster's nodes rather than append (a cluster of another
// system, or of none, with nodes).
bool rack_replaces(const Cluster& c, const System& s);

// Adds one rack of catalog system `s` to the cluster and names the system (cluster.system). A
// cluster already of that system gets the rack after its nodes (its own tiers, if any, stay);
// any other cluster's nodes are replaced (a cluster is one system) and its explicit network
// tiers (cluster.network.tiers) dropped with them: they described other hardware. The rank
// order is cleared (it no longer covers every GPU).
// Multi-node racks name their nodes rack<R>-tray<T>, others node<i>, unique in the cluster.
RackAdded add_rack(Cluster& c, const System& s);

}   // namespace paraplan::network
