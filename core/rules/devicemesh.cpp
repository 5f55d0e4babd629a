// A plain torch.distributed.device_mesh DeviceMesh (PyTorch v2.4).
#include "rules/devicemesh.h"

#include "topology/group_checks.h"
#include "topology/mesh_request.h"

#include "rules/common.h"
#include "rules/shared_rules.h"

#include <algorithm>

namespace paraplan::rules {
namespace {

// The mesh the dims make (topology/group_checks.h devicemesh_dims, one implementation with the rank
// map builder): a bad dim order, or dims whose product is not the world.
void dm_world(const Project& p, Out& out) {
    auto d = topology::devicemesh_dims(topology::from_project(p)).finding;
    if (!d) return;
    std::vector<Fix> c;
    if (d->rule == "devicemesh.world_divisible")
        c = knob_candidates(p, {"/layout/tp", "/layout/pp", "/layout/sp", "/layout/cp"}, world_divisors(p));
    if (!p.layout.order.empty()) c.push_back(set_value("/layout/order", "", "Use the default dim order pp-dp-cp-tp"));
    add_fixes(*d, &dm_world, p, c);
    out.push_back(std::move(*d));
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
