#pragma once
// What a launch runs where: one remote process per rank (direct), per node (torchrun,
// deepspeed) or one in all (colossalai run, slurm), each with its environment and
// argv, and the POSIX sh wrapper that runs it under a stdin-EOF watchdog.
#include "project/cluster.h"
#include "runtime/runtime_config.h"

#include <string>
#include <utility>
#include <vector>

namespace paraplan::runtime {

using EnvList = std::vector<std::pair<std::string, std::string>>;

struct RemoteProcess {
    int node = 0;                 // index into Cluster::nodes
    std::string label;            // "rank-3", "node-1", "launcher", "sbatch"; the log file name
    std::vector<int> ranks;       // global ranks this process runs
    EnvList env;                  // exported before the command, in order
    std::vector<std::string> argv;
    std::string stdin_text;       // not used by the wrapper; for commands fed on stdin
};

// A file written on a node before any process starts (the exported config files).
struct FileUpload {
    int node = 0;                 // index into Cluster::nodes
    std::string path;             // remote path; relative = inside the plan's workdir
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
    std::vector<RemoteProcess> processes;
    std::string sbatch_script;    // slurm mode: the batch script submitted on processes[0]'s node
    std::vector<FileUpload> uploads;   // written (node by node, over its connection) before launching
};

// Builds the plan. Throws InputError naming the /runtime field (missing script,
// an env variable Paraplan sets itself, a placement torchrun cannot express, ...).
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

// Markers the wrapper prints on stdout (whole lines).
inline constexpr const char* kStartedMarker = "__PARAPLAN_STARTED__ ";   // + process group id
inline constexpr const char* kExitMarker = "__PARAPLAN_EXIT__ ";         // + exit status
inline constexpr const char* kErrorMarker = "__PARAPLAN_ERROR__ ";       // + message (stderr), before start

}  // namespace paraplan::runtime
