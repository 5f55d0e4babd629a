// paraplan-cli jobs [--job-dir DIR] [--json] and paraplan-cli status JOB [--job-dir DIR] [--json]:
// the runs Paraplan started, read from the job records it wrote (job_history.h).
#include "cli/command.h"
#include "cli/runtime_common.h"
#include "joblog/job_history.h"
#include "joblog/job_summary.h"

#include <iostream>

namespace paraplan::cli {
namespace {

using nlohmann::json;
using namespace paraplan::runtime;

int run_jobs(const Args& a) {
    const std::string dir = job_dir_option(a);
    std::vector<std::string> problems;
    const auto jobs = list_jobs(dir, &problems);
    if (a.flag("json")) {
        json arr = json::array();
        for (const auto& r : jobs) arr.push_back(to_json(summarize(r), false));
        print_json(json{{"job_dir", dir}, {"jobs", arr}, {"problems", problems}}.dump(2));
        return kOk;
    }
    if (jobs.empty()) std::cout << "no jobs in " << dir << '\n';
    for (const auto& r : jobs) std::cout << summary_line(summarize(r)) << '\n';
    for (const auto& p : problems) std::cerr << "paraplan: skipped " << p << '\n';
    return kOk;
}

int run_status(const Args& a) {
    const std::string which = a.positional_at(0, "JOB (a job id or its folder)");
    const std::string dir = job_dir_option(a);
    std::string problem;
    const auto rec = find_job(dir, which, &problem);
    if (!rec) throw UsageError("no job \"" + which + "\" in " + dir + " (" + problem + ")");
    const JobSummary s = summarize(*rec);
    if (a.flag("json")) {
        print_json(to_json(s, true).dump(2));
        return kOk;
    }
    std::cout << summary_line(s) << '\n';
    if (!rec->error.empty()) std::cout << "  error: " << rec->error << '\n';
    for (const auto& p : s.processes)
        std::cout << "  " << p.label << " on " << p.host << ": "
                  << (p.signal      ? "signal " + std::to_string(*p.signal)
                      : p.exit_code ? "exit " + std::to_string(*p.exit_code)
                      : p.finished  ? "ended"
                                    : "running")
                  << (p.log.empty() ? std::string() : "  log " + p.log) << '\n';
    return kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "jobs",
    .summary = "list every run Paraplan started (state, where, since when, exit, logs)",
    .synopsis = {"[--job-dir DIR] [--json]"},
    .description = "Lists the job records in DIR (default: Paraplan's own folder,\n"
                   "$XDG_STATE_HOME/paraplan/jobs or ~/.local/state/paraplan/jobs), newest first.\n"
                   "A record that is not yours, or that others can write, is skipped and named.\n",
    .options = {{"job-dir", "DIR", "the folder holding job folders"},
                {"json", "",
                 "{\"job_dir\", \"jobs\": [{\"id\", \"state\", \"mode\", \"hosts\", \"started\",\n"
                 "\"ended\", \"exit_code\", \"error\", \"world_size\", \"folder\"}], \"problems\"}"}},
    .run = run_jobs});

PARAPLAN_CLI_COMMAND(Command{
    .name = "status",
    .summary = "show one run: its state, every process, exit codes and log paths",
    .synopsis = {"JOB [--job-dir DIR] [--json]"},
    .description = "JOB is a job id (in DIR, default Paraplan's own folder) or a job folder.\n"
                   "Exit 0 when the job is found, 2 when it is unknown or its record is refused.\n",
    .options = {{"job-dir", "DIR", "the folder holding job folders"},
                {"json", "",
                 "the object `jobs --json` lists, plus \"processes\": [{\"label\", \"host\",\n"
                 "\"log\", \"exit_code\", \"signal\"?, \"finished\", \"error\"}]"}},
    .run = run_status});

}   // namespace paraplan::cli
