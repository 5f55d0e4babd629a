// Megatron-LM RankGenerator: dense grid (tp, cp, dp, pp) and expert grid (etp, ep,
// edp, pp) over one order string whose leftmost token varies fastest.
// Source: megatron/core/parallel_state.py (RankGenerator,
// generate_masked_orthogonal_rank_groups, initialize_model_parallel) at Megatron-LM
// core_v0.19.0; the rank formula and a worked example are in docs/topology.md.
#include "topology/group_checks.h"
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

// The tokens of an order, lower case, fastest first (RankGenerator lowers the order string).
std::vector<std::string> order_tokens(const std::string& order) {
    std::string lower = order;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    std::vector<std::string> tokens;
    for (std::size_t start = 0; start <= lower.size();) {
        const std::size_t dash = std::min(lower.find('-', start), lower.size());
        tokens.push_back(lower.substr(start, dash - start));
        start = dash + 1;
    }
    return tokens;
}

// Mirrors RankGenerator.__init__ for an order megatron_order_check passed: an axis the order
// leaves out (of size 1) is appended.
Generator make_generator(const std::string& order, const std::map<std::string, int>& size) {
    Generator g;
    g.tokens = order_tokens(order);
    for (const char* name : kTokens)
        if (std::find(g.tokens.begin(), g.tokens.end(), name) == g.tokens.end()) g.tokens.push_back(name);
    std::vector<int> sizes;
    for (auto it = g.tokens.rbegin(); it != g.tokens.rend(); ++it) sizes.push_back(size.at(*it));
    g.mesh = make_mesh(sizes);
    return g;
}

int expert_tp(const MeshRequest& r) { return r.etp > 0 ? r.etp : r.tp; }

}   // namespace

void build_megatron(const MeshRequest& r, RankMap& m) {
    const int W = r.world;
    const std::string order = r.order.empty() ? std::string("tp-cp-ep-dp-pp") : r.order;
    if (auto d = megatron_world_check(r)) {
        m.diagnostics.push_back(std::move(*d));
        return;
    }
    const int dp = W / (r.tp * r.pp * r.cp);
    if (r.dp > 0 && r.dp != dp) {
        m.diagnostics.push_back(make_diag(
            Severity::Error, "topology.dp_matches_world",
            "dp is " + std::to_string(r.dp) + " but world/(tp*pp*cp) gives " + std::to_string(dp), "", {"/layout/dp"}));
        return;
    }
    if (auto d = megatron_expert_world_check(r)) {
        m.diagnostics.push_back(std::move(*d));
        return;
    }
    if (auto d = megatron_order_check(r)) {
        m.diagnostics.push_back(std::move(*d));
        return;
    }
    const int etp = expert_tp(r);
    const int edp = W / (etp * r.ep * r.pp);
    const Generator dense = make_generator(order, {{"tp", r.tp}, {"pp", r.pp}, {"dp", dp}, {"ep", 1}, {"cp", r.cp}});
    const Generator expert = make_generator(order, {{"tp", etp}, {"pp", r.pp}, {"dp", edp}, {"ep", r.ep}, {"cp", 1}});
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

using detail::make_diag;

std::optional<Diagnostic> megatron_world_check(const MeshRequest& r) {
    const int w = r.world, n = r.tp * r.pp * r.cp;
    if (w <= 0 || n <= 0 || w % n == 0) return std::nullopt;
    const auto s = [](int v) { return std::to_string(v); };
    return make_diag(Severity::Error, "megatron.world_divisible",
                     "The world size " + s(w) + " is not divisible by tp × pp × cp = " + s(r.tp) + " × " + s(r.pp) +
                         " × " + s(r.cp) + " = " + s(n) + ", so no whole data-parallel size exists.",
                     "RuntimeError: world_size (" + s(w) + ") is not divisible by " + s(n),
                     {"/layout/tp", "/layout/pp", "/layout/cp"});
}

std::optional<Diagnostic> megatron_expert_world_check(const MeshRequest& r) {
    const int etp = detail::expert_tp(r);
    const int w = r.world, n = etp * r.ep * r.pp;
    if (w <= 0 || n <= 0 || w % n == 0 || (r.ep <= 1 && etp == r.tp)) return std::nullopt;
    const auto s = [](int v) { return std::to_string(v); };
    return make_diag(Severity::Error, "megatron.expert_grid",
                     "Experts use their own grid: world " + s(w) + " must be divisible by etp × ep × pp = " + s(etp) +
                         " × " + s(r.ep) + " × " + s(r.pp) + " = " + s(n) +
                         " (ep is carved out of tp·cp·dp, it does not multiply the world).",
                     "RuntimeError: world_size (" + s(w) +
                         ") is not divisible by expert_tensor_model_pipeline_parallel size (" + s(n) + ")",
                     {"/layout/ep", "/layout/etp", "/layout/pp"});
}

std::optional<Diagnostic> megatron_order_check(const MeshRequest& r) {
    if (r.order.empty()) return std::nullopt;
    const std::vector<std::string> tokens = detail::order_tokens(r.order);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string& t = tokens[i];
        const bool known = std::find(std::begin(detail::kTokens), std::end(detail::kTokens), t) !=
                           std::end(detail::kTokens);
        if (!known)
            return make_diag(
                Severity::Error, "megatron.order_valid",
                "The rank order '" + r.order + "' has an unknown token '" + t + "' (tokens: tp, cp, ep, dp, pp).",
                "KeyError: '" + t + "'", {"/layout/order"});
        if (std::find(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(i), t) !=
            tokens.begin() + static_cast<std::ptrdiff_t>(i))
            return make_diag(Severity::Error, "megatron.order_valid",
                             "The rank order '" + r.order + "' names '" + t + "' twice.", "", {"/layout/order"});
    }
    const int etp = detail::expert_tp(r);
    const int dense = r.tp * r.pp * r.cp, expert = etp * r.ep * r.pp;
    if (r.world <= 0 || dense <= 0 || expert <= 0 || r.world % dense != 0 || r.world % expert != 0) return std::nullopt;
    // Each axis with its size in the dense grid, then in the expert grid (its tp is etp, its dp edp).
    const std::pair<const char*, int> sizes[] = {{"tp", r.tp},
                                                 {"pp", r.pp},
                                                 {"cp", r.cp},
                                                 {"dp", r.world / dense},
                                                 {"ep", r.ep},
                                                 {"tp", etp},
                                                 {"dp", r.world / expert}};
    for (const auto& [name, size] : sizes) {
        if (size <= 1 || std::find(tokens.begin(), tokens.end(), name) != tokens.end()) continue;
        const std::string n = name, v = std::to_string(size);
        return make_diag(Severity::Error, "megatron.order",
                         "The rank order '" + r.order + "' has no " + n + " although " + n + " = " + v + ".",
                         "RuntimeError: The size of (" + n + ") is (" + v + "), but you haven'tspecified the order (" +
                             r.order + ").",
                         {"/layout/order"});
    }
    return std::nullopt;
}

std::optional<MegatronOrder> megatron_cli_order(const std::string& order) {
    const std::vector<std::string> tokens = order.empty() ? std::vector<std::string>{} : detail::order_tokens(order);
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
