// The systems catalog: every required system with its tiers and source, the GPUs they name,
// the first N GPUs filling domains, and a project's two-tier network as a system.
#include "catalog/catalog.h"
#include "network/fabric.h"
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
