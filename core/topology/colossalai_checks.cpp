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

std::optional<Diagnostic> colossalai_moe_dp_ep_check(const MeshRequest& r, int dp) {
    if (dp <= 0 || r.ep <= 0 || dp % r.ep == 0) return std::nullopt;
    const auto s = [](int v) { return std::to_string(v); };
    return detail::make_diag(
        Severity::Error, "colossalai.moe_dp_divisible_ep",
        "Expert parallelism is carved out of data parallelism: dp = " + s(dp) + " is not divisible by ep = " + s(r.ep) +
            ".",
        "AssertionError: dp_size should be divisible by ep_size, self.dp_size=" + s(dp) + " ep_size=" + s(r.ep),
        {"/layout/ep", "/layout/tp", "/layout/pp"});
}

std::optional<Diagnostic> colossalai_gemini_axes_check(const MeshRequest& r) {
    std::vector<std::string> fields;
    std::string fe;
    if (r.pp > 1) {
        fields.push_back("/layout/pp");
        fe = "NotImplementedError: Gemini is not compatible with pipeline. backward_by_grad shoudn't be called in "
             "Gemini.";
    }
    if (r.ep > 1) fields.push_back("/layout/ep");
    if (r.cp > 1) fields.push_back("/layout/cp");
    if (sp_axis_mode(r.sp_mode) || r.sp > 1) fields.push_back("/layout/sp");
    if (fields.empty()) return std::nullopt;
    return detail::make_diag(Severity::Error, "colossalai.gemini_axes",
                             "GeminiPlugin shards over zero × extra_dp × tp only; it has no pipeline, expert, context "
                             "or separate sequence axis (sequence parallelism is split_gather over tp).",
                             fe, fields);
}

std::optional<Diagnostic> colossalai_gemini_world_check(const MeshRequest& r) {
    const int w = r.world, n = r.tp * r.extra_dp;
    if (w <= 0 || r.tp <= 0 || r.extra_dp <= 0 || w % n == 0) return std::nullopt;
    const auto s = [](int v) { return std::to_string(v); };
    std::vector<std::string> fields{"/layout/tp"};
    if (r.extra_dp > 1) fields.push_back("/layout/extra/extra_dp_size");
    return detail::make_diag(Severity::Error, "colossalai.gemini_world_divisible",
                             "The world size " + s(w) + " is not divisible by tp = " + s(r.tp) +
                                 (r.extra_dp > 1 ? " × extra_dp_size " + s(r.extra_dp) + " = " + s(n) : "") + ".",
                             "AssertionError: The global group size can't be evenly divided by the subgroup size.",
                             fields);
}

std::optional<Diagnostic> colossalai_zero_plugin_axes_check(const MeshRequest& r) {
    std::vector<std::string> fields;
    for (const auto& [k, v] : {std::pair<const char*, int>{"/layout/tp", r.tp},
                               {"/layout/pp", r.pp},
                               {"/layout/sp", r.sp},
                               {"/layout/cp", r.cp},
                               {"/layout/ep", r.ep}})
        if (v > 1) fields.emplace_back(k);
    if (fields.empty()) return std::nullopt;
    return detail::make_diag(Severity::Error, "colossalai.zero_plugin_axes",
                             "LowLevelZeroPlugin is pure data parallelism with ZeRO; it has no tensor, pipeline, "
                             "sequence, context or expert axis.",
                             "", fields);
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
