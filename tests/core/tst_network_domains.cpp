// A project's cluster as scale-up domains (the canvas's outlines), a catalog system's rack as
// project nodes (the palette's systems), and the switch tiers a group crosses.
#include "network/domains.h"
#include "network/fabric.h"
#include "network/group.h"
#include "network/rack.h"
#include "network/systems.h"
#include "util/input_error.h"

#include <QtTest>

#include <numeric>

using namespace paraplan;
using namespace paraplan::network;

namespace {
Cluster nodesOf(const std::vector<int>& gpus, const std::string& gpu = "gb200") {
    Cluster c;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        Node n;
        n.name = "n" + std::to_string(i);
        n.gpu = gpu;
        n.gpus = gpus[i];
        c.nodes.push_back(n);
    }
    return c;
}
}   // namespace

class TestNetworkDomains : public QObject {
    Q_OBJECT
private slots:
    // The GB200 NVL72 datasheet: 18 compute trays of two GB200 superchips (4 GPUs) in one
    // 72-GPU NVLink domain; a DGX H100 is one 8-GPU server.
    void rackShapes() {
        const RackShape nvl = rack_shape(*find_system("gb200-nvl72"));
        QCOMPARE(nvl.nodes, 18);
        QCOMPARE(nvl.gpus_per_node, 4);
        QCOMPARE(nvl.gpus(), 72);
        const RackShape dgx = rack_shape(*find_system("dgx-h100"));
        QCOMPARE(dgx.nodes, 1);
        QCOMPARE(dgx.gpus_per_node, 8);
        // Every catalog system's rack is exactly one scale-up domain.
        for (const auto& s : systems()) QCOMPARE(rack_shape(s).gpus(), s.domain().domain_gpus);
    }

    void addRackAppendsToItsOwnSystem() {
        const System& s = *find_system("gb200-nvl72");
        Cluster c;
        QCOMPARE(add_rack(c, s), RackAdded::Appended);
        QCOMPARE(c.system, std::string("gb200-nvl72"));
        QCOMPARE(c.nodes.size(), std::size_t(18));
        QCOMPARE(c.world_size(), 72);
        for (const auto& n : c.nodes) {
            QCOMPARE(n.gpu, std::string("gb200"));
            QCOMPARE(n.gpus, 4);
        }
        QCOMPARE(c.nodes[0].name, std::string("rack0-tray0"));
        QCOMPARE(c.nodes[17].name, std::string("rack0-tray17"));
        QVERIFY(!rack_replaces(c, s));
        QCOMPARE(add_rack(c, s), RackAdded::Appended);
        QCOMPARE(c.world_size(), 144);
        QCOMPARE(c.nodes[18].name, std::string("rack1-tray0"));
        // The second rack is the second domain.
        const auto blocks = node_blocks(c, s.domain().domain_gpus);
        QCOMPARE(blocks.size(), std::size_t(2));
        QCOMPARE(blocks[1].first_node, 18);
        QCOMPARE(blocks[1].nodes, 18);
        QCOMPARE(blocks[1].gpus, 72);
        QVERIFY(!blocks[0].straddles);
        QVERIFY(domains_span_nodes(s, c));
        QCOMPARE(system_of(c).id, s.id);
    }

    void addRackReplacesAnotherSystem() {
        Cluster c = nodesOf({8, 8}, "h100-sxm");
        c.network.tiers = find_system("dgx-h100")->tiers;   // as an imported topology leaves them
        c.rank_order.push_back({1, 0});
        QVERIFY(rack_replaces(c, *find_system("gb200-nvl72")));
        QCOMPARE(add_rack(c, *find_system("gb200-nvl72")), RackAdded::Replaced);
        QCOMPARE(c.world_size(), 72);
        QVERIFY(c.network.tiers.empty());
        QVERIFY(c.rank_order.empty());
        for (const auto& n : c.nodes) QCOMPARE(n.gpu, std::string("gb200"));
        // A one-node system names its nodes node<i>, skipping names in use.
        Cluster d = nodesOf({8}, "h100-sxm");
        d.system = "dgx-h100";
        d.nodes.edit()[0].name = "node1";
        QCOMPARE(add_rack(d, *find_system("dgx-h100")), RackAdded::Appended);
        QCOMPARE(d.nodes.size(), std::size_t(2));
        QCOMPARE(d.nodes[1].name, std::string("node2"));
    }

    // A node belongs to the domain of its first GPU; one that runs over the edge is marked.
    void blocksOfUnevenNodes() {
        const Cluster c = nodesOf({6, 6, 6});   // GPUs 0-5, 6-11, 12-17 in blocks of 8
        const auto b = node_blocks(c, 8);
        QCOMPARE(b.size(), std::size_t(2));
        QCOMPARE(b[0].first_node, 0);
        QCOMPARE(b[0].nodes, 2);   // GPUs 0 and 6 lie in block 0
        QVERIFY(b[0].straddles);   // node 1 holds GPUs 6..11
        QCOMPARE(b[1].index, 1);
        QCOMPARE(b[1].first_node, 2);
        QCOMPARE(b[1].gpus, 6);
        QVERIFY_THROWS_EXCEPTION(InputError, node_blocks(c, 0));
    }

    // 8-GPU nodes of an 8-GPU domain: every domain is one node (nothing to outline).
    void nodeDomainsDoNotSpanNodes() {
        Cluster c = nodesOf({8, 8, 8}, "h100-sxm");
        QVERIFY(!domains_span_nodes(*find_system("dgx-h100"), c));
        QVERIFY(!domains_span_nodes(system_of(c), c));   // the project's own two tiers
        c.system = "gb200-nvl72";
        QVERIFY(domains_span_nodes(*find_system("gb200-nvl72"), nodesOf({4, 4})));
        QVERIFY(!domains_span_nodes(*find_system("gb200-nvl72"), nodesOf({4})));
    }

    // NVL72's leaf joins 576 GPUs (8 racks): a group over two racks crosses the leaf only, one
    // over more than 576 GPUs the spine too. group_shape gives the span from the placement.
    void switchTiersCrossed() {
        const System& s = *find_system("gb200-nvl72");
        const auto two = switch_tiers_crossed(s, 144);
        QCOMPARE(two.size(), std::size_t(1));
        QCOMPARE(two[0]->name, std::string("leaf"));
        const auto many = switch_tiers_crossed(s, 577);
        QCOMPARE(many.size(), std::size_t(2));
        QCOMPARE(many[1]->name, std::string("spine"));

        Cluster c;
        add_rack(c, s);
        add_rack(c, s);
        const auto placement = c.placement();
        const auto offsets = node_offsets(c);
        const std::vector<int> inside = {0, 4, 40, 71}, across = {0, 72};
        QCOMPARE(group_shape(s, offsets, placement, inside).domains, 1);
        const GroupShape g = group_shape(s, offsets, placement, across);
        QCOMPARE(g.domains, 2);
        QCOMPARE(g.span_gpus, 73);
        QCOMPARE(switch_tiers_crossed(s, g.span_gpus).size(), std::size_t(1));
    }
};

QTEST_MAIN(TestNetworkDomains)
#include "tst_network_domains.moc"
