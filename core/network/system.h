#pragma once
// A system: one GPU type and the tiers of its network from the GPU outwards
// (resources/catalog/systems.json). Units in the names: GB/s unidirectional for links,
// Gbit/s for NICs, microseconds for latencies.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace paraplan::network {

enum class TierKind { NvLink, Xgmi, Pcie, ScaleOut, Switch };

struct Tier {
    std::string name;   // "nvlink", "infiniband", "leaf"
    TierKind kind = TierKind::NvLink;
    double latency_us = 0;
    std::string reduction;   // in-network reduction: "nvls" (NVLink SHARP), "sharp" (InfiniBand SHARP) or ""
    // Scale-up tiers (nvlink, xgmi, pcie).
    std::string generation;   // "nvlink3" "nvlink4" "nvlink5" "xgmi3" "pcie4" "pcie5"
    int domain_gpus = 0;      // GPUs that reach each other over this tier
    int links_per_gpu = 0;
    double link_gbps = 0;   // per link, each way
    // The share of the line rate link_gbps already carries (network/efficiency.h), so that what NCCL's
    // topology search sees, the nominal link, is link_gbps / efficiency. Not saved.
    double efficiency = 1;
    // Scale-out tier.
    double nics_per_gpu = 0;
    double nic_gbit = 0;
    int rails = 0;
    // Switch tiers.
    int gpus = 0;   // GPUs one switch of this tier joins (0: the whole fabric)
    double oversubscription = 1;

    bool scale_up() const { return kind == TierKind::NvLink || kind == TierKind::Xgmi || kind == TierKind::Pcie; }
    double gpu_gbps() const { return links_per_gpu * link_gbps; }   // scale-up, per GPU each way
    double nic_gbytes() const { return nic_gbit / 8.0; }            // one NIC, GB/s

    bool operator==(const Tier&) const = default;
};

struct System {
    std::string id, name, gpu;   // gpu: GPU catalog id
    int gpus_per_node = 8;
    int gpus_per_tray = 8;
    std::vector<Tier> tiers;   // tiers[0] is the scale-up domain, then the scale-out fabric, then switch tiers
    std::string source;

    const Tier& domain() const { return tiers.front(); }
    const Tier* scale_out() const;   // nullptr for a single domain with no NICs
};

// One tier as systems.json writes it (also a project's cluster.network.tiers[i]). Throws
// InputError naming the JSON pointer under `pointer`.
Tier tier_from_json(const nlohmann::json& j, const std::string& pointer);
nlohmann::json to_json(const Tier& t);
// An ordered list of tiers: the first must be the scale-up domain.
std::vector<Tier> tiers_from_json(const nlohmann::json& arr, const std::string& pointer);

// Throws InputError naming the JSON pointer under `pointer`.
System system_from_json(const nlohmann::json& j, const std::string& pointer);
nlohmann::json to_json(const System& s);
const char* tier_kind_name(TierKind k);

}   // namespace paraplan::network
