// Links shared by groups that run at once: an oversubscribed switch tier slows a group by the share
// of its traffic that goes up through it when every GPU under the switch runs its kind of collective
// (network::uplink_share), and the data-parallel reduction hidden behind a backward shares the GPUs'
// NICs with that backward's expert all-to-alls and pipeline sends (estimate::reduction_shares_nics).
#include "catalog/catalog.h"
#include "estimate/comm.h"
#include "estimate/comm_terms.h"
#include "estimate/estimate.h"
#include "estimate/shapes.h"
#include "network/collective.h"
#include "network/fabric.h"
#include "network/group.h"
#include "network/systems.h"
#include "project/project_gpu.h"
#include "mixtral_megatron.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {

// DGX H100 nodes (one 400 Gb/s NIC per GPU, one rail each) under leaves of 64 GPUs (8 nodes) with
// `over`:1 uplinks to a spine.
network::System leaf_spine(double over) {
    network::System s = *network::find_system("dgx-h100");
    for (auto& t : s.tiers)
        if (t.kind == network::TierKind::Switch && t.name == "leaf") {
            t.gpus = 64;
            t.oversubscription = over;
        }
    return s;
}

// Mixtral-8x22B with Megatron on eight 8-GPU B200 nodes: tp 2 x ep 8 spans two nodes, so the expert
// all-to-alls cross the network, as do the data-parallel reduction (dp 8 over tp 2 x dp 8 GPUs)
// and the pipeline sends.
Project mixtral(int tp, int ep, int nodes) {
    Project p = paraplan::test::mixtral_megatron(nodes, 8, "b200", tp, ep);
    p.cluster.system = "dgx-b200";
    p.cluster.network.inter_node_gbps = 3200;
    return p;
}

Estimate estimate_of(const Project& p) {
    return estimate_project(
        p, hardware_for(*find_gpu(p.cluster, p.cluster.nodes.front().gpu), p.cluster, p.training.precision));
}

}   // namespace

class TestNetworkSharing : public QObject {
    Q_OBJECT
private slots:
    // A data-parallel ring over 16 nodes, one GPU each (the 8 rails' rings run at once): it enters
    // and leaves each leaf once per channel while 8 of its nodes sit under it, so 1/8 of its traffic
    // goes up and a 4:1 leaf does not slow it. A two-node ring across the leaf boundary sends all
    // of its traffic up: a quarter of the NIC. An all-to-all over the same 16 nodes sends half of
    // each GPU's data out of its leaf: 4 x 1/2 = half the NIC.
    void oversubscriptionBitesByTheTrafficThatGoesUp() {
        const network::System open = leaf_spine(1), tight = leaf_spine(4);
        const network::GroupShape dp16 = network::strided_shape(tight, 16, 8);
        QCOMPARE(dp16.domains, 16);
        const network::Fabric o16 = network::fabric_for(open, dp16), t16 = network::fabric_for(tight, dp16);
        QCOMPARE(t16.nic_gbps, o16.nic_gbps);
        QCOMPARE(t16.bw_inter, o16.bw_inter);
        QCOMPARE(o16.nic_gbps, 400 / 8.0 * network::kNetEfficiency);   // DGX H100: one 400 Gb/s NIC a GPU

        const network::GroupShape pair = network::strided_shape(tight, 2, 64);   // GPUs 0 and 64
        QCOMPARE(pair.domains, 2);
        const network::Fabric o2 = network::fabric_for(open, pair), t2 = network::fabric_for(tight, pair);
        QCOMPARE(t2.nic_gbps, o2.nic_gbps / 4);
        QCOMPARE(network::uplink_share(tight, pair).ring, 4.0);

        const network::GroupShape all = network::first_gpus(tight, 128);   // 16 nodes, 8 GPUs each
        const network::UplinkShare u = network::uplink_share(tight, all);
        QCOMPARE(u.ring, 1.0);
        QCOMPARE(u.all_to_all, 2.0);
        const network::Fabric oa = network::fabric_for(open, all), ta = network::fabric_for(tight, all);
        QCOMPARE(ta.a2a_nic_gbps, oa.a2a_nic_gbps / 2);
        // Priced: at 1 GiB the all-to-all's NIC term dominates (15/16 of each GPU's data leaves its
        // node), so it takes about twice as long; the ring all-reduce is unchanged.
        constexpr std::uint64_t kGiB = 1ull << 30;
        const double slow = network::price(ta, network::Op::AllToAll, kGiB).time_s;
        const double fast = network::price(oa, network::Op::AllToAll, kGiB).time_s;
        QVERIFY2(slow / fast > 1.95 && slow / fast < 2.0, qPrintable(QString::number(slow / fast)));
        QCOMPARE(network::price(ta, network::Op::AllReduce, kGiB).time_s,
                 network::price(oa, network::Op::AllReduce, kGiB).time_s);
        // Within one leaf nothing goes up.
        const network::GroupShape inLeaf = network::first_gpus(tight, 64);
        QCOMPARE(network::uplink_share(tight, inLeaf).all_to_all, 1.0);
    }

