#pragma once
// The step's link traffic on the cluster's tiers: which tier each node pair's traffic crosses, and
// how busy each tier is. Nodes are placed on the system's GPUs as network/group.h places them;
// the switch tiers a pair crosses are network::switch_tiers_crossed over the GPUs between them.
#include "estimate/step_playback.h"
#include "network/system.h"
#include "project/cluster.h"

#include <vector>

namespace paraplan::estimate {

// Sets each link's `tier` and returns the tiers' totals, GPU outwards.
std::vector<TierTraffic> tier_traffic(const Cluster& c, const network::System& s, double step_s,
                                      std::vector<LinkTraffic>& links);

}   // namespace paraplan::estimate
