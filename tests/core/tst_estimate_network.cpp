// The estimate and the planner on a cluster's real tiers (cluster.system / cluster.network.tiers):
// each group of the framework's rank map priced on the tiers it crosses, as paraplan-cli comm prices
// one collective (network/collective.h, held to published nccl-tests results in
// tst_network_accuracy). A project that names no tiers keeps the flat two-figure network.
#include "catalog/catalog.h"
#include "estimate/comm.h"
#include "estimate/estimate.h"
#include "estimate/profile.h"
#include "estimate/step_playback.h"
#include "network/collective.h"
#include "network/group.h"
#include "network/systems.h"
#include "project/project_gpu.h"
#include "mixtral_megatron.h"
#include "project_builder.h"
#include "search/apply_plan.h"
#include "search/planner.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

using namespace paraplan;
using namespace paraplan::estimate;
using paraplan::test::ProjectBuilder;

namespace {

// Mixtral-8x22B, Megatron, tp 2 pp 4 ep 8 on 64 GPUs: as GB200 trays of one NVL72 rack, or as
// eight 8-GPU B200 nodes.
Project mixtral64(const std::string& system) {
    const bool nvl = system == "gb200-nvl72";
    Project p = paraplan::test::mixtral_megatron(nvl ? 16 : 8, nvl ? 4 : 8, nvl ? "gb200" : "b200", 2, 8);
    p.cluster.system = system;
    p.cluster.network.inter_node_gbps = nvl ? 1600 : 3200;
    return p;
}

Hardware hardware_of(const Project& p) {
    return hardware_for(*find_gpu(p.cluster, p.cluster.nodes.front().gpu), p.cluster, p.training.precision);
}

nlohmann::json nccl_row(const std::string& name) {
    std::ifstream f(PARAPLAN_TEST_DATA "/network/nccl_tests.json");
    const auto all = nlohmann::json::parse(f);
    for (const auto& r : all.at("rows"))
        if (r.at("case") == name) return r;
    return {};
}

// The best plan's layout applied to the request's project, and its rank map.
struct Planned {
    Project project;
    topology::RankMap map;
};

Planned best_plan(search::PlanRequest req) {
    const auto r = search::plan(req);
    if (r.results.empty()) return {};
    Planned out{req.base, {}};
    search::apply_entry(r.results.front(), out.project);
    out.map = topology::build_rank_map(topology::from_project(out.project), &out.project.cluster);
    return out;
}

// The most scale-up domains any group of `kind` touches on the project's system.
int max_domains(const Planned& pl, const std::string& kind) {
    const network::System sys = network::system_of(pl.project.cluster);
    const auto offsets = network::node_offsets(pl.project.cluster);
    const topology::GroupSet* gs = pl.map.group_set(kind);
    if (!gs) return 0;
    int worst = 0;
    for (int g = 0; g < gs->num_groups(); ++g)
        worst = std::max(worst, network::group_shape(sys, offsets, pl.map.placement, gs->group(g)).domains);
    return worst;
}

// DeepSeek-V3's layers, attention and experts with 64 layers (so that every pipeline split the
// planner tries divides them) and 1,024 sequences of 4K tokens.
search::PlanRequest deepseek_request(const Project& cluster_of) {
    search::PlanRequest req;
    ModelSpec m = *catalog::find_model("deepseek-v3");
    m.layers = 64;
    req.base = ProjectBuilder(cluster_of)
                   .model(m)
                   .global_batch_size(1024)
                   .seq_len(4096)
                   .precision(Precision::bf16)
                   .framework("megatron")
                   .build();
    req.hardware = hardware_of(req.base);
    req.threads = 2;
    req.top = 3;
    return req;
}

}   // namespace