    // The gradient reduction hidden behind the last backward shares the NICs with that backward's
    // expert all-to-alls and pipeline sends: the backward's window is shortened by their wire time,
    // which the estimate reports per stage (StageTimes::nic_b) and the step playback uses.
    void dataParallelReductionSharesTheNicsWithExperts() {
        const Project p = mixtral(2, 8, 8);
        const Estimate e = estimate_of(p);
        const Config& c = e.config;
        QVERIFY(c.overlap_grad_reduce);
        QVERIFY(crosses_scale_out(c.link[kEp]));
        QVERIFY(crosses_scale_out(c.link[kDp]));
        QVERIFY(crosses_scale_out(c.link[kPp]));
        const LayerComm lc = layer_comm(layer_shapes(p.model), c, e.hardware, 0);
        const double send = send_recv_s(c.link[kPp], lc.pp_bytes) * lc.pp_count;
        QVERIFY(send > 0);
        for (int i = 0; i < c.pp; ++i) {
            const double expect = c.moe_layers_per_stage[i] * e.moe.a2a_bwd_s + send;
            QVERIFY2(std::abs(e.time.stages[i].nic_b - expect) <= 1e-9 * expect,
                     qPrintable(QString("stage %1: %2 vs %3").arg(i).arg(e.time.stages[i].nic_b).arg(expect)));
            const StageCost cost = e.time.stages[i].cost();
            QCOMPARE(grad_sync_window_s(c, cost, i, e.time.stages[i].nic_b),
                     std::max(0.0, cost.b - expect) + i * cost.b);
        }
    }

    // Where the data-parallel groups stay inside a node nothing they do meets the network, so no
    // other group's traffic is charged against their window; the same where the experts stay in.
    void noSharingWhereEitherStaysInside() {
        const Estimate two = estimate_of(mixtral(2, 2, 2));   // tp 2 x dp 2 in a node, pp across two
        QVERIFY(!crosses_scale_out(two.config.link[kDp]));
        QVERIFY(crosses_scale_out(two.config.link[kPp]));
        for (const auto& st : two.time.stages) QCOMPARE(st.nic_b, 0.0);
        QVERIFY(!reduction_shares_nics(two.config));
        const Project q = mixtral(2, 4, 8);   // tp 2 x ep 4: one node per EP group
        const Estimate inside = estimate_of(q);
        QVERIFY(!crosses_scale_out(inside.config.link[kEp]));
        QVERIFY(crosses_scale_out(inside.config.link[kDp]));
        const LayerComm lc = layer_comm(layer_shapes(q.model), inside.config, inside.hardware, 0);
        const double send = send_recv_s(inside.config.link[kPp], lc.pp_bytes) * lc.pp_count;
        QVERIFY(send > 0);
        for (const auto& st : inside.time.stages) QCOMPARE(st.nic_b, send);   // the pipeline sends only
    }
};

QTEST_APPLESS_MAIN(TestNetworkSharing)
#include "tst_network_sharing.moc"
