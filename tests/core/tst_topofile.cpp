// Real topology files read into one struct and into network tiers (core/topofile/): the NCCL
// dump and `nvidia-smi topo -m` recorded on an H200 virtual machine, constructed DGX-style
// 8-GPU files in the same formats, and the topology.conf examples of Slurm's own documentation
// (tests/data/topology/*/README.md says where each comes from). Bad input is refused with its
// line; write -> read of a topology.conf is the identity on generated trees and block sets.
#include "topofile/imported_topology.h"
#include "topofile/nccl_topo_xml.h"
#include "topofile/slurm_topology_conf.h"
#include "topofile/smi_topo_matrix.h"
#include "util/input_error.h"
#include "util/read_file.h"

#include <QtTest>

#include <random>
#include <set>

using namespace paraplan;
using namespace paraplan::topofile;

namespace {

const std::string kData = PARAPLAN_TEST_DATA "/topology/";

std::string data(const std::string& rel) { return read_input_file(kData + rel, "topology file"); }

// The InputError's line, or 0 when `f` does not throw one.
template <class F>
int error_line(F&& f, std::string* what = nullptr) {
    try {
        f();
    } catch (const InputError& e) {
        if (what) *what = e.what();
        return e.line();
    }
    return 0;
}

std::string nested_xml(int depth) {
    std::string s;
    for (int i = 0; i < depth; ++i) s += "<pci>\n";
    for (int i = 0; i < depth; ++i) s += "</pci>\n";
    return s;
}

}   // namespace

class TestTopofile : public QObject {
    Q_OBJECT
private slots:
    // --- NCCL's topology dump -------------------------------------------------------------

    // Recorded: one H200 passed through over PCIe, one socket NIC (eth0, 10 Gbit/s), no NVLink.
    void ncclH200Vm() {
        const auto t = read_nccl_topo_xml(data("h200-1gpu-vm/nccl-topo.xml"));
        QCOMPARE(t.nodes.size(), std::size_t(1));
        QCOMPARE(t.nodes[0].gpus, 1);
        QCOMPARE(t.nodes[0].gpu_arch, std::string("sm90"));
        QCOMPARE(t.nodes[0].gpu_catalog, std::string("h200"));   // PCI device 0x2335
        QCOMPARE(t.nodes[0].nics, 1);
        QCOMPARE(t.scale_up.kind, network::TierKind::Pcie);
        QCOMPARE(t.scale_up.domain_gpus, 1);
        QCOMPARE(t.scale_up.generation, std::string("pcie5"));   // link_speed="32.0 GT/s PCIe"
        QCOMPARE(t.scale_up.link_gbps, 64.0);                    // link_width="0": x16 assumed, and said
        QVERIFY(!t.scale_up.nvswitch);
        bool width_note = false;
        for (const auto& n : t.notes) width_note = width_note || n.find("x16 assumed") != std::string::npos;
        QVERIFY(width_note);
        QCOMPARE(t.scale_out.nics_per_node, 1);
        QCOMPARE(t.scale_out.nic_gbit, 10.0);   // speed="10000" Mbit/s
        QCOMPARE(t.scale_out.nics_per_gpu, 1.0);
        QCOMPARE(t.scale_out.gpus_with_local_nic, 0);   // the NIC hangs off the CPU, not a PCIe switch
        const auto tiers = to_tiers(t);
        QCOMPARE(tiers.size(), std::size_t(2));
        QCOMPARE(tiers[0].kind, network::TierKind::Pcie);
        QCOMPARE(tiers[1].kind, network::TierKind::ScaleOut);
        QCOMPARE(tiers[1].nic_gbit, 10.0);
        QCOMPARE(tiers[1].rails, 1);
    }

