// Properties of every rank map over thousands of random layouts (deterministic seed):
// each axis's groups partition the ranks, have the axis's size, list ranks in
// coordinate order, two axes' groups share at most one rank, coordinates round-trip
// through the row-major rank formula, node spans match the placement, and invalid
// layouts come back as diagnostics without groups. PARAPLAN_TOPOLOGY_CASES sets the
// number of layouts (default 1500; lower it under sanitizers).
#include "core/topology_test_util.h"

#include <cstdlib>
#include <random>
#include <set>

using namespace paraplan::topology;

namespace {

struct Gen {
    std::mt19937 rng{20261129u};
    int pick(std::initializer_list<int> xs) {
        std::vector<int> v(xs);
        return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
    }
    int factor() { return pick({1, 1, 1, 2, 2, 2, 3, 4, 4, 8, 16}); }
    bool coin() { return pick({0, 1}) == 1; }
};

constexpr long long kMaxWorld = 16384;

// A random request; its sizes are built from factors so that most are valid.
MeshRequest random_request(Gen& g) {
    static const char* const frameworks[] = {"colossalai", "colossalai-moe", "colossalai-gemini", "colossalai-zero",
                                             "megatron",   "torchtitan",     "deepspeed",         "devicemesh"};
    for (;;) {
        MeshRequest r;
        r.framework = frameworks[g.pick({0, 1, 2, 3, 4, 4, 5, 5, 6, 7})];
        r.gpus_per_node = g.pick({1, 2, 4, 8, 8, 16});
        const int tp = g.factor(), pp = g.factor(), dp = g.factor() * g.pick({1, 2, 4}), sp = g.factor(),
                  cp = g.factor();
        r.tp = tp;
        r.pp = pp;
        long long world = 1LL * tp * pp * dp;
        if (r.framework == "colossalai") {
            r.sp_mode = g.pick({0, 1, 2, 3, 4}) == 0
                            ? paraplan::SpMode::none
                            : std::vector<paraplan::SpMode>{
                                  paraplan::SpMode::none, paraplan::SpMode::split_gather, paraplan::SpMode::ring,
                                  paraplan::SpMode::all_to_all,
                                  paraplan::SpMode::ring_attn}[static_cast<std::size_t>(g.pick({0, 1, 2, 3, 4}))];
            if ((r.sp_mode == paraplan::SpMode::split_gather || r.sp_mode == paraplan::SpMode::ring) && tp == 1)
                r.sp_mode = paraplan::SpMode::none;
            if (r.sp_mode == paraplan::SpMode::all_to_all || r.sp_mode == paraplan::SpMode::ring_attn) {
                r.sp = sp;
                world *= sp;
                if (r.sp_mode == paraplan::SpMode::ring_attn && sp == 4 && g.coin()) r.inner_ring_size = 2;
            }
            r.dp_outside = g.coin();
        } else if (r.framework == "colossalai-moe") {
            r.ep = g.factor();
            world *= r.ep;
            if (g.coin()) {
                r.sp_mode = paraplan::SpMode::all_to_all;
                r.sp = sp;
                world *= sp;
            }
            r.dp_outside = g.coin();
        } else if (r.framework == "colossalai-gemini") {
            r.pp = 1;
            r.extra_dp = g.factor();
            world = 1LL * tp * r.extra_dp * dp;
        } else if (r.framework == "colossalai-zero") {
            r.tp = r.pp = 1;
            r.extra_dp = g.factor();
            world = 1LL * r.extra_dp * dp;
        } else if (r.framework == "megatron") {
            r.cp = cp;
            world *= cp;
            r.order = std::vector<std::string>{"",
                                               "tp-cp-ep-dp-pp",
                                               "tp-cp-ep-pp-dp",
                                               "tp-cp-pp-ep-dp",
                                               "tp-ep-dp-pp",
                                               "tp-pp-ep-dp"}[static_cast<std::size_t>(g.pick({0, 1, 2, 3, 4, 5}))];
            r.ep = g.factor();
            r.etp = g.pick({0, 1, tp});
        } else if (r.framework == "torchtitan") {
            r.cp = cp;
            r.dp_replicate = g.factor();
            r.dp_shard = dp;
            world = 1LL * pp * r.dp_replicate * dp * cp * tp;
            if (g.coin()) r.dp_shard = -1;
            r.ep = g.pick({1, 1, 2, 4, 8});
            r.etp = g.pick({0, 1, tp});
        } else if (r.framework == "devicemesh") {
            r.cp = cp;
            world *= cp;
            std::vector<std::string> dims = {"pp", "dp", "cp", "tp"};
            std::shuffle(dims.begin(), dims.end(), g.rng);
            for (const auto& d : dims) r.order += (r.order.empty() ? "" : "-") + d;
        }
        if (world > kMaxWorld) continue;
        r.world = static_cast<int>(world);
        return r;
    }
}

// Checks one valid map; returns an empty string or what is wrong.
std::string check(const MeshRequest& req, const RankMap& m) {
    const int W = m.world_size;
    auto fail = [&](const std::string& what) {
        return req.framework + " W=" + std::to_string(W) + " tp=" + std::to_string(req.tp) +
               " pp=" + std::to_string(req.pp) + " sp=" + std::to_string(req.sp) + "(" + to_string(req.sp_mode) +
               ") cp=" + std::to_string(req.cp) + " ep=" + std::to_string(req.ep) + " order=" + req.order + ": " + what;
    };
    if (static_cast<int>(m.placement.size()) != W) return fail("slots");
    // Every kind: sorted groups, consistent index, distinct members.
    for (const auto& [kind, gs] : m.groups) {
        if (gs.group_size < 1) return fail(kind + ": empty groups");
        if (static_cast<int>(gs.group_index.size()) != W) return fail(kind + ": group_index size");
        int prev_first = -1;
        for (int gi = 0; gi < gs.num_groups(); ++gi) {
            const auto grp = gs.group(gi);
            if (grp.front() <= prev_first) return fail(kind + ": groups not sorted by first rank");
            prev_first = grp.front();
            for (std::size_t k = 0; k < grp.size(); ++k) {
                if (k && grp[k] <= grp[k - 1]) return fail(kind + ": group not ascending");
                if (gs.group_index[static_cast<std::size_t>(grp[k])] != gi)
                    return fail(kind + ": group_index mismatch");
            }
            const int span = gs.nodes_spanned[static_cast<std::size_t>(gi)];
            std::set<int> nodes;
            for (int rk : grp) nodes.insert(m.placement[static_cast<std::size_t>(rk)].node);
            if (span != static_cast<int>(nodes.size())) return fail(kind + ": nodes_spanned");
            if (gi > 2) break;   // spans: a few groups per kind suffice
        }
    }
    // Axis groups of each mesh.
    for (const auto* axes : {&m.axes, &m.expert_axes}) {
        if (axes->empty()) continue;
        long long prod = 1;
        for (const auto& a : *axes) prod *= a.size;
        if (prod != W) return fail("mesh product != world");
        std::vector<int> ci;
        for (const auto& a : *axes) {
            ci.push_back(m.coord_index(a.name));
            if (ci.back() < 0) return fail("no coordinate " + a.name);
        }
        for (int r = 0; r < W; ++r) {   // row-major round trip
            long long back = 0;
            const auto c = m.coords(r);
            for (std::size_t k = 0; k < axes->size(); ++k) {
                const int v = c[static_cast<std::size_t>(ci[k])];
                if (v < 0 || v >= (*axes)[k].size) return fail("coordinate out of range");
                back = back * (*axes)[k].size + v;
            }
            if (back != r) return fail("coordinates do not round-trip for rank " + std::to_string(r));
        }
        std::vector<const GroupSet*> sets;
        std::vector<std::string> kinds;
        for (std::size_t k = 0; k < axes->size(); ++k) {
            const std::string& name = (*axes)[k].name;
            if (name == "sp" &&
                (req.sp_mode == paraplan::SpMode::split_gather || req.sp_mode == paraplan::SpMode::ring))
                continue;   // sp = tp group
            const GroupSet* gs = m.group_set(name);
            if (!gs) continue;
            if (gs->group_size != (*axes)[k].size) return fail(name + ": group size != axis size");
            if (gs->num_groups() * gs->group_size != W) return fail(name + ": groups do not cover the world");
            for (int r = 0; r < W; ++r) {   // partition, and position = coordinate
                const auto grp = m.group_of(name, r);
                if (grp.empty()) return fail(name + ": rank in no group");
                const int pos = static_cast<int>(std::find(grp.begin(), grp.end(), r) - grp.begin());
                if (pos != m.coords(r)[static_cast<std::size_t>(ci[k])]) return fail(name + ": position != coordinate");
            }
            sets.push_back(gs);
            kinds.push_back(name);
        }
        std::vector<int> stamp(static_cast<std::size_t>(W), -1);
        int tick = 0;
        for (std::size_t a = 0; a < sets.size(); ++a)
            for (std::size_t b = 0; b < sets.size(); ++b) {
                if (a == b) continue;
                for (int gi = 0; gi < sets[a]->num_groups(); ++gi, ++tick)
                    for (int rk : sets[a]->group(gi)) {
                        int& s = stamp[static_cast<std::size_t>(sets[b]->group_index[static_cast<std::size_t>(rk)])];
                        if (s == tick) return fail(kinds[a] + " and " + kinds[b] + " groups share two ranks");
                        s = tick;
                    }
            }
    }
    if (!m.pp_prev.empty()) {
        for (int r = 0; r < W; ++r)
            if (m.pp_next[static_cast<std::size_t>(m.pp_prev[static_cast<std::size_t>(r)])] != r)
                return fail("pp neighbours");
    }
    return {};
}

}   // namespace

