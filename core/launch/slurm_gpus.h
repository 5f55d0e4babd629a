#pragma once
// runtime.slurm.gpus "auto": where a Slurm job's GPUs can come from, decided from every
// node's gres (core/slurm: sinfo -N -o '%N %P %G') before sbatch runs. A partition may mix
// node kinds (no gres, gpu:2, gpu:a100:4, ...): the job gets one kind that has enough GPUs
// on enough nodes, or is refused before submitting with what to change.
#include "slurm/slurm.h"

#include <string>
#include <vector>

namespace paraplan::runtime {

struct SlurmGpuChoice {
    bool ok = true;
    std::vector<std::string> sbatch_args;   // added to sbatch's command line, e.g. "--gpus-per-node=big:4"
    std::string note;                       // what was decided and why (ok), for the job's log
    std::string error;                      // why it cannot run there and what to set (!ok)
};

// nodes: sinfo's lines; partition: runtime.slurm.partition ("" = the default one, marked
// '*'); the plan's node count and GPUs per node (> 0).
//  - no node of the partition listed: no GPU request (sbatch names a wrong partition itself);
//  - no gpu gres there: no GPU request, as on a cluster that schedules GPUs some other way;
//  - else the GPU types (untyped counts as one) with at least gpus_per_node GPUs on at least
//    `nodes_needed` nodes; of those the one with the fewest GPUs per node (the larger nodes
//    stay free), asked for as --gpus-per-node=[type:]G (sbatch(1)); an untyped choice also
//    excludes (--exclude) the other kinds' nodes that the untyped request would match;
//  - none: refused, saying what the partition has and what to change.
SlurmGpuChoice choose_slurm_gpus(const std::vector<SlurmNodeGpus>& nodes, const std::string& partition,
                                 int nodes_needed, int gpus_per_node);

}   // namespace paraplan::runtime
