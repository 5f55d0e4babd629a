// DeepSpeed PipeModelDataParallelTopology: ProcessTopology(axes=['pipe', 'data',
// 'model']) is row-major, so TP ('model') is innermost, then DP, then PP. ZeRO
// partitions over the 'data' axis.
// Source: deepspeed/runtime/pipe/topology.py, deepspeed/runtime/pipe/module.py
// ("num_stages must divide distributed world size") at DeepSpeed v0.16.5; a worked
// example is in docs/topology.md.
#include "topology/group_checks.h"
#include "topology/mesh_builder.h"

namespace paraplan::topology::detail {

void build_deepspeed(const MeshRequest& r, RankMap& m) {
    const int W = r.world;
    if (auto d = deepspeed_world_check(r)) {
        m.diagnostics.push_back(std::move(*d));
        return;
    }
    const int dp = W / (r.pp * r.tp);
    if (r.dp > 0 && r.dp != dp) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "topology.dp_matches_world",
            "dp is " + std::to_string(r.dp) + " but world/(pp*tp) gives " + std::to_string(dp), "", {"/layout/dp"}));
        return;
    }
    const Mesh mesh = make_mesh({r.pp, dp, r.tp});
    m.axes = {{"pp", r.pp, "pipe"}, {"dp", dp, "data"}, {"tp", r.tp, "model"}};
    add_coords(m, mesh, {"pp", "dp", "tp"});
    m.groups["pp"] = groups_along(mesh, {0});
    m.groups["dp"] = groups_along(mesh, {1});   // also ZeRO's partition group
    m.groups["tp"] = groups_along(mesh, {2});
}

}   // namespace paraplan::topology::detail

namespace paraplan::topology {

std::optional<Diagnostic> deepspeed_world_check(const MeshRequest& r) {
    const int w = r.world, n = r.pp * r.tp;
    if (w <= 0 || n <= 0 || w % n == 0) return std::nullopt;
    const auto s = [](int v) { return std::to_string(v); };
    return detail::make_diag(
        Severity::Error, "deepspeed.world_divisible",
        "The world size " + s(w) + " is not divisible by pp × tp = " + s(n) + ".",
        r.tp == 1 ? "AssertionError: num_stages (" + s(r.pp) + ") must divide distributed world size (" + s(w) + ")"
                  : "",
        {"/layout/pp", "/layout/tp"});
}

}   // namespace paraplan::topology
