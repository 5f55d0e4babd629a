// Moving a node in the node order (core/project/reorder_nodes): the canvas's reorder
// edit. Ranks fill nodes in node order, so the move changes which machine runs which
// rank; an explicit rank_order keeps each rank on its machine; bad indices are refused
// with a message that names the index and the valid range.
#include "project/project.h"
#include "project/reorder_nodes.h"
#include "util/input_error.h"

#include <QtTest>

#include <string>
#include <vector>

using namespace paraplan;

namespace {
Cluster fourNodes() {
    Cluster c;
    for (int i = 0; i < 4; ++i) {
        Node n;
        n.name = "node" + std::to_string(i);
        n.host = "host-" + std::string(1, char('a' + i));
        n.gpu = "h100-sxm";
        n.gpus = 2;
        c.nodes.push_back(n);
    }
    return c;
}
std::vector<std::string> names(const Cluster& c) {
    std::vector<std::string> out;
    for (const auto& n : c.nodes) out.push_back(n.name);
    return out;
}
using Names = std::vector<std::string>;
}   // namespace

class TestReorderNodes : public QObject {
    Q_OBJECT
private slots:
    void movesForwardAndBack() {
        Cluster c = fourNodes();
        QVERIFY(reorder_nodes(c, 3, 0));
        QCOMPARE(names(c), (Names{"node3", "node0", "node1", "node2"}));
        QVERIFY(reorder_nodes(c, 0, 3));
        QCOMPARE(names(c), (Names{"node0", "node1", "node2", "node3"}));
        QVERIFY(reorder_nodes(c, 1, 2));
        QCOMPARE(names(c), (Names{"node0", "node2", "node1", "node3"}));
        // The node's own fields travel with it.
        QCOMPARE(c.nodes[2].host, std::string("host-b"));
    }

    void fillOrderRanksFollowTheNewOrder() {
        Cluster c = fourNodes();
        QVERIFY(reorder_nodes(c, 2, 0));
        const auto placement = c.placement();
        QCOMPARE(placement.size(), std::size_t(8));
        // Rank 0 and 1 now run on the former node2 (host-c), ranks 2-3 on node0.
        QCOMPARE(c.nodes[std::size_t(placement[0].node)].host, std::string("host-c"));
        QCOMPARE(c.nodes[std::size_t(placement[1].node)].host, std::string("host-c"));
        QCOMPARE(c.nodes[std::size_t(placement[2].node)].host, std::string("host-a"));
        QCOMPARE(c.nodes[std::size_t(placement[7].node)].host, std::string("host-d"));
    }

    void explicitRankOrderKeepsEachRankOnItsMachine() {
        Cluster c = fourNodes();
        // Ranks 0..7 in reverse fill order: rank r on node 3 - r/2.
        for (int r = 0; r < 8; ++r) c.rank_order.push_back({3 - r / 2, r % 2});
        std::vector<std::string> hostOfRank;
        for (const auto& s : c.placement()) hostOfRank.push_back(c.nodes[std::size_t(s.node)].host);
        QVERIFY(reorder_nodes(c, 0, 3));
        QCOMPARE(names(c), (Names{"node1", "node2", "node3", "node0"}));
        const auto after = c.placement();
        for (std::size_t r = 0; r < after.size(); ++r) {
            QCOMPARE(c.nodes[std::size_t(after[r].node)].host, hostOfRank[r]);
            QCOMPARE(after[r].local_rank, int(r % 2));
        }
        QCOMPARE(c.rank_order[0].node, 2);   // node3 moved from index 3 to 2
    }

    void sameIndexChangesNothing() {
        Cluster c = fourNodes();
        const Cluster before = c;
        QVERIFY(!reorder_nodes(c, 2, 2));
        QVERIFY(c == before);
    }

    void badIndexIsRefusedWithWhereAndWhy() {
        Cluster c = fourNodes();
        const Cluster before = c;
        try {
            reorder_nodes(c, 4, 0);
            QFAIL("index 4 of 4 nodes was accepted");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/cluster/nodes/4"));
            QCOMPARE(e.message(),
                     std::string("cannot move a node from index 4: the cluster has 4 nodes (indices 0 to 3)"));
        }
        try {
            reorder_nodes(c, 1, -1);
            QFAIL("index -1 was accepted");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/cluster/nodes/-1"));
            QVERIFY(std::string(e.what()).find("to index -1") != std::string::npos);
        }
        QVERIFY(c == before);   // nothing moved
        Cluster empty;
        QVERIFY_THROWS_EXCEPTION(InputError, reorder_nodes(empty, 0, 0));
    }

    // Through the project file: the moved cluster saves and loads back the same.
    void roundTripsThroughTheProjectFile() {
        Project p = load_example("llama3.1-70b-4nodes");
        const std::string firstHost = p.cluster.nodes[0].host;
        QVERIFY(reorder_nodes(p.cluster, 0, 3));
        const Project back = project_from_json(project_to_json(p));
        QCOMPARE(back.cluster.nodes[3].host, firstHost);
        QVERIFY(back.cluster == p.cluster);
    }
};

QTEST_APPLESS_MAIN(TestReorderNodes)
#include "tst_reorder_nodes.moc"
