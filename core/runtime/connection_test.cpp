#include "runtime/connection_test.h"

#include "shell/shell_quote.h"

#include <QElapsedTimer>

#include <memory>
#include <sstream>

namespace paraplan::runtime {

namespace {
std::string launcher_of(const RuntimeConfig& rc) {
    if (rc.mode == "direct") return rc.python;
    if (rc.mode == "slurm") return "sbatch";
    if (!rc.launcher.empty()) return rc.launcher;
    return rc.mode;   // torchrun, colossalai, deepspeed
}
}   // namespace

std::string check_script(const RuntimeConfig& rc) {
    std::string s;
    if (!rc.path_prepend.empty()) {
        std::string path;
        for (const auto& d : rc.path_prepend) path += sh_quote(d) + ":";
        s += "PATH=" + path + "\"$PATH\"; export PATH\n";
    }
    s += "echo \"__PP_HOST__ $(hostname)\"\n";
    // A hung nvidia-smi (a wedged driver) is ended after 10 s (KILL 2 s later) and reported as
    // hung by its status (timeout(1): 124, or 137 after KILL), never read as "0 GPUs".
    s += "if command -v nvidia-smi >/dev/null 2>&1; then echo __PP_SMI__ yes; "
         "if command -v timeout >/dev/null 2>&1; then t='timeout -k 2 " +
         std::to_string(kSmiCheckTimeoutS) +
         "'; else t=; fi; "
         "{ $t nvidia-smi -L 2>&1; echo \"__PP_SMI_RC__ $?\"; } | sed '/^__PP_SMI_RC__/!s/^/__PP_GPU__ /'; "
         "else echo __PP_SMI__ no; fi\n";
    s += "if command -v " + sh_quote(rc.python) + " >/dev/null 2>&1; then echo \"__PP_PY__ $(" + sh_quote(rc.python) +
         " --version 2>&1)\"; else echo __PP_PY__; fi\n";
    s += "echo \"__PP_LAUNCHER__ $(command -v " + sh_quote(launcher_of(rc)) + ")\"\n";
    if (!rc.workdir.empty())
        s += "if [ -d " + sh_quote(rc.workdir) + " ]; then echo __PP_WORKDIR__ yes; else echo __PP_WORKDIR__ no; fi\n";
    return s;
}

void parse_check_output(const std::string& out, NodeCheck& c) {
    std::istringstream in(out);
    std::string l;
    bool smi_seen = false;
    bool smi_answered = false;
    while (std::getline(in, l)) {
        auto value = [&l](const char* m) -> std::optional<std::string> {
            const std::string mk = m;
            if (l.rfind(mk, 0) != 0) return std::nullopt;
            std::string v = l.substr(mk.size());
            if (!v.empty() && v.front() == ' ') v.erase(0, 1);
            return v;
        };
        if (auto v = value("__PP_HOST__")) c.hostname = *v;
        else if (auto v = value("__PP_SMI__")) {
            c.nvidia_smi = *v == "yes";
            smi_seen = true;
        } else if (auto v = value("__PP_GPU__")) {
            if (v->rfind("GPU ", 0) == 0) c.gpus.push_back(*v);
            else if (!v->empty()) c.problems.push_back("nvidia-smi -L: " + *v);
        } else if (auto v = value("__PP_SMI_RC__")) {
            if (*v == "124" || *v == "137")
                c.problems.push_back("nvidia-smi hung on " + c.node + ": `nvidia-smi -L` gave no answer within " +
                                     std::to_string(kSmiCheckTimeoutS) +
                                     " s (stopped it there; the GPU driver may be wedged)");
            else if (*v != "0") c.problems.push_back("nvidia-smi -L failed on " + c.node + " (exit " + *v + ")");
            else smi_answered = true;
        } else if (auto v = value("__PP_PY__")) c.python = *v;
        else if (auto v = value("__PP_LAUNCHER__")) c.launcher_path = *v;
        else if (auto v = value("__PP_WORKDIR__")) {
            if (*v != "yes") c.problems.push_back("the working directory does not exist");
        }
    }
    if (!smi_seen) c.problems.push_back("the check script printed nothing (remote shell problem?)");
    else if (!c.nvidia_smi) c.problems.push_back("nvidia-smi not found: no NVIDIA GPUs seen");
    else if (smi_answered && static_cast<int>(c.gpus.size()) < c.planned_gpus)
        c.problems.push_back("nvidia-smi lists " + std::to_string(c.gpus.size()) + " GPU(s), the plan uses " +
                             std::to_string(c.planned_gpus));
    if (c.python.empty()) c.problems.push_back("python not found on the PATH of non-interactive ssh sessions");
    if (c.launcher_path.empty()) c.problems.push_back("\"" + c.launcher + "\" not found on the remote PATH");
}

std::vector<NodeCheck> test_connections(const Cluster& cluster, const RuntimeConfig& rc, const SshOptions& ssh,
                                        int timeout_ms) {
    std::vector<NodeCheck> out(cluster.nodes.size());
    std::vector<std::unique_ptr<SshNode>> nodes;
    QElapsedTimer clock;
    clock.start();
    for (std::size_t i = 0; i < cluster.nodes.size(); ++i) {
        out[i].node = cluster.nodes[i].name;
        out[i].host = ssh_target(cluster.nodes[i]).host;
        out[i].planned_gpus = cluster.nodes[i].gpus;
        out[i].launcher = launcher_of(rc);
        nodes.push_back(std::make_unique<SshNode>(ssh_target(cluster.nodes[i]), ssh));
        nodes.back()->connectToHost();   // all masters connect in parallel
    }
    const std::string script = remote_sh(check_script(rc));
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        auto& c = out[i];
        const int left = std::max(1000, timeout_ms - static_cast<int>(clock.elapsed()));
        if (!nodes[i]->waitConnected(left)) {
            c.error = nodes[i]->error();
            c.problems.push_back(c.error.message);
            continue;
        }
        c.reachable = true;
        const auto r = nodes[i]->run(script, std::max(1000, timeout_ms - static_cast<int>(clock.elapsed())));
        if (r.exit_code != 0) {
            c.error = r.error;
            c.problems.push_back(r.error.message.empty() ? "the check script failed" : r.error.message);
        }
        parse_check_output(r.out, c);
        c.seconds = static_cast<double>(clock.elapsed()) / 1000.0;
    }
    for (auto& n : nodes) n->disconnectFromHost();
    return out;
}

nlohmann::json to_json(const NodeCheck& c) {
    nlohmann::json j = {{"node", c.node},
                        {"host", c.host},
                        {"ok", c.ok()},
                        {"reachable", c.reachable},
                        {"hostname", c.hostname},
                        {"nvidia_smi", c.nvidia_smi},
                        {"gpus", c.gpus},
                        {"planned_gpus", c.planned_gpus},
                        {"python", c.python},
                        {"launcher", c.launcher},
                        {"launcher_path", c.launcher_path},
                        {"problems", c.problems},
                        {"seconds", c.seconds}};
    if (c.error.kind != SshErrorKind::None)
        j["error"] = {{"kind", to_string(c.error.kind)},
                      {"message", c.error.message},
                      {"fix", c.error.fix},
                      {"raw", c.error.raw},
                      {"exit_code", c.error.exit_code}};
    return j;
}

}   // namespace paraplan::runtime
