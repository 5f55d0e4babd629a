// Megatron-LM RankGenerator: dense grid (tp, cp, dp, pp) and expert grid (etp, ep,
// edp, pp) over one order string whose leftmost token varies fastest.
// Source: megatron/core/parallel_state.py (RankGenerator,
// generate_masked_orthogonal_rank_groups, initialize_model_parallel) at Megatron-LM
// core_v0.19.0; the rank formula and a worked example are in docs/topology.md.
#include "topology/megatron_order.h"
#include "topology/mesh_builder.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace paraplan::topology::detail {
namespace {

const char* const kTokens[] = {"tp", "pp", "dp", "ep", "cp"};

struct Generator {
    std::vector<std::string> tokens;   // order, fastest first, missing size-1 axes appended
    Mesh mesh;                         // sizes outer -> inner (= tokens reversed)
    int axis(const std::string& t) const {
        for (std::size_t i = 0; i < tokens.size(); ++i)
            if (tokens[i] == t) return static_cast<int>(tokens.size() - 1 - i);
        return -1;
    }
    std::vector<int> axes(std::initializer_list<const char*> ts) const {
        std::vector<int> out;
        for (const char* t : ts) out.push_back(axis(t));
        return out;
    }
};

// Mirrors RankGenerator.__init__: an axis of size > 1 missing from the order is an
// error, one of size 1 is appended; unknown or repeated tokens fail.
bool make_generator(const std::string& order, const std::map<std::string, int>& size, const char* grid, Generator& g,
                    RankMap& m) {
    std::string lower = order;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    std::vector<std::string> tokens;
    std::size_t start = 0;
    while (start <= lower.size()) {
        const std::size_t dash = lower.find('-', start);
        const std::string tok = lower.substr(start, dash == std::string::npos ? std::string::npos : dash - start);
        if (!size.count(tok)) {
            m.diagnostics.push_back(
                make_diag(Severity::Error, "megatron.order_valid",
                          "order '" + order + "' has an unknown token '" + tok + "' (tokens: tp, cp, ep, dp, pp)",
                          "KeyError: '" + tok + "'", {"/layout/order"}));
            return false;
        }
        if (std::find(tokens.begin(), tokens.end(), tok) != tokens.end()) {
            m.diagnostics.push_back(make_diag(Severity::Error, "megatron.order_valid",
                                              "order '" + order + "' names '" + tok + "' twice", "",
                                              {"/layout/order"}));
            return false;
        }
        tokens.push_back(tok);
        if (dash == std::string::npos) break;
        start = dash + 1;
    }
    for (const char* name : kTokens) {
        if (std::find(tokens.begin(), tokens.end(), name) != tokens.end()) continue;
        const int s = size.at(name);
        if (s != 1) {
            m.diagnostics.push_back(make_diag(Severity::Error, "megatron.order_missing_axis",
                                              std::string(grid) + " grid: " + name + " has size " + std::to_string(s) +
                                                  " but the order '" + order + "' does not name it",
                                              "The size of (" + std::string(name) + ") is (" + std::to_string(s) +
                                                  "), but you haven'tspecified the order (" + lower + ").",
                                              {"/layout/order"}));
            return false;
        }
        tokens.push_back(name);
    }
    g.tokens = tokens;
    std::vector<int> sizes;
    for (auto it = tokens.rbegin(); it != tokens.rend(); ++it) sizes.push_back(size.at(*it));
    g.mesh = make_mesh(sizes);
    return true;
}

}   // namespace

