#pragma once
// The rank map: what a framework builds for a cluster and a layout. Which global
// rank gets which mesh coordinates, which ranks form each process group, where each
// rank runs (node, local_rank), and for each group how many nodes it spans.
//
// Built by build_rank_map() (topology/build_rank_map.h). Everything is stored in flat
// arrays so that 16k-65k ranks stay cheap: coordinates are world x coord_names, the
// groups of one kind are num_groups x group_size.
#include "project/cluster.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::topology {

// One mesh dimension. `native` is the framework's own name where it differs from
// ours (DeepSpeed "pipe"/"data"/"model"), else empty.
struct Axis {
    std::string name;
    int size = 1;
    std::string native;
};

// How many nodes one group touches.
struct GroupSpan {
    int nodes_spanned = 0;
    bool crosses_nodes = false;
};

// All groups of one kind ("tp", "dp", "mixed_dp", ...). Every group lists its ranks
// ascending; groups are sorted by their first rank. All groups of a kind have the
// same size. A rank may belong to no group of a kind (e.g. incomplete ring groups).
struct GroupSet {
    int group_size = 0;
    std::vector<int> members;         // num_groups() * group_size
    std::vector<int> group_index;     // rank -> group index, -1 = in none
    std::vector<int> nodes_spanned;   // per group, filled by build_rank_map

    int num_groups() const { return group_size > 0 ? static_cast<int>(members.size()) / group_size : 0; }
    std::span<const int> group(int g) const {
        return {members.data() + static_cast<std::size_t>(g) * static_cast<std::size_t>(group_size),
                static_cast<std::size_t>(group_size)};
    }
};

// Per-kind figures the estimator uses for bandwidth.
struct GroupSummary {
    std::string kind;
    int group_size = 0;
    int num_groups = 0;
    int groups_crossing_nodes = 0;
    int max_nodes_spanned = 0;
    int min_nodes_spanned = 0;
};

// One block of a weight matrix held by a rank under ColossalAI's legacy 1D/2D/2.5D/3D
// tensor parallelism (colossalai/legacy/nn/layer/parallel_*/layers.py). The weight
// is seen as [in_features, out_features] split into in_blocks x out_blocks blocks.
struct TensorBlock {
    int rank = 0;
    int in_block = 0;
    int out_block = 0;
    int replica = 0;   // 2.5D depth index (the block is replicated over depth), else 0
};

struct TensorGrid {
    std::string mode;   // "1d" "2d" "2.5d" "3d"
    int tp_size = 1;
    int dim = 1;     // 1d: tp, 2d/2.5d: q (summa/tesseract dim), 3d: depth d
    int depth = 1;   // 2.5d depth; 1 otherwise
    int in_blocks = 1;
    int out_blocks = 1;
    std::vector<TensorBlock> blocks;   // one per rank, rank order
};

struct RankMap {
    std::string framework;
    int world_size = 0;
    std::vector<Axis> axes;                 // the framework's mesh, outer -> inner (product = world)
    std::vector<Axis> expert_axes;          // second grid over the same ranks (Megatron expert grid,
                                            // torchtitan EP mesh), outer -> inner; empty if none
    std::vector<std::string> coord_names;   // every coordinate a rank has (axes, then extras)
    std::vector<int> coords_flat;           // world_size x coord_names.size()
    std::vector<GpuSlot> placement;         // rank -> (node, local_rank)
    int num_nodes = 0;
    std::map<std::string, GroupSet> groups;
    std::vector<int> pp_prev, pp_next;       // pipeline neighbours with wrap; empty without "pp"
    std::optional<TensorGrid> tensor_grid;   // ColossalAI legacy tensor modes
    std::vector<Diagnostic> diagnostics;     // errors make the map invalid (then nothing else is filled)

    bool valid() const { return !has_errors(diagnostics); }

    std::span<const int> coords(int rank) const {
        const std::size_t n = coord_names.size();
        return {coords_flat.data() + static_cast<std::size_t>(rank) * n, n};
    }
    // Coordinate `name` of `rank`, -1 when the map has no such coordinate.
    int coord(int rank, std::string_view name) const;
    int coord_index(std::string_view name) const;   // -1 if absent

    bool has_group(std::string_view kind) const { return groups.find(std::string(kind)) != groups.end(); }
    const GroupSet* group_set(std::string_view kind) const;
    // The group of `kind` that holds `rank`; empty when there is none.
    std::span<const int> group_of(std::string_view kind, int rank) const;
    GroupSpan group_span(std::string_view kind, int group_index) const;
    GroupSummary summary(std::string_view kind) const;
    std::vector<GroupSummary> summaries() const;   // one per kind, by name
    // Groups of one kind as nested vectors (tests, JSON, small worlds).
    std::vector<std::vector<int>> group_list(std::string_view kind) const;
};

// The CLI contract of `paraplan-cli groups --json` (also the layout-json export):
// {"framework", "world_size", "axes", "ranks", "groups", ...} for a valid map, and
// {"valid": false, "diagnostics": [...]} for an invalid one.
nlohmann::json to_json(const RankMap& m);

}   // namespace paraplan::topology
