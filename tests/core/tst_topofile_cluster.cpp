// Topology files loaded into a project's cluster (topofile/cluster_topology.h) and the sbatch
// placement a project's job gets from its Slurm topology (topofile/slurm_placement.h, the slurm
// export). Over generated clusters (tree and block, several sizes and GPU counts): a project with
// a topology.conf loaded, exported as slurm-topology and imported again, is the same project;
// the switch tiers count the largest leaf's nodes times the GPUs per node; the project file keeps
// the topology through save and load. Worked Megatron layouts show which group decides
// --switches / --segment.
#include "export/export.h"
#include "launch/launch_plan.h"
#include "launch/launch_settings.h"
#include "network/systems.h"
#include "project/project.h"
#include "topofile/cluster_topology.h"
#include "topofile/imported_topology.h"
#include "topofile/slurm_placement.h"
#include "topology/build_rank_map.h"
#include "util/input_error.h"
#include "util/read_file.h"

#include <QtTest>

#include <algorithm>
#include <random>

using namespace paraplan;
using namespace paraplan::topofile;

namespace {

const std::string kData = PARAPLAN_TEST_DATA "/topology/";

ExportOptions forced() {
    ExportOptions o;
    o.force = true;
    return o;
}

std::string data(const std::string& rel) { return read_input_file(kData + rel, "topology file"); }

// A Megatron project on `nodes` uniform nodes of `gpn` H100 GPUs.
Project project(int nodes, int gpn, int tp, int pp) {
    nlohmann::json j = {{"paraplan", 1},
                        {"name", "topo"},
                        {"cluster", {{"gpu", "h100-sxm"}, {"nodes", nodes}, {"gpus_per_node", gpn}}},
                        {"model", {{"preset", "llama3.1-8b"}}},
                        {"training",
                         {{"global_batch_size", 64},
                          {"micro_batch_size", 1},
                          {"seq_len", 2048},
                          {"precision", "bf16"},
                          {"optimizer", "adamw"}}},
                        {"layout", {{"framework", "megatron"}, {"tp", tp}, {"pp", pp}, {"schedule", "1f1b"}}}};
    return project_from_json(j);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return std::string(e.pointer()) + " " + e.message();
    }
    return "";
}

// A generated Slurm cluster: trees of 1-3 levels with leaves of different sizes, or blocks of one
// base size with or without BlockSizes. Node names n000.., in leaf/block order.
SlurmTopology generate(std::mt19937& rng, bool tree, int& largest_leaf) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    SlurmTopology t;
    int next = 0;
    auto nodes = [&](int n) {
        std::vector<std::string> v;
        for (int k = 0; k < n; ++k) {
            std::string num = std::to_string(next++);
            v.push_back("n" + std::string(3 - std::min<std::size_t>(3, num.size()), '0') + num);
        }
        return v;
    };
    largest_leaf = 0;
    if (tree) {
        t.plugin = SlurmTopology::Plugin::Tree;
        std::vector<std::string> level;
        const int leaves = pick(1, 8);
        for (int l = 0; l < leaves; ++l) {
            SlurmSwitch s;
            s.name = "leaf" + std::to_string(l);
            s.nodes = nodes(pick(1, 12));
            largest_leaf = std::max(largest_leaf, static_cast<int>(s.nodes.size()));
            level.push_back(s.name);
            t.switches.push_back(std::move(s));
        }
        for (int up = 0; level.size() > 1; ++up) {
            std::vector<std::string> upper;
            const std::size_t fan = static_cast<std::size_t>(pick(2, 3));
            for (std::size_t i = 0; i < level.size(); i += fan) {
                SlurmSwitch s;
                s.name = "sw" + std::to_string(up) + "x" + std::to_string(i);
                for (std::size_t k = i; k < std::min(level.size(), i + fan); ++k) s.switches.push_back(level[k]);
                upper.push_back(s.name);
                t.switches.push_back(std::move(s));
            }
            level = upper;
        }
    } else {
        t.plugin = SlurmTopology::Plugin::Block;
        const int size = pick(1, 9);
        largest_leaf = size;
        for (int b = 0, n = pick(1, 6); b < n; ++b) t.blocks.push_back({"b" + std::to_string(b), nodes(size)});
        if (pick(0, 1)) t.block_sizes = {size, size * 2};
    }
    return t;
}

}   // namespace