class TestEstimateNetwork : public QObject {
    Q_OBJECT
private slots:
    // A project that names no system nor tiers is priced on the two tiers its nodes and network
    // make (network::system_of), the same tiers paraplan-cli comm --project prices: every group's
    // collectives run through NCCL's model, not a flat ring at the slowest tier.
    void projectWithoutTiersUsesItsTwoTiers() {
        Project p = mixtral64("dgx-b200");
        p.cluster.system.clear();
        const Hardware hw = hardware_of(p);
        QVERIFY(hw.network);
        QCOMPARE(hw.network->tiers.size(), std::size_t(2));
        QCOMPARE(hw.network->source, std::string("the project's cluster and network"));
        const Estimate e = estimate_project(p, hw);
        const GroupLink& ep = e.config.link[kEp];
        QVERIFY(ep.fabric);
        QCOMPARE(ep.fabric->nodes, 2);   // tp 2 x ep 8 spans two 8-GPU nodes
        const double bytes = double(1ull << 28);
        QCOMPARE(all_to_all_s(ep, hw, bytes), network::price(*ep.fabric, network::Op::AllToAll, 1ull << 28).time_s);
        // A hand-built Hardware (no tiers) still has the flat network to fall back on.
        Hardware flat = hw;
        flat.network = nullptr;
        const Estimate ef = estimate_project(p, flat);
        for (const auto& l : ef.config.link) QVERIFY(!l.fabric);
        QVERIFY(ef.time.step_s != e.time.step_s);
    }

    // The EP all-to-all of the same layout: inside the NVLink domain on an NVL72 rack, across two
    // 8-GPU nodes' NICs on B200 (one NIC's worth per GPU), so the rack's is several times faster.
    void nvl72KeepsExpertTrafficOnNvlink() {
        const Project nvl = mixtral64("gb200-nvl72"), b200 = mixtral64("dgx-b200");
        const Estimate en = estimate_project(nvl, hardware_of(nvl));
        const Estimate eb = estimate_project(b200, hardware_of(b200));
        const GroupLink& epn = en.config.link[kEp];
        const GroupLink& epb = eb.config.link[kEp];
        QVERIFY(epn.fabric && epb.fabric);
        QCOMPARE(epn.fabric->nodes, 1);   // one NVLink domain
        QCOMPARE(epb.fabric->nodes, 2);   // tp 2 x ep 8 spans two 8-GPU nodes
        QCOMPARE(epb.nodes, 2);
        QVERIFY(epn.nodes > 1);   // yet it crosses trays (physical nodes)
        const double bytes = 256.0 * (1 << 20);
        const double tn = all_to_all_s(epn, hardware_of(nvl), bytes), tb = all_to_all_s(epb, hardware_of(b200), bytes);
        QVERIFY2(tb > 4 * tn, qPrintable(QString("B200 %1 s vs NVL72 %2 s").arg(tb).arg(tn)));
        QVERIFY(en.time.step_s < eb.time.step_s);
        // The estimate prices its groups with the collective model paraplan-cli comm exposes.
        const auto direct = network::price(*epn.fabric, network::Op::AllToAll, 1ull << 28);
        QCOMPARE(all_to_all_s(epn, hardware_of(nvl), double(1ull << 28)), direct.time_s);
        QVERIFY(std::any_of(en.notes.begin(), en.notes.end(),
                            [](const std::string& n) { return n.find("gb200-nvl72") != std::string::npos; }));
    }

