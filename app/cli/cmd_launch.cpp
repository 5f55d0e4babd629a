// paraplan-cli launch FILE [--mode M] [--dry-run] [--check] [--json] [--job-dir DIR]
#include "cli/command.h"
#include "cli/runtime_common.h"
#include "runtime/connection_test.h"
#include "runtime/job.h"
#include "runtime/job_start.h"
#include "launch/launch_plan.h"
#include "shell/shell_quote.h"

#include <QDateTime>

#include <iostream>

namespace paraplan::cli {
namespace {

using namespace paraplan::runtime;

nlohmann::json plan_json(const Cluster& c, const LaunchPlan& plan, const SshOptions& ssh) {
    nlohmann::json procs = nlohmann::json::array();
    for (const auto& p : plan.processes) {
        nlohmann::json env = nlohmann::json::object();
        for (const auto& [k, v] : p.env) env[k] = v;
        SshOptions o = ssh;
        o.control_dir = "$CONTROL_DIR";
        const auto& node = c.nodes[static_cast<std::size_t>(p.node)];
        procs.push_back({{"label", p.label},
                         {"node", node.name},
                         {"host", ssh_target(node).host},
                         {"ranks", p.ranks},
                         {"env", env},
                         {"argv", p.argv},
                         {"remote_command", remote_launch_command(plan, p)},
                         {"ssh_argv", ssh_command_argv(ssh_target(node), o, remote_launch_command(plan, p))}});
    }
    nlohmann::json j = {{"job_id", plan.job_id},           {"mode", plan.mode},
                        {"world_size", plan.world_size},   {"master_addr", plan.master_addr},
                        {"master_port", plan.master_port}, {"processes", procs}};
    if (!plan.sbatch_script.empty()) j["sbatch_script"] = plan.sbatch_script;
    nlohmann::json uploads = nlohmann::json::array();
    for (const auto& u : plan.uploads) {
        SshOptions o = ssh;
        o.control_dir = "$CONTROL_DIR";
        const auto& node = c.nodes[static_cast<std::size_t>(u.node)];
        uploads.push_back({{"node", node.name},
                           {"host", ssh_target(node).host},
                           {"path", u.path},
                           {"bytes", u.content.size()},
                           {"remote_command", upload_command(plan, u)},
                           {"ssh_argv", ssh_command_argv(ssh_target(node), o, upload_command(plan, u))}});
    }
    j["uploads"] = uploads;
    return j;
}

int print_checks(const std::vector<NodeCheck>& checks, bool json_out) {
    bool ok = true;
    bool unreachable = false;
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& c : checks) {
        ok = ok && c.ok();
        unreachable = unreachable || !c.reachable;
        arr.push_back(to_json(c));
        if (json_out) continue;
        std::cout << c.node << " (" << c.host << "): "
                  << (c.ok()        ? "ok"
                      : c.reachable ? "problems"
                                    : "UNREACHABLE")
                  << '\n';
        if (c.reachable) {
            std::cout << "  hostname " << c.hostname << ", " << c.gpus.size() << " GPU(s) seen (" << c.planned_gpus
                      << " planned), " << (c.python.empty() ? "no python" : c.python) << ", " << c.launcher << ": "
                      << (c.launcher_path.empty() ? "missing" : c.launcher_path) << '\n';
            for (const auto& g : c.gpus) std::cout << "    " << g << '\n';
        }
        for (const auto& p : c.problems) std::cout << "  problem: " << p << '\n';
        if (!c.reachable && !c.error.fix.empty()) std::cout << "  fix: " << c.error.fix << '\n';
        if (!c.reachable && !c.error.raw.empty()) std::cout << "  ssh said: " << c.error.raw << '\n';
    }
    if (json_out) print_json(nlohmann::json{{"ok", ok}, {"nodes", arr}}.dump(2));
    return unreachable ? kUnreachable : ok ? kOk : kFindings;
}

int run_launch(const Args& a) {
    const std::string file = a.positional_at(0, "project FILE");
    auto rp = load_runtime_project(file, a.get("mode", ""), job_dir_option(a));
    const bool json_out = a.flag("json");
    const SshOptions& ssh = rp.ssh;
    auto app = ensure_qt_app();
    if (a.flag("check")) return print_checks(test_connections(rp.project.cluster, rp.rc, ssh), json_out);

    const std::string id = make_job_id(rp.project.name, QDateTime::currentSecsSinceEpoch());
    if (a.flag("dry-run")) {
        const LaunchPlan plan = plan_job(rp.project, rp.rc, id, JobKind::Training);
        if (json_out) {
            print_json(plan_json(rp.project.cluster, plan, ssh).dump(2));
            return kOk;
        }
        std::cout << "# job " << plan.job_id << ", mode " << plan.mode << ", " << plan.world_size << " ranks, master "
                  << plan.master_addr << ":" << plan.master_port << "\n# logs would go to " << rp.job_dir << "/"
                  << plan.job_id << "/\n# $CONTROL_DIR is a private folder created per node at launch\n";
        if (!plan.sbatch_script.empty()) std::cout << "# sbatch script (fed on stdin):\n" << plan.sbatch_script;
        for (const auto& u : plan.uploads) {
            const auto& node = rp.project.cluster.nodes[static_cast<std::size_t>(u.node)];
            SshOptions o = ssh;
            o.control_dir = "$CONTROL_DIR";
            std::cout << "\n# copy " << u.path << " (" << u.content.size() << " bytes, on stdin) to " << node.name
                      << " (" << ssh_target(node).host << ")\n"
                      << sh_join(ssh_command_argv(ssh_target(node), o, upload_command(plan, u))) << '\n';
        }
        for (const auto& p : plan.processes) {
            const auto& node = rp.project.cluster.nodes[static_cast<std::size_t>(p.node)];
            SshOptions o = ssh;
            o.control_dir = "$CONTROL_DIR";
            std::cout << "\n# " << p.label << " on " << node.name << " (" << ssh_target(node).host << ")\n"
                      << sh_join(ssh_command_argv(ssh_target(node), o, remote_launch_command(plan, p))) << '\n';
        }
        return kOk;
    }

    // The same start as the Run panel's (runtime/job_start.h): a folder of its own, the config uploads.
    const auto owned = create_job(rp.project, rp.rc, ssh, rp.job_dir, id, JobKind::Training);
    Job& job = *owned;
    QObject::connect(&job, &Job::line, &job, [&job, json_out](int i, const QString& text, bool is_err) {
        if (json_out) return;
        auto& os = is_err ? std::cerr : std::cout;
        os << '[' << job.processes()[static_cast<std::size_t>(i)]->spec.label << "] " << text.toStdString()
           << std::endl;
    });
    QObject::connect(&job, &Job::stateChanged, &job, [&job] {
        std::cerr << "paraplan: job " << job.plan().job_id << " " << Job::to_string(job.state()) << std::endl;
    });
    on_interrupt(&job, [&job] {
        std::cerr << "paraplan: stopping (the remote watchdogs end every process group)" << std::endl;
        job.stop();
    });
    std::cerr << "paraplan: logs in " << job.folder() << std::endl;
    job.start();
    while (!job.done()) job.waitFinished(1000);
    if (json_out) print_json(job.to_json().dump(2));
    else if (!job.error().empty()) std::cerr << "paraplan: " << job.error() << std::endl;
    return run_exit_code(job);
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "launch",
    .summary = "launch the project's training job on its cluster over ssh",
    .synopsis = {"FILE [--mode direct|torchrun|slurm|colossalai|deepspeed]\n"
                 "[--dry-run] [--check] [--json] [--job-dir DIR]"},
    .description = "Runs the script of FILE's \"runtime\" section on every node of its cluster through the\n"
                   "system ssh client (one shared connection per node, host keys checked). Output of every\n"
                   "rank is streamed and written to <job-dir>/<job id>/<rank>.log, with job.json beside it.\n"
                   "ssh settings that name a file on this computer (identity, known hosts, config file)\n"
                   "come from your ssh profile (paraplan-cli ssh-profile), never from the project.\n"
                   "Ctrl-C stops the job: every remote process group is ended (TERM, grace, KILL).\n"
                   "Exit 0 when the job succeeded (or the dry run/check is fine), 1 when a node check\n"
                   "found problems, 2 on bad input, 3 when the job failed or was stopped, 4 when a node\n"
                   "could not be reached (host key, key, name, refused, timeout).\n",
    .options = {{"mode", "direct|torchrun|slurm|colossalai|deepspeed", "override runtime.mode"},
                {"dry-run", "", "print every remote command exactly as it would run, and exit"},
                {"check", "", "test the connection to every node (reachable, GPUs, python, launcher)"},
                {"json", "", "with --dry-run: the plan; with --check: per-node results; else job.json"},
                {"job-dir", "DIR",
                 "where job folders go (default: Paraplan's own folder,\n"
                 "$XDG_STATE_HOME/paraplan/jobs or ~/.local/state/paraplan/jobs)"}},
    .run = run_launch});

}   // namespace paraplan::cli
