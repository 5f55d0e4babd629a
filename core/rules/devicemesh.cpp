// A plain torch.distributed.device_mesh DeviceMesh (PyTorch v2.4).
#include "rules/devicemesh.h"

#include "rules/common.h"
#include "rules/shared_rules.h"

#include <algorithm>

namespace paraplan::rules {
namespace {

void dm_world(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const int w = p.world_size();
    const long long m = 1LL * l.tp * l.pp * l.sp * l.cp;
    if (w <= 0 || m <= 0 || w % m == 0) return;
    auto d = diag(
        Severity::Error, "devicemesh.world_divisible",
        "The mesh tp × pp × sp × cp = " + str(m) + " does not divide the world size " + str(w) + ".",
        "RuntimeError: ('Mesh should not be bigger than default world size ...' / mesh shape product != world size)",
        {"/layout/tp", "/layout/pp", "/layout/sp", "/layout/cp"});
    add_fixes(d, &dm_world, p,
              knob_candidates(p, {"/layout/tp", "/layout/pp", "/layout/sp", "/layout/cp"}, world_divisors(p)));
    out.push_back(d);
}

void dm_heads(const Project& p, Out& out) { tp_divides_heads(p, out, &dm_heads, "devicemesh.tp_divides_heads", ""); }

void dm_batch(const Project& p, Out& out) { batch_divisible(p, out, &dm_batch, "devicemesh.batch_divisible", ""); }

}   // namespace

const std::vector<RuleFn>& devicemesh_rules() {
    static const std::vector<RuleFn> r = framework_rule_list({&dm_world, &dp_matches, &dm_heads, &dm_batch},
                                                             {&fp8_all_gather_ignored});
    return r;
}

}   // namespace paraplan::rules
