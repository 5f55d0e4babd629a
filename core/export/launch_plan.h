#pragma once
// Which host runs which block of ranks. torchrun's static rendezvous gives the node
// with --node_rank k the ranks [k*nproc, (k+1)*nproc) with LOCAL_RANK = rank % nproc
// (torch/distributed/run.py); every launcher we export (torchrun, colossalai run,
// deepspeed, srun, Kubeflow) builds on that rule. A canvas rank order is expressed
// by ordering the hosts and, inside a node, by CUDA_VISIBLE_DEVICES.
#include "export/export.h"

#include <string>
#include <vector>

namespace paraplan {

struct LaunchNode {
    int node = 0;                               // index into Cluster::nodes
    std::string host;                           // Node::host, or its name
    std::vector<int> devices;                   // GPU for local rank i; empty = identity
    std::string cuda_visible_devices() const;   // "2,0,1,3" or ""
};

struct LaunchPlan {
    int nnodes = 0;
    int nproc_per_node = 0;
    std::vector<LaunchNode> nodes;   // in node-rank order
    std::string master_addr;
    int master_port = 29500;
    std::vector<Diagnostic> findings;       // what the launchers cannot express
    bool same_devices_everywhere() const;   // one CUDA_VISIBLE_DEVICES fits all nodes
};

LaunchPlan launch_plan(const Project& p, const ExportOptions& opt);

// What each launcher starts after its own flags: the script (or -m module) and its
// arguments for the project's framework (Megatron: pretrain_gpt.py and its flags;
// torchtitan: -m torchtitan.train --job.config_file job.toml; DeepSpeed: train.py
// --deepspeed --deepspeed_config ds_config.json), and the environment it needs.
struct LaunchProgram {
    std::vector<std::string> words;
    std::vector<std::pair<std::string, std::string>> env;
};
LaunchProgram launch_program(const Project& p, const ExportOptions& opt, std::vector<Diagnostic>& findings);

}   // namespace paraplan
