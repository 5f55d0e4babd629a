#pragma once
// The project's "runtime" section: how a job is launched on the cluster.
//   {"mode": "direct"|"torchrun"|"slurm"|"colossalai"|"deepspeed",
//    "workdir": "/remote/dir", "python": "python3", "script": "train.py",
//    "args": ["--lr", "0.1"], "env": {"NCCL_DEBUG": "INFO"}, "path_prepend": ["/opt/bin"],
//    "master_addr": "" (first node's host), "master_port": 29500,
//    "on_failure": "stop_all"|"continue", "fail_fast": false (torchrun), "stop_grace_s": 5,
//    "launcher": "" (torchrun/...),
//    "ssh": {"connect_timeout_s", "server_alive_interval_s", "options": [...] (plain connection
//            values, ssh_policy.h), "profile": "id" (the user's local ssh profile, ssh_profile.h)},
//    "telemetry": {"interval_ms": 1000},
//    "slurm": {"login_node": node name or host, "partition", "account", "time", "sbatch_args": [...],
//              "gpus": "auto"|"gres"|"none"},
//    "upload_configs": true (copy the framework's exported config files to the nodes first),
//    "upload_dir": "" (where they go; relative paths are inside workdir)}
// Errors are InputErrors naming the field (/runtime/...). What a project may not decide is
// loaded, never used, and listed in RuntimeConfig::ignored with the reason: a local path or a
// trust decision for ssh (ssh.config_file, ssh.known_hosts_file, ssh.strict_host_key_checking
// other than "yes", an ssh option off the allow-list, a node's identity file) and the local
// folder for job records (job_dir: jobs live in Paraplan's own state folder, local_dirs.h).
#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace paraplan {
struct Cluster;
}

namespace paraplan::runtime {

inline const std::vector<std::string> kLaunchModes{"direct", "torchrun", "slurm", "colossalai", "deepspeed"};

struct SlurmConfig {
    std::string login_node;   // node name or host ("" = the first node)
    std::string partition;
    std::string account;
    std::string time;   // sbatch --time, e.g. "01:00:00"
    std::vector<std::string> sbatch_args;
    // How GPUs are asked for: "auto" (every node's gres read with `sinfo -N` on the login node
    // just before sbatch; --gpus-per-node=[type:]G for a node kind that fits, nothing where the
    // partition has no gpu gres, refused where no kind fits: launch/slurm_gpus.h), "gres"
    // (always --gpus-per-node=G), "none" (never).
    std::string gpus = "auto";
};

struct RuntimeConfig {
    std::string mode = "direct";
    std::string workdir;   // remote working dir ("" = login dir)
    std::string python = "python3";
    std::string script;   // required to launch
    std::vector<std::string> args;
    std::vector<std::pair<std::string, std::string>> env;   // sorted by name
    std::vector<std::string> path_prepend;                  // remote PATH prefixes
    std::string master_addr;                                // "" = the host of rank 0's node
    int master_port = 29500;
    std::string on_failure = "stop_all";
    // torchrun: end the job at the first failed worker (torch's agent line "failed
    // (exitcode: N) local_rank: L"), not when every node's torchrun has left its exit
    // barrier (up to 300 s later when the other nodes' workers do not notice).
    bool fail_fast = false;
    int stop_grace_s = 5;
    std::string launcher;         // program for torchrun/colossalai/deepspeed ("" = that name)
    bool upload_configs = true;   // copy the exported config files to the nodes before launching
    std::string upload_dir;       // their folder ("" = workdir; relative = inside workdir)
    // ssh
    int connect_timeout_s = 10;
    int server_alive_interval_s = 15;
    std::vector<std::string> ssh_options;   // each allowed by check_project_ssh_option
    std::string ssh_profile;                // the user's local profile id ("" = "default" if defined)
    // telemetry
    int telemetry_interval_ms = 1000;
    SlurmConfig slurm;
    // "POINTER: what was ignored and why", one line each, in file order.
    std::vector<std::string> ignored;
};

// Parses the "runtime" object (an empty object gives the defaults).
RuntimeConfig runtime_config_from_json(const nlohmann::json& runtime);
nlohmann::json to_json(const RuntimeConfig& c);

// The project settings outside /runtime that a launch ignores, in the same form as
// RuntimeConfig::ignored: each node's identity file (/cluster/nodes/N/identity).
std::vector<std::string> ignored_cluster_settings(const Cluster& cluster);

}   // namespace paraplan::runtime
