#include "topology/rank_map.h"

#include <algorithm>

namespace paraplan::topology {

int RankMap::coord_index(std::string_view name) const {
    for (std::size_t i = 0; i < coord_names.size(); ++i)
        if (coord_names[i] == name) return static_cast<int>(i);
    return -1;
}

int RankMap::coord(int rank, std::string_view name) const {
    const int i = coord_index(name);
    if (i < 0 || rank < 0 || rank >= world_size) return -1;
    return coords(rank)[static_cast<std::size_t>(i)];
}

const GroupSet* RankMap::group_set(std::string_view kind) const {
    auto it = groups.find(std::string(kind));
    return it == groups.end() ? nullptr : &it->second;
}

std::span<const int> RankMap::group_of(std::string_view kind, int rank) const {
    const GroupSet* g = group_set(kind);
    if (!g || rank < 0 || rank >= world_size) return {};
    const int idx = g->group_index[static_cast<std::size_t>(rank)];
    if (idx < 0) return {};
    return g->group(idx);
}

GroupSpan RankMap::group_span(std::string_view kind, int group_index) const {
    const GroupSet* g = group_set(kind);
    if (!g || group_index < 0 || group_index >= static_cast<int>(g->nodes_spanned.size())) return {};
    const int n = g->nodes_spanned[static_cast<std::size_t>(group_index)];
    return {n, n > 1};
}

GroupSummary RankMap::summary(std::string_view kind) const {
    GroupSummary s;
    s.kind = std::string(kind);
    const GroupSet* g = group_set(kind);
    if (!g) return s;
    s.group_size = g->group_size;
    s.num_groups = g->num_groups();
    if (!g->nodes_spanned.empty()) {
        s.min_nodes_spanned = *std::min_element(g->nodes_spanned.begin(), g->nodes_spanned.end());
        s.max_nodes_spanned = *std::max_element(g->nodes_spanned.begin(), g->nodes_spanned.end());
        s.groups_crossing_nodes = static_cast<int>(
            std::count_if(g->nodes_spanned.begin(), g->nodes_spanned.end(), [](int n) { return n > 1; }));
    }
    return s;
}

std::vector<GroupSummary> RankMap::summaries() const {
    std::vector<GroupSummary> out;
    for (const auto& [kind, g] : groups) out.push_back(summary(kind));
    return out;
}

std::vector<std::vector<int>> RankMap::group_list(std::string_view kind) const {
    std::vector<std::vector<int>> out;
    const GroupSet* g = group_set(kind);
    if (!g) return out;
    for (int i = 0; i < g->num_groups(); ++i) {
        const auto grp = g->group(i);
        out.emplace_back(grp.begin(), grp.end());
    }
    return out;
}

namespace {

nlohmann::json axes_json(const std::vector<Axis>& axes) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& ax : axes) {
        nlohmann::json j = {{"name", ax.name}, {"size", ax.size}};
        if (!ax.native.empty()) j["native"] = ax.native;
        a.push_back(std::move(j));
    }
    return a;
}

}   // namespace

nlohmann::json to_json(const RankMap& m) {
    if (!m.valid()) return {{"valid", false}, {"diagnostics", paraplan::to_json(m.diagnostics)}};
    nlohmann::json out;
    out["valid"] = true;
    out["framework"] = m.framework;
    out["world_size"] = m.world_size;
    out["num_nodes"] = m.num_nodes;
    out["axes"] = axes_json(m.axes);
    if (!m.expert_axes.empty()) out["expert_axes"] = axes_json(m.expert_axes);
    nlohmann::json ranks = nlohmann::json::array();
    for (int r = 0; r < m.world_size; ++r) {
        nlohmann::json c = nlohmann::json::object();
        const auto cs = m.coords(r);
        for (std::size_t i = 0; i < m.coord_names.size(); ++i) c[m.coord_names[i]] = cs[i];
        const GpuSlot& s = m.placement[static_cast<std::size_t>(r)];
        nlohmann::json e = {{"rank", r}, {"coords", std::move(c)}, {"node", s.node}, {"local_rank", s.local_rank}};
        if (!m.pp_prev.empty()) {
            e["pp_prev"] = m.pp_prev[static_cast<std::size_t>(r)];
            e["pp_next"] = m.pp_next[static_cast<std::size_t>(r)];
        }
        ranks.push_back(std::move(e));
    }
    out["ranks"] = std::move(ranks);
    nlohmann::json groups = nlohmann::json::object();
    nlohmann::json spans = nlohmann::json::object();
    for (const auto& [kind, g] : m.groups) {
        groups[kind] = m.group_list(kind);
        const GroupSummary s = m.summary(kind);
        spans[kind] = {{"group_size", s.group_size},
                       {"num_groups", s.num_groups},
                       {"groups_crossing_nodes", s.groups_crossing_nodes},
                       {"max_nodes_spanned", s.max_nodes_spanned},
                       {"min_nodes_spanned", s.min_nodes_spanned},
                       {"nodes_spanned", g.nodes_spanned}};
    }
    out["groups"] = std::move(groups);
    out["group_spans"] = std::move(spans);
    if (m.tensor_grid) {
        const TensorGrid& t = *m.tensor_grid;
        nlohmann::json blocks = nlohmann::json::array();
        for (const auto& b : t.blocks)
            blocks.push_back(
                {{"rank", b.rank}, {"in_block", b.in_block}, {"out_block", b.out_block}, {"replica", b.replica}});
        out["tensor_grid"] = {{"mode", t.mode},
                              {"tp_size", t.tp_size},
                              {"dim", t.dim},
                              {"depth", t.depth},
                              {"in_blocks", t.in_blocks},
                              {"out_blocks", t.out_blocks},
                              {"blocks", std::move(blocks)}};
    }
    out["diagnostics"] = paraplan::to_json(m.diagnostics);
    return out;
}

}   // namespace paraplan::topology
