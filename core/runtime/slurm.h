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

}  // namespace paraplan::runtime
