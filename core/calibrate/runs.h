#pragma once
// Measured runs for calibration: each is a project (what ran) and its measured step
// time (and peak memory when known), read from
//   - a table, CSV or JSON, one row per run:
//       CSV:  a header naming the columns project, step_s, peak_gib, log, name (project and
//             one of step_s / log required); '#' lines are comments;
//       JSON: {"runs": [{"project": "a.paraplan.json", "step_s": 1.9, "peak_gib": 61.2,
//              "log": "a.log", "name": "..."}]} or the bare array;
//     paths relative to the table's folder; a log gives the step time (log_parse.h)
//     when step_s is absent;
//   - a project file with a training log;
//   - a Paraplan job folder (core/runtime/job_history: job.json holds the project
//     snapshot under "project", the processes' output is in *.log beside it).
#include "project/project.h"

#include <string>
#include <vector>

namespace paraplan::calibrate {

struct Run {
    std::string name;
    Project project;
    double step_s = 0;         // measured
    double peak_gib = 0;       // measured, 0 = unknown
    std::string memory_kind;   // "reserved" | "allocated" | "" (as printed)
    std::string source;        // where the figures came from
};

// Throws InputError naming the file and the line (CSV) or JSON pointer.
std::vector<Run> load_runs(const std::string& table_path);
Run run_from_log(const std::string& project_path, const std::string& log_path);
Run run_from_job(const std::string& job_folder);

}   // namespace paraplan::calibrate
