// ColossalAI MoeHybridParallelPlugin: mesh (moe_dp, pp, ep, tp, sp) or, with
// moe_dp_outside=False, (pp, moe_dp, ep, tp, sp).
// Source: colossalai/booster/plugin/moe_hybrid_parallel_plugin.py
// (MoeHybridParallelPlugin.__init__) at ColossalAI v0.5.1; example in docs/topology.md.
#include "topology/colossalai_checks.h"
#include "topology/group_checks.h"
#include "topology/mesh_builder.h"

namespace paraplan::topology::detail {

void build_colossalai_moe(const MeshRequest& r, RankMap& m) {
    const int W = r.world;
    if (!check_colossalai_world_tp_pp(r, m)) return;
    int sp = 1;
    int dp = 0;
    if (sp_tp_mode(r.sp_mode)) {
        if (!check_colossalai_sp_mode_tp(r, m)) return;
        dp = W / (r.tp * r.pp);
    } else if (r.sp_mode == SpMode::all_to_all) {
        sp = r.sp;
        dp = W / (r.tp * r.pp * sp);
    } else if (r.sp_mode == SpMode::ring_attn) {
        // The plugin's SP branch only handles all_to_all: ring_attn never sets dp_size.
        m.diagnostics.push_back(make_diag(
            Severity::Error, "colossalai.moe_sp_mode_supported",
            "MoeHybridParallelPlugin does not support ring_attn (only all_to_all, split_gather, ring)",
            "AttributeError: 'MoeHybridParallelPlugin' object has no attribute 'dp_size'", {"/layout/sp_mode"}));
        return;
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
    if (auto d = colossalai_moe_dp_ep_check(r, dp)) {
        m.diagnostics.push_back(std::move(*d));
        return;
    }
    const int moe_dp = dp / r.ep;
    if (moe_dp * r.pp * r.ep * r.tp * sp != W) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "colossalai.world_size_divisible_sp",
            "world size " + std::to_string(W) + " is not divisible by tp*pp*sp = " + std::to_string(r.tp * r.pp * sp),
            "The product of the size(" + std::to_string(moe_dp * r.pp * r.ep * r.tp * sp) +
                ") must be equal to the world size(" + std::to_string(W) + ").",
            {"/layout/tp", "/layout/pp", "/layout/sp"}));
        return;
    }
    if (r.dp > 0 && r.dp != dp) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "topology.dp_matches_world",
            "dp is " + std::to_string(r.dp) + " but world/(tp*pp*sp) gives " + std::to_string(dp), "", {"/layout/dp"}));
        return;
    }
    std::vector<std::string> names;
    std::vector<int> sizes;
    if (r.dp_outside) {
        names = {"moe_dp", "pp", "ep", "tp", "sp"};
        sizes = {moe_dp, r.pp, r.ep, r.tp, sp};
    } else {
        names = {"pp", "moe_dp", "ep", "tp", "sp"};
        sizes = {r.pp, moe_dp, r.ep, r.tp, sp};
    }
    const int MOE_DP = r.dp_outside ? 0 : 1, PP = r.dp_outside ? 1 : 0, EP = 2, TP = 3, SP = 4;
    const Mesh mesh = make_mesh(sizes);
    m.axes = make_axes(names, sizes);
    add_coords(m, mesh, names);
    m.groups["tp"] = groups_along(mesh, {TP});
    m.groups["pp"] = groups_along(mesh, {PP});
    m.groups["ep"] = groups_along(mesh, {EP});
    m.groups["moe_dp"] = groups_along(mesh, {MOE_DP});
    m.groups["dp"] = groups_along(mesh, {MOE_DP, EP});   // non-expert parameters sync here
    if (sp_tp_mode(r.sp_mode)) m.groups["sp"] = m.groups["tp"];
    else m.groups["sp"] = groups_along(mesh, {SP});
    if (r.sp_mode == SpMode::all_to_all) m.groups["mixed_dp"] = groups_along(mesh, {MOE_DP, EP, SP});
    else m.groups["mixed_dp"] = m.groups["dp"];
}

}   // namespace paraplan::topology::detail
