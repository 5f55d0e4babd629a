// ColossalAI (v0.5.1) meshes against hand-derived worked examples (docs/topology.md):
// HybridParallelPlugin, MoeHybridParallelPlugin, the Gemini and
// LowLevelZero vectors, the ring_attn double ring and the legacy tensor modes.
#include "core/topology_test_util.h"

using namespace paraplan::topology;
using topo_test::Groups;

namespace {

MeshRequest hybrid(int world, int tp, int pp, int sp, const std::string& mode) {
    MeshRequest r;
    r.framework = "colossalai";
    r.world = world;
    r.tp = tp;
    r.pp = pp;
    r.sp = sp;
    r.sp_mode = *paraplan::parse_enum<paraplan::SpMode>(mode);
    return r;
}

}   // namespace

class TstTopologyColossalai : public QObject {
    Q_OBJECT
private slots:
    // Worked example: W=16, tp=2, pp=2, sp=2, all_to_all, dp_outside=True.
    void allToAllWorkedExample() {
        const RankMap m = build_rank_map(hybrid(16, 2, 2, 2, "all_to_all"));
        CHECK_VALID(m);
        QCOMPARE(m.axes.size(), std::size_t(4));
        QCOMPARE(m.axes[0].name, std::string("dp"));
        QCOMPARE(m.axes[1].name, std::string("pp"));
        QCOMPARE(m.axes[2].name, std::string("tp"));
        QCOMPARE(m.axes[3].name, std::string("sp"));
        QCOMPARE(m.axes[0].size, 2);
        CHECK_GROUPS(m, "sp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "tp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        CHECK_GROUPS(m, "dp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        CHECK_GROUPS(m, "mixed_dp", Groups{{0, 1, 8, 9}, {2, 3, 10, 11}, {4, 5, 12, 13}, {6, 7, 14, 15}});
        // rank 5 = (dp0, pp1, tp0, sp1); rank 10 = (dp1, pp0, tp1, sp0)
        QCOMPARE(m.coord(5, "dp"), 0);
        QCOMPARE(m.coord(5, "pp"), 1);
        QCOMPARE(m.coord(5, "tp"), 0);
        QCOMPARE(m.coord(5, "sp"), 1);
        QCOMPARE(m.coord(10, "dp"), 1);
        QCOMPARE(m.coord(10, "pp"), 0);
        QCOMPARE(m.coord(10, "tp"), 1);
        QCOMPARE(m.coord(10, "sp"), 0);
        // Pipeline neighbours wrap around (pp = 2: prev == next).
        QCOMPARE(m.pp_next[0], 4);
        QCOMPARE(m.pp_prev[0], 4);
        QCOMPARE(m.pp_next[4], 0);
        // 1D tensor grid: out-feature block = TP rank.
        QVERIFY(m.tensor_grid.has_value());
        QCOMPARE(m.tensor_grid->mode, std::string("1d"));
        QCOMPARE(m.tensor_grid->out_blocks, 2);
        QCOMPARE(m.tensor_grid->blocks[10].out_block, 1);
        QCOMPARE(m.tensor_grid->blocks[5].out_block, 0);
    }

    void ringAttnSwapsSpAndTp() {
        const RankMap m = build_rank_map(hybrid(16, 2, 2, 2, "ring_attn"));
        CHECK_VALID(m);
        QCOMPARE(m.axes[2].name, std::string("sp"));
        QCOMPARE(m.axes[3].name, std::string("tp"));
        CHECK_GROUPS(m, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "sp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        CHECK_GROUPS(m, "dp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        CHECK_GROUPS(m, "mixed_dp", Groups{{0, 2, 8, 10}, {1, 3, 9, 11}, {4, 6, 12, 14}, {5, 7, 13, 15}});
    }

    void dpInsideSwapsDpAndPp() {
        MeshRequest r = hybrid(16, 2, 2, 2, "all_to_all");
        r.dp_outside = false;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        QCOMPARE(m.axes[0].name, std::string("pp"));
        QCOMPARE(m.axes[1].name, std::string("dp"));
        CHECK_GROUPS(m, "pp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        CHECK_GROUPS(m, "dp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        CHECK_GROUPS(m, "tp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "sp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "mixed_dp", Groups{{0, 1, 4, 5}, {2, 3, 6, 7}, {8, 9, 12, 13}, {10, 11, 14, 15}});
    }

    void ringAttnDpInside() {
        MeshRequest r = hybrid(16, 2, 2, 2, "ring_attn");
        r.dp_outside = false;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        std::vector<std::string> names;
        for (const auto& a : m.axes) names.push_back(a.name);
        QCOMPARE(names, (std::vector<std::string>{"pp", "dp", "sp", "tp"}));
        CHECK_GROUPS(m, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
    }

    void splitGatherReusesTp() {
        const RankMap m = build_rank_map(hybrid(16, 2, 2, 2, "split_gather"));
        CHECK_VALID(m);
        QVERIFY(topo_test::has_rule(m, "colossalai.sp_size_ignored"));   // warning: sp given but ignored
        QCOMPARE(m.axes[0].size, 4);                                     // mesh (4, 2, 2, 1)
        QCOMPARE(m.axes[3].size, 1);
        const Groups tp{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}};
        CHECK_GROUPS(m, "tp", tp);
        CHECK_GROUPS(m, "sp", tp);
        CHECK_GROUPS(m, "pp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "dp", Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}});
        CHECK_GROUPS(m, "mixed_dp", Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}});
        const RankMap ring = build_rank_map(hybrid(16, 2, 2, 1, "ring"));
        CHECK_GROUPS(ring, "sp", tp);
    }

    void smallVectors() {
        const RankMap a = build_rank_map(hybrid(8, 2, 2, 1, "none"));
        CHECK_VALID(a);
        CHECK_GROUPS(a, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
        CHECK_GROUPS(a, "pp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
        CHECK_GROUPS(a, "dp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
        CHECK_GROUPS(a, "sp", Groups{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}});
        const RankMap b = build_rank_map(hybrid(8, 1, 2, 1, "none"));
        CHECK_GROUPS(b, "pp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
        CHECK_GROUPS(b, "dp", Groups{{0, 2, 4, 6}, {1, 3, 5, 7}});
        QCOMPARE(b.pp_next[0], 1);
        QCOMPARE(b.pp_prev[0], 1);
        const RankMap c = build_rank_map(hybrid(8, 2, 2, 2, "all_to_all"));
        CHECK_GROUPS(c, "pp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
        CHECK_GROUPS(c, "tp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
        CHECK_GROUPS(c, "sp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
        // pp = 4: neighbours wrap from the last stage to the first.
        const RankMap d = build_rank_map(hybrid(8, 1, 4, 1, "none"));   // mesh (2, 4, 1, 1)
        CHECK_GROUPS(d, "pp", Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
        QCOMPARE(d.pp_prev[0], 3);
        QCOMPARE(d.pp_next[3], 0);
        QCOMPARE(d.pp_next[1], 2);
        QCOMPARE(d.pp_prev[4], 7);
    }

    // get_double_ring_groups, tested shape sp=4, inner=2 (mesh (dp, pp, sp, tp)).
    void doubleRing() {
        MeshRequest r = hybrid(8, 1, 1, 4, "ring_attn");
        r.inner_ring_size = 2;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "sp", Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
        CHECK_GROUPS(m, "sp_inner_ring", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
        CHECK_GROUPS(m, "sp_inter_ring", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
        // With tp = 2 the SP ranks are strided by tp.
        MeshRequest t = hybrid(8, 2, 1, 4, "ring_attn");
        t.inner_ring_size = 2;
        const RankMap mt = build_rank_map(t);
        CHECK_VALID(mt);
        CHECK_GROUPS(mt, "sp_inner_ring", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
        CHECK_GROUPS(mt, "sp_inter_ring", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
        // inner == sp: one ring.
        MeshRequest one = hybrid(8, 1, 1, 4, "ring_attn");
        one.inner_ring_size = 4;
        const RankMap mo = build_rank_map(one);
        CHECK_GROUPS(mo, "sp_inner_ring", Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
        // sp=8, inner=2: range(inner) builds rings only for SP indices 0..3.
        MeshRequest part = hybrid(8, 1, 1, 8, "ring_attn");
        part.inner_ring_size = 2;
        const RankMap mp = build_rank_map(part);
        CHECK_VALID(mp);
        QVERIFY(topo_test::has_rule(mp, "colossalai.inner_ring_size_incomplete"));
        CHECK_GROUPS(mp, "sp_inner_ring", Groups{{0, 1}, {2, 3}});
        CHECK_GROUPS(mp, "sp_inter_ring", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
        QVERIFY(mp.group_of("sp_inner_ring", 6).empty());
        // sp=8, inner=4 walks past the axis; inner=3 does not divide.
        MeshRequest bad = hybrid(8, 1, 1, 8, "ring_attn");
        bad.inner_ring_size = 4;
        QVERIFY(topo_test::has_rule(build_rank_map(bad), "colossalai.inner_ring_size_layout"));
        bad.inner_ring_size = 3;
        QVERIFY(topo_test::has_rule(build_rank_map(bad), "colossalai.inner_ring_size_divides_sp"));
    }

    void hybridErrors() {
        const RankMap a = build_rank_map(hybrid(12, 2, 4, 1, "none"));
        QVERIFY(!a.valid());
        QVERIFY(topo_test::has_rule(a, "colossalai.world_divisible"));
        QVERIFY(a.groups.empty());
        QCOMPARE(a.diagnostics.front().framework_error,
                 std::string("AssertionError: World size 12 is not divisible by tp_size 2 * pp_size 4"));
        // W=8, sp=3 all_to_all: dp = 8 // 3 = 2, product 6 != 8.
        const RankMap b = build_rank_map(hybrid(8, 1, 1, 3, "all_to_all"));
        QVERIFY(topo_test::has_rule(b, "colossalai.world_size_divisible_sp"));
        QCOMPARE(b.diagnostics.front().framework_error,
                 std::string("The product of the size(6) must be equal to the world size(8)."));
        QVERIFY(topo_test::has_rule(build_rank_map(hybrid(8, 1, 1, 1, "split_gather")), "colossalai.sp_mode_needs_tp"));
        QVERIFY(topo_test::has_rule(build_rank_map(hybrid(8, 2, 1, 2, "none")), "colossalai.sp_size_without_sp"));
        QVERIFY(topo_test::has_rule(build_rank_map(hybrid(8, 0, 1, 1, "none")), "topology.degree_positive"));
        QVERIFY(topo_test::has_rule(build_rank_map(hybrid(0, 1, 1, 1, "none")), "topology.world_size_valid"));
        MeshRequest dp = hybrid(8, 2, 1, 1, "none");
        dp.dp = 3;
        QVERIFY(topo_test::has_rule(build_rank_map(dp), "topology.dp_matches_world"));
        MeshRequest f = hybrid(8, 1, 1, 1, "none");
        f.framework = "jax";
        QVERIFY(topo_test::has_rule(build_rank_map(f), "topology.framework_supported"));
    }

    // MoE worked example A: W=16, tp=2, pp=2, ep=2, no SP.
    void moeExampleA() {
        MeshRequest r = hybrid(16, 2, 2, 1, "none");
        r.framework = "colossalai-moe";
        r.ep = 2;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        std::vector<std::string> names;
        for (const auto& a : m.axes) names.push_back(a.name);
        QCOMPARE(names, (std::vector<std::string>{"moe_dp", "pp", "ep", "tp", "sp"}));
        CHECK_GROUPS(m, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "ep", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        CHECK_GROUPS(m, "moe_dp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        CHECK_GROUPS(m, "dp", Groups{{0, 2, 8, 10}, {1, 3, 9, 11}, {4, 6, 12, 14}, {5, 7, 13, 15}});
        CHECK_GROUPS(m, "mixed_dp", Groups{{0, 2, 8, 10}, {1, 3, 9, 11}, {4, 6, 12, 14}, {5, 7, 13, 15}});
    }

    // MoE worked example B: W=16, tp=1, pp=2, ep=2, sp=2 all_to_all.
    void moeExampleB() {
        MeshRequest r = hybrid(16, 1, 2, 2, "all_to_all");
        r.framework = "colossalai-moe";
        r.ep = 2;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "sp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "ep", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        CHECK_GROUPS(m, "moe_dp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        CHECK_GROUPS(m, "dp", Groups{{0, 2, 8, 10}, {1, 3, 9, 11}, {4, 6, 12, 14}, {5, 7, 13, 15}});
        CHECK_GROUPS(m, "mixed_dp", Groups{{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}});
    }

    void moeOrderAndErrors() {
        MeshRequest r = hybrid(16, 2, 2, 1, "none");
        r.framework = "colossalai-moe";
        r.ep = 2;
        r.dp_outside = false;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        QCOMPARE(m.axes[0].name, std::string("pp"));
        CHECK_GROUPS(m, "pp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        CHECK_GROUPS(m, "moe_dp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        r.dp_outside = true;
        r.ep = 3;
        const RankMap e = build_rank_map(r);
        QVERIFY(topo_test::has_rule(e, "colossalai.moe_dp_divisible_ep"));
        QCOMPARE(e.diagnostics.front().framework_error,
                 std::string("AssertionError: dp_size should be divisible by ep_size, self.dp_size=4 ep_size=3"));
        MeshRequest ra = hybrid(16, 1, 1, 2, "ring_attn");
        ra.framework = "colossalai-moe";
        QVERIFY(topo_test::has_rule(build_rank_map(ra), "colossalai.moe_sp_mode_supported"));
    }

    void gemini() {
        MeshRequest r;
        r.framework = "colossalai-gemini";
        r.world = 8;
        r.tp = 2;
        r.extra_dp = 2;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
        CHECK_GROUPS(m, "extra_dp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
        CHECK_GROUPS(m, "zero", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
        QCOMPARE(m.axes[0].size * m.axes[1].size, 4);   // dp_size = zero * extra_dp
        QVERIFY(!m.has_group("dp"));
        r.pp = 2;
        QVERIFY(topo_test::has_rule(build_rank_map(r), "colossalai.gemini_axes"));
        r.pp = 1;
        r.extra_dp = 3;
        QVERIFY(topo_test::has_rule(build_rank_map(r), "colossalai.gemini_world_divisible"));
    }

    void lowLevelZero() {
        MeshRequest r;
        r.framework = "colossalai-zero";
        r.world = 8;
        r.extra_dp = 2;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "extra_dp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
        CHECK_GROUPS(m, "dp", Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
        r.extra_dp = 1;
        const RankMap p = build_rank_map(r);
        CHECK_GROUPS(p, "dp", Groups{{0, 1, 2, 3, 4, 5, 6, 7}});
        r.extra_dp = 3;
        QVERIFY(topo_test::has_rule(build_rank_map(r), "colossalai.zero_extra_dp_divides_world"));
        r.extra_dp = 1;
        r.tp = 2;
        QVERIFY(topo_test::has_rule(build_rank_map(r), "colossalai.zero_plugin_axes"));
    }

    // initializer_2d.py: row group ranks [i*tp + j*q + k for k], column group
    // [i*tp + j + k*q for k]; W=8, tp=4 (q=2), pp=1, dp=2.
    void legacy2d() {
        MeshRequest r = hybrid(8, 4, 1, 1, "none");
        r.tp_mode = paraplan::TpMode::two_d;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "tp", Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
        CHECK_GROUPS(m, "2d_row", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
        CHECK_GROUPS(m, "2d_col", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
        CHECK_GROUPS(m, "dp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
        QVERIFY(m.tensor_grid.has_value());
        QCOMPARE(m.tensor_grid->in_blocks, 2);
        QCOMPARE(m.tensor_grid->out_blocks, 2);
        // rank 6 = dp 1, t = 2 = row 1 col 0: weight block (in 1, out 0)
        QCOMPARE(m.tensor_grid->blocks[6].in_block, 1);
        QCOMPARE(m.tensor_grid->blocks[6].out_block, 0);
        QCOMPARE(m.coord(6, "tp"), 2);
        r.tp = 8;
        QVERIFY(topo_test::has_rule(build_rank_map(r), "colossalai.legacy_2d_tp_square"));
    }

    // initializer_2p5d.py: t = i + q*(j + q*k) (i: row-group index, j: column, k: depth);
    // tp=8 = depth 2 * q^2 (q=2), W=8.
    void legacy2p5d() {
        MeshRequest r = hybrid(8, 8, 1, 1, "none");
        r.tp_mode = paraplan::TpMode::two_and_half_d;
        r.tp_depth = 2;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "2p5d_row", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
        CHECK_GROUPS(m, "2p5d_col", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
        CHECK_GROUPS(m, "2p5d_dep", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
        CHECK_GROUPS(m, "2p5d_xz", Groups{{0, 2, 4, 6}, {1, 3, 5, 7}});
        // rank 5: i=1, j=0, k=1 -> block (in 0, out 1), replica 1
        QCOMPARE(m.tensor_grid->blocks[5].in_block, 0);
        QCOMPARE(m.tensor_grid->blocks[5].out_block, 1);
        QCOMPARE(m.tensor_grid->blocks[5].replica, 1);
        r.tp_depth = 3;
        QVERIFY(topo_test::has_rule(build_rank_map(r), "colossalai.legacy_2p5d_tp_size"));
    }

    // initializer_3d.py: t = i + d*(j + d*k); input varies j, weight i, output k.
    void legacy3d() {
        MeshRequest r = hybrid(8, 8, 1, 1, "none");
        r.tp_mode = paraplan::TpMode::three_d;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "3d_weight", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
        CHECK_GROUPS(m, "3d_input", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}});
        CHECK_GROUPS(m, "3d_output", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
        CHECK_GROUPS(m, "3d_input_x_weight", Groups{{0, 1, 2, 3}, {4, 5, 6, 7}});
        CHECK_GROUPS(m, "3d_output_x_weight", Groups{{0, 1, 4, 5}, {2, 3, 6, 7}});
        QCOMPARE(m.tensor_grid->in_blocks, 4);
        QCOMPARE(m.tensor_grid->out_blocks, 2);
        // rank 6: i=0, j=1, k=1 -> in block k*d+i = 2, out block j = 1
        QCOMPARE(m.tensor_grid->blocks[6].in_block, 2);
        QCOMPARE(m.tensor_grid->blocks[6].out_block, 1);
        // Every (in, out) block is held by exactly one rank of a TP group.
        std::set<std::pair<int, int>> seen;
        for (int rk = 0; rk < 8; ++rk)
            seen.insert({m.tensor_grid->blocks[rk].in_block, m.tensor_grid->blocks[rk].out_block});
        QCOMPARE(seen.size(), std::size_t(8));
        r.tp = 4;
        QVERIFY(topo_test::has_rule(build_rank_map(r), "colossalai.legacy_3d_tp_cube"));
    }
};

QTEST_APPLESS_MAIN(TstTopologyColossalai)
#include "tst_topology_colossalai.moc"
