// torchtitan ParallelDims (v0.2.2), plain DeviceMesh (PyTorch v2.4) and DeepSpeed (v0.16.5)
// topologies against the worked examples of docs/topology.md and torchtitan's tests.
#include "core/topology_test_util.h"

using namespace paraplan::topology;
using topo_test::Groups;

namespace {

MeshRequest titan(int world, int pp, int dp_rep, int dp_shard, int cp, int tp, int ep = 1) {
    MeshRequest r;
    r.framework = "torchtitan";
    r.world = world;
    r.pp = pp;
    r.dp_replicate = dp_rep;
    r.dp_shard = dp_shard;
    r.cp = cp;
    r.tp = tp;
    r.ep = ep;
    return r;
}

}   // namespace

class TstTopologyTorch : public QObject {
    Q_OBJECT
private slots:
    // Worked example (docs/topology.md): world 16, pp 2, dp_replicate 1, dp_shard 2, cp 2, tp 2.
    void torchtitanWorkedExample() {
        const RankMap m = build_rank_map(titan(16, 2, 1, 2, 2, 2));
        CHECK_VALID(m);
        std::vector<std::string> names;
        for (const auto& a : m.axes) names.push_back(a.name);
        QCOMPARE(names, (std::vector<std::string>{"pp", "dp_replicate", "dp_shard", "cp", "tp"}));
        CHECK_GROUPS(m, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "cp", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(m, "dp_shard", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        CHECK_GROUPS(m, "dp_shard_cp", Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}});
        // Identical to the Megatron worked example.
        MeshRequest meg;
        meg.framework = "megatron";
        meg.world = 16;
        meg.tp = 2;
        meg.pp = 2;
        meg.cp = 2;
        const RankMap mm = build_rank_map(meg);
        QCOMPARE(m.group_list("tp"), mm.group_list("tp"));
        QCOMPARE(m.group_list("cp"), mm.group_list("cp"));
        QCOMPARE(m.group_list("dp_shard"), mm.group_list("dp"));
        QCOMPARE(m.group_list("pp"), mm.group_list("pp"));
        QCOMPARE(m.group_list("dp_shard_cp"), mm.group_list("dp_cp"));
    }