class TestTopofileCluster : public QObject {
    Q_OBJECT
private slots:
    // Generated clusters: import -> export -> import is the identity, and the project file keeps it.
    void roundTripGeneratedClusters() {
        std::mt19937 rng(4122026);
        for (int iter = 0; iter < 120; ++iter) {
            const bool tree = iter % 2 == 0;
            int largest = 0;
            const SlurmTopology s = generate(rng, tree, largest);
            const int all = static_cast<int>(s.all_nodes().size());
            const int gpn = std::array{1, 2, 4, 8}[static_cast<std::size_t>(iter / 2 % 4)];
            const int nodes = std::uniform_int_distribution<int>(1, all)(rng);
            Project p = project(nodes, gpn, 1, 1);
            const std::string ctx = "iteration " + std::to_string(iter) + "\n" + write_slurm_topology_conf(s);

            const ClusterImport first = import_into_cluster(p.cluster, import_topology(write_slurm_topology_conf(s)));
            QVERIFY2(first.cluster.network.slurm_topology == s, ctx.c_str());
            // The scale-up and scale-out tiers are the project's two-tier default, unchanged.
            const auto before = network::system_of(p.cluster).tiers;
            const auto& tiers = first.cluster.network.tiers;
            QVERIFY2(tiers.size() > 2, ctx.c_str());
            QCOMPARE(tiers[0], before[0]);
            QCOMPARE(tiers[1], before[1]);
            // The first switch tier joins the largest leaf's (or base block's) GPUs.
            QCOMPARE(tiers[2].kind, network::TierKind::Switch);
            const bool whole = tree && s.switches.size() == 1;   // one leaf holding every node is the fabric
            QCOMPARE(tiers[2].gpus, whole ? 0 : largest * gpn);
            // Nothing else of the cluster changed.
            Cluster same = first.cluster;
            same.network.tiers = p.cluster.network.tiers;
            same.network.slurm_topology.reset();
            QVERIFY(same == p.cluster);

            p.cluster = first.cluster;
            const auto exported = export_project(p, "slurm-topology", forced());
            QVERIFY2(exported.files.count("topology.conf"), ctx.c_str());
            const std::string text = exported.files.at("topology.conf").content;
            QVERIFY(text.find(tree ? "TopologyPlugin=topology/tree" : "TopologyPlugin=topology/block") !=
                    std::string::npos);
            const ClusterImport again = import_into_cluster(p.cluster, import_topology(text));
            QVERIFY2(again.cluster == p.cluster, (ctx + "\nexported:\n" + text).c_str());
            // Saved and loaded, the project is the same.
            QVERIFY2(project_from_json(project_to_json(p)) == p, ctx.c_str());
        }
    }

    void projectFieldErrorsNameTheLine() {
        nlohmann::json j = project_to_json(project(2, 8, 1, 1));
        j["cluster"]["network"]["slurm_topology"] = "SwitchName=s0 Nodes=a[1-2]\nSwitchName=s1 Switches=s7\n";
        const std::string e = error_of([&] { project_from_json(j); });
        QVERIFY2(e.find("/cluster/network/slurm_topology") != std::string::npos, e.c_str());
        QVERIFY2(e.find("line 2") != std::string::npos, e.c_str());
        j["cluster"]["network"]["slurm_topology"] = 5;
        QVERIFY(!error_of([&] { project_from_json(j); }).empty());
        // Without the field, the project saves without it.
        const Project plain = project(2, 8, 1, 1);
        QVERIFY(!project_to_json(plain)["cluster"]["network"].contains("slurm_topology"));
        QVERIFY(error_of([&] { export_project(plain, "slurm-topology", forced()); }).find("no Slurm topology") !=
                std::string::npos);
    }

    void refusals() {
        // An 8-GPU node's files into 4-GPU nodes.
        const Project four = project(2, 4, 1, 1);
        std::string e = error_of(
            [&] { import_into_cluster(four.cluster, import_topology(data("constructed/dgx-h100-topo-m.txt"))); });
        QVERIFY2(e.find("/cluster/nodes/0/gpus") != std::string::npos && e.find("8 GPUs") != std::string::npos,
                 e.c_str());
        // The recorded H200 dump into H100 nodes: another GPU.
        const Project h100 = project(1, 1, 1, 1);
        e = error_of([&] { import_into_cluster(h100.cluster, import_topology(data("h200-1gpu-vm/nccl-topo.xml"))); });
        QVERIFY2(e.find("/cluster/nodes/0/gpu") != std::string::npos && e.find("h200") != std::string::npos, e.c_str());
        // 18 Slurm nodes for a 20-node cluster.
        e = error_of([&] {
            import_into_cluster(project(20, 8, 1, 1).cluster, import_topology(data("slurm-docs/man5-tree.conf")));
        });
        QVERIFY2(e.find("18 node(s)") != std::string::npos, e.c_str());
        // Nodes with different GPU counts.
        nlohmann::json j = project_to_json(project(2, 8, 1, 1));
        j["cluster"] = {
            {"nodes",
             {{{"name", "a"}, {"gpu", "h100-sxm"}, {"gpus", 8}}, {{"name", "b"}, {"gpu", "h100-sxm"}, {"gpus", 4}}}}};
        const Project mixed = project_from_json(j);
        e = error_of([&] { import_into_cluster(mixed.cluster, import_topology(data("slurm-docs/man5-tree.conf"))); });
        QVERIFY2(e.find("/cluster/nodes/1/gpus") != std::string::npos, e.c_str());
    }