    // The Link traffic view's figures per tier: in one NVL72 rack every byte stays on NVLink; on
    // 8-GPU nodes what leaves a node crosses the NICs, and each tier's busy share is its bytes over
    // its capacity for the step.
    void linkTrafficPerTier() {
        const Project nvl = mixtral64("gb200-nvl72");
        const StepPlayback pn = step_playback(nvl);
        QVERIFY(!pn.tiers.empty());
        QCOMPARE(pn.tiers[0].name, std::string("nvlink"));
        double total = 0;
        for (const auto& l : pn.links) {
            QCOMPARE(l.tier, std::string("nvlink"));
            total += l.bytes;
        }
        QVERIFY(total > 0);
        QCOMPARE(pn.tiers[0].bytes, total);
        for (std::size_t i = 1; i < pn.tiers.size(); ++i) QCOMPARE(pn.tiers[i].bytes, 0.0);
        // 64 GPUs x 18 links x 50 GB/s.
        QCOMPARE(pn.tiers[0].capacity_gbs, 64 * 18 * 50.0);
        QCOMPARE(pn.tiers[0].utilisation, total / (pn.tiers[0].capacity_gbs * 1e9 * pn.step_s));

        const Project b200 = mixtral64("dgx-b200");
        const StepPlayback pb = step_playback(b200);
        QVERIFY(pb.tiers.size() >= 2);
        double inside = 0, across = 0;
        for (const auto& l : pb.links) {
            QVERIFY(!l.tier.empty());
            (l.cross_node ? across : inside) += l.bytes;
            QCOMPARE(l.tier == "nvlink", !l.cross_node);
        }
        QVERIFY(across > 0);
        QCOMPARE(pb.tiers[0].bytes, inside);
        QCOMPARE(pb.tiers[1].name, std::string("infiniband"));
        QCOMPARE(pb.tiers[1].bytes, across);
        QCOMPARE(pb.tiers[1].capacity_gbs, 64 * 400 / 8.0);   // one 400 Gb/s NIC per GPU
        const auto j = to_json(pb);
        QCOMPARE(j.at("tiers").size(), pb.tiers.size());
        QVERIFY(j.at("links").at(0).contains("tier"));
        // A cluster with no system named reports the two tiers its nodes and network make.
        Project plain = b200;
        plain.cluster.system.clear();
        const auto pt = step_playback(plain).tiers;
        QCOMPARE(pt.size(), std::size_t(2));
        QVERIFY(pt[0].bytes > 0 && pt[1].bytes > 0);
    }

    // A cluster profile's link multipliers (calibrate, or calibrate --nccl-tests) scale the tiers:
    // half the NIC rate doubles the cross-node part of the expert all-to-all, NVLink untouched.
    void profileScalesTheTiers() {
        const Project p = mixtral64("dgx-b200");
        const Hardware base = hardware_of(p);
        Hardware slow = base;
        Profile pr;
        pr.network = 0.5;
        apply_profile(pr, slow);
        QVERIFY(slow.network && slow.network != base.network);
        QCOMPARE(slow.network->scale_out()->nic_gbit, base.network->scale_out()->nic_gbit / 2);
        QCOMPARE(slow.network->domain().link_gbps, base.network->domain().link_gbps);
        const Estimate eb = estimate_project(p, base), es = estimate_project(p, slow);
        QCOMPARE(es.config.link[kEp].fabric->nic_gbps, eb.config.link[kEp].fabric->nic_gbps / 2);
        QVERIFY(es.time.step_s > eb.time.step_s);
    }

