#pragma once
// Following a Slurm batch job from the login node: the id `sbatch --parsable` prints,
// the state `squeue -h -j ID -o %T` prints while queued or running, and the final state
// from `scontrol -o show job ID` (JobState=, ExitCode=; the controller keeps a finished
// job for MinJobAge seconds, slurm.conf(5)) or, when the controller has forgotten it,
// the `sacct -n -P -X -j ID -o State,ExitCode` line (only where accounting is on).
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::runtime {

// "4242" or "4242;cluster" -> 4242.
std::optional<long long> parse_sbatch_job_id(std::string_view out);

struct SlurmFinal {
    std::string state;   // COMPLETED, FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, ...
    // ExitCode "A:S" as sacct(1) and scontrol record it ("the exit code returned by the job
    // script or salloc, typically as set by the exit() function. Following the colon is the
    // signal that caused the process to terminate"): A the task's own status, S the signal.
    int exit_code = 0;
    int signal = 0;
    // scontrol's Reason= ("NodeDown" for NODE_FAIL) and NodeList= ("n[1-2]"); empty from sacct.
    std::string reason;
    std::string nodes;
    bool succeeded() const { return state == "COMPLETED" && exit_code == 0 && signal == 0; }
    std::string outcome() const;   // "exit 3", "signal 15", "exit 0"
};

// The first line of sacct's -P output; nullopt when it has none (not yet accounted).
std::optional<SlurmFinal> parse_sacct(std::string_view out);

// The JobState= and ExitCode= of `scontrol -o show job ID` (one line per job); nullopt
// when the output has no JobState (unknown id: "Invalid job id specified").
std::optional<SlurmFinal> parse_scontrol_job(std::string_view out);

// The output of final_state_command: scontrol's line when it has one, else sacct's.
std::optional<SlurmFinal> parse_final_state(std::string_view out);

// What a job state means for the launch that follows it: one table for every state
// squeue/scontrol/sacct print (squeue(1) "JOB STATE CODES", Slurm 22.05).
enum class SlurmPhase {
    Queued,      // PENDING, REQUEUED, REQUEUE_HOLD, REQUEUE_FED, RESV_DEL_HOLD, SUSPENDED, ...
    Running,     // RUNNING, CONFIGURING, COMPLETING, STAGE_OUT, SIGNALING, RESIZING, STOPPED
    Succeeded,   // COMPLETED
    Cancelled,   // CANCELLED (Stop, `paraplan-cli stop`, anyone's scancel)
    Failed,      // FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE, REVOKED, SPECIAL_EXIT
    Unknown      // anything else: not a state this table names
};
struct SlurmStateInfo {
    SlurmPhase phase;
    const char* meaning;   // one line, for the job's log
};
SlurmStateInfo slurm_state_info(std::string_view state);

// Why a pending job waits: squeue's %r (job_reason_string, src/common/slurm_protocol_defs.c
// at slurm-22-05-*), and what to change. `blocked`: waiting will not help (Slurm keeps
// such a job pending until someone changes the job or the partition).
struct SlurmReasonInfo {
    bool blocked = false;
    std::string advice;   // empty for reasons this table does not name
};
SlurmReasonInfo slurm_reason_info(std::string_view reason);

// One line of squeue_command's output: "STATE|REASON" (%T|%r, squeue(1) -o). nullopt
// when the line has no '|'.
struct SlurmQueueState {
    std::string state;
    std::string reason;   // "None" while running; "ReqNodeNotAvail, UnavailableNodes:n1" keeps its detail
};
std::optional<SlurmQueueState> parse_squeue(std::string_view out);

// What a failed squeue call means: the job is gone (its id is no longer known: "Invalid
// job id specified", slurm_strerror(ESLURM_INVALID_JOB_ID)) or its state is unknown for
// now (controller unreachable, timeout, ssh trouble: retry).
bool squeue_says_job_gone(std::string_view err);

// sbatch's own refusal ("sbatch: error: ...", src/sbatch/sbatch.c error()) in its stderr,
// as opposed to the ssh connection failing (ssh exits 255 with no sbatch message).
bool is_sbatch_error(std::string_view err);

// Every call to Slurm on the login node is bounded: `timeout` (coreutils) ends a hung
// client after timeout_s seconds (exit 124), KILL 5 s later. This many by default.
constexpr int kSlurmCallTimeoutS = 30;

// Remote commands (plain words, ids are numbers), each bounded by timeout_s.
std::string squeue_command(long long id, int timeout_s = kSlurmCallTimeoutS);
std::string sacct_command(long long id, int timeout_s = kSlurmCallTimeoutS);
std::string scancel_command(long long id, int timeout_s = kSlurmCallTimeoutS);
// scancel --signal=KILL (scancel(1) -s)
std::string scancel_kill_command(long long id, int timeout_s = kSlurmCallTimeoutS);
// scontrol first, then sacct (its "accounting storage is disabled" goes to /dev/null).
std::string final_state_command(long long id, int timeout_s = kSlurmCallTimeoutS);

// Every node's GPUs, to choose where a job's GPUs can come from: `sinfo -N -h -o '%N %P %G'`
// (sinfo(1) -N: one line per node and partition; %N the node, %P the partition, the default
// one marked '*', %G its generic resources, e.g. "gpu:2", "gpu:a100:4(S:0-1),mps:100",
// "(null)"), bounded like every Slurm call.
std::string sinfo_nodes_command(int timeout_s = kSlurmCallTimeoutS);

// Which of a job's nodes are down and why, for a job that ended NODE_FAIL: `sinfo -h -N -R
// -n NODES -o '%N|%E'` (sinfo(1) -R: down, drained and failing nodes with their reason,
// e.g. "n2|Not responding"). slurmctld sets NODE_FAIL when it marks a node of the job DOWN
// (SlurmdTimeout without an answer, slurm.conf(5); `kill_running_job_by_node_name`,
// src/slurmctld/job_mgr.c, slurm-22-05), so the node is listed there by then.
std::string sinfo_down_command(const std::string& nodes, int timeout_s = kSlurmCallTimeoutS);
// Its lines as "n2 (Not responding)", joined by ", ", each node once; empty when none.
std::string parse_sinfo_down(std::string_view out);

struct SlurmNodeGpus {
    std::string node;
    std::string partition;   // without the '*'
    bool default_partition = false;
    std::string gres;                        // %G as printed
    std::map<std::string, long long> gpus;   // gpu type ("" untyped) -> count; empty: no gpu gres
    long long total() const;
};
// The lines of sinfo_nodes_command's output that have three fields (others are skipped;
// at most kMaxSinfoLines are read).
std::vector<SlurmNodeGpus> parse_sinfo_nodes(std::string_view out);
constexpr std::size_t kMaxSinfoLines = 200000;

// The batch job's output file: `#SBATCH --output=` takes the pattern (%j = the Slurm job
// id, sbatch(1) "filename pattern"); relative to the submit directory. Slurm makes it
// absolute with the working directory, and a backslash anywhere in that path turns the
// pattern off and is dropped (sbatch(1): "\\ Do not process any of the replacement
// symbols"), so a working directory with a backslash cannot be named there: the batch
// script then redirects its own output to the same file name (see launch_plan.cpp).
std::string slurm_output_pattern(const std::string& job_id);
std::string slurm_output_file(const std::string& job_id, long long slurm_id);

// Follows a file from its start while the ssh channel's stdin stays open: `tail -n +1 -F`
// (waits for the file to appear, follows it as it grows) and kills the tail when stdin
// reaches EOF, so closing the channel leaves nothing behind on the login node.
std::string follow_file_command(const std::string& path);

// One line of `srun --label` output: "<task id>: text" (srun(1) -l, --label; the id is
// right-aligned to the width of the largest one). nullopt when the line has no label.
struct LabelledLine {
    int task = 0;
    std::string text;
};
std::optional<LabelledLine> parse_srun_label(std::string_view line);

}   // namespace paraplan::runtime
