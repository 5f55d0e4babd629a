// torchtitan ParallelDims: world mesh (pp, dp_replicate, dp_shard, cp, tp), row-major,
// with dp_shard = -1 inferred, and the EP mesh (pp, dp_replicate, efsdp, ep[, etp])
// where EP borrows the innermost dp_shard*cp*tp ranks (or dp_shard*cp when ETP = TP).
// Source: torchtitan/distributed/parallel_dims.py (ParallelDims._validate, build_mesh) at
// torchtitan v0.2.2 (the ep-divides check: main at b5bcd76c); see docs/topology.md.
#include "topology/group_checks.h"
#include "topology/mesh_builder.h"

namespace paraplan::topology::detail {

void build_torchtitan(const MeshRequest& r, RankMap& m) {
    const int W = r.world;
    for (int d : {r.dp_replicate, r.cp, r.tp, r.pp, r.ep}) {
        if (d < 1) {
            m.diagnostics.push_back(
                make_diag(Severity::Error, "torchtitan.degree_positive",
                          "every parallel degree except dp_shard must be at least 1",
                          "Parallelism degree should be >= 1, except for dp_shard",
                          {"/layout/dp_replicate", "/layout/cp", "/layout/tp", "/layout/pp", "/layout/ep"}));
            return;
        }
    }
    int dp_shard = r.dp_shard;
    if (dp_shard != -1 && dp_shard < 1) {
        m.diagnostics.push_back(make_diag(Severity::Error, "torchtitan.dp_shard_valid",
                                          "dp_shard must be -1 (infer) or at least 1, not " + std::to_string(dp_shard),
                                          "dp_shard must -1 or >=1.", {"/layout/dp_shard"}));
        return;
    }
    const int others = r.dp_replicate * r.cp * r.tp * r.pp;
    if (dp_shard < 0) {
        dp_shard = W / others;
        if (dp_shard < 1) {
            m.diagnostics.push_back(
                make_diag(Severity::Error, "torchtitan.dp_shard_inference",
                          "dp_shard = -1 cannot be inferred: dp_replicate*cp*tp*pp = " + std::to_string(others) +
                              " exceeds the world size " + std::to_string(W),
                          "AssertionError (dp_shard >= 1)", {"/layout/dp_shard"}));
            return;
        }
    }
    if (auto d = torchtitan_world_check(r)) {
        m.diagnostics.push_back(std::move(*d));
        return;
    }
    if (r.dp > 0 && r.dp != r.dp_replicate * dp_shard) {
        m.diagnostics.push_back(make_diag(Severity::Error, "topology.dp_matches_world",
                                          "dp is " + std::to_string(r.dp) + " but dp_replicate*dp_shard is " +
                                              std::to_string(r.dp_replicate * dp_shard),
                                          "", {"/layout/dp"}));
        return;
    }
    // ETP: 0/1 = experts not tensor-parallel (EP borrows cp and tp), == tp = ETP=TP.
    const bool etp_is_tp = r.tp > 1 && r.etp == r.tp;
    if (r.ep > 1 && !(r.etp <= 1 || r.etp == r.tp)) {
        m.diagnostics.push_back(make_diag(Severity::Error, "torchtitan.etp_tp_or_1",
                                          "expert tensor parallel degree must be 1 or equal to tp",
                                          "Currently we only support ETP=TP or ETP=1", {"/layout/etp"}));
        return;
    }
    int efsdp = 0;
    if (r.ep > 1) {
        const int borrow = etp_is_tp ? dp_shard * r.cp : dp_shard * r.cp * r.tp;
        if (borrow % r.ep != 0 || (etp_is_tp && r.ep % r.cp != 0)) {
            m.diagnostics.push_back(
                make_diag(Severity::Error, "torchtitan.ep_divides",
                          "expert_parallel_degree " + std::to_string(r.ep) + " must divide " +
                              (etp_is_tp ? "dp_shard*cp" : "dp_shard*cp*tp") + " = " + std::to_string(borrow) +
                              (etp_is_tp ? " and be a multiple of cp" : ""),
                          "expert_parallel_degree (" + std::to_string(r.ep) + ") must divide dp_shard * cp * tp (" +
                              std::to_string(dp_shard * r.cp * r.tp) + ")",
                          {"/layout/ep"}));
            return;
        }
        efsdp = borrow / r.ep;
    }

    const std::vector<std::string> names = {"pp", "dp_replicate", "dp_shard", "cp", "tp"};
    const std::vector<int> sizes = {r.pp, r.dp_replicate, dp_shard, r.cp, r.tp};
    const Mesh mesh = make_mesh(sizes);
    m.axes = make_axes(names, sizes);
    add_coords(m, mesh, names);
    m.groups["pp"] = groups_along(mesh, {0});
    m.groups["dp_replicate"] = groups_along(mesh, {1});
    m.groups["dp_shard"] = groups_along(mesh, {2});
    m.groups["cp"] = groups_along(mesh, {3});
    m.groups["tp"] = groups_along(mesh, {4});
    m.groups["dp"] = groups_along(mesh, {1, 2});            // data loading ("batch")
    m.groups["dp_shard_cp"] = groups_along(mesh, {2, 3});   // FSDP shard group
    m.groups["dp_cp"] = groups_along(mesh, {1, 2, 3});      // loss all-reduce
    if (r.ep > 1) {
        std::vector<std::string> en = {"pp", "dp_replicate", "efsdp", "ep"};
        std::vector<int> es = {r.pp, r.dp_replicate, efsdp, r.ep};
        if (etp_is_tp) {
            en.push_back("etp");
            es.push_back(r.tp);
        }
        const Mesh emesh = make_mesh(es);
        m.expert_axes = make_axes(en, es);
        add_coords(m, emesh, en);
        m.groups["efsdp"] = groups_along(emesh, {2});
        m.groups["ep"] = groups_along(emesh, {3});
        if (etp_is_tp) m.groups["etp"] = groups_along(emesh, {4});
    } else {
        m.groups["ep"] = groups_along(mesh, {});   // no EP mesh: every rank alone
    }
}

}   // namespace paraplan::topology::detail

namespace paraplan::topology {

std::optional<Diagnostic> torchtitan_world_check(const MeshRequest& r) {
    const int w = r.world;
    if (w <= 0 || r.dp_replicate < 1 || r.cp < 1 || r.tp < 1 || r.pp < 1 || (r.dp_shard < 1 && r.dp_shard != -1))
        return std::nullopt;
    const long long rest = 1LL * r.dp_replicate * r.cp * r.tp * r.pp;
    const long long shard = r.dp_shard == -1 ? w / rest : r.dp_shard;
    if (shard >= 1 && shard * rest == w) return std::nullopt;
    const auto s = [](long long v) { return std::to_string(v); };
    return detail::make_diag(
        Severity::Error, "torchtitan.world_product",
        "dp_replicate × dp_shard × cp × tp × pp = " + s(r.dp_replicate) + " × " + s(shard) + " × " + s(r.cp) + " × " +
            s(r.tp) + " × " + s(r.pp) + " = " + s(shard * rest) + ", not the world size " + s(w) + ".",
        "AssertionError: Invalid parallel dims: dp_replicate(" + s(r.dp_replicate) + ") * dp_shard(" + s(shard) +
            ") * cp(" + s(r.cp) + ") * tp(" + s(r.tp) + ") * pp(" + s(r.pp) + ") != WORLD_SIZE(" + s(w) + ")",
        {"/layout/dp_shard", "/layout/tp", "/layout/pp", "/layout/cp"});
}

}   // namespace paraplan::topology
