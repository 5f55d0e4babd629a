#include "runtime/job_control.h"

#include "shell/shell_quote.h"
#include "slurm/slurm.h"
#include "runtime/ssh_node.h"

namespace paraplan::runtime {

std::vector<StopOutcome> stop_job(const JobRecord& job, SshOptions ssh, int timeout_ms) {
    std::vector<StopOutcome> out;
    const auto& j = job.json;
    if (ssh.known_hosts_file.empty()) ssh.known_hosts_file = j.value("known_hosts_file", "");
    if (ssh.config_file.empty()) ssh.config_file = j.value("ssh_config_file", "");
    const int grace = j.value("stop_grace_s", 5);
    if (!j.contains("processes") || !j["processes"].is_array()) return out;
    const std::string state = j.value("state", "");
    const bool job_over = state == "succeeded" || state == "failed" || state == "stopped";
    for (const auto& p : j["processes"]) {
        StopOutcome o;
        o.label = p.value("label", "");
        SshTarget t;
        if (p.contains("ssh") && p["ssh"].is_object()) {
            t.host = p["ssh"].value("host", "");
            t.user = p["ssh"].value("user", "");
            t.port = p["ssh"].value("port", 0);
            t.identity = p["ssh"].value("identity", "");
        } else {
            t.host = p.value("host", "");
        }
        o.host = t.host;
        if (j.contains("slurm_job_id") && j["slurm_job_id"].is_number_integer() && o.label == "sbatch") {
            // A Slurm job is ended by its controller: scancel on the login node.
            const long long sid = j["slurm_job_id"].get<long long>();
            if (job_over || (p.value("finished", false) && !p["exit_code"].is_null())) {
                o.result = "Slurm job " + std::to_string(sid) + " already finished";
                o.ok = true;
                out.push_back(o);
                continue;
            }
            std::string script;
            if (j.contains("path_prepend") && j["path_prepend"].is_array()) {
                std::string path;
                for (const auto& d : j["path_prepend"])
                    if (d.is_string()) path += sh_quote(d.get<std::string>()) + ":";
                if (!path.empty()) script += "PATH=" + path + "\"$PATH\"; export PATH\n";
            }
            SshNode node(t, ssh);
            const auto r = node.run(remote_sh(script + scancel_command(sid)), timeout_ms);
            if (r.exit_code == 0) {
                o.result = "cancelled Slurm job " + std::to_string(sid) + " (scancel)";
                o.ok = true;
            } else {
                std::string err = r.err;
                while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.pop_back();
                o.result = "scancel " + std::to_string(sid) + " failed: " + (err.empty() ? r.error.message : err);
            }
            out.push_back(o);
            continue;
        }
        // A process whose connection was lost may still run on its node: try it.
        const bool lost = p.value("error_kind", "") == "connection_lost";
        if (p.value("finished", false) && !p["exit_code"].is_null() && !lost) {
            o.result = "already finished";
            o.ok = true;
            out.push_back(o);
            continue;
        }
        if (!p.contains("pgid") || !p["pgid"].is_number_integer()) {
            o.result = "not started (no process group recorded)";
            o.ok = true;
            out.push_back(o);
            continue;
        }
        SshNode node(t, ssh);
        const auto r = node.run(remote_sh(remote_stop_script(job.id, p["pgid"].get<long long>(), grace)), timeout_ms);
        std::string res = r.out;
        while (!res.empty() && (res.back() == '\n' || res.back() == '\r')) res.pop_back();
        if (r.exit_code == 0) {
            o.result = res;
            o.ok = true;
        } else if (res == "not-this-job") {
            o.result = "process group " + std::to_string(p["pgid"].get<long long>()) +
                       " no longer belongs to this job; left alone";
            o.ok = true;
        } else {
            o.result = r.error.message.empty() ? "stop failed: " + r.err : r.error.message;
        }
        out.push_back(o);
    }
    return out;
}

}   // namespace paraplan::runtime
