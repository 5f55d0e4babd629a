#include "topology/colossalai_checks.h"

namespace paraplan::topology::detail {

bool check_colossalai_world_tp_pp(const MeshRequest& r, RankMap& m) {
    if (r.world % (r.tp * r.pp) == 0) return true;
    m.diagnostics.push_back(make_diag(Severity::Error, "colossalai.world_size_divisible",
                                      "world size " + std::to_string(r.world) +
                                          " is not divisible by tp_size*pp_size = " + std::to_string(r.tp * r.pp),
                                      "World size " + std::to_string(r.world) + " is not divisible by tp_size " +
                                          std::to_string(r.tp) + " * pp_size " + std::to_string(r.pp),
                                      {"/layout/tp", "/layout/pp"}));
    return false;
}

bool check_colossalai_sp_mode_tp(const MeshRequest& r, RankMap& m) {
    if (r.tp > 1) return true;
    m.diagnostics.push_back(make_diag(
        Severity::Error, "colossalai.sp_mode_requires_tp",
        "sequence parallelism mode " + std::string(to_string(r.sp_mode)) + " reuses the TP group and needs tp_size > 1",
        "Sequence parallelism mode " + std::string(to_string(r.sp_mode)) +
            " must be enabled when using tensor parallelism",
        {"/layout/sp_mode", "/layout/tp"}));
    return false;
}

}   // namespace paraplan::topology::detail
