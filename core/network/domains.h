#pragma once
// The scale-up domains of a project's cluster, node by node: which nodes each NVLink (or xGMI)
// domain of its system holds, as the canvas outlines them. GPUs are numbered as node_offsets
// numbers them (group.h): domain d holds GPUs d*D .. d*D+D-1.
#include "network/system.h"
#include "project/cluster.h"

#include <vector>

namespace paraplan::network {

// Nodes [first_node, first_node + nodes) of the cluster, holding `gpus` GPUs.
struct NodeBlock {
    int index = 0;   // block number: its first GPU / the block size
    int first_node = 0;
    int nodes = 0;
    int gpus = 0;
    bool straddles = false;   // its last node has GPUs in the next block too
};

// The cluster's GPUs in blocks of `block_gpus` consecutive GPUs (a domain, or what one switch of
// a tier joins). A node belongs to the block of its first GPU; a node with GPUs in two blocks
// marks the first `straddles`. Blocks no node starts in are left out. Throws InputError when
// block_gpus < 1.
std::vector<NodeBlock> node_blocks(const Cluster& c, int block_gpus);

// Whether one scale-up domain of `s` holds GPUs of more than one of the cluster's nodes (a
// GB200 NVL72 rack of 4-GPU trays), i.e. the domain is not simply a node.
bool domains_span_nodes(const System& s, const Cluster& c);

}   // namespace paraplan::network
