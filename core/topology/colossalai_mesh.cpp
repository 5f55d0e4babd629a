// ColossalAI HybridParallelPlugin: sizes, mesh order and groups.
// Source: colossalai/booster/plugin/hybrid_parallel_plugin.py (__init__), and
// colossalai/cluster/process_group_mesh.py (row-major ProcessGroupMesh) at ColossalAI
// v0.5.1; mesh orders and a worked example are in docs/topology.md.
#include "topology/colossalai_checks.h"
#include "topology/mesh_builder.h"

#include <string>

namespace paraplan::topology::detail {
namespace {

// RingAttention.get_double_ring_groups (colossalai/shardformer/layer/attn.py): inner
// rings take SP indices [i*inner, (i+1)*inner) for i in range(inner), inter rings take
// indices i, i+num_rings, ... for i in range(num_rings). Complete only when
// inner == sp or inner^2 == sp.
void add_ring_groups(const MeshRequest& r, const Mesh& mesh, int sp_axis, int sp, RankMap& m) {
    const int inner = r.inner_ring_size;
    if (inner <= 0) return;
    if (inner > sp || sp % inner != 0) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "colossalai.inner_ring_size_divides_sp",
            "inner_ring_size " + std::to_string(inner) + " must be at most sp_size " + std::to_string(sp) +
                " and divide it",
            "Error: sp_size " + std::to_string(sp) + " should be divisible by inner_ring_size " + std::to_string(inner),
            {"/layout/inner_ring_size", "/layout/sp"}));
        return;
    }
    if (inner == sp) {   // one ring: both groups are the SP group
        m.groups["sp_inner_ring"] = m.groups["sp"];
        m.groups["sp_inter_ring"] = m.groups["sp"];
        return;
    }
    const int num_rings = sp / inner;
    if (inner > num_rings) {
        // range(inner) walks past the SP axis: np.ravel_multi_index raises.
        m.diagnostics.push_back(make_diag(
            Severity::Error, "colossalai.inner_ring_size_layout",
            "inner_ring_size " + std::to_string(inner) + " with sp_size " + std::to_string(sp) +
                ": ColossalAI builds inner rings for i in range(inner_ring_size), which runs past the SP axis; "
                "use inner_ring_size == sp_size or inner_ring_size^2 == sp_size",
            "ValueError: invalid entry in coordinates array", {"/layout/inner_ring_size", "/layout/sp"}));
        return;
    }
    std::vector<std::vector<int>> inner_sets, inter_sets;
    for (int i = 0; i < inner; ++i) {
        std::vector<int> s;
        for (int k = i * inner; k < (i + 1) * inner; ++k) s.push_back(k);
        inner_sets.push_back(s);
    }
    for (int i = 0; i < num_rings; ++i) {
        std::vector<int> s;
        for (int k = i; k < sp; k += num_rings) s.push_back(k);
        inter_sets.push_back(s);
    }
    m.groups["sp_inner_ring"] = groups_along_subsets(mesh, sp_axis, inner_sets);
    m.groups["sp_inter_ring"] = groups_along_subsets(mesh, sp_axis, inter_sets);
    if (inner < num_rings)
        m.diagnostics.push_back(make_diag(Severity::Warning, "colossalai.inner_ring_size_incomplete",
                                          "inner_ring_size " + std::to_string(inner) + " with sp_size " +
                                              std::to_string(sp) + ": inner rings cover only SP ranks 0.." +
                                              std::to_string(inner * inner - 1) +
                                              "; the other ranks fall back to a single ring over the whole SP group",
                                          "", {"/layout/inner_ring_size", "/layout/sp"}));
}

}   // namespace

