#pragma once
// Stopping a job from another process (paraplan-cli stop JOB): reads the process groups
// recorded in job.json and kills each one on its node over ssh, after checking that the
// group still carries the job's PARAPLAN_JOB tag.
#include "joblog/job_history.h"
#include "ssh/ssh_command.h"
#include "ssh/ssh_profile.h"

#include <string>
#include <vector>

namespace paraplan::runtime {

struct StopOutcome {
    std::string label;
    std::string host;
    std::string result;   // "stopped", "gone", "not-this-job", "not started", or an error
    bool ok = false;
};

// Blocking; one ssh command per running process (bounded by timeout_ms each). `ssh` gives the
// local values (ssh program, control folder); the job's own profile id is looked up in
// `profiles` (the user's, ssh_profile.h) and its recorded options re-checked. A job.json that
// cannot be read (stop_plan_from_record) or names a profile the user no longer has stops
// nothing and gives one outcome, labelled "job.json", not ok, whose result says why.
std::vector<StopOutcome> stop_job(const JobRecord& job, SshOptions ssh, const SshProfiles& profiles,
                                  int timeout_ms = 60000);

}   // namespace paraplan::runtime
