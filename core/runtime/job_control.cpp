#include "runtime/job_control.h"

#include "joblog/job_stop.h"
#include "util/local_dirs.h"
#include "shell/shell_quote.h"
#include "slurm/slurm.h"
#include "runtime/ssh_node.h"

namespace paraplan::runtime {

std::vector<StopOutcome> stop_job(const JobRecord& job, SshOptions ssh, const SshProfiles& profiles, int timeout_ms) {
    std::vector<StopOutcome> out;
    std::string problem;
    auto plan = stop_plan_from_record(job, &problem);
    if (plan && !plan->ssh_profile.empty() && !profiles.count(plan->ssh_profile)) {
        problem = "the job was launched with the ssh profile \"" + plan->ssh_profile +
                  "\", which is not defined on this computer (paraplan-cli ssh-profile list)";
        plan.reset();
    }
    if (!plan) {
        // Nothing is stopped on a guess: the record says where, and the caller reports it.
        StopOutcome o;
        o.label = "job.json";
        o.result = "cannot read the job record: " + problem;
        out.push_back(o);
        return out;
    }
    if (!plan->ssh_profile.empty()) apply_ssh_profile(ssh, profiles.at(plan->ssh_profile));
    ssh.extra_options = plan->ssh_options;
    // Tell a launch that follows this job that what ends now was stopped (the folder is this
    // user's own: find_job checked it); a failure to say so only costs that label.
    if (!plan->job_over) write_own_file(job.folder + "/" + kStopRequestedFile, "stop requested\n");
    for (const auto& p : plan->processes) {
        StopOutcome o;
        o.label = p.label;
        o.host = p.target.host;
        if (plan->slurm_job_id && o.label == "sbatch") {
            // A Slurm job is ended by its controller: scancel on the login node.
            const long long sid = *plan->slurm_job_id;
            if (plan->job_over || p.finished) {
                o.result = "Slurm job " + std::to_string(sid) + " already finished";
                o.ok = true;
                out.push_back(o);
                continue;
            }
            std::string script;
            std::string path;
            for (const auto& d : plan->path_prepend) path += sh_quote(d) + ":";
            if (!path.empty()) script += "PATH=" + path + "\"$PATH\"; export PATH\n";
            SshNode node(p.target, ssh);
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
        if (p.finished && !p.connection_lost) {
            o.result = "already finished";
            o.ok = true;
            out.push_back(o);
            continue;
        }
        if (!p.pgid) {
            o.result = "not started (no process group recorded)";
            o.ok = true;
            out.push_back(o);
            continue;
        }
        SshNode node(p.target, ssh);
        const auto r = node.run(remote_sh(remote_stop_script(job.id, *p.pgid, plan->grace_s)), timeout_ms);
        std::string res = r.out;
        while (!res.empty() && (res.back() == '\n' || res.back() == '\r')) res.pop_back();
        if (r.exit_code == 0) {
            o.result = res;
            o.ok = true;
        } else if (res == "not-this-job") {
            o.result = "process group " + std::to_string(*p.pgid) + " no longer belongs to this job; left alone";
            o.ok = true;
        } else {
            o.result = r.error.message.empty() ? "stop failed: " + r.err : r.error.message;
        }
        out.push_back(o);
    }
    return out;
}

}   // namespace paraplan::runtime
