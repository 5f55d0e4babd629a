#include "launch/launch_plan.h"
#include "slurm/slurm.h"

#include "shell/shell_quote.h"
#include "ssh/ssh_command.h"
#include "util/input_error.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <random>

namespace paraplan::runtime {

namespace {

// Variables Paraplan derives from the placement; the project may not set them.
const std::vector<std::string> kReserved{"RANK",        "LOCAL_RANK",  "WORLD_SIZE",           "LOCAL_WORLD_SIZE",
                                         "MASTER_ADDR", "MASTER_PORT", "CUDA_VISIBLE_DEVICES", "PARAPLAN_JOB",
                                         "GROUP_RANK"};

std::string host_of(const Node& n) { return n.host.empty() ? n.name : n.host; }

std::string join_ints(const std::vector<int>& v, const char* sep) {
    std::string s;
    for (int x : v) s += (s.empty() ? "" : sep) + std::to_string(x);
    return s;
}

EnvList base_env(const LaunchPlan& plan, const RuntimeConfig& rc) {
    EnvList env{{"PARAPLAN_JOB", plan.job_id}, {"PYTHONUNBUFFERED", "1"}};
    for (const auto& kv : rc.env) env.push_back(kv);
    return env;
}

}   // namespace

std::string random_token() {
    std::random_device rd;
    const unsigned long long v = (static_cast<unsigned long long>(rd()) << 32) ^ rd();
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", v);
    return buf;
}

std::string started_marker(const LaunchPlan& plan) { return wrapper_markers(plan.marker_token).started; }
std::string exit_marker(const LaunchPlan& plan) { return wrapper_markers(plan.marker_token).exited; }
std::string error_marker(const LaunchPlan& plan) { return wrapper_markers(plan.marker_token).error; }

std::string make_job_id(const std::string& name, long long unix_seconds) {
    std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    std::string slug;
    for (char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (ok) slug += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
        else if (!slug.empty() && slug.back() != '-') slug += '-';
        if (slug.size() >= 40) break;
    }
    while (!slug.empty() && slug.back() == '-') slug.pop_back();
    if (slug.empty()) slug = "job";
    return std::string(buf) + "-" + slug;
}

LaunchPlan plan_launch(const Cluster& cluster, const RuntimeConfig& rc, const std::string& job_id) {
    LaunchPlan plan;
    plan.job_id = job_id;
    plan.mode = rc.mode;
    plan.master_port = rc.master_port;
    plan.world_size = cluster.world_size();
    plan.workdir = rc.workdir;
    plan.path_prepend = rc.path_prepend;
    plan.stop_grace_s = rc.stop_grace_s;
    plan.marker_token = random_token();
    plan.fail_fast = rc.fail_fast;
    // A node gives up on its controller after four missed ssh keepalive rounds' worth.
    plan.heartbeat_s = 5;
    plan.lost_after_s = std::max(20, 4 * rc.server_alive_interval_s);
    if (rc.script.empty())
        throw InputError("/runtime/script", "required to launch: the training script to run (e.g. \"train.py\")");
    for (const auto& [k, v] : rc.env)
        if (std::find(kReserved.begin(), kReserved.end(), k) != kReserved.end())
            throw InputError("/runtime/env/" + k, k + " is set by Paraplan from the cluster placement; remove it");
    if (cluster.nodes.empty() || plan.world_size == 0)
        throw InputError("/cluster/nodes", "the cluster has no GPUs to launch on");
    if (plan.world_size > kMaxLaunchRanks)
        throw InputError("/cluster/nodes", "the cluster has " + std::to_string(plan.world_size) +
                                               " GPUs; Paraplan launches jobs of up to " +
                                               std::to_string(kMaxLaunchRanks) + " GPUs");
    for (std::size_t i = 0; i < cluster.nodes.size(); ++i) {
        const std::string why = check_target(ssh_target(cluster.nodes[i]));
        if (!why.empty()) throw InputError("/cluster/nodes/" + std::to_string(i) + "/host", why);
    }
    const auto placement = cluster.placement();
    plan.master_addr = rc.master_addr.empty() ? host_of(cluster.nodes[static_cast<std::size_t>(placement[0].node)])
                                              : rc.master_addr;
    const std::string W = std::to_string(plan.world_size);
    const std::string P = std::to_string(plan.master_port);
    const int N = static_cast<int>(cluster.nodes.size());

    // Ranks of each node, in rank order, and their GPU indices.
    std::vector<std::vector<int>> node_ranks(static_cast<std::size_t>(N));
    for (int r = 0; r < plan.world_size; ++r)
        node_ranks[static_cast<std::size_t>(placement[static_cast<std::size_t>(r)].node)].push_back(r);
    auto gpus_of = [&](int node) {
        std::vector<int> g;
        for (int r : node_ranks[static_cast<std::size_t>(node)])
            g.push_back(placement[static_cast<std::size_t>(r)].local_rank);
        return g;
    };
    const EnvList env0 = base_env(plan, rc);
    auto script_argv = [&rc](std::vector<std::string> head) {
        head.push_back(rc.script);
        head.insert(head.end(), rc.args.begin(), rc.args.end());
        return head;
    };

    if (rc.mode == "direct") {
        for (int r = 0; r < plan.world_size; ++r) {
            const GpuSlot s = placement[static_cast<std::size_t>(r)];
            const auto& on_node = node_ranks[static_cast<std::size_t>(s.node)];
            const int local = static_cast<int>(std::find(on_node.begin(), on_node.end(), r) - on_node.begin());
            RemoteProcess p;
            p.node = s.node;
            p.label = "rank-" + std::to_string(r);
            p.ranks = {r};
            p.env = env0;
            // One GPU per process: CUDA_VISIBLE_DEVICES names the slot, so the
            // process sees it as cuda:0; LOCAL_RANK is the rank's place on its node.
            EnvList dist{{"RANK", std::to_string(r)},
                         {"LOCAL_RANK", std::to_string(local)},
                         {"WORLD_SIZE", W},
                         {"LOCAL_WORLD_SIZE", std::to_string(on_node.size())},
                         {"MASTER_ADDR", plan.master_addr},
                         {"MASTER_PORT", P},
                         {"CUDA_VISIBLE_DEVICES", std::to_string(s.local_rank)}};
            p.env.insert(p.env.end(), dist.begin(), dist.end());
            p.argv = script_argv({rc.python});
            plan.processes.push_back(std::move(p));
        }
    } else if (rc.mode == "torchrun" || rc.mode == "deepspeed") {
        // Static rendezvous gives node k the ranks [k*G, (k+1)*G) and rank = k*G + LOCAL_RANK
        // (torch/distributed/run.py; SimpleElasticAgent._assign_worker_ranks in
        // torch/distributed/elastic/agent/server/api.py, PyTorch 2.x), so every node must hold G
        // consecutive ranks; CUDA_VISIBLE_DEVICES lists its GPUs in rank order.
        const int G = static_cast<int>(node_ranks[static_cast<std::size_t>(placement[0].node)].size());
        std::vector<int> node_order;
        for (int r = 0; r < plan.world_size; r += std::max(G, 1))
            node_order.push_back(placement[static_cast<std::size_t>(r)].node);
        for (int k = 0; k < static_cast<int>(node_order.size()); ++k) {
            const auto& ranks = node_ranks[static_cast<std::size_t>(node_order[static_cast<std::size_t>(k)])];
            bool ok = static_cast<int>(ranks.size()) == G;
            for (int i = 0; ok && i < G; ++i) ok = ranks[static_cast<std::size_t>(i)] == k * G + i;
            if (!ok)
                throw InputError("/runtime/mode", rc.mode + " gives each node a block of " + std::to_string(G) +
                                                      " consecutive ranks; this placement does not (uneven nodes or a "
                                                      "custom rank order): use \"direct\" mode");
        }
        if (static_cast<int>(node_order.size()) != N)
            throw InputError("/runtime/mode", rc.mode + " needs every node to run ranks; use \"direct\" mode");
        for (int k = 0; k < N; ++k) {
            const int node = node_order[static_cast<std::size_t>(k)];
            RemoteProcess p;
            p.node = node;
            p.label = "node-" + std::to_string(k);
            p.ranks = node_ranks[static_cast<std::size_t>(node)];
            p.env = env0;
            p.env.push_back({"CUDA_VISIBLE_DEVICES", join_ints(gpus_of(node), ",")});
            if (rc.mode == "torchrun") {
                p.argv = script_argv({rc.launcher.empty() ? "torchrun" : rc.launcher, "--nnodes=" + std::to_string(N),
                                      "--nproc_per_node=" + std::to_string(G), "--node_rank=" + std::to_string(k),
                                      "--rdzv_backend=static", "--master_addr=" + plan.master_addr,
                                      "--master_port=" + P});
            } else {
                // deepspeed/launcher/runner.py: --no_ssh runs this node only, --node_rank says which.
                p.argv = script_argv({rc.launcher.empty() ? "deepspeed" : rc.launcher, "--no_ssh",
                                      "--node_rank=" + std::to_string(k), "--num_nodes=" + std::to_string(N),
                                      "--num_gpus=" + std::to_string(G), "--master_addr=" + plan.master_addr,
                                      "--master_port=" + P});
            }
            plan.processes.push_back(std::move(p));
        }
    } else if (rc.mode == "colossalai") {
        // `colossalai run` starts torchrun on every host itself over ssh (colossalai/cli/launcher/run.py
        // get_launch_command, multinode_runner.py MultiNodeRunner, ColossalAI v0.5.1):
        // one launcher process on the first node.
        std::string hosts;
        std::vector<int> order;
        for (int r = 0; r < plan.world_size; ++r) {
            const int n = placement[static_cast<std::size_t>(r)].node;
            if (std::find(order.begin(), order.end(), n) == order.end()) order.push_back(n);
        }
        for (int n : order) hosts += (hosts.empty() ? "" : ",") + host_of(cluster.nodes[static_cast<std::size_t>(n)]);
        RemoteProcess p;
        p.node = order.front();
        p.label = "launcher";
        for (int r = 0; r < plan.world_size; ++r) p.ranks.push_back(r);
        p.env = env0;
        p.argv = script_argv({rc.launcher.empty() ? "colossalai" : rc.launcher, "run", "--nproc_per_node",
                              std::to_string(node_ranks[static_cast<std::size_t>(order.front())].size()), "--host",
                              hosts, "--master_addr", plan.master_addr, "--master_port", P});
        plan.processes.push_back(std::move(p));
    } else if (rc.mode == "slurm") {
        // One task per GPU; each task derives its rank from Slurm (srun(1) OUTPUT ENVIRONMENT
        // VARIABLES, Slurm 22.05; as Megatron-LM's examples/academic_paper_scripts/sc21/SRUN.sh).
        int login = 0;
        if (!rc.slurm.login_node.empty()) {
            login = -1;
            for (int n = 0; n < N; ++n)
                if (cluster.nodes[static_cast<std::size_t>(n)].name == rc.slurm.login_node ||
                    host_of(cluster.nodes[static_cast<std::size_t>(n)]) == rc.slurm.login_node)
                    login = n;
            if (login < 0)
                throw InputError("/runtime/slurm/login_node",
                                 "\"" + rc.slurm.login_node + "\" is not a node of the cluster");
        }
        const int G = cluster.gpus_per_node();
        if (!cluster.uniform()) throw InputError("/runtime/mode", "slurm mode needs the same GPU count on every node");
        std::string s = "#!/bin/sh\n";
        s += "#SBATCH --job-name=" + sh_quote("paraplan-" + job_id) + "\n";
        s += "#SBATCH --nodes=" + std::to_string(N) + "\n";
        s += "#SBATCH --ntasks-per-node=" + std::to_string(G) + "\n";
        // GPUs as generic resources only where the cluster has them: "gres" always asks,
        // "auto" is decided before sbatch runs from the partition's nodes (slurm_gpus.h).
        plan.slurm_gpus = rc.slurm.gpus;
        plan.slurm_gpus_per_node = G;
        plan.slurm_nodes = N;
        plan.slurm_partition = rc.slurm.partition;
        if (rc.slurm.gpus == "gres") s += "#SBATCH --gpus-per-node=" + std::to_string(G) + "\n";
        if (!rc.slurm.partition.empty()) s += "#SBATCH --partition=" + sh_quote(rc.slurm.partition) + "\n";
        if (!rc.slurm.account.empty()) s += "#SBATCH --account=" + sh_quote(rc.slurm.account) + "\n";
        if (!rc.slurm.time.empty()) s += "#SBATCH --time=" + sh_quote(rc.slurm.time) + "\n";
        // A backslash in the working dir disables the output pattern and is dropped from
        // the path (slurm/slurm.h): the script then writes its own output file there.
        const bool backslash = rc.workdir.find('\\') != std::string::npos;
        s += "#SBATCH --output=" + (backslash ? std::string("/dev/null") : sh_quote(slurm_output_pattern(job_id))) +
             "\n";
        for (const auto& a : rc.slurm.sbatch_args) s += "#SBATCH " + a + "\n";
        for (const auto& [k, v] : env0) s += k + "=" + sh_quote(v) + "; export " + k + "\n";
        if (!rc.path_prepend.empty()) {
            std::string path;
            for (const auto& d : rc.path_prepend) path += sh_quote(d) + ":";
            s += "PATH=" + path + "\"$PATH\"; export PATH\n";
        }
        s += "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1); export MASTER_ADDR\n";
        s += "MASTER_PORT=" + P + "; export MASTER_PORT\n";
        if (!rc.workdir.empty()) s += "cd " + sh_quote(rc.workdir) + " || exit 1\n";
        if (backslash) s += "exec >" + sh_quote("paraplan-" + job_id + "-") + "\"$SLURM_JOB_ID\".out 2>&1\n";
        // The variables must expand inside each task, hence the single-quoted sh -c.
        // --label prefixes every output line with its task id (= RANK), which is how the
        // followed output file is split back into rank logs (slurm/slurm.h).
        s += "srun --kill-on-bad-exit=1 --label /bin/sh -c " +
             sh_quote(
                 "RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID WORLD_SIZE=$SLURM_NTASKS "
                 "LOCAL_WORLD_SIZE=$SLURM_NTASKS_PER_NODE; export RANK LOCAL_RANK WORLD_SIZE LOCAL_WORLD_SIZE; "
                 "exec \"$@\"") +
             " paraplan " + sh_join(script_argv({rc.python})) + "\n";
        plan.sbatch_script = s;
        plan.master_addr = "(first node of the allocation)";
        RemoteProcess p;
        p.node = login;
        p.label = "sbatch";
        for (int r = 0; r < plan.world_size; ++r) p.ranks.push_back(r);
        p.argv = {"sbatch", "--parsable"};
        p.stdin_text = s;
        plan.processes.push_back(std::move(p));
    }
    return plan;
}

std::string wrapper_script(const LaunchPlan& plan, const RemoteProcess& p) {
    std::string s;
    if (!plan.path_prepend.empty()) {
        std::string path;
        for (const auto& d : plan.path_prepend) path += sh_quote(d) + ":";
        s += "PATH=" + path + "\"$PATH\"; export PATH\n";
    }
    for (const auto& [k, v] : p.env) s += k + "=" + sh_quote(v) + "; export " + k + "\n";
    const std::string started = started_marker(plan), exited = exit_marker(plan), error = error_marker(plan);
    if (!plan.workdir.empty())
        s += "cd " + sh_quote(plan.workdir) + " || { echo \"" + error + "cannot enter the working directory \"" +
             sh_quote(plan.workdir) + "\" on $(hostname)\" >&2; exit 126; }\n";
    s += "command -v setsid >/dev/null 2>&1 || { echo \"" + error +
         "setsid not found on $(hostname) (util-linux)\" >&2; exit 127; }\n";
    const std::string prog = p.argv.empty() ? std::string("true") : p.argv.front();
    s += "command -v " + sh_quote(prog) + " >/dev/null 2>&1 || { echo \"" + error + "\"" + sh_quote(prog) +
         "\" not found on $(hostname) (PATH=$PATH)\" >&2; exit 127; }\n";
    const std::string g = std::to_string(plan.stop_grace_s);
    // fd 3 keeps the channel's stdin for the watchdog (background jobs get /dev/null).
    s += "exec 3<&0\n";
    s += "setsid " + sh_join(p.argv) + " </dev/null 3<&- &\n";
    s += "pg=$!\n";
    s += "echo \"" + started + "$pg\"\n";
    // The watchdog waits for stdin's EOF; with heartbeats it also gives up when no byte
    // has come for lost_after_s (coreutils timeout around a one-byte dd; without timeout
    // on the node, EOF alone).
    const std::string wait_stdin = plan.heartbeat_s > 0 && plan.lost_after_s > 0
                                       ? "if command -v timeout >/dev/null 2>&1; then while [ \"$(timeout $3 dd bs=1 "
                                         "count=1 2>/dev/null | wc -c)\" "
                                         "-eq 1 ]; do :; done; else cat >/dev/null; fi"
                                       : "cat >/dev/null";
    s += "setsid /bin/sh -c '" + wait_stdin +
         "; kill -TERM -$1 2>/dev/null; sleep $2; kill -KILL -$1 2>/dev/null' "
         "paraplan-watchdog \"$pg\" " +
         g + " " + std::to_string(plan.lost_after_s) + " <&3 3<&- >/dev/null 2>&1 &\n";
    s += "w=$!\n";
    s += "exec 3<&-\n";
    s += "wait \"$pg\"; rc=$?\n";
    // Whatever is left of the job's process group goes too: TERM, grace, KILL.
    s += "if kill -0 -$pg 2>/dev/null; then kill -TERM -$pg 2>/dev/null; n=0; "
         "while kill -0 -$pg 2>/dev/null && [ $n -lt " +
         g +
         " ]; do sleep 1; n=$((n+1)); done; "
         "kill -KILL -$pg 2>/dev/null; fi\n";
    s += "kill -TERM -$w 2>/dev/null\n";
    s += "echo \"" + exited + "$rc\"\n";
    s += "exit $rc\n";
    return s;
}

std::string upload_command(const LaunchPlan& plan, const FileUpload& u) {
    const auto slash = u.path.rfind('/');
    const std::string dir = slash == std::string::npos ? std::string() : u.path.substr(0, slash);
    std::string script;
    if (!plan.workdir.empty() && (u.path.empty() || u.path[0] != '/'))
        script += "mkdir -p " + sh_quote(plan.workdir) + " && cd " + sh_quote(plan.workdir) + " && ";
    if (!dir.empty()) script += "mkdir -p " + sh_quote(dir) + " && ";
    script += "cat > " + sh_quote(u.path);
    return remote_sh(script);
}

std::string remote_launch_command(const LaunchPlan& plan, const RemoteProcess& p) {
    // Slurm: sbatch is submitted from the working dir (when set), so the output file
    // (relative to the submit dir) lands there.
    // In "auto" GPU mode the job backend adds what choose_slurm_gpus decided to p.argv.
    if (plan.mode == "slurm") {
        std::string s;
        if (!plan.path_prepend.empty()) {
            std::string path;
            for (const auto& d : plan.path_prepend) path += sh_quote(d) + ":";
            s += "PATH=" + path + "\"$PATH\"; export PATH\n";
        }
        if (!plan.workdir.empty()) s += "cd " + sh_quote(plan.workdir) + " || exit 1\n";
        return remote_sh(s + sh_join(p.argv));
    }
    return remote_sh(wrapper_script(plan, p));
}

}   // namespace paraplan::runtime
