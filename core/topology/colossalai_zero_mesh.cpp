// ColossalAI GeminiPlugin (mesh (zero, extra_dp, tp)) and LowLevelZeroPlugin (pure
// ZeRO-1/2 DP; mesh (extra_dp, dp) when extra_dp_size > 1).
// Source: colossalai/booster/plugin/gemini_plugin.py (GeminiPlugin.__init__),
// low_level_zero_plugin.py (LowLevelZeroPlugin.__init__) at ColossalAI v0.5.1.
#include "topology/group_checks.h"
#include "topology/mesh_builder.h"

namespace paraplan::topology::detail {

void build_colossalai_gemini(const MeshRequest& r, RankMap& m) {
    const int W = r.world;
    for (auto d : {colossalai_gemini_axes_check(r), colossalai_gemini_world_check(r)})
        if (d) {
            m.diagnostics.push_back(std::move(*d));
            return;
        }
    const int zero = W / (r.tp * r.extra_dp);
    if (r.dp > 0 && r.dp != zero * r.extra_dp) {
        m.diagnostics.push_back(
            make_diag(Severity::Error, "topology.dp_matches_world",
                      "dp is " + std::to_string(r.dp) + " but world/tp gives " + std::to_string(zero * r.extra_dp), "",
                      {"/layout/dp"}));
        return;
    }
    const std::vector<std::string> names = {"zero", "extra_dp", "tp"};
    const std::vector<int> sizes = {zero, r.extra_dp, r.tp};
    const Mesh mesh = make_mesh(sizes);
    m.axes = make_axes(names, sizes);
    add_coords(m, mesh, names);
    m.groups["zero"] = groups_along(mesh, {0});   // ZeRO-3 chunk shard group
    m.groups["extra_dp"] = groups_along(mesh, {1});
    m.groups["tp"] = groups_along(mesh, {2});
    // No group spans both data axes: dp_size = zero * extra_dp only sizes the sampler.
    // Sequence parallelism in Gemini is split_gather over the TP group (only with tp > 1).
    if (r.sp_mode != SpMode::none && r.tp > 1) m.groups["sp"] = m.groups["tp"];
}

void build_colossalai_zero(const MeshRequest& r, RankMap& m) {
    const int W = r.world;
    if (auto d = colossalai_zero_plugin_axes_check(r)) {
        m.diagnostics.push_back(std::move(*d));
        return;
    }
    if (r.extra_dp < 1 || W % r.extra_dp != 0) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "colossalai.zero_extra_dp_divides_world",
            "extra_dp_size " + std::to_string(r.extra_dp) + " does not divide world size " + std::to_string(W),
            "extra_dp_size should be a factor of world_size", {"/layout/extra/extra_dp_size"}));
        return;
    }
    const int inner = W / r.extra_dp;
    if (r.dp > 0 && r.dp != W) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "topology.dp_matches_world",
            "dp is " + std::to_string(r.dp) + " but LowLevelZeroPlugin uses every rank (" + std::to_string(W) + ")", "",
            {"/layout/dp"}));
        return;
    }
    if (r.extra_dp > 1) {
        const Mesh mesh = make_mesh({r.extra_dp, inner});
        m.axes = make_axes({"extra_dp", "dp"}, {r.extra_dp, inner});
        add_coords(m, mesh, {"extra_dp", "dp"});
        m.groups["extra_dp"] = groups_along(mesh, {0});
        m.groups["dp"] = groups_along(mesh, {1});   // the ZeRO partition group
    } else {
        const Mesh mesh = make_mesh({W});
        m.axes = make_axes({"dp"}, {W});
        add_coords(m, mesh, {"dp"});
        m.groups["dp"] = groups_along(mesh, {0});
    }
}

}   // namespace paraplan::topology::detail
