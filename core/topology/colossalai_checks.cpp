#include "topology/colossalai_checks.h"

#include "topology/group_checks.h"

namespace paraplan::topology {

std::optional<Diagnostic> colossalai_world_check(const MeshRequest& r) {
    const int w = r.world, tp = r.tp, pp = r.pp;
    if (w <= 0 || tp <= 0 || pp <= 0 || w % (tp * pp) == 0) return std::nullopt;
    const auto s = [](int v) { return std::to_string(v); };
    return detail::make_diag(
        Severity::Error, "colossalai.world_divisible",
        "The world size " + s(w) + " is not divisible by tp × pp = " + s(tp) + " × " + s(pp) + " = " + s(tp * pp) +
            ", so the GPUs cannot be split into whole pipeline/tensor groups.",
        "AssertionError: World size " + s(w) + " is not divisible by tp_size " + s(tp) + " * pp_size " + s(pp),
        {"/layout/tp", "/layout/pp"});
}

std::optional<Diagnostic> colossalai_sp_mode_tp_check(const MeshRequest& r) {
    if (!sp_tp_mode(r.sp_mode) || r.tp > 1) return std::nullopt;
    const std::string mode = to_string(r.sp_mode);
    return detail::make_diag(
        Severity::Error, "colossalai.sp_mode_needs_tp",
        "Sequence parallelism mode " + mode + " splits the sequence over the tensor-parallel group, but tp is " +
            std::to_string(r.tp) + "; it needs tp > 1.",
        "AssertionError: Sequence parallelism mode " + mode + " must be enabled when using tensor parallelism",
        {"/layout/sp_mode", "/layout/tp"});
}

}   // namespace paraplan::topology

namespace paraplan::topology::detail {

bool check_colossalai_world_tp_pp(const MeshRequest& r, RankMap& m) {
    auto d = colossalai_world_check(r);
    if (d) m.diagnostics.push_back(std::move(*d));
    return !d;
}

bool check_colossalai_sp_mode_tp(const MeshRequest& r, RankMap& m) {
    auto d = colossalai_sp_mode_tp_check(r);
    if (d) m.diagnostics.push_back(std::move(*d));
    return !d;
}

}   // namespace paraplan::topology::detail
