#pragma once
// A process group of a project's rank map on the system its cluster runs on: which scale-up
// domains its GPUs lie in, so that the group is priced on the fabric of its actual GPUs rather
// than on the first N GPUs of the system.
#include "network/collective.h"
#include "network/fabric.h"
#include "project/cluster.h"

#include <span>
#include <vector>

namespace paraplan::network {

// The system index of each GPU of the cluster, node by node in order: node i's local GPU k is
// GPU (gpus of nodes 0..i-1) + k. Domain d of a system holds GPUs d*D .. d*D+D-1 (D = its
// domain_gpus), as NVL72 racks or 8-GPU nodes are numbered.
std::vector<int> node_offsets(const Cluster& c);

// Members are global ranks; placement[r] is where rank r runs (RankMap::placement).
GroupShape group_shape(const System& s, const std::vector<int>& offsets, std::span<const GpuSlot> placement,
                       std::span<const int> members);

// A group of `size` ranks `stride` apart in fill order from rank 0, rank r on the system's GPU r
// (the estimate's closed-form layout, before a rank map places it).
GroupShape strided_shape(const System& s, int size, int stride);

// Of `groups` (num_groups consecutive runs of group_size members), the shape that prices slowest for
// `op` of `bytes` on its own GPUs: a step waits for its slowest group. Shapes seen once are priced once.
GroupShape slowest_shape(const System& s, const std::vector<int>& offsets, std::span<const GpuSlot> placement,
                         std::span<const int> members, int group_size, Op op, std::uint64_t bytes,
                         Algorithm algo = Algorithm::Auto);

}   // namespace paraplan::network
