#include "network/nccl_tuning.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace paraplan::network::nccl {

namespace {

// NCCL's rows: Tree, Ring, CollNetDirect, CollNetChain, NVLS, NVLSTree, PAT; columns LL, LL128, Simple.
enum Row { kTree, kRing, kCollNet, kCollNetChain, kNvls, kNvlsTree, kPat, kRows };
using Table = std::array<std::array<double, 3>, kRows>;

// tuning.cc ncclTunerConstantsDefaults, NVIDIA/nccl v2.30.7-1: baseLatencies and hwLatencies (us).
constexpr Table kBaseLat = {
    {{6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}}};
constexpr Table kNvlinkLat = {
    {{.6, 1.25, 4.0}, {.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}}};
constexpr Table kPciLat = {
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}}};
constexpr Table kNetLat = {
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}}};

// llMaxBws, perChMaxRingLL128Bws, perChMaxTreeLL128Bws, perChMaxTreeBws, perChMaxNVLSTreeBws:
// [Volta, Ampere, Hopper, Blackwell][N1/N2/N4].
using CapTable = std::array<std::array<double, 3>, 4>;
constexpr CapTable kLlMaxBw = {{{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {282.0, 90.0, 70.0}}};
constexpr CapTable kRingLL128 = {{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}}};
constexpr CapTable kTreeLL128 = {{{20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}}};
constexpr CapTable kTreeBw = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}}};
constexpr CapTable kNvlsTreeBw = {{{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}}};
// nvlsEfficiency.
constexpr std::array<double, 4> kNvlsEfficiency = {0.0, 0.0, 0.85, 0.74};

// tuning.cc treeCorrectionFactor[protocol][log2(bytes/64)].
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

// Intel x86 (getNetOverhead); multi-node LL rows also read the CPU vendor (Intel).
constexpr double kNetOverheadUs = 1.0;

Row row(Algorithm a) {
    switch (a) {
    case Algorithm::Tree: return kTree;
    case Algorithm::CollNet: return kCollNet;
    case Algorithm::Nvls: return kNvls;
    case Algorithm::NvlsTree: return kNvlsTree;
    case Algorithm::Pat: return kPat;
    default: return kRing;
    }
}

int log2i(long long n) {
    int l = 0;
    while (n >>= 1) ++l;
    return l;
}

bool reduce_scatter_like(Op op) { return op == Op::AllGather || op == Op::ReduceScatter; }

struct Graph {
    int channels = 0;
    double bw_intra = 0, bw_inter = 0;
};

// The graph NCCL's search would have found for this algorithm (see fabric.h).
Graph graph(const Fabric& f, Algorithm a) {
    const double nic_total = f.nic_gbps * f.ppn;
    if (a == Algorithm::Nvls || a == Algorithm::NvlsTree) {
        if (f.nvls_heads <= 0) return {};
        return {f.nvls_heads, f.nvls_bw_intra, 0};   // across domains: nvls_inter_bw
    }
    if (a == Algorithm::CollNet) return {f.nics, nic_total / f.nics, nic_total / f.nics};   // one channel per NIC
    if (f.nodes == 1) return {f.channels, f.bw_intra, f.bw_intra};
    return {f.channels, f.bw_inter, f.bw_inter};
}

int nsteps(Op op, int n) {
    if (op == Op::AllReduce) return 2 * (n - 1);
    if (reduce_scatter_like(op)) return n - 1;
    return n;
}

double bus_bw(const Fabric& f, Op op, Algorithm a, Protocol p, const Graph& g) {
    const int cap = static_cast<int>(f.cap);
    const int n2 = f.nodes <= 2 ? f.nodes - 1 : 2;
    const double ll_max = kLlMaxBw[f.nodes == 1 ? cap : 0][n2];
    const double ch = g.channels;
    double bw = f.nodes <= 2 || a == Algorithm::CollNet ? g.bw_intra : g.bw_inter;
    if (a == Algorithm::Nvls || a == Algorithm::NvlsTree) {
        if (g.channels < 2) return 0;   // NVLS needs at least 2 channels
        // The channel's share of the NVSwitch, at NCCL's NVLS efficiency; an all-reduce pipelines
        // its reduce and its broadcast.
        const double intra = nvls_intra_bw(f, op);
        bw = f.nodes == 1 ? intra : std::min(intra, nvls_inter_bw(f, a));
        if (a == Algorithm::NvlsTree) bw = std::min(bw, kNvlsTreeBw[cap][n2]);
    }
    double bus = ch * bw;
    if (a == Algorithm::Ring && p == Protocol::LL) bus = std::min(ll_max, bus * .5);
    if (a == Algorithm::Ring && p == Protocol::LL128) bus = std::min(bus * .92, ch * kRingLL128[cap][n2]);
    if (a == Algorithm::Tree && op == Op::AllReduce) bus = std::min(bus * .92, ch * kTreeBw[cap][n2]);
    if (a == Algorithm::Tree && p == Protocol::LL) bus = std::min(bus / 3.8, ll_max);
    if (a == Algorithm::Tree && p == Protocol::LL128)
        bus = std::min(bus * (f.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), ch * kTreeLL128[cap][n2]);
    if (a == Algorithm::Pat) bus *= .75;
    if (a == Algorithm::CollNet) {
        double factor = f.ppn / std::max(1.0, ch);   // GPU/NIC ratio
        factor -= (factor - 1) / 2;
        bus /= factor;
        if (f.cap >= CompCap::Hopper) bus *= .85;
    }
    if (!(a != Algorithm::Ring && reduce_scatter_like(op))) {
        if (a == Algorithm::Ring || a == Algorithm::Nvls || a == Algorithm::NvlsTree)
            bus *= static_cast<double>(f.ranks) / nsteps(op, f.ranks);
        else bus *= .5;
    }
    return bus;
}