void build_colossalai(const MeshRequest& r, RankMap& m) {
    if (r.tp_mode != TpMode::one_d) {
        build_colossalai_legacy(r, m);
        return;
    }
    const int W = r.world;
    // 1. world % (tp * pp)
    if (!check_colossalai_world_tp_pp(r, m)) return;
    // 3. sequence parallel block
    const std::string mode = to_string(r.sp_mode);
    int sp = 1;
    int dp = 0;
    if (sp_tp_mode(r.sp_mode)) {
        if (!check_colossalai_sp_mode_tp(r, m)) return;
        if (r.sp > 1)
            m.diagnostics.push_back(make_diag(Severity::Warning, "colossalai.sp_size_ignored",
                                              "sp_size is ignored in mode " + mode + ": the SP group is the TP group",
                                              "The sp_size will be the same as tp_size in sequence parallelism mode " +
                                                  mode + ", will ignore the given sequence parallelism size.",
                                              {"/layout/sp"}));
        dp = W / (r.tp * r.pp);
    } else if (sp_axis_mode(r.sp_mode)) {
        sp = r.sp;
        if (W % (r.tp * r.pp * sp) != 0) {
            const int d = W / (sp * r.pp * r.tp);
            m.diagnostics.push_back(make_diag(Severity::Error, "colossalai.world_size_divisible_sp",
                                              "world size " + std::to_string(W) +
                                                  " is not divisible by tp*pp*sp = " + std::to_string(r.tp * r.pp * sp),
                                              "The product of the size(" + std::to_string(d * r.pp * r.tp * sp) +
                                                  ") must be equal to the world size(" + std::to_string(W) + ").",
                                              {"/layout/tp", "/layout/pp", "/layout/sp"}));
            return;
        }
        dp = W / (r.tp * r.pp * sp);
    } else {   // SpMode::none
        if (r.sp != 1) {
            m.diagnostics.push_back(make_diag(Severity::Error, "colossalai.sp_size_without_sp",
                                              "sp is " + std::to_string(r.sp) + " but sequence parallelism is off",
                                              "You should not set sp_size when sequence parallelism is not enabled.",
                                              {"/layout/sp", "/layout/sp_mode"}));
            return;
        }
        dp = W / (r.tp * r.pp);
    }
    if (r.dp > 0 && r.dp != dp) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "topology.dp_matches_world",
            "dp is " + std::to_string(r.dp) + " but world/(tp*pp*sp) gives " + std::to_string(dp), "", {"/layout/dp"}));
        return;
    }

    // Mesh order (HybridParallelPlugin.__init__): ring_attn swaps sp and tp; dp_outside=False swaps dp and pp.
    const bool ring_attn = r.sp_mode == SpMode::ring_attn;
    std::vector<std::string> names;
    std::vector<int> sizes;
    if (r.dp_outside) {
        names = {"dp", "pp"};
        sizes = {dp, r.pp};
    } else {
        names = {"pp", "dp"};
        sizes = {r.pp, dp};
    }
    if (ring_attn) {
        names.insert(names.end(), {"sp", "tp"});
        sizes.insert(sizes.end(), {sp, r.tp});
    } else {
        names.insert(names.end(), {"tp", "sp"});
        sizes.insert(sizes.end(), {r.tp, sp});
    }
    const Mesh mesh = make_mesh(sizes);
    auto ax = [&](const char* n) {
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == n) return static_cast<int>(i);
        return -1;
    };
    m.axes = make_axes(names, sizes);
    add_coords(m, mesh, names);
    m.groups["tp"] = groups_along(mesh, {ax("tp")});
    m.groups["pp"] = groups_along(mesh, {ax("pp")});
    m.groups["dp"] = groups_along(mesh, {ax("dp")});
    // SP group: the TP group for split_gather/ring, else the SP axis (size 1 when off).
    if (mode == "split_gather" || mode == "ring") m.groups["sp"] = m.groups["tp"];
    else m.groups["sp"] = groups_along(mesh, {ax("sp")});
    // mixed_dp_group: DP x SP for all_to_all / ring_attn (plugin.dp_size = dp*sp), else DP.
    if (mode == "all_to_all" || mode == "ring_attn") m.groups["mixed_dp"] = groups_along(mesh, {ax("dp"), ax("sp")});
    else m.groups["mixed_dp"] = m.groups["dp"];
    if (ring_attn) add_ring_groups(r, mesh, ax("sp"), sp, m);
    if (r.tp > 1) {
        // 1D tensor parallelism (Linear1D_Col, colossalai/shardformer/layer/linear.py):
        // the weight's output features are split over the TP group, block = tp rank.
        TensorGrid grid;
        grid.mode = "1d";
        grid.tp_size = r.tp;
        grid.dim = r.tp;
        grid.out_blocks = r.tp;
        grid.blocks.resize(static_cast<std::size_t>(W));
        for (int rk = 0; rk < W; ++rk) grid.blocks[static_cast<std::size_t>(rk)] = {rk, 0, mesh.at(rk, ax("tp")), 0};
        m.tensor_grid = std::move(grid);
    }
}

}   // namespace paraplan::topology::detail
