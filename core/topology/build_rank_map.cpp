#include "topology/build_rank_map.h"

#include "project/framework.h"
#include "topology/mesh_builder.h"

#include <algorithm>

namespace paraplan::topology {
namespace {

using detail::make_diag;

constexpr int kMaxWorld = 1 << 22;

// Checks every framework shares: positive sizes that fit the world. Keeps the
// builders' int products from overflowing.
bool check_sizes(const MeshRequest& r, RankMap& m) {
    if (r.world < 1 || r.world > kMaxWorld) {
        m.diagnostics.push_back(
            make_diag(Severity::Error, "topology.world_size_valid",
                      "world size " + std::to_string(r.world) + " must be between 1 and " + std::to_string(kMaxWorld),
                      "", {"/cluster"}));
        return false;
    }
    struct Named {
        const char* field;
        int value;
    };
    const FrameworkTraits* ft = find_traits(r.framework);
    const bool titan = ft && ft->reports_degrees_itself;   // ParallelDims reports its own message
    const Named sizes[] = {{"tp", r.tp},
                           {"pp", r.pp},
                           {"sp", r.sp},
                           {"cp", r.cp},
                           {"ep", r.ep},
                           {"dp_replicate", r.dp_replicate},
                           {"tp_depth", r.tp_depth}};
    for (const auto& s : sizes) {
        if (s.value < 1 && !titan) {
            m.diagnostics.push_back(
                make_diag(Severity::Error, "topology.degree_positive",
                          std::string(s.field) + " is " + std::to_string(s.value) + "; it must be at least 1", "",
                          {std::string("/layout/") + s.field}));
            return false;
        }
        if (s.value > r.world) {
            m.diagnostics.push_back(make_diag(Severity::Error, "topology.degree_fits_world",
                                              std::string(s.field) + " = " + std::to_string(s.value) +
                                                  " is larger than the world size " + std::to_string(r.world),
                                              "", {std::string("/layout/") + s.field}));
            return false;
        }
    }
    if (r.extra_dp < 1 || r.extra_dp > r.world) {
        m.diagnostics.push_back(
            make_diag(Severity::Error, "topology.degree_positive",
                      "extra_dp_size is " + std::to_string(r.extra_dp) + "; it must be 1.." + std::to_string(r.world),
                      "", {"/layout/extra/extra_dp_size"}));
        return false;
    }
    if (r.etp < 0 || r.etp > r.world || r.dp < 0 || r.dp > r.world || r.dp_shard > r.world || r.inner_ring_size < 0 ||
        r.inner_ring_size > r.world) {
        m.diagnostics.push_back(
            make_diag(Severity::Error, "topology.degree_fits_world",
                      "etp, dp, dp_shard and inner_ring_size must lie between 0 and the world size", "",
                      {"/layout/etp", "/layout/dp", "/layout/dp_shard", "/layout/inner_ring_size"}));
        return false;
    }
    // Products the builders form must stay within the world (else they cannot divide it).
    const bool sp_axis = sp_axis_mode(r.sp_mode) || (ft && ft->world.sp && !ft->world.sp_only_in_axis_mode);
    const long long etp = r.etp > 0 ? r.etp : r.tp;
    const long long products[] = {
        1LL * r.tp * r.pp * r.cp * (sp_axis ? r.sp : 1),
        etp * r.ep * r.pp,
        1LL * std::max(r.dp_replicate, 1) * std::max(r.dp_shard, 1) * r.cp * r.tp * r.pp,
        1LL * r.tp * r.extra_dp,
    };
    for (long long p : products) {
        if (p > r.world) {
            m.diagnostics.push_back(make_diag(Severity::Error, "topology.degree_fits_world",
                                              "the parallel sizes multiply to " + std::to_string(p) +
                                                  ", more than the world size " + std::to_string(r.world),
                                              "",
                                              {"/layout/tp", "/layout/pp", "/layout/cp", "/layout/sp", "/layout/ep"}));
            return false;
        }
    }
    return true;
}

void place(const MeshRequest& r, const Cluster* cluster, RankMap& m) {
    const int W = r.world;
    if (cluster && cluster->world_size() == W) {
        m.placement = cluster->placement();
    } else {
        if (cluster && !cluster->nodes.empty())
            m.diagnostics.push_back(make_diag(
                Severity::Warning, "topology.cluster_world_mismatch",
                "the cluster has " + std::to_string(cluster->world_size()) + " GPUs but the layout asks for " +
                    std::to_string(W) + "; ranks are placed on uniform nodes of " + std::to_string(r.gpus_per_node),
                "", {"/cluster"}));
        const int g = r.gpus_per_node > 0 ? r.gpus_per_node : W;
        m.placement.resize(static_cast<std::size_t>(W));
        for (int rk = 0; rk < W; ++rk) m.placement[static_cast<std::size_t>(rk)] = {rk / g, rk % g};
    }
    int maxn = -1;
    for (auto& s : m.placement) {
        if (s.node < 0) s.node = 0;
        maxn = std::max(maxn, s.node);
    }
    m.num_nodes = maxn + 1;
}

void compute_spans(RankMap& m) {
    // Node of each rank in one flat array (the placement's slots are twice as wide).
    std::vector<int> node_of(m.placement.size());
    for (std::size_t r = 0; r < node_of.size(); ++r) node_of[r] = m.placement[r].node;
    std::vector<int> stamp(static_cast<std::size_t>(m.num_nodes), -1);
    int tick = 0;
    for (auto& [kind, gs] : m.groups) {
        const int ng = gs.num_groups();
        if (gs.group_size == 1) {   // one rank: one node
            gs.nodes_spanned.assign(static_cast<std::size_t>(ng), 1);
            continue;
        }
        gs.nodes_spanned.assign(static_cast<std::size_t>(ng), 0);
        for (int g = 0; g < ng; ++g, ++tick) {
            int n = 0;
            for (int rk : gs.group(g)) {
                const int node = node_of[static_cast<std::size_t>(rk)];
                if (stamp[static_cast<std::size_t>(node)] != tick) {
                    stamp[static_cast<std::size_t>(node)] = tick;
                    ++n;
                }
            }
            gs.nodes_spanned[static_cast<std::size_t>(g)] = n;
        }
    }
}

// PipelineStageManager prev/next: the neighbour on the PP axis with wrap (ColossalAI
// ravel mode="wrap"; Megatron get_pipeline_model_parallel_{prev,next}_rank).
void pipeline_neighbours(RankMap& m) {
    const GroupSet* pp = m.group_set("pp");
    if (!pp) return;
    m.pp_prev.assign(static_cast<std::size_t>(m.world_size), -1);
    m.pp_next.assign(static_cast<std::size_t>(m.world_size), -1);
    const int n = pp->group_size;
    for (int g = 0; g < pp->num_groups(); ++g) {
        const auto grp = pp->group(g);
        for (int i = 0; i < n; ++i) {
            const auto rk = static_cast<std::size_t>(grp[static_cast<std::size_t>(i)]);
            m.pp_prev[rk] = grp[static_cast<std::size_t>((i + n - 1) % n)];
            m.pp_next[rk] = grp[static_cast<std::size_t>((i + 1) % n)];
        }
    }
}

}   // namespace

RankMap build_rank_map(const MeshRequest& req, const Cluster* cluster) {
    RankMap m;
    m.framework = req.framework;
    m.world_size = req.world;
    if (!check_sizes(req, m)) return m;
    const std::optional<Framework> f = parse_framework(req.framework);
    if (!f) {
        m.diagnostics.push_back(
            make_diag(Severity::Error, "topology.framework_supported",
                      "unknown framework '" + req.framework +
                          "' (colossalai, colossalai-moe, colossalai-gemini, colossalai-zero, megatron, "
                          "torchtitan, deepspeed, devicemesh)",
                      "", {"/layout/framework"}));
    } else {
        switch (*f) {
        case Framework::colossalai: detail::build_colossalai(req, m); break;
        case Framework::colossalai_moe: detail::build_colossalai_moe(req, m); break;
        case Framework::colossalai_gemini: detail::build_colossalai_gemini(req, m); break;
        case Framework::colossalai_zero: detail::build_colossalai_zero(req, m); break;
        case Framework::megatron: detail::build_megatron(req, m); break;
        case Framework::torchtitan: detail::build_torchtitan(req, m); break;
        case Framework::deepspeed: detail::build_deepspeed(req, m); break;
        case Framework::devicemesh: detail::build_devicemesh(req, m); break;
        }
    }
    if (!m.valid()) {
        m.axes.clear();
        m.expert_axes.clear();
        m.coord_names.clear();
        m.coords_flat.clear();
        m.groups.clear();
        m.tensor_grid.reset();
        return m;
    }
    place(req, cluster, m);
    compute_spans(m);
    pipeline_neighbours(m);
    return m;
}

}   // namespace paraplan::topology