    // NCCL's dump of a DGX H100: its NVLink and NICs replace the default tiers; switch tiers stay.
    void ncclDumpIntoProject() {
        Project p = project(4, 8, 1, 1);
        p.cluster = import_into_cluster(p.cluster, import_topology(data("slurm-docs/man5-tree.conf"))).cluster;
        const auto switches = std::vector(p.cluster.network.tiers.begin() + 2, p.cluster.network.tiers.end());
        const ImportedTopology t = import_topology(data("constructed/dgx-h100-nccl-topo.xml"));
        const ClusterImport r = import_into_cluster(p.cluster, t);
        const auto& tiers = r.cluster.network.tiers;
        QCOMPARE(tiers[0].kind, network::TierKind::NvLink);
        QCOMPARE(tiers[0].domain_gpus, t.scale_up.domain_gpus);
        QCOMPARE(tiers[0].links_per_gpu, t.scale_up.links_per_gpu);
        QCOMPARE(tiers[1].kind, network::TierKind::ScaleOut);
        QCOMPARE(tiers[1].rails, t.scale_out.nics_per_node);
        QCOMPARE(std::vector(tiers.begin() + 2, tiers.end()), switches);
        QVERIFY(r.cluster.network.slurm_topology == p.cluster.network.slurm_topology);
        // Loading the same file again changes nothing.
        QVERIFY(import_into_cluster(r.cluster, t).cluster == r.cluster);
        // topo -m gives no NVLink speed: the project's own is kept, and a note says so.
        const ClusterImport smi = import_into_cluster(p.cluster,
                                                      import_topology(data("constructed/dgx-h100-topo-m.txt")));
        QCOMPARE(smi.cluster.network.tiers[0].link_gbps, network::system_of(p.cluster).tiers[0].link_gbps);
        QVERIFY(!smi.notes.empty());
    }

    // Which group decides the option. Megatron's order tp-cp-ep-dp-pp on 8-GPU nodes with tp 8:
    // pp=2 on 2 nodes: the pp groups (rank r and r+8) span nodes 0-1.
    // pp=2 dp=2 on 4 nodes: pp groups {r, r+16} span nodes {0,2} or {1,3} (a run of 4), dp groups
    // {r, r+8} nodes {0,1} or {2,3} (runs of 2).
    void placementByGroup() {
        const SlurmTopology pairs = read_slurm_topology_conf(
            "SwitchName=l0 Nodes=n[1-2]\nSwitchName=l1 Nodes=n[3-4]\nSwitchName=top Switches=l[0-1]\n");
        const SlurmTopology quads = read_slurm_topology_conf(
            "SwitchName=l0 Nodes=n[1-4]\nSwitchName=l1 Nodes=n[5-8]\nSwitchName=top Switches=l[0-1]\n");
        auto place = [](const Project& p, const SlurmTopology& t) {
            const auto m = topology::build_rank_map(topology::from_project(p), &p.cluster);
            return job_placement(t, m);
        };
        JobPlacement jp = place(project(2, 8, 8, 2), pairs);
        QCOMPARE(jp.kind, std::string("pp"));
        QCOMPARE(jp.group_nodes, 2);
        QCOMPARE(jp.placement.sbatch_args, std::vector<std::string>{"--switches=1"});
        QVERIFY(jp.placement.guaranteed);

        const Project p4 = project(4, 8, 8, 2);
        jp = place(p4, quads);
        QCOMPARE(jp.job_nodes, 4);
        QCOMPARE(jp.kind, std::string("pp"));
        QCOMPARE(jp.group_nodes, 4);
        QCOMPARE(jp.placement.sbatch_args, std::vector<std::string>{"--switches=1"});
        // Leaves of 2 nodes cannot hold a pp group: the data-parallel groups (Megatron's dp_cp,
        // which the estimate prices for dp) decide, over 2 leaves.
        jp = place(p4, pairs);
        QCOMPARE(jp.kind, std::string("dp_cp"));
        QCOMPARE(jp.group_nodes, 2);
        QCOMPARE(jp.placement.sbatch_args, std::vector<std::string>{"--switches=2"});
        QVERIFY(!jp.placement.guaranteed);
        // Blocks: --segment of the deciding group; BlockSizes lets a pp group span two base blocks.
        SlurmTopology blocks = read_slurm_topology_conf("BlockName=b1 Nodes=n[1-2]\nBlockName=b2 Nodes=n[3-4]\n");
        jp = place(p4, blocks);
        QCOMPARE(jp.placement.sbatch_args, std::vector<std::string>{"--segment=2"});
        blocks.block_sizes = {2, 4};
        jp = place(p4, blocks);
        QCOMPARE(jp.placement.sbatch_args, std::vector<std::string>{"--segment=4"});
        // One node: nothing crosses a node, no option.
        jp = place(project(1, 8, 8, 1), pairs);
        QVERIFY(!jp.needed);
        QVERIFY(jp.placement.sbatch_args.empty());
        // No leaf holds any crossing group: a finding, no option.
        const SlurmTopology singles = read_slurm_topology_conf("SwitchName=l0 Nodes=n1\nSwitchName=l1 Nodes=n2\n");
        jp = place(project(2, 8, 8, 2), singles);
        QVERIFY(jp.needed);
        QVERIFY(!jp.placement.ok);
    }

