// estimate_project() for a project whose GPU comes from the built-in catalog; kept
// apart from estimate.cpp so that code estimating with an explicit GpuSpec does not
// link the catalog.
#include "catalog/catalog.h"
#include "project/project_gpu.h"
#include "estimate/estimate.h"
#include "estimate/profile.h"
#include "util/input_error.h"

namespace paraplan::estimate {

namespace {
const GpuSpec& node0_gpu(const Project& p) {
    const std::string id = p.cluster.nodes.empty() ? std::string() : p.cluster.nodes[0].gpu;
    const GpuSpec* g = find_gpu(p.cluster, id);
    if (!g) throw InputError("/cluster/gpu", "unknown GPU '" + id + "': not in the catalog or the project's gpu_specs");
    return *g;
}
}   // namespace

Estimate estimate_project(const Project& p) { return estimate_project(p, node0_gpu(p)); }

Estimate estimate_project(const Project& p, const topology::RankMap& map) {
    return estimate_project(p, project_hardware(p, node0_gpu(p)), &map);
}

}   // namespace paraplan::estimate
