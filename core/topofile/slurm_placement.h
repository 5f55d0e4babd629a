#pragma once
// The sbatch placement option a project's job needs on its Slurm topology
// (cluster.network.slurm_topology): which group of its rank map decides it, and the option
// placement_options (slurm_topology_conf.h) gives for that group.
//
// The groups are those the estimate prices (estimate::rank_map_kinds: tp, cp, pp, ep, dp, edp).
// The plan prices a group inside a switch tier when its GPUs lie in one window of the tier's
// `gpus` consecutive GPUs (network/fabric.h); the job's nodes fill those windows in order. A
// group kind "needs" one leaf switch (tree) or one block (block) when its groups reach more than
// one node and fit in one: its node block is the smallest B dividing the job's node count such
// that every group of the kind lies in one aligned run of B nodes. The kind with the largest
// such B that a leaf or block holds decides (a B equal to the job's node count is the whole job).
#include "topofile/slurm_topology_conf.h"
#include "topology/rank_map.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan {
struct Project;
}

namespace paraplan::topofile {

struct KindSpan {
    std::string kind;   // "tp", "dp", ...
    int block_nodes = 0;
};

struct JobPlacement {
    int job_nodes = 0;
    std::vector<KindSpan> kinds;   // every group kind that reaches more than one node, largest block first
    bool needed = false;           // some kind reaches more than one node
    std::string kind;              // the kind that decides ("" when none fits one leaf or block)
    int group_nodes = 0;           // its node block
    Placement placement;           // the sbatch option for (job_nodes, group_nodes); not ok when none fits
};

// The rank map must be valid (its placement names the nodes of the job).
JobPlacement job_placement(const SlurmTopology& t, const topology::RankMap& m);
// A project's: job_placement over its rank map, when cluster.network.slurm_topology is set and
// the layout's rank map is valid; nullopt otherwise. The slurm export and the Slurm launch
// (launch/launch_settings.h) both ask here.
std::optional<JobPlacement> project_placement(const Project& p);

}   // namespace paraplan::topofile
