#pragma once
// Collective costs over the links a group spans: on the cluster's tiers where the project names
// them (GroupLink::fabric, priced by network/collective.h), else this flat alpha-beta model of
// ring algorithms: bytes are the per-GPU buffer size.
//   all-reduce 2(n-1)/n * bytes / bw, all-gather and reduce-scatter (n-1)/n * bytes / bw,
//   all-to-all (n-1)/n * bytes over the slower of NVLink and the node's share of the network.
#include "estimate/config.h"
#include "network/fabric.h"

namespace paraplan::estimate {

// Effective per-GPU bandwidth (GB/s) of a group that spans `nodes` nodes with
// `members_per_node` members each. Inside one node: NVLink/PCIe. Across nodes a ring
// crosses each node's network once per direction, and the node carries
// gpus_per_node / members_per_node such rings at once, so each ring gets
// inter_node_gbits/8 * members_per_node / gpus_per_node, capped by the intra-node link.
double group_bandwidth_gbs(const Hardware& hw, int nodes, int members_per_node);

// Fills bw and latency of a link from its size/nodes/members_per_node.
GroupLink make_link(const Hardware& hw, int size, int nodes, int members_per_node);

// A link on the cluster's tiers (hw.network): the group's shape on the system decides its fabric,
// and its collectives are priced as NCCL runs them (network/collective.h). Without hw.network, make_link.
// nodes / members_per_node: the physical nodes it spans, as make_link takes them.
GroupLink system_link(const Hardware& hw, const network::GroupShape& g, int nodes, int members_per_node);

// A group of `size` ranks spaced `stride` apart in fill order (rank r on node r / gpn).
GroupLink strided_link(const Hardware& hw, int size, int stride);

double all_reduce_s(const GroupLink& l, double bytes);
double all_gather_s(const GroupLink& l, double bytes);   // bytes: the gathered (full) buffer
double reduce_scatter_s(const GroupLink& l, double bytes);
double all_to_all_s(const GroupLink& l, const Hardware& hw, double bytes);
double send_recv_s(const GroupLink& l, double bytes);

}   // namespace paraplan::estimate
