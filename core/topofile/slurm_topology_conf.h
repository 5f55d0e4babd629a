#pragma once
// Slurm's topology.conf, read and written: the topology/tree plugin's switch lines
// (`SwitchName=s0 Nodes=tux[0-3] LinkSpeed=900`, `SwitchName=s4 Switches=s[0-3]`) and the
// topology/block plugin's (`BlockName=b1 Nodes=node[1-32]`, `BlockSizes=30,120`), as
// topology.conf(5) and doc/html/topology.shtml describe them (SchedMD/slurm slurm-25-11-7-1).
// Names are expanded from Slurm's hostlist expressions (`tux[0-3,12,18-20]`, zero-padded
// `node[01-16]`) and written back compressed, so that write -> read gives the same struct.
// The sbatch options that keep a group of nodes inside one leaf switch (--switches, tree) or one
// block (--segment, block) come from sbatch(1) at the same release.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::topofile {

// Bounds on what a topology.conf may hold: far above any real cluster, low enough that a hostile
// file cannot make a reader allocate without end.
inline constexpr std::size_t kMaxSlurmNames = 1u << 18;   // expanded names per expression and per file
inline constexpr std::size_t kMaxSlurmLines = 1u << 16;
inline constexpr std::size_t kMaxSlurmLineChars = 1u << 16;
inline constexpr std::size_t kMaxSlurmNameChars = 64;    // topology.conf(5): SwitchName is at most 64 chars
inline constexpr std::size_t kMaxSlurmSwitches = 4096;   // and as many blocks

struct SlurmSwitch {
    std::string name;
    std::vector<std::string> switches;   // child switches (inner switch)
    std::vector<std::string> nodes;      // child nodes (leaf switch)
    long long link_speed = 0;            // LinkSpeed, arbitrary units; 0 when not given

    bool operator==(const SlurmSwitch&) const = default;
};

struct SlurmBlock {
    std::string name;
    std::vector<std::string> nodes;

    bool operator==(const SlurmBlock&) const = default;
};

struct SlurmTopology {
    enum class Plugin { Tree, Block };
    Plugin plugin = Plugin::Tree;
    std::vector<SlurmSwitch> switches;   // tree, in file order
    std::vector<SlurmBlock> blocks;      // block, in file order
    std::vector<int> block_sizes;        // BlockSizes; empty when not given

    bool operator==(const SlurmTopology&) const = default;

    // Tree: switches with nodes. Block: nodes of the base block (BlockSizes' first value, else the
    // first block's node count, as Slurm's block plugin takes it).
    std::vector<const SlurmSwitch*> leaves() const;
    int base_block_nodes() const;
    // Tree: each switch's level (0 for leaves, parent = 1 + its highest child), in file order.
    std::vector<int> switch_levels() const;
    // Nodes under each switch: its own, or those of the leaves below it, each leaf counted once
    // (a node listed under two leaves counts twice). In file order.
    std::vector<std::size_t> nodes_under() const;
    std::size_t nodes_under(std::size_t i) const { return nodes_under().at(i); }
    std::vector<std::string> all_nodes() const;   // every node named, in file order, once
};

// Expands a Slurm hostlist expression ("tux[0-3,12],login1"). Throws InputError (line `line`)
// on a malformed expression or more than kMaxSlurmNames names.
std::vector<std::string> expand_hostlist(std::string_view expr, int line = 0);
// The shortest expression that expand_hostlist turns back into exactly `names`, in order.
std::string compress_hostlist(const std::vector<std::string>& names);

// Reads a topology.conf. Throws InputError with the line and the reason: an unknown key, a
// switch with both Switches and Nodes, a child switch never defined, a cycle, a name defined
// twice, a node in two blocks, tree and block lines mixed, BlockSizes Slurm would refuse.
SlurmTopology read_slurm_topology_conf(std::string_view text);
// topology.conf text for `t` (one line per switch or block, names compressed).
std::string write_slurm_topology_conf(const SlurmTopology& t);

// sbatch options that keep each group of `group_nodes` nodes of a job of `job_nodes` nodes inside
// one leaf switch (tree: --switches=N, the fewest leaves that hold the job) or one base block
// (block: --segment=group_nodes).
struct Placement {
    bool ok = false;
    std::vector<std::string> sbatch_args;   // {"--switches=2"}, {"--segment=4"}
    bool guaranteed = false;                // Slurm enforces it per group (--segment); --switches bounds the job only
    std::string reason;                     // why not ok, or what the option does not promise
};
Placement placement_options(const SlurmTopology& t, int job_nodes, int group_nodes);

}   // namespace paraplan::topofile
