#include "estimate/comm.h"

#include "network/collective.h"
#include "network/group.h"

#include <algorithm>
#include <cmath>

namespace paraplan::estimate {

double group_bandwidth_gbs(const Hardware& hw, int nodes, int members_per_node) {
    if (nodes <= 1) return hw.intra_node_gbps;
    const double node = hw.inter_node_gbits / 8.0;
    const double share = node * std::max(1, members_per_node) / std::max(1, hw.gpus_per_node);
    return std::min(hw.intra_node_gbps, share);
}

namespace {

// Collectives of a link on the cluster's tiers: bytes are nccl-tests' total buffer size, which is
// what each function here takes (all-gather's gathered buffer, reduce-scatter's input).
double priced_s(const GroupLink& l, network::Op op, double bytes) {
    return network::price(*l.fabric, op, static_cast<std::uint64_t>(std::llround(bytes))).time_s;
}

}   // namespace

GroupLink system_link(const Hardware& hw, const network::GroupShape& g, int nodes, int members_per_node) {
    GroupLink l = make_link(hw, g.ranks, nodes, members_per_node);
    if (!hw.network || g.ranks < 2) return l;
    l.fabric = network::fabric_for(*hw.network, g);
    // One small send: the per-hop latency the pipeline simulation and DeepEP read. Collectives are
    // priced on the fabric, so bw_gbs keeps make_link's flat figure and is not read.
    l.latency_s = network::price(*l.fabric, network::Op::SendRecv, 8).time_s;
    return l;
}

GroupLink make_link(const Hardware& hw, int size, int nodes, int members_per_node) {
    GroupLink l;
    l.size = std::max(1, size);
    l.nodes = std::max(1, nodes);
    l.members_per_node = std::max(1, members_per_node);
    l.bw_gbs = group_bandwidth_gbs(hw, l.nodes, l.members_per_node);
    l.latency_s = (l.nodes > 1 ? hw.latency_us : 1.0) * 1e-6;
    return l;
}

GroupLink strided_link(const Hardware& hw, int size, int stride) {
    const int gpn = std::max(1, hw.gpus_per_node);
    stride = std::max(1, stride);
    size = std::max(1, size);
    int per_node = stride >= gpn ? 1 : std::min(size, std::max(1, gpn / stride));
    const int nodes = (size + per_node - 1) / per_node;
    if (hw.network) return system_link(hw, network::strided_shape(*hw.network, size, stride), nodes, per_node);
    return make_link(hw, size, nodes, per_node);
}

double all_reduce_s(const GroupLink& l, double bytes) {
    if (l.size <= 1 || bytes <= 0) return 0;
    if (l.fabric) return priced_s(l, network::Op::AllReduce, bytes);
    const double n = l.size;
    return 2 * (n - 1) / n * bytes / (l.bw_gbs * 1e9) + 2 * (n - 1) * l.latency_s;
}

double all_gather_s(const GroupLink& l, double bytes) {
    if (l.size <= 1 || bytes <= 0) return 0;
    if (l.fabric) return priced_s(l, network::Op::AllGather, bytes);
    const double n = l.size;
    return (n - 1) / n * bytes / (l.bw_gbs * 1e9) + (n - 1) * l.latency_s;
}

double reduce_scatter_s(const GroupLink& l, double bytes) {
    if (l.fabric && l.size > 1 && bytes > 0) return priced_s(l, network::Op::ReduceScatter, bytes);
    return all_gather_s(l, bytes);
}

double all_to_all_s(const GroupLink& l, const Hardware& hw, double bytes) {
    if (l.size <= 1 || bytes <= 0) return 0;
    if (l.fabric) return priced_s(l, network::Op::AllToAll, bytes);
    const double n = l.size;
    const double sent = (n - 1) / n * bytes;
    if (l.nodes <= 1) return sent / (hw.intra_node_gbps * 1e9) + l.latency_s;
    // Share of peers on other nodes goes through the node's network, shared by all its GPUs.
    const double off = double(l.size - l.members_per_node) / l.size;
    const double nic = hw.inter_node_gbits / 8.0 / std::max(1, hw.gpus_per_node);
    return std::max(sent * off / (nic * 1e9), sent / (hw.intra_node_gbps * 1e9)) + l.latency_s;
}

double send_recv_s(const GroupLink& l, double bytes) {
    if (l.size <= 1 || bytes <= 0) return 0;
    if (l.fabric) return priced_s(l, network::Op::SendRecv, bytes);
    return bytes / (l.bw_gbs * 1e9) + l.latency_s;
}

}   // namespace paraplan::estimate
