#pragma once
// The first N GPUs of a system (filling trays, domains, then racks) as NCCL's topology
// search would see them: how many scale-up domains ("nodes" to NCCL: an NVLink domain larger
// than a tray is one node, as multi-node NVLink is), the channels and per-channel bandwidths
// of the ring/tree graphs and of NVLS, and the network latency a hop adds.
//
// The graph search itself (NVIDIA/nccl src/graph/search.cc) is not re-run. Its result is modelled
// simply, and documented here: a ring or tree channel runs at NCCL's per-link NVLink figure
// (src/graph/topo.h, v2.27.7-1: SM80 20.0, SM90 20.6, SM100 40.1 GB/s for a 25/25/50 GB/s link;
// PCI 12 GB/s per Gen3 x16, doubling per generation), with as many channels as the GPU's links
// carry; NVLS is the graph NCCL's search finds for it (fabric.cpp nvls_graph); across domains a
// channel runs at the NIC speed times kNetEfficiency, the domain's NICs adding up (one ring or tree
// channel per NIC), and an oversubscribed switch tier the group crosses divides it by the share of
// the group's traffic that goes up through it (uplink_share).
#include "network/system.h"

#include <string>
#include <vector>

namespace paraplan::network {

// Share of a NIC's line rate NCCL's transfers reach. Assumed, not fitted: the tune rows of
// tests/data/network/nccl_tests.json hold no multi-node case yet.
inline constexpr double kNetEfficiency = 0.92;

enum class CompCap { Volta, Ampere, Hopper, Blackwell };   // the rows of NCCL's per-architecture tables

struct Fabric {
    int ranks = 0;
    int ppn = 0;           // GPUs per domain taking part
    int nodes = 0;         // domains taking part (NCCL's nNodes)
    bool nvlink = false;   // scale-up links are NVLink (hwLat NVLINK row, LL128 allowed)
    bool rccl = false;     // AMD GPUs over xGMI: RCCL runs the collectives, with its own kernels
    bool nvls = false;     // NVSwitch in-network reduction
    bool sharp = false;    // in-network reduction on the scale-out tier (CollNet)
    CompCap cap = CompCap::Ampere;
    int channels = 0;      // ring/tree channels
    double bw_intra = 0;   // per channel, GB/s
    double bw_inter = 0;   // per channel across domains, GB/s (0 with one domain)
    // NVLS (NVIDIA/nccl v2.30.7-1): the graph's channels, one per head GPU (src/graph/search.cc
    // ncclTopoCompute: at most NCCL_MAX_NVLS_ARITY = 32 and the GPUs, or the NICs across domains),
    // and the per-channel speed its search settles on; the CTAs that run it (src/transport/nvls.cc:
    // NVLS_NCHANNELS_SM90 16, SM100 24 within one NVLink domain and 32 across several).
    int nvls_heads = 0;
    double nvls_bw_intra = 0;
    int nvls_channels = 0;
    double intra_gbps = 0;         // one GPU's scale-up bandwidth as NCCL counts it (channels * bw_intra)
    double intra_efficiency = 1;   // the scale-up tier's Tier::efficiency, already in intra_gbps
    int nics = 0;                  // NICs of one domain
    double nic_gbps = 0;           // one GPU's own NIC share, GB/s, after efficiency and a ring's uplink share
    double a2a_nic_gbps = 0;       // the same for all-to-all traffic, after its own uplink share (uplink_share)
    double latency_inter_us = 0;   // NCCL's graph latencyInter: the scale-out hop and switch tiers crossed
    std::string domain_tier, net_tier;
};

// Where the GPUs of one group lie: `domains` scale-up domains with up to `ppn` of them in each,
// and `span_gpus` consecutive GPUs of the system from the first to the last (which switch tiers
// the group crosses: a leaf joins its `gpus` consecutive GPUs).
struct GroupShape {
    int ranks = 0;
    int domains = 1;
    int ppn = 0;
    int span_gpus = 0;
};

// The switch tiers, innermost first, that a group spanning `gpus` consecutive GPUs (GroupShape's
// span_gpus) crosses once it leaves its scale-up domain: the first (leaf) always, each further
// one when the group is larger than what the tier below joins.
std::vector<const Tier*> switch_tiers_crossed(const System& s, int gpus);

// How much an oversubscribed switch tier slows a group's traffic across it, when every GPU under the
// switch runs the same kind of collective at once, as all the groups of one kind of a layout do (the
// eight data-parallel rings of eight-GPU nodes run together, one per rail). The switch's uplinks
// carry (downlink bandwidth) / oversubscription; they are a bottleneck only for the share of the
// traffic that leaves the switch:
//  - ring: NCCL's inter-node ring visits the group's domains in rank order, so it enters and leaves a
//    switch once per channel while each of its d domains under the switch sends one hop per channel:
//    1/d of the traffic goes up, and the tier divides the bandwidth by max(1, over / d). A tree or an
//    NVLS/CollNet tree across domains links neighbours the same way and is taken alike;
//  - all-to-all: each member sends (1 - m/n) of its data to the n - m members outside its switch (m
//    of the group's n under it), so the divisor is max(1, over x (1 - m/n)).
// d and m are the group's domains and members under one switch of the tier, its span_gpus spread
// evenly. Returns the divisors {ring, all_to_all} over the tiers crossed below the outermost one.
struct UplinkShare {
    double ring = 1, all_to_all = 1;
};
UplinkShare uplink_share(const System& s, const GroupShape& g);

// The first N GPUs of a system, filling trays, domains, then racks.
GroupShape first_gpus(const System& s, int gpus);

// Throws InputError when gpus < 1, or when they do not fit a system with no scale-out tier.
Fabric fabric_for(const System& s, int gpus);
Fabric fabric_for(const System& s, const GroupShape& g);

}   // namespace paraplan::network
