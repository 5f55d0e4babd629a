// Where ranks run: fill order, non-uniform clusters, the canvas's explicit rank_order,
// node crossing per group, and the JSON contract of `paraplan-cli groups --json`.
#include "core/topology_test_util.h"
#include "project/project.h"

using namespace paraplan;
using namespace paraplan::topology;
using topo_test::Groups;

namespace {

Cluster cluster_of(const std::vector<int>& gpus) {
    Cluster c;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        Node n;
        n.name = "node" + std::to_string(i);
        n.gpu = "h100";
        n.gpus = gpus[i];
        c.nodes.push_back(n);
    }
    return c;
}

MeshRequest megatron16() {
    MeshRequest r;
    r.framework = "megatron";
    r.world = 16;
    r.tp = 2;
    r.pp = 2;
    r.cp = 2;
    return r;
}

}   // namespace

class TstTopologyPlacement : public QObject {
    Q_OBJECT
private slots:
    void uniformWithoutCluster() {
        MeshRequest r = megatron16();
        r.gpus_per_node = 4;
        const RankMap m = build_rank_map(r);
        CHECK_VALID(m);
        QCOMPARE(m.num_nodes, 4);
        QCOMPARE(m.placement[5].node, 1);
        QCOMPARE(m.placement[5].local_rank, 1);
        // tp-cp groups of 4 fill one node; dp (stride 4) crosses.
        QCOMPARE(m.summary("tp_cp").groups_crossing_nodes, 0);
        QCOMPARE(m.summary("dp").groups_crossing_nodes, m.summary("dp").num_groups);
        QCOMPARE(m.summary("dp_cp").max_nodes_spanned, 2);
        QCOMPARE(m.summary("tp_dp_cp").max_nodes_spanned, 2);
        const auto span = m.group_span("dp", 0);   // {0, 4}
        QCOMPARE(span.nodes_spanned, 2);
        QVERIFY(span.crosses_nodes);
        QVERIFY(!m.group_span("tp", 0).crosses_nodes);
    }

    // Nodes of 4, 8 and 4 GPUs: rank 4..11 sit on node 1.
    void nonUniformCluster() {
        const Cluster c = cluster_of({4, 8, 4});
        const RankMap m = build_rank_map(megatron16(), &c);
        CHECK_VALID(m);
        QCOMPARE(m.num_nodes, 3);
        QCOMPARE(m.placement[4].node, 1);
        QCOMPARE(m.placement[11].node, 1);
        QCOMPARE(m.placement[11].local_rank, 7);
        QCOMPARE(m.placement[12].node, 2);
        // pp groups {r, r+8}: {0,8}: nodes 0,1; {4,12}: nodes 1,2; every one crosses.
        QCOMPARE(m.summary("pp").groups_crossing_nodes, 8);
        // dp groups {0,4},{1,5},{2,6},{3,7} cross (node 0 / 1); {8,12}.. cross (1 / 2).
        QCOMPARE(m.summary("dp").groups_crossing_nodes, 8);
        // tp_dp_cp {0..7}: nodes 0,1; {8..15}: nodes 1,2.
        QCOMPARE(m.summary("tp_dp_cp").max_nodes_spanned, 2);
        QCOMPARE(m.summary("tp").groups_crossing_nodes, 0);
    }

    // The canvas places rank r on node r % 2: every TP pair now crosses nodes and every
    // PP pair stays inside one.
    void explicitRankOrder() {
        Cluster c = cluster_of({8, 8});
        for (int r = 0; r < 16; ++r) c.rank_order.push_back({r % 2, r / 2});
        const RankMap m = build_rank_map(megatron16(), &c);
        CHECK_VALID(m);
        QCOMPARE(m.placement[3].node, 1);
        QCOMPARE(m.placement[3].local_rank, 1);
        QCOMPARE(m.summary("tp").groups_crossing_nodes, 8);
        QCOMPARE(m.summary("pp").groups_crossing_nodes, 0);
        QCOMPARE(m.summary("cp").groups_crossing_nodes, 0);
        QCOMPARE(m.summary("tp_dp_cp").max_nodes_spanned, 2);
    }

