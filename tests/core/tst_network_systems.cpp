// The systems catalog: every required system with its tiers and source, the GPUs they name,
// the first N GPUs filling domains, and a project's two-tier network as a system.
#include "catalog/catalog.h"
#include "network/collective.h"
#include "network/fabric.h"
#include "network/group.h"
#include "network/systems.h"
#include "project/project.h"
#include "util/input_error.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::network;

class TestNetworkSystems : public QObject {
    Q_OBJECT
private slots:
    void requiredSystems_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("domain");
        QTest::addColumn<int>("tray");
        QTest::newRow("dgx-a100") << "dgx-a100" << 8 << 8;
        QTest::newRow("dgx-h100") << "dgx-h100" << 8 << 8;
        QTest::newRow("hgx-h200") << "hgx-h200" << 8 << 8;
        QTest::newRow("dgx-b200") << "dgx-b200" << 8 << 8;
        QTest::newRow("gb200-nvl72") << "gb200-nvl72" << 72 << 4;
        QTest::newRow("gb300-nvl72") << "gb300-nvl72" << 72 << 4;
        QTest::newRow("mi300x-8") << "mi300x-8" << 8 << 8;
        QTest::newRow("l40s-8") << "l40s-8" << 8 << 8;
    }
    void requiredSystems() {
        QFETCH(QString, id);
        QFETCH(int, domain);
        QFETCH(int, tray);
        const System* s = find_system(id.toStdString());
        QVERIFY(s);
        QVERIFY(catalog::find_gpu(s->gpu));
        QCOMPARE(s->domain().domain_gpus, domain);
        QCOMPARE(s->gpus_per_tray, tray);
        QVERIFY(s->scale_out());
        QVERIFY(!s->source.empty());
        // The domain's bandwidth agrees with the GPU catalog's link figure.
        QCOMPARE(s->domain().gpu_gbps(), catalog::find_gpu(s->gpu)->intra_node_gbps);
    }

    void nvlinkGenerations() {
        QCOMPARE(find_system("dgx-h100")->domain().reduction, std::string("nvls"));
        QCOMPARE(find_system("dgx-a100")->domain().reduction, std::string(""));
        QCOMPARE(find_system("l40s-8")->domain().kind, TierKind::Pcie);
        QCOMPARE(find_system("gb300-nvl72")->scale_out()->nic_gbit, 800.0);
    }

    // --gpus N fills a domain before the next: 72 GPUs are one NVL72 domain, 73 are two.
    void fillsDomainsFirst() {
        QCOMPARE(fabric_for(*find_system("gb200-nvl72"), 72).nodes, 1);
        QCOMPARE(fabric_for(*find_system("gb200-nvl72"), 73).nodes, 2);
        QCOMPARE(fabric_for(*find_system("dgx-h100"), 16).ppn, 8);
        QCOMPARE(fabric_for(*find_system("dgx-h100"), 4).ppn, 4);
        QVERIFY_THROWS_EXCEPTION(InputError, fabric_for(*find_system("dgx-h100"), 0));
    }

    // A project's network.inter_node_gbps is the node's total: one GPU gets its share.
    void projectAsTwoTiers() {
        const Project p = load_example("llama3.1-70b-4nodes");
        const System s = system_from_cluster(p.cluster);
        QCOMPARE(s.tiers.size(), std::size_t(2));
        QCOMPARE(s.domain().domain_gpus, p.cluster.gpus_per_node());
        const Tier& net = *s.scale_out();
        QVERIFY(std::abs(net.nics_per_gpu * net.nic_gbit * p.cluster.gpus_per_node() -
                         p.cluster.network.inter_node_gbps) < 1e-9);
        QCOMPARE(net.latency_us, p.cluster.network.latency_us);
    }

    // system_of: explicit tiers first, then cluster.system, then the two-tier default.
    void systemOfACluster() {
        Project p = load_example("llama3.1-70b-4nodes");
        QCOMPARE(system_of(p.cluster).id, std::string("project"));
        QVERIFY(system_of(p.cluster).tiers == system_from_cluster(p.cluster).tiers);
        p.cluster.system = "dgx-h100";
        QCOMPARE(system_of(p.cluster).id, std::string("dgx-h100"));
        QCOMPARE(system_of(p.cluster).tiers.size(), std::size_t(4));
        QCOMPARE(system_of(p.cluster).scale_out()->reduction, std::string("sharp"));
        p.cluster.network.tiers = {find_system("gb200-nvl72")->tiers[0]};
        const System own = system_of(p.cluster);
        QCOMPARE(own.tiers.size(), std::size_t(1));
        QCOMPARE(own.domain().domain_gpus, 72);
        QCOMPARE(own.gpu, p.cluster.nodes[0].gpu);
        p.cluster.network.tiers.clear();
        p.cluster.system = "nope";
        QVERIFY_THROWS_EXCEPTION(InputError, system_of(p.cluster));
    }

    // A group is priced where its GPUs are: one GPU in each of four DGX H100 nodes is four domains
    // of one, not the first four GPUs of one node; on an NVL72 rack of 4-GPU trays the same ranks
    // are one domain.
    void groupShapeFollowsPlacement() {
        std::vector<GpuSlot> placement;
        for (int n = 0; n < 18; ++n)
            for (int g = 0; g < 4; ++g) placement.push_back({n, g});
        Cluster trays;
        for (int n = 0; n < 18; ++n) {
            Node node;
            node.name = "t" + std::to_string(n);
            node.gpu = "gb200";
            node.gpus = 4;
            trays.nodes.push_back(node);
        }
        const std::vector<int> members{0, 8, 16, 24};
        const GroupShape rack = group_shape(*find_system("gb200-nvl72"), node_offsets(trays), placement, members);
        QCOMPARE(rack.domains, 1);
        QCOMPARE(rack.ppn, 4);
        QCOMPARE(rack.span_gpus, 25);
        std::vector<GpuSlot> nodes8;
        for (int n = 0; n < 4; ++n)
            for (int g = 0; g < 8; ++g) nodes8.push_back({n, g});
        Cluster dgx;
        for (int n = 0; n < 4; ++n) {
            Node node;
            node.name = "n" + std::to_string(n);
            node.gpu = "h100-sxm";
            dgx.nodes.push_back(node);
        }
        const System& h100 = *find_system("dgx-h100");
        const GroupShape spread = group_shape(h100, node_offsets(dgx), nodes8, members);
        QCOMPARE(spread.domains, 4);
        QCOMPARE(spread.ppn, 1);
        QCOMPARE(spread.ranks, 4);
        const GroupShape first = first_gpus(h100, 4);
        QCOMPARE(first.domains, 1);
        QCOMPARE(first.ppn, 4);
        // The spread group's all-reduce runs on one 400 Gb/s NIC per GPU; the first four GPUs on NVLink.
        const Fabric across = fabric_for(h100, spread);
        QCOMPARE(across.nodes, 4);
        QCOMPARE(across.net_tier, std::string("infiniband"));
        const auto slow = price(across, Op::AllReduce, 1u << 30);
        const auto fast = price(fabric_for(h100, first), Op::AllReduce, 1u << 30);
        QCOMPARE(slow.bound_tier, std::string("infiniband"));
        QCOMPARE(fast.bound_tier, std::string("nvlink"));
        // Ring over one NIC per GPU: 400 Gb/s x kNetEfficiency 0.92 = 46 GB/s less the latency terms
        // and the chunk steps of a partly filled last loop (1 GiB is 7 1/9 loops of 18 x 4 x 2 MiB).
        QVERIFY2(std::abs(slow.busbw_gbs - 45.75) < 0.05, std::to_string(slow.busbw_gbs).c_str());
        // Four of the node's GPUs: NVLS has 4 heads at 60 GB/s (search.cc: 5 x 60 <= 18 x 20.6), x 0.85 x 3/4
        // x 2 = 76.5 a channel, 306 GB/s; the ring's 18 channels of 20.6 GB/s beat it (364.45 after the
        // chunk steps of a partly filled loop), so NCCL's pick is the ring.
        QCOMPARE(fast.algorithm, Algorithm::Ring);
        QVERIFY2(std::abs(fast.busbw_gbs - 364.45) < 0.05, std::to_string(fast.busbw_gbs).c_str());
        const auto nvls = price(fabric_for(h100, first), Op::AllReduce, 1u << 30, Algorithm::Nvls);
        QVERIFY2(nvls.busbw_gbs < fast.busbw_gbs && std::abs(nvls.busbw_gbs - 304.55) < 0.05,
                 std::to_string(nvls.busbw_gbs).c_str());
    }

    void parseErrorsNameTheField() {
        try {
            parse_system_catalog(R"({"systems": [{"id": "x", "name": "x", "gpu": "h100-sxm", "gpus_per_node": 8,
                "gpus_per_tray": 8, "source": "s", "tiers": [{"name": "n", "kind": "nvlink", "generation": "nvlink4",
                "domain_gpus": 0, "links_per_gpu": 18, "link_gbps": 25}]}]})");
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).find("/systems/0/tiers/0/domain_gpus") != std::string::npos);
        }
    }
};

QTEST_APPLESS_MAIN(TestNetworkSystems)
#include "tst_network_systems.moc"
