#pragma once
// What `paraplan-cli jobs`/`status` and the Run panel's list show of a job record: its state,
// where it ran, since when, its exit code and each process's log. One reading for both faces.
#include "joblog/job_history.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace paraplan::runtime {

struct ProcessSummary {
    std::string label;
    std::string host;
    std::string log;                // the log's path, "" when the record names none
    std::optional<int> exit_code;   // none while it runs (or when it never started)
    std::optional<int> signal;      // the signal that ended it, where the record says (Slurm's ExitCode A:S)
    bool finished = false;
    std::string error;
};

struct JobSummary {
    const JobRecord* record = nullptr;
    std::vector<std::string> hosts;   // in process order, each once
    std::optional<int> exit_code;     // the first non-zero process exit, else 0; none while running
    std::vector<ProcessSummary> processes;
};

// Never throws: fields of the wrong type are left out (list_jobs has checked the main ones).
JobSummary summarize(const JobRecord& record);

// {"id", "state", "mode", "hosts", "started", "ended", "exit_code", "error", "world_size",
//  "folder", "slurm_job_id"?} plus "processes" when asked: the `jobs --json` / `status --json` shapes.
nlohmann::json to_json(const JobSummary& s, bool with_processes);

// One line: "ID  STATE  MODE  HOSTS  since STARTED  exit N".
std::string summary_line(const JobSummary& s);

}   // namespace paraplan::runtime
