#pragma once
// The checks Megatron-LM makes before it builds its groups, each implemented once: the rank map
// builder (megatron_mesh.cpp) stops at the first that fails, and the rules (rules/megatron.cpp)
// report each under the same id with their fixes. Sources: megatron/core/parallel_state.py
// (initialize_model_parallel, RankGenerator) at core_v0.19.0.
#include "topology/mesh_request.h"
#include "util/diagnostic.h"

#include <optional>

namespace paraplan::topology {

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

}   // namespace paraplan::topology
