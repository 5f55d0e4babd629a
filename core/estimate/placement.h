#pragma once
// Group links from the framework's real rank map (core/topology): for each kind of
// group, its size and the nodes it spans decide the bandwidth its collectives get.
// make_config() starts from the framework's default axis order in fill order; this
// replaces those links for a whole project (honouring the cluster's rank_order).
#include "estimate/config.h"
#include "project/project.h"

#include <string>
#include <vector>

namespace paraplan::estimate {

// Returns false (and leaves c alone) when the rank map cannot be built.
bool apply_rank_map(const Project& p, const Hardware& hw, Config& c, std::vector<std::string>* notes = nullptr);

}  // namespace paraplan::estimate
