#pragma once
// What `paraplan-cli stop` needs from a job's job.json: the ssh settings and, per recorded
// process, its node, whether it is over and its process group. job.json is read back from
// disk, so every field is checked: a wrong type is refused with its JSON pointer instead of an
// exception escaping from nlohmann, and it carries no local ssh value at all: hosts, users and
// ports are checked like a project's (check_target), ssh options against the project
// allow-list (ssh_policy.h), and the local values come from the user's profile named by id.
#include "joblog/job_history.h"
#include "ssh/ssh_command.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan::runtime {

struct StopProcess {
    std::string label;
    SshTarget target;                // "ssh": {host, user, port}, else "host"
    bool finished = false;           // the process ended and its exit code is recorded
    bool connection_lost = false;    // error_kind == "connection_lost": it may still run
    std::optional<long long> pgid;   // its remote process group, when it started
};

struct StopPlan {
    std::string ssh_profile;                 // the local profile the launch used ("" = none)
    std::vector<std::string> ssh_options;    // the project's plain connection values
    int grace_s = 5;                         // stop_grace_s: TERM, then KILL after this
    bool job_over = false;                   // state is succeeded, failed or stopped
    std::optional<long long> slurm_job_id;   // a Slurm job: scancel on the "sbatch" process's node
    std::vector<std::string> path_prepend;
    std::vector<StopProcess> processes;
};

// The stop plan of a job record, or nullopt with `problem` (if given) naming the job.json
// and the JSON pointer of the field that is missing its type, e.g.
// `jobs/x/job.json: /processes/0/pgid: expected a process group id (an integer above 1), got "12"`.
// Never throws.
std::optional<StopPlan> stop_plan_from_record(const JobRecord& job, std::string* problem = nullptr);

}   // namespace paraplan::runtime
