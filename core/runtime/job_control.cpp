#include "runtime/job_control.h"

#include "runtime/ssh_node.h"

namespace paraplan::runtime {

std::vector<StopOutcome> stop_job(const JobRecord& job, SshOptions ssh, int timeout_ms) {
    std::vector<StopOutcome> out;
    const auto& j = job.json;
    if (ssh.known_hosts_file.empty()) ssh.known_hosts_file = j.value("known_hosts_file", "");
    if (ssh.config_file.empty()) ssh.config_file = j.value("ssh_config_file", "");
    const int grace = j.value("stop_grace_s", 5);
    if (!j.contains("processes") || !j["processes"].is_array()) return out;
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
        if (p.value("finished", false) && !p["exit_code"].is_null()) {
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

}  // namespace paraplan::runtime
