#include "export/launch_plan.h"

#include "project/framework.h"

#include <numeric>

namespace paraplan {

std::string LaunchNode::cuda_visible_devices() const {
    std::string s;
    for (int d : devices) s += (s.empty() ? "" : ",") + std::to_string(d);
    return s;
}

bool LaunchPlan::same_devices_everywhere() const {
    for (const auto& n : nodes)
        if (n.devices != nodes.front().devices) return false;
    return true;
}

LaunchPlan launch_plan(const Project& p, const ExportOptions& opt) {
    LaunchPlan plan;
    const Cluster& c = p.cluster;
    plan.master_port = opt.master_port;
    plan.nnodes = static_cast<int>(c.nodes.size());
    plan.nproc_per_node = c.gpus_per_node();
    if (c.nodes.empty()) {
        plan.findings.push_back(
            {Severity::Error, "export.launch.no_nodes", "The cluster has no nodes.", "", {"/cluster/nodes"}, {}});
        return plan;
    }
    for (const auto& n : c.nodes)
        if (n.gpus != plan.nproc_per_node) {
            plan.findings.push_back(
                {Severity::Error,
                 "export.launch.uneven_nodes",
                 "Node " + n.name + " has " + std::to_string(n.gpus) + " GPUs but node " + c.nodes.front().name +
                     " has " + std::to_string(plan.nproc_per_node) +
                     "; torchrun and the launchers built on it start the same number of processes on every node.",
                 "",
                 {"/cluster/nodes"},
                 {}});
            return plan;
        }
    const auto slots = c.placement();
    const int nproc = plan.nproc_per_node;
    for (int k = 0; k < plan.nnodes; ++k) {
        LaunchNode ln;
        ln.node = slots[static_cast<std::size_t>(k * nproc)].node;
        for (int i = 0; i < nproc; ++i) {
            const GpuSlot& s = slots[static_cast<std::size_t>(k * nproc + i)];
            if (s.node != ln.node) {
                plan.findings.push_back({Severity::Error,
                                         "export.launch.rank_order",
                                         "The rank order puts ranks " + std::to_string(k * nproc) + ".." +
                                             std::to_string((k + 1) * nproc - 1) +
                                             " on more than one node; torchrun gives each node a contiguous block of " +
                                             std::to_string(nproc) + " ranks, so this order cannot be launched.",
                                         "",
                                         {"/cluster/rank_order"},
                                         {}});
                return plan;
            }
            ln.devices.push_back(s.local_rank);
        }
        std::vector<int> identity(static_cast<std::size_t>(nproc));
        std::iota(identity.begin(), identity.end(), 0);
        if (ln.devices == identity) ln.devices.clear();
        const Node& node = c.nodes[static_cast<std::size_t>(ln.node)];
        ln.host = node.host.empty() ? node.name : node.host;
        plan.nodes.push_back(ln);
    }
    plan.master_addr = !opt.master_addr.empty() ? opt.master_addr
                       : plan.nnodes == 1       ? "127.0.0.1"
                                                : plan.nodes.front().host;
    return plan;
}

}   // namespace paraplan

namespace paraplan {

LaunchProgram launch_program(const Project& p, const ExportOptions& opt, std::vector<Diagnostic>& findings) {
    LaunchProgram prog;
    const FrameworkTraits* t = find_traits(p.layout.framework);
    const Framework fw = t ? t->id : Framework::devicemesh;   // unknown: a plain script
    if (fw == Framework::megatron) {
        prog.words.push_back(megatron_script(p, opt));
        const auto args = megatron_args(p, findings).all();
        prog.words.insert(prog.words.end(), args.begin(), args.end());
        prog.env = megatron_env(p);
    } else if (fw == Framework::torchtitan && opt.script.empty()) {
        prog.words = {"-m", "torchtitan.train", "--job.config_file", "job.toml"};
    } else if (fw == Framework::deepspeed) {
        prog.words = {opt.script.empty() ? "train.py" : opt.script, "--deepspeed", "--deepspeed_config",
                      "ds_config.json"};
    } else {
        prog.words.push_back(opt.script.empty() ? "train.py" : opt.script);
    }
    prog.words.insert(prog.words.end(), opt.script_args.begin(), opt.script_args.end());
    return prog;
}

}   // namespace paraplan
