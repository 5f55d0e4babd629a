#pragma once
// GPU lookup for a project: the GPUs it defines itself (cluster.gpu_specs), then the built-in
// catalog. Every command that reads a node's GPU goes through here, so a project GPU is used
// wherever a catalog GPU is.
#include "catalog/gpu.h"
#include "project/cluster.h"

#include <string>
#include <vector>

namespace paraplan {

// nullptr if neither the project nor the catalog knows the id.
const GpuSpec* find_gpu(const Cluster& cluster, const std::string& id);
// The project's GPU ids, then the catalog's.
std::vector<std::string> gpu_ids(const Cluster& cluster);

}   // namespace paraplan
