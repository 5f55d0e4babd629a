// ColossalAI legacy tensor parallelism (parallel=dict(tensor=dict(mode=..., size=...))).
// Global layout (dp, pp, tp): colossalai/legacy/context/process_group_initializer/
// initializer_data.py and initializer_pipeline.py. Inside a TP block of size tp the
// local index t is split per mode:
//   1d   t                                   initializer_1d.py
//   2d   t = row*q + col, tp = q^2           initializer_2d.py (row group varies col)
//   2.5d t = col + q*(row + q*dep), tp = d*q^2  initializer_2p5d.py ("i row j col k dep")
//   3d   t = i + d*(j + d*k), tp = d^3       initializer_3d.py (weight varies i, input j, output k)
// Weight blocks follow the layers' state-dict partitioning
// (colossalai/legacy/nn/layer/parallel_{1d,2d,2p5d,3d}/layers.py).
#include "topology/colossalai_checks.h"
#include "topology/mesh_builder.h"

#include <cmath>

namespace paraplan::topology::detail {

void build_colossalai_legacy(const MeshRequest& r, RankMap& m) {
    const int W = r.world;
    const TpMode mode = r.tp_mode;
    const std::string name = to_string(mode);
    if (mode != TpMode::two_d && mode != TpMode::two_and_half_d && mode != TpMode::three_d) {
        m.diagnostics.push_back(make_diag(Severity::Error, "colossalai.tp_mode_supported",
                                          "not a legacy tensor parallel mode: '" + name + "' (2d, 2.5d, 3d)", "",
                                          {"/layout/tp_mode"}));
        return;
    }
    if (r.sp_mode != SpMode::none) {
        m.diagnostics.push_back(make_diag(Severity::Error, "colossalai.legacy_tp_mode_no_sp",
                                          "the legacy " + name + " tensor mode cannot be combined with sp_mode " +
                                              to_string(r.sp_mode) +
                                              " (HybridParallelPlugin uses 1D tensor parallelism)",
                                          "", {"/layout/tp_mode", "/layout/sp_mode"}));
        return;
    }
    const int tp = r.tp;
    int q = 1, d = 1;
    if (mode == TpMode::two_d) {
        q = static_cast<int>(std::lround(std::sqrt(static_cast<double>(tp))));
        if (q * q != tp) {
            m.diagnostics.push_back(
                make_diag(Severity::Error, "colossalai.legacy_2d_tp_square",
                          "2D tensor parallelism needs tp = q^2; " + std::to_string(tp) + " is not a square",
                          "2D summa dim should equal to tensor parallel size ^ 0.5", {"/layout/tp"}));
            return;
        }
    } else if (mode == TpMode::two_and_half_d) {
        d = r.tp_depth;
        if (d >= 1 && tp % d == 0) q = static_cast<int>(std::lround(std::sqrt(static_cast<double>(tp / d))));
        if (d < 1 || tp % d != 0 || q * q * d != tp) {
            m.diagnostics.push_back(
                make_diag(Severity::Error, "colossalai.legacy_2p5d_tp_size",
                          "2.5D tensor parallelism needs tp = depth*q^2; tp " + std::to_string(tp) + " with depth " +
                              std::to_string(r.tp_depth) + " does not fit",
                          "2.5D tesseract dim should equal to (tensor parallel size / tesseract dep) ^ 0.5",
                          {"/layout/tp", "/layout/tp_depth"}));
            return;
        }
    } else {
        d = static_cast<int>(std::lround(std::cbrt(static_cast<double>(tp))));
        if (d * d * d != tp) {
            m.diagnostics.push_back(
                make_diag(Severity::Error, "colossalai.legacy_3d_tp_cube",
                          "3D tensor parallelism needs tp = d^3; " + std::to_string(tp) + " is not a cube",
                          "3D depth (" + std::to_string(d) + ") if not cube root of tensor parallel size (" +
                              std::to_string(tp) + ")",
                          {"/layout/tp"}));
            return;
        }
    }
    if (!check_colossalai_world_tp_pp(r, m)) return;
    const int dp = W / (tp * r.pp);
    if (r.dp > 0 && r.dp != dp) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "topology.dp_matches_world",
            "dp is " + std::to_string(r.dp) + " but world/(tp*pp) gives " + std::to_string(dp), "", {"/layout/dp"}));
        return;
    }

    std::vector<std::string> names = {"dp", "pp"};
    std::vector<int> sizes = {dp, r.pp};
    if (mode == TpMode::two_d) {
        names.insert(names.end(), {"row", "col"});
        sizes.insert(sizes.end(), {q, q});
    } else if (mode == TpMode::two_and_half_d) {
        names.insert(names.end(), {"dep", "row", "col"});
        sizes.insert(sizes.end(), {d, q, q});
    } else {
        names.insert(names.end(), {"output", "input", "weight"});
        sizes.insert(sizes.end(), {d, d, d});
    }
    const Mesh mesh = make_mesh(sizes);
    m.axes = make_axes(names, sizes);
    add_coords(m, mesh, names);
    const Mesh flat = make_mesh({dp, r.pp, tp});
    add_coords(m, flat, {"", "", "tp"});
    m.groups["dp"] = groups_along(mesh, {0});
    m.groups["pp"] = groups_along(mesh, {1});
    m.groups["tp"] = groups_along(flat, {2});
    TensorGrid grid;
    grid.mode = name;
    grid.tp_size = tp;
    grid.depth = mode == TpMode::two_and_half_d ? d : 1;
    grid.blocks.resize(static_cast<std::size_t>(W));
    for (int rk = 0; rk < W; ++rk) grid.blocks[static_cast<std::size_t>(rk)].rank = rk;
    if (mode == TpMode::two_d) {
        // PARALLEL_2D_ROW: same row, col varies; PARALLEL_2D_COL: same col, row varies.
        m.groups["2d_row"] = groups_along(mesh, {3});
        m.groups["2d_col"] = groups_along(mesh, {2});
        grid.dim = q;
        grid.in_blocks = q;
        grid.out_blocks = q;
        for (int rk = 0; rk < W; ++rk) {
            auto& b = grid.blocks[static_cast<std::size_t>(rk)];
            b.in_block = mesh.at(rk, 2);    // row rank (local rank in the COL group)
            b.out_block = mesh.at(rk, 3);   // col rank (local rank in the ROW group)
        }
    } else if (mode == TpMode::two_and_half_d) {
        m.groups["2p5d_row"] = groups_along(mesh, {4});
        m.groups["2p5d_col"] = groups_along(mesh, {3});
        m.groups["2p5d_dep"] = groups_along(mesh, {2});
        m.groups["2p5d_xz"] = groups_along(mesh, {2, 3});
        grid.dim = q;
        grid.in_blocks = q;
        grid.out_blocks = q;
        for (int rk = 0; rk < W; ++rk) {
            auto& b = grid.blocks[static_cast<std::size_t>(rk)];
            b.in_block = mesh.at(rk, 3);
            b.out_block = mesh.at(rk, 4);
            b.replica = mesh.at(rk, 2);
        }
    } else {
        m.groups["3d_input"] = groups_along(mesh, {3});
        m.groups["3d_weight"] = groups_along(mesh, {4});
        m.groups["3d_output"] = groups_along(mesh, {2});
        m.groups["3d_input_x_weight"] = groups_along(mesh, {3, 4});
        m.groups["3d_output_x_weight"] = groups_along(mesh, {2, 4});
        // Linear3D weight [in/d^2, out/d]: in split by the output group then the weight
        // group, out split by the input group (layers alternate by swap_in_out_group;
        // this is the first Linear3D).
        grid.dim = d;
        grid.in_blocks = d * d;
        grid.out_blocks = d;
        for (int rk = 0; rk < W; ++rk) {
            auto& b = grid.blocks[static_cast<std::size_t>(rk)];
            b.in_block = mesh.at(rk, 2) * d + mesh.at(rk, 4);
            b.out_block = mesh.at(rk, 3);
        }
    }
    m.tensor_grid = std::move(grid);
}

}   // namespace paraplan::topology::detail