    // Constructed DGX H100-style dump: 8 GPUs, 18 NVLink4 links each to four NVSwitches, one
    // 400 Gb/s NIC per GPU behind the GPU's own PCIe switch.
    void ncclDgxH100() {
        const auto t = read_nccl_topo_xml(data("constructed/dgx-h100-nccl-topo.xml"));
        QCOMPARE(t.nodes.size(), std::size_t(1));   // both sockets carry the same host_hash
        QCOMPARE(t.nodes[0].gpus, 8);
        QCOMPARE(t.nodes[0].gpu_catalog, std::string("h100-sxm"));
        QCOMPARE(t.scale_up.kind, network::TierKind::NvLink);
        QCOMPARE(t.scale_up.generation, std::string("nvlink4"));
        QVERIFY(t.scale_up.nvswitch);
        QCOMPARE(t.scale_up.domain_gpus, 8);
        QCOMPARE(t.scale_up.links_per_gpu, 18);
        QCOMPARE(t.scale_up.link_gbps, 25.0);
        QCOMPARE(t.scale_out.nics_per_node, 8);
        QCOMPARE(t.scale_out.nic_gbit, 400.0);
        QCOMPARE(t.scale_out.gpus_with_local_nic, 8);
        const auto tiers = to_tiers(t);
        QCOMPARE(tiers[0].gpu_gbps(), 450.0);   // as the catalog's dgx-h100 tier: 18 x 25 GB/s
        QCOMPARE(tiers[1].rails, 8);
    }

