// paraplan-cli stop JOB [--job-dir DIR] [--json]
#include "cli/command.h"
#include "cli/runtime_common.h"
#include "runtime/job_control.h"
#include "joblog/job_history.h"

#include <iostream>

namespace paraplan::cli {
namespace {

using namespace paraplan::runtime;

int run_stop(const Args& a) {
    const std::string which = a.positional_at(0, "JOB (a job id or its folder)");
    const std::string job_dir = job_dir_option(a);
    std::string problem;
    const auto rec = find_job(job_dir, which, &problem);
    if (!rec) throw UsageError("no job \"" + which + "\" in " + job_dir + " (" + problem + ")");
    auto app = ensure_qt_app();
    const auto outcomes = stop_job(*rec, SshOptions{}, load_ssh_profiles());
    bool ok = true;
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& o : outcomes) {
        ok = ok && o.ok;
        arr.push_back({{"label", o.label}, {"host", o.host}, {"result", o.result}, {"ok", o.ok}});
        if (!a.flag("json")) std::cout << o.label << " on " << o.host << ": " << o.result << '\n';
    }
    if (a.flag("json")) print_json(nlohmann::json{{"job", rec->id}, {"ok", ok}, {"processes", arr}}.dump(2));
    return ok ? kOk : kRunFailed;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "stop",
    .summary = "stop a running job (by id or folder) on every node",
    .synopsis = {"JOB [--job-dir DIR] [--json]"},
    .description = "Reads <job-dir>/JOB/job.json (or JOB/job.json when JOB is a folder) and ends each\n"
                   "recorded remote process group over ssh: TERM, a grace period, then KILL, and only if\n"
                   "the group still carries the job's PARAPLAN_JOB tag.\n"
                   "Only a record of yours that nobody else can write is acted on; its ssh settings\n"
                   "that name local files come from your ssh profile, never from the record.\n"
                   "Exit 0 when every process is stopped or already gone, 2 when the job is unknown or its\n"
                   "record is refused, 3 when a process could not be stopped.\n",
    .options = {{"job-dir", "DIR",
                 "folder holding job folders (default: Paraplan's own,\n"
                 "$XDG_STATE_HOME/paraplan/jobs or ~/.local/state/paraplan/jobs)"},
                {"json", "", "print what was stopped as one JSON document"}},
    .run = run_stop});

}   // namespace paraplan::cli
