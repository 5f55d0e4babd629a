#include "joblog/job_stop.h"

#include "ssh/ssh_policy.h"
#include "ssh/ssh_profile.h"
#include "util/input_error.h"
#include "util/json_read.h"

#include <filesystem>

namespace paraplan::runtime {

namespace {

using json_read::Obj;

// A process group id or Slurm job id: a positive integer that fits a pid_t / job id. 0, 1 and
// negatives are refused: `kill -TERM -1` would signal every process the user may signal.
long long id_above_one(const Obj& o, std::string_view key, const char* what) {
    const auto* v = o.get(key);
    if (v->is_number_integer() && !v->is_number_unsigned() && v->get<long long>() > 1 &&
        v->get<long long>() <= 2147483647LL)
        return v->get<long long>();
    if (v->is_number_unsigned() && v->get<unsigned long long>() > 1 && v->get<unsigned long long>() <= 2147483647ULL)
        return static_cast<long long>(v->get<unsigned long long>());
    json_read::fail(o.at(key), std::string(what) + " (an integer from 2 to 2147483647)", *v);
}

StopProcess read_process(const Obj& p) {
    StopProcess s;
    s.label = p.string("label", "");
    if (p.has("ssh")) {
        const Obj t = p.object("ssh");
        s.target.host = t.string("host", "");
        s.target.user = t.string("user", "");
        s.target.port = t.non_negative_int("port", 0);
        if (s.target.port > 65535) json_read::fail(t.at("port"), "a port from 0 to 65535", *t.get("port"));
    } else {
        s.target.host = p.string("host", "");
    }
    // An exit code is an integer (a signal death is recorded as 128+N by the runner).
    const bool has_exit = p.has("exit_code");
    if (has_exit) p.integer("exit_code", 0);
    s.finished = p.boolean("finished", false) && has_exit;
    s.connection_lost = p.string("error_kind", "") == "connection_lost";
    if (p.has("pgid")) s.pgid = id_above_one(p, "pgid", "a process group id");
    // Held to the project's rules before it reaches ssh (a process without a host fails there).
    if (!s.target.host.empty())
        if (const std::string why = check_target(s.target); !why.empty())
            throw InputError(p.at(p.has("ssh") ? "ssh" : "host"), why);
    return s;
}

}   // namespace

std::optional<StopPlan> stop_plan_from_record(const JobRecord& job, std::string* problem) {
    try {
        if (!job.json.is_object()) json_read::fail("", "a job record (an object)", job.json);
        const Obj j(job.json, "");
        StopPlan plan;
        // Local ssh files an older record may name ("known_hosts_file", "ssh_config_file", a
        // process's "identity") are never read: they come from the user's profile by id.
        plan.ssh_profile = j.string("ssh_profile", "");
        if (!plan.ssh_profile.empty() && !is_ssh_profile_id(plan.ssh_profile))
            json_read::fail(j.at("ssh_profile"), "a profile id", *j.get("ssh_profile"));
        if (j.has("ssh_options")) {
            const auto& opts = j.array("ssh_options");
            for (std::size_t i = 0; i < opts.size(); ++i) {
                const std::string at = j.at("ssh_options") + "/" + std::to_string(i);
                if (!opts[i].is_string()) json_read::fail(at, "an ssh option (a string)", opts[i]);
                if (const std::string why = check_project_ssh_option(opts[i].get<std::string>()); !why.empty())
                    throw InputError(at, why);
                plan.ssh_options.push_back(opts[i].get<std::string>());
            }
        }
        plan.grace_s = j.non_negative_int("stop_grace_s", 5);
        if (plan.grace_s > 3600)   // as a project's runtime.stop_grace_s
            json_read::fail(j.at("stop_grace_s"), "a grace period from 0 to 3600 seconds", *j.get("stop_grace_s"));
        const std::string state = j.string("state", "");
        plan.job_over = job_over(state);
        if (j.has("slurm_job_id")) plan.slurm_job_id = id_above_one(j, "slurm_job_id", "a Slurm job id");
        if (j.has("path_prepend")) {
            const auto& dirs = j.array("path_prepend");
            for (std::size_t i = 0; i < dirs.size(); ++i) {
                if (!dirs[i].is_string())
                    json_read::fail(j.at("path_prepend") + "/" + std::to_string(i), "a folder (a string)", dirs[i]);
                plan.path_prepend.push_back(dirs[i].get<std::string>());
            }
        }
        if (j.has("processes")) {
            const auto& procs = j.array("processes");
            for (std::size_t i = 0; i < procs.size(); ++i)
                plan.processes.push_back(read_process(Obj(procs[i], j.at("processes") + "/" + std::to_string(i))));
        }
        return plan;
    } catch (const InputError& e) {
        if (problem) *problem = (std::filesystem::path(job.folder) / "job.json").string() + ": " + e.what();
        return std::nullopt;
    } catch (const nlohmann::json::exception& e) {   // not expected: the reads above check types first
        if (problem) *problem = (std::filesystem::path(job.folder) / "job.json").string() + ": " + e.what();
        return std::nullopt;
    }
}

}   // namespace paraplan::runtime
