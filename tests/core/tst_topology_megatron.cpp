// Megatron-LM RankGenerator (megatron/core/parallel_state.py, core_v0.19.0) against worked
// examples derived by hand from its order rule (docs/topology.md, "Worked examples"),
// and against the "golden past code" of tests/unit_tests/test_parallel_state.py
// (test_rank_generator_for_tp_dp_pp), re-implemented here from its description.
#include "core/topology_test_util.h"
#include "topology/megatron_order.h"

using namespace paraplan::topology;
using topo_test::Groups;

namespace {

MeshRequest megatron(int world, int tp, int pp, int cp, const std::string& order = "") {
    MeshRequest r;
    r.framework = "megatron";
    r.world = world;
    r.tp = tp;
    r.pp = pp;
    r.cp = cp;
    r.order = order;
    return r;
}

Groups range_groups(int count, int size, int stride_in, int first_step) {
    Groups g;
    for (int i = 0; i < count; ++i) {
        std::vector<int> grp;
        for (int k = 0; k < size; ++k) grp.push_back(i * first_step + k * stride_in);
        g.push_back(grp);
    }
    return g;
}

Groups sorted(Groups g) {
    for (auto& x : g) std::sort(x.begin(), x.end());
    std::sort(g.begin(), g.end());
    return g;
}

}   // namespace