    void clusterWorldMismatchFallsBack() {
        const Cluster c = cluster_of({8});
        const RankMap m = build_rank_map(megatron16(), &c);
        CHECK_VALID(m);
        QVERIFY(topo_test::has_rule(m, "topology.cluster_world_mismatch"));
        QCOMPARE(m.num_nodes, 2);
    }

    // A project's cluster and layout become the request; its cluster places the ranks.
    void fromProject() {
        Project p;
        p.cluster = cluster_of({8, 8});
        p.layout.framework = "colossalai-gemini";
        p.layout.tp = 4;
        p.layout.extra.edit()["extra_dp_size"] = 2;
        const MeshRequest r = from_project(p);
        QCOMPARE(r.world, 16);
        QCOMPARE(r.gpus_per_node, 8);
        QCOMPARE(r.extra_dp, 2);
        QCOMPARE(r.tp, 4);
        const RankMap m = build_rank_map(r, &p.cluster);
        CHECK_VALID(m);
        QCOMPARE(m.axes[0].size, 2);   // zero = 16 / (4 * 2)
        CHECK_GROUPS(m, "zero", Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}});
        QCOMPARE(m.summary("zero").groups_crossing_nodes, 8);
        QCOMPARE(m.summary("extra_dp").groups_crossing_nodes, 0);
    }

    // The CLI contract: shapes and names of the JSON document.
    void jsonContract() {
        MeshRequest r;
        r.framework = "colossalai";
        r.world = 16;
        r.tp = 2;
        r.pp = 2;
        r.sp = 2;
        r.sp_mode = SpMode::all_to_all;
        const RankMap m = build_rank_map(r);
        const nlohmann::json j = to_json(m);
        QCOMPARE(j["framework"].get<std::string>(), std::string("colossalai"));
        QCOMPARE(j["world_size"].get<int>(), 16);
        QCOMPARE(j["axes"].size(), std::size_t(4));
        QCOMPARE(j["axes"][0]["name"].get<std::string>(), std::string("dp"));
        QCOMPARE(j["axes"][0]["size"].get<int>(), 2);
        QCOMPARE(j["ranks"].size(), std::size_t(16));
        const auto& r5 = j["ranks"][5];
        QCOMPARE(r5["rank"].get<int>(), 5);
        QCOMPARE(r5["coords"]["pp"].get<int>(), 1);
        QCOMPARE(r5["coords"]["sp"].get<int>(), 1);
        QCOMPARE(r5["node"].get<int>(), 0);
        QCOMPARE(r5["local_rank"].get<int>(), 5);
        QCOMPARE(j["groups"]["tp"][0], nlohmann::json({0, 2}));
        QCOMPARE(j["groups"]["mixed_dp"][0], nlohmann::json({0, 1, 8, 9}));
        for (const char* k : {"tp", "pp", "dp", "sp", "mixed_dp"}) QVERIFY(j["groups"].contains(k));
        QCOMPARE(j["group_spans"]["dp"]["groups_crossing_nodes"].get<int>(), 8);
        // Invalid layouts: {"valid": false, "diagnostics": [...]}
        r.world = 12;
        r.sp_mode = SpMode::none;
        r.sp = 1;
        r.tp = 8;
        r.pp = 1;
        const nlohmann::json bad = to_json(build_rank_map(r));
        QCOMPARE(bad["valid"].get<bool>(), false);
        QCOMPARE(bad["diagnostics"][0]["rule"].get<std::string>(), std::string("colossalai.world_divisible"));
        QVERIFY(bad["diagnostics"][0].contains("framework_error"));
        QVERIFY(!bad.contains("groups"));
    }
};

QTEST_APPLESS_MAIN(TstTopologyPlacement)
#include "tst_topology_placement.moc"
