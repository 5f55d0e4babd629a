#pragma once
// Following a Slurm batch job from the login node: the id `sbatch --parsable` prints,
// the state `squeue -h -j ID -o %T` prints while queued or running, and the final
// `sacct -n -P -X -j ID -o State,ExitCode` line (Slurm's documented formats).
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

// Remote commands (plain words, ids are numbers).
std::string squeue_command(long long id);
std::string sacct_command(long long id);
std::string scancel_command(long long id);

// The batch job's output file: `#SBATCH --output=` takes the pattern (%j = the Slurm job
// id, sbatch(1) "filename pattern"); relative to the submit directory.
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

}  // namespace paraplan::runtime
