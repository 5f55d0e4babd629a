#include "estimate/tier_traffic.h"

#include "network/fabric.h"
#include "network/group.h"

#include <algorithm>
#include <map>

namespace paraplan::estimate {

std::vector<TierTraffic> tier_traffic(const Cluster& c, const network::System& s, double step_s,
                                      std::vector<LinkTraffic>& links) {
    const auto offsets = network::node_offsets(c);
    const int gpus = c.world_size();
    const int per_domain = std::max(1, s.domain().domain_gpus);
    const network::Tier& up = s.domain();
    const network::Tier* out = s.scale_out();
    std::vector<TierTraffic> tiers;
    tiers.push_back({up.name, 0, gpus * up.gpu_gbps(), 0});
    std::map<std::string, std::size_t> at;   // tier name -> index in `tiers`
    at[up.name] = 0;
    double nic_gbs = 0;
    if (out) {
        nic_gbs = gpus * out->nics_per_gpu * out->nic_gbytes();
        at[out->name] = tiers.size();
        tiers.push_back({out->name, 0, nic_gbs, 0});
        double over = 1;
        for (const network::Tier* t : network::switch_tiers_crossed(s, gpus)) {
            at[t->name] = tiers.size();
            tiers.push_back({t->name, 0, nic_gbs / over, 0});
            over = std::max(over, t->oversubscription);
        }
    }
    auto node_of = [&](int n) { return static_cast<std::size_t>(std::clamp(n, 0, int(offsets.size()) - 1)); };
    for (auto& l : links) {
        const int ga = offsets[node_of(l.node_a)], gb = offsets[node_of(l.node_b)];
        if (ga / per_domain == gb / per_domain || !out) {
            l.tier = up.name;
            tiers[0].bytes += l.bytes;
            continue;
        }
        const int lo = std::min(ga, gb), hi = std::max(ga, gb) + c.nodes[node_of(ga < gb ? l.node_b : l.node_a)].gpus;
        l.tier = out->name;
        tiers[at[out->name]].bytes += l.bytes;
        for (const network::Tier* t : network::switch_tiers_crossed(s, hi - lo)) {
            l.tier = t->name;
            if (const auto it = at.find(t->name); it != at.end()) tiers[it->second].bytes += l.bytes;
        }
    }
    for (auto& t : tiers)
        t.utilisation = t.capacity_gbs > 0 && step_s > 0 ? t.bytes / (t.capacity_gbs * 1e9 * step_s) : 0;
    return tiers;
}

}   // namespace paraplan::estimate