    // Two hosts fused into one file (host_hash tells them apart), GPUs joined by direct NVLinks
    // named by bus id, one GPU listed twice (two ranks on it), a comment and an XML declaration.
    void ncclMultiHostDirectLinks() {
        const std::string xml = R"(<?xml version="1.0"?>
<system version="1">
  <!-- host A -->
  <cpu host_hash="0xa" numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="106">
    <pci busid="0000:01:00.0" class="0x030200" device="0x20b2" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="80" rank="0" gdr="1">
        <nvlink target="0000:02:00.0" count="4" tclass="0x030200"/>
      </gpu>
      <gpu dev="0" sm="80" rank="1" gdr="1">
        <nvlink target="0000:02:00.0" count="4" tclass="0x030200"/>
      </gpu>
    </pci>
    <pci busid="0000:02:00.0" class="0x030200" device="0x20b2" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="1" sm="80" rank="2" gdr="1">
        <nvlink target="0000:01:00.0" count="4" tclass="0x030200"/>
      </gpu>
    </pci>
    <pci busid="0000:03:00.0" class="0x030200" device="0x20b2" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="2" sm="80" rank="3" gdr="1"/>
    </pci>
  </cpu>
  <cpu host_hash='0xb' numaid="0" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="106">
    <pci busid="0000:01:00.0" class="0x030200" device="0x20b2" link_speed="16.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="80" rank="4" gdr="1"/>
    </pci>
    <nic><net name="mlx5_0" dev="0" speed="-1" port="1" gdr="1"/></nic>
  </cpu>
</system>
)";
        QCOMPARE(guess_format(xml), std::optional<Format>(Format::NcclXml));
        const auto t = read_nccl_topo_xml(xml);
        QCOMPARE(t.nodes.size(), std::size_t(2));
        QCOMPARE(t.nodes[0].gpus, 3);   // the GPU with two ranks counts once
        QCOMPARE(t.nodes[1].gpus, 1);
        QCOMPARE(t.nodes[0].gpu_catalog, std::string("a100-80g"));
        QCOMPARE(t.scale_up.generation, std::string("nvlink3"));
        QVERIFY(!t.scale_up.nvswitch);
        QCOMPARE(t.scale_up.domain_gpus, 2);   // GPU 2 has no NVLink
        QCOMPARE(t.scale_up.links_per_gpu, 4);
        QCOMPARE(t.scale_out.nics_per_node, 0);   // the NIC belongs to host1
        QCOMPARE(t.nodes[1].nics, 1);
        QVERIFY(!t.notes.empty());
    }

    void ncclErrorsNameTheLine() {
        std::string what;
        QCOMPARE(error_line([&] { (void)read_nccl_topo_xml(nested_xml(100)); }, &what), 65);
        QVERIFY2(what.find("deeper than 64") != std::string::npos, what.c_str());
        QCOMPARE(error_line([] { (void)parse_topo_xml("<system>\n  <cpu>\n</system>\n"); }), 3);
        QCOMPARE(error_line([] { (void)parse_topo_xml("<system>\n<cpu a=\"1\">\n"); }), 3);
        QCOMPARE(error_line([] { (void)parse_topo_xml("<system>\nhello\n</system>"); }), 2);
        QCOMPARE(error_line([] { (void)parse_topo_xml("<system a=\"1\" a=\"2\"/>"); }), 1);
        QCOMPARE(error_line([] { (void)parse_topo_xml("<system/>\n<system/>"); }), 2);
        QCOMPARE(error_line([] { (void)parse_topo_xml("<!-- open\n\n"); }), 1);
        QCOMPARE(error_line([] { (void)parse_topo_xml("<a b=" + std::string("\"") + std::string(300, 'x') + "\"/>"); }),
                 1);
        QCOMPARE(error_line([] { (void)read_nccl_topo_xml("<system version=\"1\">\n</system>\n"); }), 1);   // no GPU
        QCOMPARE(error_line([] { (void)read_nccl_topo_xml("<cpu/>"); }), 1);   // root not <system>
        QCOMPARE(
            error_line([] {
                (void)read_nccl_topo_xml(
                    "<system>\n<cpu>\n<pci busid=\"0\">\n<gpu dev=\"0\" sm=\"ninety\"/>\n</pci>\n</cpu>\n</system>");
            }),
            4);
        // More elements than the bound: refused, not read.
        std::string many = "<system>\n";
        for (std::size_t i = 0; i <= kMaxXmlElements; ++i) many += "<x/>";
        many += "\n</system>\n";
        QVERIFY2(error_line([&] { (void)parse_topo_xml(many); }, &what) == 2, what.c_str());
    }

    // --- nvidia-smi topo -m --------------------------------------------------------------

    // Recorded on the same H200 VM: one GPU, no NIC, tabs and ANSI escapes in the header.
    void smiH200Vm() {
        const std::string text = data("h200-1gpu-vm/topo-m.txt");
        QCOMPARE(guess_format(text), std::optional<Format>(Format::SmiTopo));
        const auto m = parse_smi_topo(text);
        QCOMPARE(m.devices, std::vector<std::string>{"GPU0"});
        QCOMPARE(m.cpu_affinity[0], std::string("0-15"));
        const auto t = read_smi_topo_matrix(text);
        QCOMPARE(t.nodes[0].gpus, 1);
        QCOMPARE(t.scale_up.kind, network::TierKind::Pcie);
        QCOMPARE(t.scale_out.nics_per_node, 0);
    }

    void smiDgxH100() {
        const auto m = parse_smi_topo(data("constructed/dgx-h100-topo-m.txt"));
        QCOMPARE(m.devices.size(), std::size_t(16));
        QCOMPARE(m.nic_names[8], std::string("mlx5_0"));
        QCOMPARE(m.cells[0][1].link, SmiLink::NvLink);
        QCOMPARE(m.cells[0][1].nvlinks, 18);
        QCOMPARE(m.cells[0][12].link, SmiLink::Sys);
        const auto t = read_smi_topo_matrix(data("constructed/dgx-h100-topo-m.txt"));
        QCOMPARE(t.nodes[0].gpus, 8);
        QCOMPARE(t.nodes[0].nics, 8);
        QCOMPARE(t.scale_up.kind, network::TierKind::NvLink);
        QVERIFY(t.scale_up.nvswitch);   // NV18 to all seven peers is more than one GPU's 18 links
        QCOMPARE(t.scale_up.domain_gpus, 8);
        QCOMPARE(t.scale_up.links_per_gpu, 18);
        QCOMPARE(t.scale_up.link_gbps, 0.0);   // not in the matrix
        QCOMPARE(t.scale_out.nics_per_gpu, 1.0);
        QCOMPARE(t.scale_out.gpus_with_local_nic, 8);
    }

    void smiDirectLinks() {
        const auto t = read_smi_topo_matrix(data("constructed/hgx-4gpu-direct-topo-m.txt"));
        QCOMPARE(t.scale_up.domain_gpus, 4);
        QVERIFY(!t.scale_up.nvswitch);
        QCOMPARE(t.scale_up.links_per_gpu, 12);   // NV4 to each of three peers
        // Spaces instead of tabs, the older SOC legend, NIC columns named by device.
        const auto s = read_smi_topo_matrix(
            "        GPU0    GPU1    mlx5_0  CPU Affinity\n"
            "GPU0     X      SOC     PIX     0-9\n"
            "GPU1    SOC      X      SOC     10-19\n"
            "mlx5_0  PIX     SOC      X\n");
        QCOMPARE(s.scale_up.kind, network::TierKind::Pcie);
        QCOMPARE(s.scale_out.nics_per_node, 1);
        QCOMPARE(s.scale_out.gpus_with_local_nic, 1);
    }

    void smiErrorsNameLineAndColumn() {
        try {
            (void)parse_smi_topo("\tGPU0\tGPU1\n GPU0\t X \tNV4\nGPU1\tFOO\t X \n");
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(e.line(), 3);
            QCOMPARE(e.column(), 6);
            QVERIFY(std::string(e.what()).find("FOO") != std::string::npos);
        }
        QCOMPARE(error_line([] { (void)parse_smi_topo("GPU0\tGPU1\nGPU0\t X \tNV4\n"); }), 2);   // a row missing
        QCOMPARE(error_line([] { (void)parse_smi_topo("GPU0\tGPU1\nGPU0\tNV4\t X\nGPU1\tNV4\t X\n"); }), 2);
        QCOMPARE(error_line([] { (void)parse_smi_topo("hello\n"); }), 1);
        QCOMPARE(error_line([] { (void)parse_smi_topo("GPU0\tGPU0\n"); }), 1);
    }

    // --- Slurm topology.conf -------------------------------------------------------------

    // topology.conf(5) EXAMPLE, topology/tree: three leaves of six nodes under s3.
    void slurmManTree() {
        const std::string text = data("slurm-docs/man5-tree.conf");
        QCOMPARE(guess_format(text), std::optional<Format>(Format::SlurmTopology));
        const auto s = read_slurm_topology_conf(text);
        QCOMPARE(s.plugin, SlurmTopology::Plugin::Tree);
        QCOMPARE(s.switches.size(), std::size_t(4));
        QCOMPARE(s.leaves().size(), std::size_t(3));
        QCOMPARE(s.switches[2].nodes.front(), std::string("dev12"));
        QCOMPARE(s.switches[3].switches, (std::vector<std::string>{"s0", "s1", "s2"}));
        QCOMPARE(s.switch_levels(), (std::vector<int>{0, 0, 0, 1}));
        QCOMPARE(s.nodes_under(3), std::size_t(18));
        const auto t = from_slurm(s);
        QCOMPARE(t.nodes.size(), std::size_t(18));
        QCOMPARE(t.nodes[17].name, std::string("dev17"));
        QVERIFY(to_tiers(t).empty());   // no GPUs per node: no switch tiers
        const auto tiers = to_tiers(t, {8});
        QCOMPARE(tiers.size(), std::size_t(2));
        QCOMPARE(tiers[0].name, std::string("leaf"));
        QCOMPARE(tiers[0].gpus, 48);
        QCOMPARE(tiers[1].gpus, 0);   // s3 joins every node: the whole fabric
        // A job of two groups of six stays within two leaves; one group fits one.
        auto p = placement_options(s, 12, 6);
        QVERIFY(p.ok);
        QCOMPARE(p.sbatch_args, std::vector<std::string>{"--switches=2"});
        QVERIFY(!p.guaranteed);
        p = placement_options(s, 6, 6);
        QCOMPARE(p.sbatch_args, std::vector<std::string>{"--switches=1"});
        QVERIFY(p.guaranteed);
        p = placement_options(s, 12, 4);   // one whole group of 4 per leaf of 6: three leaves
        QCOMPARE(p.sbatch_args, std::vector<std::string>{"--switches=3"});
        QVERIFY(!placement_options(s, 14, 7).ok);   // larger than any leaf
        QVERIFY(!placement_options(s, 16, 4).ok);   // three leaves hold three groups of 4 only
    }

    // topology.conf(5) EXAMPLE, topology/block: four blocks of 32, BlockSizes=30,120.
    void slurmManBlock() {
        const auto s = read_slurm_topology_conf(data("slurm-docs/man5-block.conf"));
        QCOMPARE(s.plugin, SlurmTopology::Plugin::Block);
        QCOMPARE(s.blocks.size(), std::size_t(4));
        QCOMPARE(s.blocks[3].nodes.size(), std::size_t(32));
        QCOMPARE(s.blocks[3].nodes.back(), std::string("node128"));
        QCOMPARE(s.block_sizes, (std::vector<int>{30, 120}));
        QCOMPARE(s.base_block_nodes(), 30);
        auto p = placement_options(s, 64, 8);
        QVERIFY(p.ok);
        QCOMPARE(p.sbatch_args, std::vector<std::string>{"--segment=8"});
        QVERIFY(p.guaranteed);
        QVERIFY(p.reason.empty());
        p = placement_options(s, 64, 32);   // larger than the base block: an aggregated block
        QVERIFY(p.ok);
        QVERIFY(!p.reason.empty());
        QVERIFY(!placement_options(s, 60, 8).ok);      // sbatch: node count divisible by the segment
        QVERIFY(!placement_options(s, 240, 240).ok);   // larger than the largest block
        const auto tiers = to_tiers(from_slurm(s), {4});
        QCOMPARE(tiers.size(), std::size_t(2));
        QCOMPARE(tiers[0].gpus, 120);
        QCOMPARE(tiers[1].gpus, 480);
    }

    // doc/html/topology.shtml's three tree examples.
    void slurmGuideTrees() {
        const auto three = read_slurm_topology_conf(data("slurm-docs/shtml-tree-three-levels.conf"));
        QCOMPARE(three.switch_levels(), (std::vector<int>{0, 0, 0, 0, 1, 1, 2}));
        const auto tiers = to_tiers(from_slurm(three), {8});
        QCOMPARE(tiers.size(), std::size_t(3));
        QCOMPARE(tiers[0].gpus, 16);
        QCOMPARE(tiers[1].gpus, 32);
        QCOMPARE(tiers[2].name, std::string("core"));
        QCOMPARE(tiers[2].gpus, 0);
        const auto speeds = read_slurm_topology_conf(data("slurm-docs/shtml-tree-linkspeed.conf"));
        QCOMPARE(speeds.switches[0].link_speed, 900LL);
        QCOMPARE(speeds.switches[3].link_speed, 1800LL);
        QCOMPARE(speeds.switches[7].switches.size(), std::size_t(4));
        // Four spines each joining all 16 nodes: no single top switch, so the tier names its size.
        QCOMPARE(to_tiers(from_slurm(speeds), {8}).back().gpus, 128);
        const auto two = read_slurm_topology_conf(data("slurm-docs/shtml-tree-two-levels.conf"));
        QCOMPARE(two.switches.size(), std::size_t(5));
        QCOMPARE(two.nodes_under(4), std::size_t(16));
        // Each documented file writes back to itself.
        for (const char* f : {"man5-tree.conf", "man5-block.conf", "shtml-tree-three-levels.conf",
                              "shtml-tree-linkspeed.conf", "shtml-tree-two-levels.conf"}) {
            const auto s = read_slurm_topology_conf(data(std::string("slurm-docs/") + f));
            QVERIFY2(read_slurm_topology_conf(write_slurm_topology_conf(s)) == s, f);
        }
        QCOMPARE(write_slurm_topology_conf(two).substr(write_slurm_topology_conf(two).find("SwitchName=s4")),
                 std::string("SwitchName=s4 Switches=s[0-3]\n"));
    }

    void hostlists() {
        QCOMPARE(expand_hostlist("tux[0-3,12,18-20]").size(), std::size_t(8));
        QCOMPARE(expand_hostlist("node[01-16]").front(), std::string("node01"));
        QCOMPARE(expand_hostlist("n[8-10]"), (std::vector<std::string>{"n8", "n9", "n10"}));
        QCOMPARE(expand_hostlist("r[1-2]n[1-2],login"),
                 (std::vector<std::string>{"r1n1", "r1n2", "r2n1", "r2n2", "login"}));
        QCOMPARE(compress_hostlist({"n9", "n10"}), std::string("n[9-10]"));
        QCOMPARE(compress_hostlist({"n9", "n010"}), std::string("n[9,010]"));
        QCOMPARE(compress_hostlist({"a1", "b", "a2", "a3"}), std::string("a1,b,a[2-3]"));
        for (const char* bad : {"n[3-1]", "n[1-2", "n]1", "n[a-b]", "n[1-[2]]"})
            QVERIFY2(error_line([&] { (void)expand_hostlist(bad, 7); }) == 7, bad);
        // A huge range is refused before anything is allocated.
        std::string what;
        QCOMPARE(error_line([&] { (void)expand_hostlist("n[0-999999999999]", 3); }, &what), 3);
        QVERIFY2(what.find("more than") != std::string::npos, what.c_str());
    }

    void slurmErrorsNameTheLine() {
        const auto line = [](const std::string& text) {
            return error_line([&] { (void)read_slurm_topology_conf(text); });
        };
        QCOMPARE(line("SwitchName=s0 Nodes=a[1-2]\nBlockName=b1 Nodes=c1\n"), 2);
        QCOMPARE(line("# c\nSwitchName=s0 Nodes=a1 Switches=s1\n"), 2);
        QCOMPARE(line("SwitchName=s0 Switches=s9\n"), 1);
        QCOMPARE(line("SwitchName=s0 Switches=s1\nSwitchName=s1 Switches=s0\n"), 2);   // where the cycle closes
        QCOMPARE(line("SwitchName=s0 Nodes=a1\n\nSwitchName=s0 Nodes=a2\n"), 3);
        QCOMPARE(line("SwitchName=s0 Nodes=a1 Colour=red\n"), 1);
        QCOMPARE(line("NodeName=a1\n"), 1);
        QCOMPARE(line("BlockName=b1 Nodes=a[1-4]\nBlockSizes=4,12\n"), 2);   // 12/4 is no power of two
        QCOMPARE(line("BlockName=b1 Nodes=a[1-4]\nBlockName=b2 Nodes=a[4-8]\n"), 2);
        QCOMPARE(line("SwitchName=s0 Nodes=a[1-2\n"), 1);
        QCOMPARE(line("SwitchName=s0 Nodes=a;b\n"), 1);
        QCOMPARE(line("\n# nothing\n"), 1);
        // Continuation lines are one line, named by where it starts.
        const auto s = read_slurm_topology_conf("SwitchName=s0 \\\n  Nodes=a[1-3]\nswitchname=s1 switches=s0\n");
        QCOMPARE(s.switches[0].nodes.size(), std::size_t(3));
        QCOMPARE(s.switches[1].switches.front(), std::string("s0"));
    }

    // write -> read is the identity on generated trees and block sets (names with and without
    // zero padding, out-of-order and repeated-prefix node lists, link speeds, block sizes).
    void slurmRoundTripGenerated() {
        std::mt19937 rng(20261204);
        auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        auto node_name = [&](int i) {
            static const char* prefixes[] = {"node", "gpu-a", "dgx", "r1n"};
            const int width = pick(0, 4);
            std::string num = std::to_string(i);
            if (static_cast<int>(num.size()) < width) num.insert(0, static_cast<std::size_t>(width) - num.size(), '0');
            return prefixes[pick(0, 3)] + num;
        };
        for (int iter = 0; iter < 300; ++iter) {
            SlurmTopology t;
            std::set<std::string> used;
            auto fresh_nodes = [&](int n) {
                std::vector<std::string> v;
                int base = pick(0, 500);
                for (int k = 0; k < n; ++k) {
                    std::string name = pick(0, 5) ? node_name(base + k) : node_name(pick(0, 999));
                    if (used.insert(name).second) v.push_back(name);
                }
                return v;
            };
            if (pick(0, 1)) {
                t.plugin = SlurmTopology::Plugin::Tree;
                const int leaves = pick(1, 12);
                std::vector<std::string> level;
                for (int l = 0; l < leaves; ++l) {
                    SlurmSwitch s;
                    s.name = "leaf" + std::to_string(l);
                    s.nodes = fresh_nodes(pick(1, 40));
                    if (s.nodes.empty()) s.nodes = {"spare" + std::to_string(iter) + "x" + std::to_string(l)};
                    if (pick(0, 2) == 0) s.link_speed = pick(1, 100000);
                    level.push_back(s.name);
                    t.switches.push_back(std::move(s));
                }
                for (int up = 0; level.size() > 1 && up < 3; ++up) {
                    std::vector<std::string> next;
                    for (std::size_t i = 0; i < level.size(); i += 2) {
                        SlurmSwitch s;
                        s.name = "sw" + std::to_string(up) + "-" + std::to_string(i);
                        s.switches.push_back(level[i]);
                        if (i + 1 < level.size()) s.switches.push_back(level[i + 1]);
                        next.push_back(s.name);
                        t.switches.push_back(std::move(s));
                    }
                    level = next;
                }
            } else {
                t.plugin = SlurmTopology::Plugin::Block;
                const int size = pick(1, 16);
                for (int b = 0; b < pick(1, 10); ++b) {
                    SlurmBlock blk;
                    blk.name = "b" + std::to_string(b);
                    blk.nodes = fresh_nodes(size);
                    t.blocks.push_back(std::move(blk));
                }
                if (t.blocks.front().nodes.empty()) t.blocks.front().nodes = {"first" + std::to_string(iter)};
                if (pick(0, 1)) t.block_sizes = {size, size * 2, size * 8};
            }
            const std::string text = write_slurm_topology_conf(t);
            SlurmTopology back;
            try {
                back = read_slurm_topology_conf(text);
            } catch (const InputError& e) {
                QFAIL((std::string(e.what()) + "\n" + text).c_str());
            }
            QVERIFY2(back == t, text.c_str());
        }
    }

    // The fuzzers' deep-nesting and huge-count seeds: refused at their line, or read in bounds.
    void fuzzSeeds() {
        const std::string f = PARAPLAN_TEST_DATA "/fuzz/";
        auto seed = [&](const char* rel) { return read_input_file(f + rel, "seed"); };
        std::string what;
        QCOMPARE(error_line([&] { (void)read_nccl_topo_xml(seed("nccl-xml/deep-nesting.xml")); }, &what), 65);
        QCOMPARE(error_line([&] { (void)read_nccl_topo_xml(seed("nccl-xml/huge-count.xml")); }, &what), 4);
        QVERIFY2(what.find("sm=2147483647") != std::string::npos, what.c_str());
        const auto mnnvl = read_nccl_topo_xml(seed("nccl-xml/many-gpus-mnnvl.xml"));
        QCOMPARE(mnnvl.scale_up.domain_gpus, 72);
        QCOMPARE(mnnvl.scale_up.generation, std::string("nvlink5"));
        const auto chain = read_slurm_topology_conf(seed("slurm-topology/deep-nesting.conf"));
        QCOMPARE(chain.switch_levels().back(), 599);
        QCOMPARE(chain.nodes_under().back(), std::size_t(16));
        QCOMPARE(error_line([&] { (void)read_slurm_topology_conf(seed("slurm-topology/huge-count.conf")); }), 1);
        QCOMPARE(read_slurm_topology_conf(seed("slurm-topology/block-sizes.conf")).block_sizes.back(),
                 589824);   // 18 x 2^15, the largest ratio Slurm takes
        const auto big = parse_smi_topo(seed("smi-topo/huge-count.txt"));
        QCOMPARE(big.devices.size(), std::size_t(64));
        QCOMPARE(big.cells[0][7].nvlinks, 1024);
        QCOMPARE(error_line([&] { (void)parse_smi_topo(seed("smi-topo/deep-nesting.txt")); }), 2);
        std::string many;
        for (std::size_t i = 0; i <= kMaxSlurmSwitches; ++i) many += "SwitchName=s" + std::to_string(i) + "\n";
        QCOMPARE(error_line([&] { (void)read_slurm_topology_conf(many); }), static_cast<int>(kMaxSlurmSwitches) + 1);
    }

    // --- the whole import ----------------------------------------------------------------

    void importGuessesAndJson() {
        const auto t = import_topology(data("constructed/dgx-h100-nccl-topo.xml"));
        QCOMPARE(t.format, Format::NcclXml);
        const auto j = to_json(t);
        QCOMPARE(j["format"].get<std::string>(), std::string("nccl-xml"));
        QCOMPARE(j["scale_up"]["links_per_gpu"].get<int>(), 18);
        QCOMPARE(j["nodes"][0]["gpu_name"].get<std::string>(), std::string("H100 SXM5 80GB"));
        const auto s = import_topology(data("slurm-docs/man5-block.conf"));
        QCOMPARE(to_json(s)["slurm"]["blocks"][0]["nodes"].get<std::string>(), std::string("node[1-32]"));
        QCOMPARE(error_line([] { (void)import_topology("hello world\n"); }), 1);
        // A forced format reads the text as that format, whatever it looks like.
        QCOMPARE(error_line([&] { (void)import_topology(data("slurm-docs/man5-tree.conf"), Format::SmiTopo); }), 1);
        QCOMPARE(format_from_name("smi-topo"), std::optional<Format>(Format::SmiTopo));
        QVERIFY(!format_from_name("xml"));
    }
};

QTEST_GUILESS_MAIN(TestTopofile)
#include "tst_topofile.moc"