class TstTopologyProperties : public QObject {
    Q_OBJECT
private slots:
    void randomLayouts() {
        int cases = 1500;
        if (const char* e = std::getenv("PARAPLAN_TOPOLOGY_CASES")) cases = std::max(1, std::atoi(e));
        Gen g;
        int valid = 0, largest = 0;
        for (int i = 0; i < cases; ++i) {
            const MeshRequest req = random_request(g);
            const RankMap m = build_rank_map(req);
            if (!m.valid()) {
                QVERIFY2(m.groups.empty() && m.coords_flat.empty(), "invalid map carries groups");
                for (const auto& d : m.diagnostics) QVERIFY(!d.rule.empty() && !d.message.empty());
                continue;
            }
            ++valid;
            largest = std::max(largest, m.world_size);
            const std::string why = check(req, m);
            QVERIFY2(why.empty(), why.c_str());
        }
        qInfo("%d of %d random layouts valid; largest world %d", valid, cases, largest);
        QVERIFY(valid * 2 > cases);
    }

    // Nonsense never crashes: negative, zero and huge sizes give diagnostics.
    void hostileSizes() {
        Gen g;
        for (int i = 0; i < 400; ++i) {
            MeshRequest r;
            r.framework = std::vector<std::string>{"colossalai",        "colossalai-moe", "megatron",
                                                   "torchtitan",        "deepspeed",      "devicemesh",
                                                   "colossalai-gemini", "colossalai-zero"}[static_cast<std::size_t>(i %
                                                                                                                    8)];
            r.world = g.pick({-1, 0, 1, 7, 16, 1 << 23});
            r.tp = g.pick({-3, 0, 1, 2, 5, 1 << 30});
            r.pp = g.pick({-1, 0, 1, 3, 1 << 30});
            r.sp = g.pick({0, 1, 2, 1 << 30});
            // (An unknown mode cannot be written: the project reader and the CLI refuse it.)
            r.sp_mode = std::vector<paraplan::SpMode>{
                paraplan::SpMode::none, paraplan::SpMode::ring, paraplan::SpMode::all_to_all,
                paraplan::SpMode::ring_attn,
                paraplan::SpMode::split_gather}[static_cast<std::size_t>(g.pick({0, 1, 2, 3, 4}))];
            r.cp = g.pick({0, 1, 2, 1 << 30});
            r.ep = g.pick({0, 1, 2, 1 << 30});
            r.etp = g.pick({-1, 0, 2, 1 << 30});
            r.dp_shard = g.pick({-5, -1, 0, 2, 1 << 30});
            r.inner_ring_size = g.pick({-1, 0, 2, 3});
            r.order =
                std::vector<std::string>{"", "tp-pp", "x-y", "pp:0-dp", "tp:-1-dp:-1", "--"}[static_cast<std::size_t>(
                    g.pick({0, 1, 2, 3, 4, 5}))];
            const RankMap m = build_rank_map(r);
            if (!m.valid()) QVERIFY(!m.diagnostics.empty());
            else QVERIFY(check(r, m).empty());
        }
    }
};

QTEST_APPLESS_MAIN(TstTopologyProperties)
#include "tst_topology_properties.moc"
