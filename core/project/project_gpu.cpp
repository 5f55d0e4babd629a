#include "project/project_gpu.h"

#include "catalog/catalog.h"

namespace paraplan {

const GpuSpec* find_gpu(const Cluster& cluster, const std::string& id) {
    for (const auto& g : cluster.gpu_specs)
        if (g.id == id) return &g;
    return catalog::find_gpu(id);
}

std::vector<std::string> gpu_ids(const Cluster& cluster) {
    std::vector<std::string> ids;
    for (const auto& g : cluster.gpu_specs) ids.push_back(g.id);
    for (auto& id : catalog::gpu_ids()) ids.push_back(std::move(id));
    return ids;
}

}   // namespace paraplan