    // Pinned against a published bandwidth: an 8-GPU tensor-parallel group on two GB200 trays.
    // In the rack its all-reduce runs on NVLink (nccl-tests: 811 GB/s bus bandwidth at 8 GiB, row
    // gb200-2trays-allreduce); with the flat network it would cross the trays' NICs.
    void twoTrayTensorGroupMatchesNcclTests() {
        const nlohmann::json row = nccl_row("gb200-2trays-allreduce");
        QVERIFY(!row.empty());
        Project p = ProjectBuilder(mixtral64("gb200-nvl72")).tp(8).pp(2).ep(4).build();
        const Estimate e = estimate_project(p, hardware_of(p));
        const GroupLink& tp = e.config.link[kTp];
        QCOMPARE(tp.size, 8);
        QCOMPARE(tp.nodes, 2);
        QVERIFY(tp.fabric && tp.fabric->nodes == 1);
        const double bytes = row.at("bytes").get<double>();
        const double busbw = bytes / all_reduce_s(tp, bytes) / 1e9 * 2 * 7 / 8;
        const double measured = row.at("busbw_gbs").get<double>();
        // The flat network: the same group over the trays' 4 x 400 Gb/s NICs, several times slower.
        Project flat = p;
        flat.cluster.system.clear();
        const Estimate ef = estimate_project(flat, hardware_of(flat));
        const double flat_busbw = bytes / all_reduce_s(ef.config.link[kTp], bytes) / 1e9 * 2 * 7 / 8;
        QVERIFY2(flat_busbw < measured / 3, qPrintable(QString("flat %1 GB/s").arg(flat_busbw)));
        qInfo("tp 8 on two GB200 trays: model %.0f GB/s, nccl-tests %.0f GB/s (%+.1f%%), flat network %.0f GB/s", busbw,
              measured, 100 * (busbw / measured - 1), flat_busbw);
        QVERIFY(std::abs(busbw / measured - 1) < std::abs(flat_busbw / measured - 1) / 4);
        QVERIFY(std::abs(busbw / measured - 1) <= 0.10);
    }

    // NVIDIA/Megatron-LM megatron/core/transformer/moe/README.md at d98e8a64dd, "Guideline 2: Keep
    // EP and TP Communication Within NVLink Domain"; Megatron-Bridge's DeepSeek-V3 GB200 preset runs
    // EP 64 on 256 GB200 (docs/performance-summary.md at 21d102f5e, 26.04.01 table), a whole
    // 64-GPU NVLink partition, where 8-GPU nodes keep EP x TP in the node.
    void plannerKeepsExpertAndTensorGroupsInTheNvlinkDomain() {
        // Four NVL72 racks with 16 of their 18 trays each in the job: 64-GPU NVLink domains.
        Project racks = ProjectBuilder().nodes(64, 4, "gb200").build();
        network::System sys = *network::find_system("gb200-nvl72");
        sys.tiers[0].domain_gpus = 64;
        racks.cluster.network.tiers = sys.tiers;
        const Planned pl = best_plan(deepseek_request(racks));
        QVERIFY(pl.map.valid());
        const Layout& l = pl.project.layout;
        qInfo("NVL72 (64-GPU domains): tp %d pp %d cp %d ep %d", l.tp, l.pp, l.cp, l.ep);
        QVERIFY2(l.ep > 8, "the plan uses the domain beyond an 8-GPU node");
        QCOMPARE(max_domains(pl, "ep"), 1);
        if (l.tp > 1) QCOMPARE(max_domains(pl, "tp"), 1);
    }

    // Narayanan et al. 2021 (SC '21), section 3.3, Takeaway #1: tensor model parallelism up to the
    // GPUs of one server (g), pipeline parallelism across servers.
    void plannerKeepsTensorParallelInAnEightGpuNode() {
        Project nodes = ProjectBuilder().nodes(32, 8, "b200").build();
        nodes.cluster.system = "dgx-b200";
        const Planned pl = best_plan(deepseek_request(nodes));
        QVERIFY(pl.map.valid());
        const Layout& l = pl.project.layout;
        qInfo("DGX B200: tp %d pp %d cp %d ep %d", l.tp, l.pp, l.cp, l.ep);
        QVERIFY(l.tp <= 8);
        QCOMPARE(max_domains(pl, "tp"), 1);
        // Dense too: Llama 3.1 70B on 8-GPU nodes keeps tp inside the node.
        search::PlanRequest dense = deepseek_request(nodes);
        dense.base.model = *catalog::find_model("llama3.1-70b");
        dense.hardware = hardware_of(dense.base);
        const Planned pd = best_plan(dense);
        QVERIFY(pd.map.valid());
        QVERIFY(pd.project.layout.tp <= 8);
        QCOMPARE(max_domains(pd, "tp"), 1);
    }
};

QTEST_APPLESS_MAIN(TestEstimateNetwork)
#include "tst_estimate_network.moc"
