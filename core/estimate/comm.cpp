#include "estimate/comm.h"

#include "network/collective.h"
#include "network/group.h"
#include "network/price_memo.h"
#include "util/memo.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
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
    return network::priced_time_s(*l.fabric, op, static_cast<std::uint64_t>(std::llround(bytes)));
}

}   // namespace

GroupLink system_link(const Hardware& hw, const network::GroupShape& g, int nodes, int members_per_node) {
    GroupLink l = make_link(hw, g.ranks, nodes, members_per_node);
    if (!hw.network || g.ranks < 2) return l;
    l.fabric = network::fabric_for(*hw.network, g);
    // One small send: the per-hop latency the pipeline simulation and DeepEP read. Collectives are
    // priced on the fabric, so bw_gbs keeps make_link's flat figure and is not read.
    l.latency_s = network::priced_time_s(*l.fabric, network::Op::SendRecv, 8);
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
    if (!hw.network) return make_link(hw, size, nodes, per_node);
    if (!memo::enabled()) return system_link(hw, network::strided_shape(*hw.network, size, stride), nodes, per_node);
    // On the tiers each link is a fabric and a priced send; make_config asks for the same few links
    // for thousands of layouts, so each thread keeps the last ones it built. The key is everything
    // the link reads: the system (immutable behind its shared_ptr<const>, held here so that its
    // address is not reused), the hardware's flat figures and the group's size and stride.
    struct Slot {
        std::shared_ptr<const network::System> system;
        int gpn = 0, size = 0, stride = 0;
        double intra = 0, inter = 0, latency = 0;
        GroupLink link;
    };
    constexpr std::size_t kSlots = 64;
    thread_local std::array<Slot, kSlots> table;
    Slot& s = table[(std::size_t(size) * 131 + std::size_t(stride)) % kSlots];
    auto same = [](double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); };
    if (s.system == hw.network && s.gpn == hw.gpus_per_node && s.size == size && s.stride == stride &&
        same(s.intra, hw.intra_node_gbps) && same(s.inter, hw.inter_node_gbits) && same(s.latency, hw.latency_us))
        return s.link;
    GroupLink l = system_link(hw, network::strided_shape(*hw.network, size, stride), nodes, per_node);
    s = Slot{hw.network, hw.gpus_per_node, size, stride, hw.intra_node_gbps, hw.inter_node_gbits, hw.latency_us, l};
    return l;
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
