// SLURM export: an sbatch script with one task per node, each running torchrun with
// static rendezvous; node rank = $SLURM_NODEID, MASTER_ADDR = the first host of the
// allocation (pattern of pytorch/examples ddp-tutorial-series slurm/sbatch_run.sh and
// torchtitan multinode_trainer.slurm).
#include "export/export.h"
#include "export/export_common.h"
#include "export/launch_plan.h"
#include "topofile/slurm_placement.h"

#include <cctype>
#include <sstream>

namespace paraplan {

using namespace exportutil;

namespace {

// runtime.slurm.gpus (docs/runtime.md): "none" is for clusters without gpu gres, where
// --gpus-per-node is refused ("Invalid generic resource (gres) specification"); "auto"
// and "gres" keep the request (an exported script cannot ask the cluster first).
std::string gpu_request(const Project& p, int gpus_per_node) {
    const auto& rt = p.runtime;
    if (rt.is_object() && rt.contains("slurm") && rt["slurm"].is_object() && rt["slurm"].contains("gpus") &&
        rt["slurm"]["gpus"] == "none")
        return "# no --gpus-per-node: runtime.slurm.gpus is \"none\" (the cluster has no gpu gres)\n";
    return "#SBATCH --gpus-per-node=" + std::to_string(gpus_per_node) + "\n";
}

// The placement option of the cluster's Slurm topology (topofile/slurm_placement.h) as #SBATCH
// lines with a comment saying which group decides it. sbatch(1), Slurm 25.11
// (doc/man/man1/sbatch.1 at slurm-25-11-1-1): --switches=<count>[@max-time] is "the maximum
// count of leaf switches desired for the job allocation" under a tree topology, the job pending
// until it fits or max-time (default SchedulerParameters max_switch_wait) passes; --segment=<size>
// is "the size of the segments that will be used to create the job allocation" under a block
// topology, the node count "evenly divisible" by it. --switches is in Slurm 22.05's sbatch(1);
// --segment first appears in 24.05's (topology/block itself in 23.11), so it is written only for
// a cluster whose topology.conf is a block one, which no older Slurm can run.
std::string placement_lines(const Project& p, std::vector<Diagnostic>& findings) {
    const std::optional<topofile::JobPlacement> placement = topofile::project_placement(p);
    if (!placement) return "";
    const topofile::JobPlacement& jp = *placement;
    const bool tree = p.cluster.network.slurm_topology->plugin == topofile::SlurmTopology::Plugin::Tree;
    const std::string unit = tree ? "leaf switch" : "block";
    if (!jp.needed) return "# No --switches/--segment: every group of the layout stays inside one node.\n";
    if (!jp.placement.ok) {
        findings.push_back(finding(Severity::Warning, "export.slurm.placement",
                                   "no sbatch option keeps the " + jp.kinds.front().kind + " groups (" +
                                       std::to_string(jp.kinds.front().block_nodes) + " nodes) inside one " + unit +
                                       " of cluster.network.slurm_topology: " + jp.placement.reason,
                                   {"/cluster/network/slurm_topology"}));
        return "# No placement option: " + jp.placement.reason + "\n";
    }
    std::string s;
    if (jp.group_nodes == jp.job_nodes)
        s += "# The whole job (" + std::to_string(jp.job_nodes) + " nodes, its " + jp.kind + " groups) fits in one " +
             unit + ", as the plan's tiers assume.\n";
    else
        s += "# The " + jp.kind + " groups span runs of " + std::to_string(jp.group_nodes) + " of the job's " +
             std::to_string(jp.job_nodes) + " nodes; the plan's tiers assume each inside one " + unit + ".\n";
    if (!jp.placement.reason.empty()) s += "# Note: " + jp.placement.reason + ".\n";
    s += tree ? "# sbatch(1) --switches (Slurm 22.05 and later): at most this many leaf switches.\n"
              : "# sbatch(1) --segment (Slurm 24.05 and later, topology/block): segments of this many nodes.\n";
    for (const auto& a : jp.placement.sbatch_args) s += "#SBATCH " + a + "\n";
    return s;
}

}   // namespace

FormatOutput export_slurm(const Project& p, const ExportOptions& opt) {
    FormatOutput out;
    const LaunchPlan plan = launch_plan(p, opt);
    out.findings = plan.findings;
    for (const auto& n : plan.nodes)
        if (!n.devices.empty() || n.node != static_cast<int>(&n - plan.nodes.data())) {
            out.findings.push_back(
                finding(Severity::Warning, "export.slurm.rank_order",
                        "SLURM orders nodes by its allocation and GPUs by id; the canvas rank order is "
                        "not carried into the sbatch script.",
                        {"/cluster/rank_order"}));
            break;
        }
    const LaunchProgram prog = launch_program(p, opt, out.findings);
    std::string job = "paraplan-";
    for (char c : p.name)
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') job += c == '.' ? '-' : c;
        else if (job.back() != '-') job += '-';
    if (job.size() > 1 && job.back() == '-') job.pop_back();
    std::ostringstream sh;
    sh << "#!/bin/bash\n"
       << "#SBATCH --job-name=" << job << "\n"
       << "#SBATCH --nodes=" << plan.nnodes << "\n"
       << "#SBATCH --ntasks-per-node=1\n"
       << gpu_request(p, plan.nproc_per_node) << "#SBATCH --exclusive\n"
       << placement_lines(p, out.findings) << "# " << header_line(p, "slurm") << "\n"
       << "# One torchrun per node (srun task); torchrun starts " << plan.nproc_per_node << " processes on its node.\n"
       << "set -euo pipefail\n"
       // sed reads all of scontrol's output: `head -n 1` would end the pipe early and,
       // under pipefail, SIGPIPE in scontrol would fail the job.
       << "MASTER_ADDR=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed -n 1p)\n"
       << "export MASTER_ADDR\n"
       << "export MASTER_PORT=" << plan.master_port << "\n";
    for (const auto& [k, v] : prog.env) sh << "export " << k << "=" << shell_quote(v) << "\n";
    // The node rank must expand inside each task, so the torchrun line runs in
    // `bash -c` with the program passed as positional arguments.
    sh << "srun --ntasks-per-node=1 bash -c 'exec torchrun --nnodes \"$SLURM_NNODES\" --node_rank \"$SLURM_NODEID\" "
       << "--nproc_per_node " << plan.nproc_per_node
       << " --rdzv_backend static --master_addr \"$MASTER_ADDR\" --master_port \"$MASTER_PORT\" \"$@\"' torchrun";
    for (const auto& w : prog.words) sh << " \\\n    " << shell_quote(w);
    sh << "\n";
    out.files["job.sbatch"] = {sh.str(), FileSyntax::Shell};
    return out;
}

}   // namespace paraplan