void build_megatron(const MeshRequest& r, RankMap& m) {
    const int W = r.world;
    const std::string order = r.order.empty() ? std::string("tp-cp-ep-dp-pp") : r.order;
    const int model = r.tp * r.pp * r.cp;
    if (W % model != 0) {
        m.diagnostics.push_back(
            make_diag(Severity::Error, "megatron.world_size_divisible",
                      "world size " + std::to_string(W) + " is not divisible by tp*pp*cp = " + std::to_string(model),
                      "world_size (" + std::to_string(W) + ") is not divisible by " + std::to_string(model),
                      {"/layout/tp", "/layout/pp", "/layout/cp"}));
        return;
    }
    const int dp = W / model;
    if (r.dp > 0 && r.dp != dp) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "topology.dp_matches_world",
            "dp is " + std::to_string(r.dp) + " but world/(tp*pp*cp) gives " + std::to_string(dp), "", {"/layout/dp"}));
        return;
    }
    const int etp = r.etp > 0 ? r.etp : r.tp;
    const int expert_model = etp * r.ep * r.pp;
    if (W % expert_model != 0) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "megatron.expert_world_size_divisible",
            "world size " + std::to_string(W) + " is not divisible by etp*ep*pp = " + std::to_string(expert_model),
            "world_size (" + std::to_string(W) + ") is not divisible by expert_tensor_model_pipeline_parallel size (" +
                std::to_string(expert_model) + ")",
            {"/layout/etp", "/layout/ep", "/layout/pp"}));
        return;
    }
    const int edp = W / expert_model;

    Generator dense, expert;
    if (!make_generator(order, {{"tp", r.tp}, {"pp", r.pp}, {"dp", dp}, {"ep", 1}, {"cp", r.cp}}, "dense", dense, m))
        return;
    if (!make_generator(order, {{"tp", etp}, {"pp", r.pp}, {"dp", edp}, {"ep", r.ep}, {"cp", 1}}, "expert", expert, m))
        return;
    // initialize_model_parallel: EDP must equal DP unless pp is the last (slowest) axis.
    const bool pp_last = order.size() >= 2 && order.compare(order.size() - 2, 2, "pp") == 0;
    if (!pp_last && r.pp > 1 && edp != dp) {
        m.diagnostics.push_back(
            make_diag(Severity::Error, "megatron.expert_dp_matches_dp",
                      "with order '" + order + "' (pp not last) the expert data parallel size " + std::to_string(edp) +
                          " must equal the data parallel size " + std::to_string(dp),
                      "When not using pp-last rank ordering, the data parallel size of the attention and "
                      "moe layers must be the same",
                      {"/layout/order", "/layout/ep", "/layout/etp"}));
        return;
    }
    GroupSet pp = groups_along(dense.mesh, {dense.axis("pp")});
    const GroupSet epp = groups_along(expert.mesh, {expert.axis("pp")});
    if (pp.members != epp.members) {
        m.diagnostics.push_back(
            make_diag(Severity::Error, "megatron.expert_pp_groups_match",
                      "the dense and expert grids give different pipeline groups for order '" + order + "'",
                      "Pipeline parallel groups are expected to be the same for Non-Expert and Expert part",
                      {"/layout/order", "/layout/ep", "/layout/etp"}));
        return;
    }

    // Axes outer -> inner: the order reversed, without the grid's size-1 placeholder.
    auto axes_of = [](const Generator& g, const std::map<std::string, std::string>& rename) {
        std::vector<Axis> out;
        std::vector<std::string> coord;
        for (std::size_t a = 0; a < g.mesh.sizes.size(); ++a) {
            const std::string& tok = g.tokens[g.tokens.size() - 1 - a];
            auto it = rename.find(tok);
            if (it == rename.end()) {
                coord.emplace_back();
                continue;
            }
            out.push_back({it->second, g.mesh.sizes[a], {}});
            coord.push_back(it->second);
        }
        return std::make_pair(out, coord);
    };
    auto [daxes, dnames] = axes_of(dense, {{"tp", "tp"}, {"cp", "cp"}, {"dp", "dp"}, {"pp", "pp"}});
    auto [eaxes, enames] = axes_of(expert, {{"tp", "etp"}, {"ep", "ep"}, {"dp", "edp"}, {"pp", "pp"}});
    m.axes = daxes;
    m.expert_axes = eaxes;
    add_coords(m, dense.mesh, dnames);
    add_coords(m, expert.mesh, enames);

    // Dense groups (get_ranks tokens).
    m.groups["tp"] = groups_along(dense.mesh, dense.axes({"tp"}));
    m.groups["cp"] = groups_along(dense.mesh, dense.axes({"cp"}));
    m.groups["dp"] = groups_along(dense.mesh, dense.axes({"dp"}));
    m.groups["dp_cp"] = groups_along(dense.mesh, dense.axes({"dp", "cp"}));
    m.groups["tp_pp"] = groups_along(dense.mesh, dense.axes({"tp", "pp"}));
    m.groups["tp_cp"] = groups_along(dense.mesh, dense.axes({"tp", "cp"}));
    m.groups["tp_dp"] = groups_along(dense.mesh, dense.axes({"tp", "dp"}));
    m.groups["tp_dp_cp"] = groups_along(dense.mesh, dense.axes({"tp", "dp", "cp"}));
    // Embedding group: first and last rank of each PP group (the group itself when
    // pp == 1); position embedding: the first rank.
    GroupSet emb, pos;
    const int ng = pp.num_groups();
    emb.group_size = r.pp > 1 ? 2 : 1;
    pos.group_size = 1;
    for (int g = 0; g < ng; ++g) {
        const auto grp = pp.group(g);
        emb.members.push_back(grp.front());
        if (r.pp > 1) emb.members.push_back(grp.back());
        pos.members.push_back(grp.front());
    }
    normalize(emb, W);
    normalize(pos, W);
    m.groups["embedding"] = std::move(emb);
    m.groups["position_embedding"] = std::move(pos);
    m.groups["pp"] = std::move(pp);
    // Expert groups.
    m.groups["ep"] = groups_along(expert.mesh, expert.axes({"ep"}));
    m.groups["etp"] = groups_along(expert.mesh, expert.axes({"tp"}));
    m.groups["edp"] = groups_along(expert.mesh, expert.axes({"dp"}));
    m.groups["etp_ep"] = groups_along(expert.mesh, expert.axes({"tp", "ep"}));
    m.groups["etp_ep_pp"] = groups_along(expert.mesh, expert.axes({"tp", "ep", "pp"}));
}

}   // namespace paraplan::topology::detail

namespace paraplan::topology {

std::optional<MegatronOrder> megatron_cli_order(const std::string& order) {
    std::vector<std::string> tokens;
    std::string lower = order;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    for (std::size_t start = 0; !lower.empty() && start <= lower.size();) {
        const std::size_t dash = std::min(lower.find('-', start), lower.size());
        tokens.push_back(lower.substr(start, dash - start));
        start = dash + 1;
    }
    // Whether the tokens appear in `full` in the same order, each once (a subsequence of it).
    const auto within = [&](std::initializer_list<const char*> full) {
        auto it = full.begin();
        for (const auto& t : tokens) {
            while (it != full.end() && t != *it) ++it;
            if (it == full.end()) return false;
            ++it;
        }
        return true;
    };
    if (within({"tp", "cp", "ep", "dp", "pp"})) return MegatronOrder::dp_outside_pp;
    if (within({"tp", "cp", "ep", "pp", "dp"})) return MegatronOrder::pp_outside_dp;
    return std::nullopt;
}

}   // namespace paraplan::topology
