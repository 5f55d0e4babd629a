#pragma once
// Following a Slurm batch job from the login node: the id `sbatch --parsable` prints,
// the state `squeue -h -j ID -o %T` prints while queued or running, and the final state
// from `scontrol -o show job ID` (JobState=, ExitCode=; the controller keeps a finished
// job for MinJobAge seconds, slurm.conf(5)) or, when the controller has forgotten it,
// the `sacct -n -P -X -j ID -o State,ExitCode` line (only where accounting is on).
#include <optional>
#include <string>
#include <string_view>

namespace paraplan::runtime {

// "4242" or "4242;cluster" -> 4242.
std::optional<long long> parse_sbatch_job_id(std::string_view out);

struct SlurmFinal {
    std::string state;   // COMPLETED, FAILED, CANCELLED, TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, ...
    int exit_code = 0;   // ExitCode "A:S": A, or 128+S when a signal ended it
    bool succeeded() const { return state == "COMPLETED" && exit_code == 0; }
};

// The first line of sacct's -P output; nullopt when it has none (not yet accounted).
std::optional<SlurmFinal> parse_sacct(std::string_view out);

// The JobState= and ExitCode= of `scontrol -o show job ID` (one line per job); nullopt
// when the output has no JobState (unknown id: "Invalid job id specified").
std::optional<SlurmFinal> parse_scontrol_job(std::string_view out);

// The output of final_state_command: scontrol's line when it has one, else sacct's.
std::optional<SlurmFinal> parse_final_state(std::string_view out);

// Remote commands (plain words, ids are numbers).
std::string squeue_command(long long id);
std::string sacct_command(long long id);
std::string scancel_command(long long id);
// scontrol first, then sacct (its "accounting storage is disabled" goes to /dev/null).
std::string final_state_command(long long id);

// Whether the partition a job would go to defines GPUs as generic resources: the gres
// (`sinfo -h -o '%P %G'`, sinfo(1)) of the given partition, or without one of the default
// partition (marked '*'), one word per line, e.g. "gpu:a100:4(S:0-1)" or "(null)".
std::string sinfo_gres_command(const std::string& partition);

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