double latency(const Fabric& f, Op op, Algorithm a, Protocol p) {
    const int r = row(a), pi = static_cast<int>(p);
    const Table& intra_hw = f.nvlink ? kNvlinkLat : kPciLat;
    double lat = kBaseLat[r][pi];
    double intra = intra_hw[r][pi];
    double inter = (f.ppn == 1 ? kNetLat[kTree][pi] : kNetLat[r][pi]) + f.latency_inter_us;
    if (p == Protocol::Simple) inter += f.latency_inter_us;   // the flush
    const int log_nodes = log2i(f.nodes);
    switch (a) {
    case Algorithm::Ring: {
        if (op == Op::Broadcast) return lat + (f.nodes == 1 ? intra_hw : kNetLat)[kRing][pi];   // sameChannels
        const double overhead = f.nodes > 1 ? kNetOverheadUs * (p == Protocol::Simple ? 3 : 1) : 0;
        intra = std::max(intra, overhead);
        const int inter_steps = f.nodes == 1 ? 0 : op == Op::AllReduce ? 2 * (f.nodes - 1) : f.nodes - 1;
        return lat + (nsteps(op, f.ranks) - inter_steps) * intra + inter_steps * inter;
    }
    case Algorithm::Tree: return lat + 2 * ((f.ppn - 1) * intra + log_nodes * inter);
    case Algorithm::CollNet: return lat + 2 * (std::min(1, f.ppn - 1) * intra + (f.ppn - 1) * 0.4) + inter;
    case Algorithm::Nvls: return intra + (f.nodes > 1 ? inter : 0);
    case Algorithm::NvlsTree: return lat + intra + 2 * log_nodes * inter;
    case Algorithm::Pat: return 8 + log_nodes * (inter / 3.5) + f.ranks * 2.8;
    default: return lat;
    }
}

}   // namespace

double nvls_intra_bw(const Fabric& f, Op op) {
    const double ch = f.nvls_heads, ppn = f.ppn;
    if (ch < 2) return 0;
    const double intra = f.nvls_bw_intra * kNvlsEfficiency[static_cast<int>(f.cap)] * (ch - 1) / ch;
    return intra * (op == Op::AllReduce ? 2.0 : (ppn - 1) / ppn);
}

double nvls_inter_bw(const Fabric& f, Algorithm a) {
    if (f.nodes <= 1 || f.nvls_heads <= 0) return 0;
    // Each channel's head sends through one NIC; tuning.cc doubles it for NVLS-tree on two nodes.
    const double per_channel = std::min(f.nic_gbps / f.nics * f.ppn, f.nic_gbps * f.ppn / f.nvls_heads);
    return per_channel * (f.nodes <= 2 && a == Algorithm::NvlsTree ? 2 : 1);
}

Cost cost(const Fabric& f, Op op, Algorithm a, Protocol p) {
    const Graph g = graph(f, a);
    if (g.channels <= 0) return {};
    return {bus_bw(f, op, a, p, g), latency(f, op, a, p)};
}

double algo_time_us(const Fabric& f, Op op, Algorithm a, Protocol p, std::uint64_t bytes) {
    Cost c = cost(f, op, a, p);
    if (c.bw <= 0) return -1;
    const int log_size = log2i(static_cast<long long>(bytes >> 6));
    if (a == Algorithm::Tree && op == Op::AllReduce && (bytes >> 6) > 0 && log_size < 23)
        c.bw *= kTreeCorrection[static_cast<int>(p)][log_size];
    if (a == Algorithm::Ring && p == Protocol::Simple && f.nodes > 1 && op == Op::AllReduce &&
        bytes / (static_cast<std::uint64_t>(f.channels) * f.ranks) >= 64)
        c.lat *= f.cap == CompCap::Volta ? 1.9 : 1.4;   // plateau effect of ring
    return c.lat + static_cast<double>(bytes) / (1000 * c.bw);
}

}   // namespace paraplan::network::nccl
