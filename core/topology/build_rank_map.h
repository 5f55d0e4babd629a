#pragma once
// Computes exactly the meshes and process groups a framework builds.
//
//   colossalai       HybridParallelPlugin (ProcessGroupMesh), legacy 1D/2D/2.5D/3D tensor modes
//   colossalai-moe   MoeHybridParallelPlugin
//   colossalai-gemini / colossalai-zero   GeminiPlugin / LowLevelZeroPlugin
//   megatron         RankGenerator, dense and expert grids
//   torchtitan       ParallelDims (dp_shard -1 inference, EP mesh)
//   deepspeed        PipeModelDataParallelTopology
//   devicemesh       init_device_mesh with any dim order
//
// Impossible sizes never throw: the map comes back with error diagnostics (stable
// rule ids such as "colossalai.world_divisible") and no groups.
#include "topology/mesh_request.h"
#include "topology/rank_map.h"

namespace paraplan::topology {

// Without a cluster (or when its world size differs from req.world) ranks fill
// uniform nodes of req.gpus_per_node; with one, Cluster::placement() decides.
RankMap build_rank_map(const MeshRequest& req, const Cluster* cluster = nullptr);

}   // namespace paraplan::topology
