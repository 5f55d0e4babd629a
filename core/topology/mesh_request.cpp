#include "topology/mesh_request.h"

#include "project/project.h"

namespace paraplan::topology {

MeshRequest from_project(const Project& p) {
    MeshRequest r;
    const Layout& l = p.layout;
    r.framework = l.framework;
    r.world = p.cluster.world_size();
    if (p.cluster.gpus_per_node() > 0) r.gpus_per_node = p.cluster.gpus_per_node();
    r.tp = l.tp;
    r.pp = l.pp;
    r.sp = l.sp;
    r.sp_mode = l.sp_mode;
    r.cp = l.cp;
    r.ep = l.ep;
    r.etp = l.etp;
    r.dp = l.dp;
    r.dp_shard = l.dp_shard;
    r.dp_replicate = l.dp_replicate;
    r.order = l.order;
    r.dp_outside = l.dp_outside;
    r.inner_ring_size = l.inner_ring_size;
    r.tp_mode = l.tp_mode;
    r.tp_depth = l.tp_depth;
    if (const nlohmann::json* e = l.extra.find("extra_dp_size"); e && e->is_number_integer())
        r.extra_dp = e->get<int>();
    return r;
}

}   // namespace paraplan::topology
