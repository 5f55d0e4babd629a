#pragma once
// The checks a framework makes before it builds its process groups, each implemented once: its rank
// map builder (core/topology/<framework>_mesh.cpp, where each is defined) stops at the first that
// fails, and its rules (core/rules/<framework>.cpp) report each under the same id with their fixes.
// tests/core/tst_rules_topology_ids.cpp checks that every builder finding is a rule finding.
#include "topology/mesh_request.h"
#include "util/diagnostic.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan::topology {

// Megatron-LM: megatron/core/parallel_state.py (initialize_model_parallel, RankGenerator), core_v0.19.0.
// megatron.world_divisible: world % (tp x pp x cp) == 0 (initialize_model_parallel's RuntimeError).
std::optional<Diagnostic> megatron_world_check(const MeshRequest& r);
// megatron.expert_grid: world % (etp x ep x pp) == 0 for the expert grid (etp 0 is tp); checked
// where the expert grid differs from the dense one (ep > 1 or etp != tp), else the world check says it.
std::optional<Diagnostic> megatron_expert_world_check(const MeshRequest& r);
// megatron.order_valid: a token other than tp cp ep dp pp, or one twice (RankGenerator's KeyError);
// megatron.order: an axis of size > 1 in the dense (tp pp dp cp) or expert (etp pp edp ep) grid that
// the order leaves out. Empty order: Megatron's default, nothing to check. The sizes come from the
// world, so this runs after the two world checks pass (it says nothing while they fail).
std::optional<Diagnostic> megatron_order_check(const MeshRequest& r);

// ColossalAI HybridParallelPlugin / MoeHybridParallelPlugin __init__ (v0.5.1
// booster/plugin/hybrid_parallel_plugin.py, moe_hybrid_parallel_plugin.py):
// colossalai.world_divisible: world % (tp_size x pp_size) == 0.
std::optional<Diagnostic> colossalai_world_check(const MeshRequest& r);
// colossalai.sp_mode_needs_tp: split_gather and ring reuse the TP group, so they need tp_size > 1.
std::optional<Diagnostic> colossalai_sp_mode_tp_check(const MeshRequest& r);
// colossalai.moe_dp_divisible_ep: MoeHybridParallelPlugin carves ep out of dp, dp_size % ep_size == 0
// (dp as the caller derives it from the sequence mode).
std::optional<Diagnostic> colossalai_moe_dp_ep_check(const MeshRequest& r, int dp);
// GeminiPlugin (gemini_plugin.py) shards over (zero, extra_dp, tp) only. colossalai.gemini_axes: no
// pipeline (backward_by_grad's NotImplementedError), expert, context or separate sequence axis;
// colossalai.gemini_world_divisible: world % (tp x extra_dp_size) == 0 (ProcessGroupMesh's assert).
std::optional<Diagnostic> colossalai_gemini_axes_check(const MeshRequest& r);
std::optional<Diagnostic> colossalai_gemini_world_check(const MeshRequest& r);
// colossalai.zero_plugin_axes: LowLevelZeroPlugin (low_level_zero_plugin.py) is pure data parallelism,
// no tensor, pipeline, sequence, context or expert axis.
std::optional<Diagnostic> colossalai_zero_plugin_axes_check(const MeshRequest& r);

// A plain DeviceMesh (torch/distributed/device_mesh.py init_device_mesh, PyTorch v2.4): the dims of
// layout.order (outer -> inner; Paraplan's default pp-dp-cp-tp, with sp beside cp where sp > 1), a dim's
// size after ':' or '=' or from the layout, at most one inferred (-1, dp by default). A finding where they
// are no mesh of the world: devicemesh.dim_names_valid, devicemesh.dim_size_known,
// devicemesh.unique_dim_names, devicemesh.world_divisible (the product is not the world, or with a
// dim inferred does not divide it).
struct DeviceMeshDims {
    std::vector<std::string> names;   // outer -> inner (empty with a finding)
    std::vector<int> sizes;
    std::optional<Diagnostic> finding;
};
DeviceMeshDims devicemesh_dims(const MeshRequest& r);

// DeepSpeed PipeModelDataParallelTopology (v0.16.5 runtime/pipe/topology.py, module.py PipelineModule):
// deepspeed.world_divisible: world % (pp x tp) == 0.
std::optional<Diagnostic> deepspeed_world_check(const MeshRequest& r);

// torchtitan ParallelDims._validate (parallel_dims.py, v0.2.2): torchtitan.world_product:
// dp_replicate x dp_shard x cp x tp x pp == world, dp_shard -1 inferred as world / the rest. Says
// nothing where a degree is invalid (torchtitan.degrees); the builder reports a dp_shard that cannot be
// inferred before it asks.
std::optional<Diagnostic> torchtitan_world_check(const MeshRequest& r);

}   // namespace paraplan::topology
