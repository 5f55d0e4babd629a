#pragma once
// What a launch runs where: one remote process per rank (direct), per node (torchrun,
// deepspeed) or one in all (colossalai run, slurm), each with its environment and
// argv, and the POSIX sh wrapper that runs it under a stdin-EOF watchdog.
#include "joblog/wrapper_markers.h"
#include "project/cluster.h"
#include "launch/runtime_config.h"

#include <string>
#include <utility>
#include <vector>

namespace paraplan::runtime {

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct RemoteProcess {
    int node = 0;             // index into Cluster::nodes
    std::string label;        // "rank-3", "node-1", "launcher", "sbatch"; the log file name
    std::vector<int> ranks;   // global ranks this process runs
    EnvList env;              // exported before the command, in order
    std::vector<std::string> argv;
    std::string stdin_text;   // not used by the wrapper; for commands fed on stdin
};

// A file written on a node before any process starts (the exported config files).
struct FileUpload {
    int node = 0;       // index into Cluster::nodes
    std::string path;   // remote path; relative = inside the plan's workdir
    std::string content;
};

struct LaunchPlan {
    std::string job_id;
    std::string mode;
    std::string master_addr;
    int master_port = 29500;
    int world_size = 0;
    std::string workdir;
    std::vector<std::string> path_prepend;
    int stop_grace_s = 5;
    bool fail_fast = false;   // torchrun: fail at the first failed worker (RuntimeConfig)
    std::vector<RemoteProcess> processes;
    std::string sbatch_script;         // slurm mode: the batch script submitted on processes[0]'s node
    std::vector<FileUpload> uploads;   // written (node by node, over its connection) before launching
    // Random per job: the wrapper's markers carry it, so a rank's own output cannot end
    // its process in Paraplan's eyes (a line "__PARAPLAN_EXIT__ 0" is just output).
    std::string marker_token;
    // The controller writes a byte to every wrapper's stdin each heartbeat_s; a wrapper
    // whose stdin stays silent for lost_after_s (a hung link, a stopped controller) ends
    // its process group as if stopped. 0 = off (EOF alone stops it).
    int heartbeat_s = 0;
    int lost_after_s = 0;
    // slurm mode: "auto" | "gres" | "none" (RuntimeConfig::slurm.gpus), and what it asks.
    std::string slurm_gpus = "auto";
    int slurm_gpus_per_node = 0;
    int slurm_nodes = 0;
    std::string slurm_partition;
};

// The largest job a launch plans: a plan holds a command, an environment and a wrapper per
// rank, and one ssh connection per node runs from this machine. Planning, validating and
// estimating go further (project/limits.h).
inline constexpr int kMaxLaunchRanks = 131'072;
// The exported config files are written to every node that runs a process: their total
// over all nodes is bounded too (a hostfile grows with the node count).
inline constexpr long long kMaxUploadBytes = 1LL << 30;

// Builds the plan. Throws InputError naming the /runtime field (missing script,
// an env variable Paraplan sets itself, a placement torchrun cannot express, ...), or
// /cluster/nodes for a cluster larger than kMaxLaunchRanks GPUs.
LaunchPlan plan_launch(const Cluster& cluster, const RuntimeConfig& rc, const std::string& job_id);

// Job ids: "<yyyymmdd-hhmmss>-<slug of name>", safe as a folder name and in a shell.
std::string make_job_id(const std::string& name, long long unix_seconds);

// The POSIX sh script run on the node (see the markers below). It exports the
// environment, enters the working dir, starts argv in its own session (setsid) with
// stdin from /dev/null, and kills that whole process group (TERM, grace, KILL) when
// its own stdin reaches EOF (Stop, a dropped connection) or when the command ends.
std::string wrapper_script(const LaunchPlan& plan, const RemoteProcess& p);

// The remote command text for ssh: exec /bin/sh -c '<wrapper>'.
std::string remote_launch_command(const LaunchPlan& plan, const RemoteProcess& p);

// The remote command that writes `u` from stdin (`cat >`), creating its folder; in workdir
// when the path is relative.
std::string upload_command(const LaunchPlan& plan, const FileUpload& u);

// The marker lines the wrapper prints (joblog/wrapper_markers.h, which also reads them):
// "__PARAPLAN_STARTED_<token>__ " etc. with the plan's marker_token; the plain forms without one.
std::string started_marker(const LaunchPlan& plan);
std::string exit_marker(const LaunchPlan& plan);
std::string error_marker(const LaunchPlan& plan);

// 16 hex digits from the system's random device.
std::string random_token();

}   // namespace paraplan::runtime
