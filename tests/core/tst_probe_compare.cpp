// A recorded probe result (tests/data/probe) held against the cost model's bandwidths.
#include "estimate/comm.h"
#include "probe/probe_compare.h"

#include <QFile>
#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;

namespace {
ProbeResult recorded(const char* name) {
    QFile f(QString(PARAPLAN_TEST_DATA) + "/probe/" + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", name);
    return probe_result_from_text(f.readAll().toStdString());
}

// The recording's shape: 4 ranks on two nodes of two GPUs (tp inside a node, pp across).
Cluster two_by_two() {
    Cluster c;
    for (int i = 0; i < 2; ++i) {
        Node n;
        n.name = "node" + std::to_string(i);
        n.gpus = 2;
        c.nodes.push_back(n);
    }
    return c;
}

estimate::Hardware hardware(double intra_gbps) {
    estimate::Hardware hw;
    hw.intra_node_gbps = intra_gbps;
    hw.inter_node_gbits = 400;
    hw.gpus_per_node = 2;
    return hw;
}
}   // namespace

class TestProbeCompare : public QObject {
    Q_OBJECT
private slots:
    void glooRunAgainstNvlinkIsSlow() {
        const ProbeResult r = recorded("gloo-4ranks-tp2-pp2.json");
        const auto hw = hardware(300);
        const auto checks = compare_probe(r, two_by_two(), hw);
        QCOMPARE(checks.size(), r.groups.size());
        const auto& tp0 = checks[0];
        QCOMPARE(tp0.kind, std::string("tp"));
        QCOMPARE(tp0.nodes_spanned, 1);
        QCOMPARE(tp0.assumed_gbps, estimate::group_bandwidth_gbs(hw, 1, 2));
        // The largest all-reduce of the recording (4 MiB) is what is compared.
        QCOMPARE(tp0.measured_op, std::string("all_reduce"));
        QCOMPARE(tp0.measured_bytes, 4194304LL);
        QCOMPARE(*tp0.measured_gbps, r.groups[0].bandwidth[4].busbw_gbps);
        QVERIFY(tp0.slow);   // CPU gloo over loopback is far below NVLink
        QVERIFY(tp0.message.find("vs 300 GB/s assumed — slow") != std::string::npos);
        // pp groups cross the two nodes: the model assumes the node's network share.
        const auto& pp0 = checks[2];
        QCOMPARE(pp0.kind, std::string("pp"));
        QCOMPARE(pp0.nodes_spanned, 2);
        QCOMPARE(pp0.assumed_gbps, std::min(300.0, 400.0 / 8 * 1 / 2));
        QVERIFY(!pp0.measured_gbps);   // the recording has p2p, not collectives, for pp
        QVERIFY(!pp0.slow);
        for (const auto& c : checks) QVERIFY(c.membership_ok);
    }

    void slowIsRelativeToTheAssumption() {
        // With a link the measured figure reaches half of, tp groups are not slow.
        const ProbeResult r = recorded("gloo-4ranks-tp2-pp2.json");
        const double measured = r.groups[1].bandwidth[4].busbw_gbps;
        const auto checks = compare_probe(r, two_by_two(), hardware(measured * 1.9));
        QVERIFY(!checks[1].slow);
        const auto slower = compare_probe(r, two_by_two(), hardware(measured * 2.1));
        QVERIFY(slower[1].slow);
    }

    void failedMembershipIsReported() {
        ProbeResult r = recorded("gloo-4ranks-tp2-pp2.json");
        r.groups[1].membership_ok = false;
        r.groups[1].allreduce_sum = 2;
        const auto checks = compare_probe(r, two_by_two(), hardware(300));
        QVERIFY(!checks[1].membership_ok);
        QVERIFY(checks[1].message.find("membership check failed") != std::string::npos);
        QVERIFY(checks[1].message.find("expected 5") != std::string::npos);
    }

    void singleRankGroupsMeasureNothing() {
        const ProbeResult r = recorded("h200-nccl-world1.json");
        Cluster c;
        Node n;
        n.name = "h200";
        n.gpus = 1;
        c.nodes.push_back(n);
        const auto checks = compare_probe(r, c, hardware(450));
        QCOMPARE(checks.size(), std::size_t(3));
        for (const auto& k : checks) {
            QVERIFY(!k.measured_gbps);
            QVERIFY(!k.slow);
            QVERIFY(k.membership_ok);
        }
    }
};

QTEST_GUILESS_MAIN(TestProbeCompare)
#include "tst_probe_compare.moc"