    void torchtitanExpertParallel() {
        const RankMap m = build_rank_map(titan(16, 2, 1, 2, 2, 2, 4));
        CHECK_VALID(m);
        CHECK_GROUPS(m, "ep", Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}});
        CHECK_GROUPS(m, "efsdp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
        std::vector<std::string> e;
        for (const auto& a : m.expert_axes) e.push_back(a.name);
        QCOMPARE(e, (std::vector<std::string>{"pp", "dp_replicate", "efsdp", "ep"}));
        // ETP = TP: EP borrows dp_shard * cp only (ep 2: efsdp = 2*2/2 = 2).
        MeshRequest r = titan(16, 2, 1, 2, 2, 2, 2);
        r.etp = 2;
        const RankMap t = build_rank_map(r);
        CHECK_VALID(t);
        CHECK_GROUPS(t, "etp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(t, "ep", Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}});
        CHECK_GROUPS(t, "efsdp", Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}});
    }

    // Cases of torchtitan tests/unit_tests/test_parallel_dims.py (v0.2.2; ep at b5bcd76c).
    void torchtitanInferenceAndErrors() {
        const RankMap a = build_rank_map(titan(8, 1, 2, -1, 1, 2));
        CHECK_VALID(a);
        QCOMPARE(a.axes[2].size, 2);   // dp_shard inferred = 8 / (2*2)
        const RankMap b = build_rank_map(titan(10, 1, 2, 2, 1, 2));
        QVERIFY(topo_test::has_rule(b, "torchtitan.world_product"));
        QCOMPARE(b.diagnostics.front().framework_error,
                 std::string("AssertionError: Invalid parallel dims: dp_replicate(2) * dp_shard(2) * cp(1) * tp(2) * "
                             "pp(1) != WORLD_SIZE(10)"));
        const RankMap c = build_rank_map(titan(4, 1, 2, 2, 1, 1, 3));
        QVERIFY(topo_test::has_rule(c, "torchtitan.ep_divides"));
        QCOMPARE(c.diagnostics.front().framework_error,
                 std::string("expert_parallel_degree (3) must divide dp_shard * cp * tp (2)"));
        QVERIFY(topo_test::has_rule(build_rank_map(titan(8, 1, 2, -1, 1, 8)), "topology.degree_fits_world"));
        QVERIFY(topo_test::has_rule(build_rank_map(titan(8, 1, 0, -1, 1, 2)), "torchtitan.degree_positive"));
        QVERIFY(topo_test::has_rule(build_rank_map(titan(8, 1, 1, 0, 1, 2)), "torchtitan.dp_shard_valid"));
        MeshRequest e = titan(16, 1, 1, -1, 1, 4, 2);
        e.etp = 2;
        QVERIFY(topo_test::has_rule(build_rank_map(e), "torchtitan.etp_tp_or_1"));
    }

    // init_device_mesh("cuda", (2, 8), mesh_dim_names=("dp", "tp")).
    void deviceMeshDocstring() {
        MeshRequest r;
        r.framework = "devicemesh";
        r.world = 16;
        r.tp = 8;
        r.order = "dp-tp";
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        CHECK_GROUPS(m, "tp", Groups{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}});
        Groups dp;
        for (int i = 0; i < 8; ++i) dp.push_back({i, i + 8});
        CHECK_GROUPS(m, "dp", dp);
        // Explicit sizes and any dim order: ("tp", "dp") puts dp innermost.
        r.order = "tp:2,dp:8";
        const RankMap t = build_rank_map(r);
        CHECK_VALID(t);
        CHECK_GROUPS(t, "dp", Groups{{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}});
        // Shape (pp, dp, cp, tp) == Megatron tp-cp-dp-pp (row-major vs leftmost-fastest).
        MeshRequest d;
        d.framework = "devicemesh";
        d.world = 16;
        d.tp = 2;
        d.pp = 2;
        d.cp = 2;
        d.order = "pp-dp-cp-tp";
        MeshRequest meg = d;
        meg.framework = "megatron";
        meg.order = "tp-cp-dp-pp";
        const RankMap a = build_rank_map(d), b = build_rank_map(meg);
        CHECK_VALID(a);
        for (const char* k : {"tp", "cp", "dp", "pp"}) QCOMPARE(a.group_list(k), b.group_list(k));
        r.order = "dp-dp";
        QVERIFY(topo_test::has_rule(build_rank_map(r), "devicemesh.unique_dim_names"));
        r.order = "tp:4,dp:8";
        QVERIFY(topo_test::has_rule(build_rank_map(r), "devicemesh.world_divisible"));
        r.order = "tp-foo";
        QVERIFY(topo_test::has_rule(build_rank_map(r), "devicemesh.dim_size_known"));
        r.order = "tp:x";
        QVERIFY(topo_test::has_rule(build_rank_map(r), "devicemesh.dim_names_valid"));
    }

    // PipeModelDataParallelTopology pp=2, mp=2, dp=4 (deepspeed/runtime/pipe/topology.py).
    void deepspeedTopology() {
        MeshRequest r;
        r.framework = "deepspeed";
        r.world = 16;
        r.pp = 2;
        r.tp = 2;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        QCOMPARE(m.axes[0].native, std::string("pipe"));
        QCOMPARE(m.axes[1].native, std::string("data"));
        QCOMPARE(m.axes[2].native, std::string("model"));
        CHECK_GROUPS(m, "tp", Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}});
        CHECK_GROUPS(m, "dp", Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}});
        CHECK_GROUPS(m, "pp", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        r.pp = 3;
        QVERIFY(topo_test::has_rule(build_rank_map(r), "deepspeed.world_divisible"));
    }
};

QTEST_APPLESS_MAIN(TstTopologyTorch)
#include "tst_topology_torch.moc"
