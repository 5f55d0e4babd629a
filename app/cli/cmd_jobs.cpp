// paraplan-cli jobs [--job-dir DIR] [--json] and paraplan-cli status JOB [--job-dir DIR] [--json]:
// the runs Paraplan started, read from the job records it wrote (job_history.h).
#include "cli/command.h"
#include "cli/runtime_common.h"
#include "joblog/job_history.h"

#include <filesystem>
#include <iostream>
#include <set>

namespace paraplan::cli {
namespace {

using nlohmann::json;
using namespace paraplan::runtime;

// One process of a record: label, host, its log's path, exit code (null while it runs).
json process_summary(const JobRecord& r, const json& p) {
    json out = {{"label", p.value("label", "")}, {"host", p.value("host", "")}};
    const std::string log = p.value("log", "");
    out["log"] = log.empty() ? json() : json((std::filesystem::path(r.folder) / log).string());
    out["exit_code"] = p.contains("exit_code") && p["exit_code"].is_number_integer() ? p["exit_code"] : json();
    out["finished"] = p.value("finished", false);
    if (p.contains("error") && p["error"].is_string()) out["error"] = p["error"];
    return out;
}

// The record in the shape `jobs --json` lists and `status --json` prints (with "processes").
json job_summary(const JobRecord& r, bool with_processes) {
    json hosts = json::array();
    json procs = json::array();
    std::set<std::string> seen;
    json exit = json();
    if (r.json.contains("processes") && r.json["processes"].is_array())
        for (const auto& p : r.json["processes"]) {
            if (!p.is_object()) continue;
            const json s = process_summary(r, p);
            if (const std::string h = s["host"]; !h.empty() && seen.insert(h).second) hosts.push_back(h);
            if (s["exit_code"].is_number_integer() && (exit.is_null() || exit == 0)) exit = s["exit_code"];
            procs.push_back(s);
        }
    json j = {{"id", r.id},
              {"state", r.state},
              {"mode", r.mode},
              {"hosts", hosts},
              {"started", r.started},
              {"ended", r.ended.empty() ? json() : json(r.ended)},
              {"exit_code", r.state == "running" || r.state == "connecting" ? json() : exit},
              {"error", r.error},
              {"world_size", r.world_size},
              {"folder", r.folder}};
    if (r.json.contains("slurm_job_id")) j["slurm_job_id"] = r.json["slurm_job_id"];
    if (with_processes) j["processes"] = procs;
    return j;
}

void print_row(const json& j) {
    std::string hosts;
    for (const auto& h : j["hosts"]) hosts += (hosts.empty() ? "" : ",") + h.get<std::string>();
    std::cout << j["id"].get<std::string>() << "  " << j["state"].get<std::string>() << "  "
              << j["mode"].get<std::string>() << "  " << (hosts.empty() ? "-" : hosts) << "  since "
              << j["started"].get<std::string>()
              << (j["exit_code"].is_null() ? std::string() : "  exit " + std::to_string(j["exit_code"].get<int>()))
              << '\n';
}

int run_jobs(const Args& a) {
    const std::string dir = job_dir_option(a);
    std::vector<std::string> problems;
    const auto jobs = list_jobs(dir, &problems);
    json arr = json::array();
    for (const auto& r : jobs) arr.push_back(job_summary(r, false));
    if (a.flag("json")) {
        print_json(json{{"job_dir", dir}, {"jobs", arr}, {"problems", problems}}.dump(2));
        return kOk;
    }
    if (jobs.empty()) std::cout << "no jobs in " << dir << '\n';
    for (const auto& j : arr) print_row(j);
    for (const auto& p : problems) std::cerr << "paraplan: skipped " << p << '\n';
    return kOk;
}

int run_status(const Args& a) {
    const std::string which = a.positional_at(0, "JOB (a job id or its folder)");
    const std::string dir = job_dir_option(a);
    std::string problem;
    const auto rec = find_job(dir, which, &problem);
    if (!rec) throw UsageError("no job \"" + which + "\" in " + dir + " (" + problem + ")");
    const json j = job_summary(*rec, true);
    if (a.flag("json")) {
        print_json(j.dump(2));
        return kOk;
    }
    print_row(j);
    if (!rec->error.empty()) std::cout << "  error: " << rec->error << '\n';
    for (const auto& p : j["processes"])
        std::cout << "  " << p["label"].get<std::string>() << " on " << p["host"].get<std::string>() << ": "
                  << (p["exit_code"].is_null() ? std::string(p["finished"].get<bool>() ? "ended" : "running")
                                               : "exit " + std::to_string(p["exit_code"].get<int>()))
                  << (p["log"].is_null() ? std::string() : "  log " + p["log"].get<std::string>()) << '\n';
    return kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{"jobs",
                             "list every run Paraplan started (state, where, since when, exit, logs)",
                             "Usage: paraplan-cli jobs [--job-dir DIR] [--json]\n\n"
                             "Lists the job records in DIR (default: Paraplan's own folder,\n"
                             "$XDG_STATE_HOME/paraplan/jobs or ~/.local/state/paraplan/jobs), newest first.\n"
                             "A record that is not yours, or that others can write, is skipped and named.\n"
                             "--json: {\"job_dir\", \"jobs\": [{\"id\", \"state\", \"mode\", \"hosts\", \"started\",\n"
                             "\"ended\", \"exit_code\", \"error\", \"world_size\", \"folder\"}], \"problems\"}.\n",
                             {"json"},
                             run_jobs});

PARAPLAN_CLI_COMMAND(Command{"status",
                             "show one run: its state, every process, exit codes and log paths",
                             "Usage: paraplan-cli status JOB [--job-dir DIR] [--json]\n\n"
                             "JOB is a job id (in DIR, default Paraplan's own folder) or a job folder.\n"
                             "--json: the object `jobs --json` lists, plus \"processes\": [{\"label\", \"host\",\n"
                             "\"log\", \"exit_code\", \"finished\", \"error\"}].\n"
                             "Exit 0 when the job is found, 2 when it is unknown or its record is refused.\n",
                             {"json"},
                             run_status});

}   // namespace paraplan::cli