    void slurmExportCarriesPlacement() {
        Project p = project(4, 8, 8, 2);
        const std::string plain = export_slurm(p, {}).files.at("job.sbatch").content;
        QVERIFY(plain.find("--switches") == std::string::npos);
        QVERIFY(plain.find("--segment") == std::string::npos);
        p.cluster.network.slurm_topology = read_slurm_topology_conf(
            "SwitchName=l0 Nodes=n[1-2]\nSwitchName=l1 Nodes=n[3-4]\nSwitchName=top Switches=l[0-1]\n");
        FormatOutput out = export_slurm(p, {});
        std::string s = out.files.at("job.sbatch").content;
        QVERIFY2(s.find("\n#SBATCH --switches=2\n") != std::string::npos, s.c_str());
        QVERIFY2(s.find("dp_cp groups span runs of 2") != std::string::npos, s.c_str());
        // The option sits among the #SBATCH lines, before the first command (sbatch(1) stops reading
        // directives there).
        QVERIFY(s.find("#SBATCH --switches=2") < s.find("set -euo pipefail"));
        p.cluster.network.slurm_topology = read_slurm_topology_conf(
            "BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-8]\n");
        s = export_slurm(p, {}).files.at("job.sbatch").content;
        QVERIFY2(s.find("\n#SBATCH --segment=4\n") != std::string::npos, s.c_str());
        QVERIFY2(s.find("whole job (4 nodes") != std::string::npos, s.c_str());
        // A group no leaf holds: a warning finding and no option.
        Project q = project(2, 8, 8, 2);
        q.cluster.network.slurm_topology = read_slurm_topology_conf("SwitchName=l0 Nodes=n1\nSwitchName=l1 Nodes=n2\n");
        out = export_slurm(q, {});
        s = out.files.at("job.sbatch").content;
        QVERIFY(s.find("--switches") == std::string::npos);
        QVERIFY(std::any_of(out.findings.begin(), out.findings.end(),
                            [](const Diagnostic& d) { return d.rule == "export.slurm.placement"; }));
    }

    // `launch --mode slurm` asks the same option as the export (launch_settings), unless the
    // project's runtime.slurm.sbatch_args has its own.
    void slurmLaunchCarriesPlacement() {
        Project p = project(4, 8, 8, 2);
        p.runtime = {{"mode", "slurm"}, {"script", "train.py"}};
        p.cluster.network.slurm_topology = read_slurm_topology_conf(
            "SwitchName=l0 Nodes=n[1-2]\nSwitchName=l1 Nodes=n[3-4]\nSwitchName=top Switches=l[0-1]\n");
        runtime::LaunchSettings s = runtime::launch_settings(p, {});
        QCOMPARE(s.rc.slurm.sbatch_args, std::vector<std::string>{"--switches=2"});
        const runtime::LaunchPlan plan = runtime::plan_launch(p.cluster, s.rc, "job1");
        QVERIFY2(plan.sbatch_script.find("\n#SBATCH --switches=2\n") != std::string::npos, plan.sbatch_script.c_str());
        p.runtime["slurm"] = {{"sbatch_args", {"--switches=1@10:00"}}};
        s = runtime::launch_settings(p, {});
        QCOMPARE(s.rc.slurm.sbatch_args, std::vector<std::string>{"--switches=1@10:00"});
        p.cluster.network.slurm_topology.reset();
        p.runtime.erase("slurm");
        QVERIFY(runtime::launch_settings(p, {}).rc.slurm.sbatch_args.empty());
    }
};

QTEST_APPLESS_MAIN(TestTopofileCluster)
#include "tst_topofile_cluster.moc"
