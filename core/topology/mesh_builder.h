#pragma once
// Internal tools the framework builders share: row-major meshes, groups along axes,
// coordinate columns and diagnostics. Not part of the public topology API.
#include "topology/mesh_request.h"
#include "topology/rank_map.h"

#include <string>
#include <vector>

namespace paraplan::topology::detail {

// A row-major (C order, last axis fastest) mesh over ranks 0..world-1, the layout of
// ColossalAI's ProcessGroupMesh, torch's DeviceMesh and DeepSpeed's ProcessTopology.
// Megatron's order string is the same mesh read backwards (leftmost token fastest).
struct Mesh {
    std::vector<int> sizes;    // outer -> inner
    std::vector<int> coords;   // world x sizes.size(), coordinates of each rank
    int world = 0;
    int at(int rank, int axis) const {
        return coords[static_cast<std::size_t>(rank) * sizes.size() + static_cast<std::size_t>(axis)];
    }
};

Mesh make_mesh(const std::vector<int>& sizes);

// Every group obtained by varying the axes `vary` (indices into mesh.sizes) with the
// other coordinates fixed, as ProcessGroupMesh.create_group_along_axis / Megatron
// get_ranks build them. Sorted (ranks ascending, groups by first rank).
GroupSet groups_along(const Mesh& mesh, const std::vector<int>& vary);

// Groups along one axis restricted to subsets of its indices (ColossalAI
// get_group_along_axis(axis, indices_at_axis)). Ranks whose index is in no subset get
// group_index -1. Subsets must have equal sizes and indices inside the axis.
GroupSet groups_along_subsets(const Mesh& mesh, int axis, const std::vector<std::vector<int>>& subsets);

// Sort each group ascending and the groups by first rank; rebuild group_index.
void normalize(GroupSet& g, int world);

// Appends coordinate columns from `mesh` to m.coord_names / m.coords_flat. names[i]
// names axis i; an empty name, or one already present, is skipped.
void add_coords(RankMap& m, const Mesh& mesh, const std::vector<std::string>& names);

std::vector<Axis> make_axes(const std::vector<std::string>& names, const std::vector<int>& sizes);

// An error (or warning) diagnostic with fields as JSON pointers into the project.
Diagnostic make_diag(Severity s, std::string rule, std::string message, std::string framework_error,
                     std::vector<std::string> fields);

// Framework builders: fill axes, coordinates and groups of `m`, or push errors.
void build_colossalai(const MeshRequest& r, RankMap& m);          // HybridParallelPlugin
void build_colossalai_legacy(const MeshRequest& r, RankMap& m);   // legacy 1D/2D/2.5D/3D
void build_colossalai_moe(const MeshRequest& r, RankMap& m);
void build_colossalai_gemini(const MeshRequest& r, RankMap& m);
void build_colossalai_zero(const MeshRequest& r, RankMap& m);
void build_megatron(const MeshRequest& r, RankMap& m);
void build_torchtitan(const MeshRequest& r, RankMap& m);
void build_deepspeed(const MeshRequest& r, RankMap& m);
void build_devicemesh(const MeshRequest& r, RankMap& m);

}   // namespace paraplan::topology::detail