class TstTopologyMegatron : public QObject {
    Q_OBJECT
private slots:
    // Worked example (docs/topology.md): world 16, TP2 PP2 CP2 (DP2), order tp-cp-ep-dp-pp.
    void workedExample() {
        const RankMap m = build_rank_map(megatron(16, 2, 2, 2));
        CHECK_VALID(m);
        std::vector<std::string> names;
        for (const auto& a : m.axes) names.push_back(a.name);
        QCOMPARE(names, (std::vector<std::string>{"pp", "dp", "cp", "tp"}));
        for (int r = 0; r < 16; ++r) {   // rank = tp + 2cp + 4dp + 8pp
            QCOMPARE(m.coord(r, "tp"), r % 2);
            QCOMPARE(m.coord(r, "cp"), (r / 2) % 2);
            QCOMPARE(m.coord(r, "dp"), (r / 4) % 2);
            QCOMPARE(m.coord(r, "pp"), r / 8);
        }
        CHECK_GROUPS(m, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "cp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "dp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        CHECK_GROUPS(m, "dp_cp", Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        CHECK_GROUPS(m, "tp_pp", Groups{{0, 1, 8, 9}, {2, 3, 10, 11}, {4, 5, 12, 13}, {6, 7, 14, 15}});
        CHECK_GROUPS(m, "tp_cp", Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}});
        CHECK_GROUPS(m, "tp_dp_cp", Groups{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}});
        CHECK_GROUPS(m, "embedding", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        CHECK_GROUPS(m, "position_embedding", Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}});
        // EP = 1, ETP = TP: expert groups.
        CHECK_GROUPS(m, "ep",
                     Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}});
        CHECK_GROUPS(m, "etp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "edp", Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}});
        // On 2 nodes x 8 GPUs, PP crosses nodes and everything else stays inside.
        QCOMPARE(m.num_nodes, 2);
        QCOMPARE(m.summary("pp").groups_crossing_nodes, 8);
        QCOMPARE(m.summary("dp_cp").groups_crossing_nodes, 0);
        QCOMPARE(m.summary("tp").max_nodes_spanned, 1);
    }

    // --use-tp-pp-dp-mapping (order tp-cp-ep-pp-dp). Keeping the example's CP2 looks fine,
    // but initialize_model_parallel then refuses it: the expert grid has EDP =
    // 16/(ETP2*EP1*PP2) = 4 while DP = 2, and pp is not last ("When not using pp-last
    // rank ordering, the data parallel size of the attention and moe layers must be the
    // same", parallel_state.py). With CP1 the sizes agree (DP = EDP = 4).
    void tpPpDpMapping() {
        const RankMap bad = build_rank_map(megatron(16, 2, 2, 2, "tp-cp-ep-pp-dp"));
        QVERIFY(topo_test::has_rule(bad, "megatron.expert_dp_matches_dp"));
        const RankMap m = build_rank_map(megatron(16, 2, 2, 1, "tp-cp-ep-pp-dp"));
        CHECK_VALID(m);
        // rank = tp + 2*pp + 4*dp
        CHECK_GROUPS(m, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "dp", Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}});
        CHECK_GROUPS(m, "edp", Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}});
        QCOMPARE(m.axes.front().name, std::string("dp"));   // outermost
    }

    // Docstring example: world 16, TP2 PP4, order tp-dp-pp (DP2).
    void docstringExample() {
        const RankMap m = build_rank_map(megatron(16, 2, 4, 1, "tp-dp-pp"));
        CHECK_VALID(m);
        CHECK_GROUPS(m, "dp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}});
        CHECK_GROUPS(m, "embedding", Groups{{0, 12}, {1, 13}, {2, 14}, {3, 15}});
        QCOMPARE(m.pp_next[12], 0);   // wrap
        QCOMPARE(m.pp_prev[0], 12);
    }

    // MoE variant A (docs/topology.md): EP4 ETP1 -> EDP 2.
    void moeVariantA() {
        MeshRequest r = megatron(16, 2, 2, 2);
        r.ep = 4;
        r.etp = 1;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "ep", Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}});
        CHECK_GROUPS(m, "etp",
                     Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}});
        CHECK_GROUPS(m, "edp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        std::vector<std::string> e;
        for (const auto& a : m.expert_axes) e.push_back(a.name);
        QCOMPARE(e, (std::vector<std::string>{"pp", "edp", "ep", "etp"}));
        QCOMPARE(m.coord(6, "ep"), 2);
        QCOMPARE(m.coord(6, "edp"), 1);
    }

    // MoE variant B (docs/topology.md): EP2 ETP2.
    void moeVariantB() {
        MeshRequest r = megatron(16, 2, 2, 2);
        r.ep = 2;
        r.etp = 2;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "etp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "ep", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "edp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
    }

    void errors() {
        // world 12, TP2 PP4: 12 % 8 != 0 (initialize_model_parallel's RuntimeError).
        const RankMap a = build_rank_map(megatron(12, 2, 4, 1));
        QVERIFY(topo_test::has_rule(a, "megatron.world_divisible"));
        QCOMPARE(a.diagnostics.front().framework_error,
                 std::string("RuntimeError: world_size (12) is not divisible by 8"));
        MeshRequest e = megatron(16, 2, 2, 1);
        e.ep = 3;
        e.etp = 1;
        QVERIFY(topo_test::has_rule(build_rank_map(e), "megatron.expert_grid"));
        // EP > 1 but the order has no ep token.
        MeshRequest o = megatron(16, 1, 2, 1, "tp-dp-pp");
        o.ep = 2;
        const RankMap mo = build_rank_map(o);
        QVERIFY(topo_test::has_rule(mo, "megatron.order"));
        QVERIFY(mo.diagnostics.front().framework_error.find("you haven'tspecified the order") != std::string::npos);
        QVERIFY(topo_test::has_rule(build_rank_map(megatron(16, 2, 2, 1, "tp-xp-pp")), "megatron.order_valid"));
        QVERIFY(topo_test::has_rule(build_rank_map(megatron(16, 2, 2, 1, "tp-dp-tp-pp")), "megatron.order_valid"));
        // pp not last and EDP = 16/(1*4*2) = 2 != DP = 4.
        MeshRequest d = megatron(16, 2, 2, 1, "tp-cp-ep-pp-dp");
        d.etp = 1;
        d.ep = 4;
        QVERIFY(topo_test::has_rule(build_rank_map(d), "megatron.expert_dp_matches_dp"));
        // Size-1 axes may be missing from the order.
        CHECK_VALID(build_rank_map(megatron(16, 2, 2, 1, "tp-dp-pp")));
    }

    // The two orders Megatron's command line sets (arguments.py: the default, and
    // --use-tp-pp-dp-mapping), any token left out, case ignored; any other order it cannot set.
    void cliOrders() {
        using MO = MegatronOrder;
        const std::pair<const char*, std::optional<MO>> cases[] = {
            {"", MO::dp_outside_pp},         {"tp-cp-ep-dp-pp", MO::dp_outside_pp},
            {"tp-dp-pp", MO::dp_outside_pp}, {"tp-cp-dp-pp", MO::dp_outside_pp},
            {"TP-DP-PP", MO::dp_outside_pp}, {"tp-cp-ep-pp-dp", MO::pp_outside_dp},
            {"tp-pp-dp", MO::pp_outside_dp}, {"pp-dp", MO::pp_outside_dp},
            {"dp-tp-pp", std::nullopt},      {"pp-tp-dp", std::nullopt},
            {"tp-xp-pp", std::nullopt},      {"tp-dp-tp-pp", std::nullopt},
            {"tp--pp", std::nullopt},        {"tp-dp-pp-", std::nullopt}};
        for (const auto& [order, want] : cases) QVERIFY2(megatron_cli_order(order) == want, order);
    }

    // test_rank_generator_for_tp_dp_pp tuples (nodes, gpus/node, tp, pp, cp, ep), cp = 1
    // ones, against the old hand-written group code (order tp-dp-pp / tp-ep-dp-pp).
    void goldenPastCode() {
        const int tuples[][6] = {{1, 1, 1, 1, 1, 1},   {1, 8, 8, 1, 1, 1},   {1, 8, 2, 2, 1, 1},  {1, 8, 2, 4, 1, 1},
                                 {3, 8, 8, 3, 1, 1},   {4, 8, 2, 4, 1, 1},   {8, 8, 8, 8, 1, 1},  {8, 8, 2, 1, 1, 4},
                                 {16, 8, 4, 8, 1, 1},  {16, 8, 4, 8, 1, 4},  {16, 8, 8, 8, 1, 1}, {32, 8, 4, 8, 1, 1},
                                 {32, 8, 8, 8, 1, 1},  {32, 8, 4, 8, 1, 4},  {64, 8, 4, 8, 1, 1}, {96, 8, 4, 8, 1, 1},
                                 {128, 8, 4, 8, 1, 1}, {316, 8, 4, 8, 1, 1}, {384, 8, 4, 8, 1, 1}};
        for (const auto& t : tuples) {
            const int world = t[0] * t[1], tp = t[2], pp = t[3], ep = t[5];
            MeshRequest r = megatron(world, tp, pp, 1, "tp-cp-dp-pp");
            r.gpus_per_node = t[1];
            const RankMap m = build_rank_map(r);
            CHECK_VALID(m);
            const int ngroups_pp = world / pp;   // num_pipeline_model_parallel_groups
            Groups dp, tpg, ppg;
            for (int i = 0; i < pp; ++i)
                for (int j = 0; j < tp; ++j) {
                    std::vector<int> g;
                    for (int k = i * ngroups_pp + j; k < (i + 1) * ngroups_pp; k += tp) g.push_back(k);
                    dp.push_back(g);
                }
            tpg = range_groups(world / tp, tp, 1, tp);
            ppg = range_groups(ngroups_pp, pp, ngroups_pp, 1);
            CHECK_GROUPS(m, "dp", sorted(dp));
            CHECK_GROUPS(m, "tp", sorted(tpg));
            CHECK_GROUPS(m, "pp", sorted(ppg));
            if (ep > 1) {
                MeshRequest x = megatron(world, tp, pp, 1, "tp-ep-dp-pp");
                x.ep = ep;
                const RankMap me = build_rank_map(x);
                CHECK_VALID(me);
                // Expert grid, order tp-ep-dp-pp: rank = etp + TP*ep + TP*EP*edp + TP*EP*EDP*pp.
                Groups epg;
                for (int base = 0; base < world; base += tp * ep)
                    for (int j = 0; j < tp; ++j) {
                        std::vector<int> g;
                        for (int k = 0; k < ep; ++k) g.push_back(base + j + k * tp);
                        epg.push_back(g);
                    }
                CHECK_GROUPS(me, "ep", sorted(epg));
            }
        }
    }
};

QTEST_APPLESS_MAIN(TstTopologyMegatron)
#include "tst_topology_megatron.moc"
