// torchrun export: one command per node with static rendezvous (torch/distributed/run.py:
// --rdzv_backend static, node k gets ranks [k*nproc, (k+1)*nproc)), as a shell script
// that picks the command for NODE_RANK.
#include "export/export.h"
#include "export/export_common.h"
#include "export/launch_plan.h"

#include <sstream>

namespace paraplan {

using namespace exportutil;

FormatOutput export_torchrun(const Project& p, const ExportOptions& opt) {
    FormatOutput out;
    const LaunchPlan plan = launch_plan(p, opt);
    out.findings = plan.findings;
    const LaunchProgram prog = launch_program(p, opt, out.findings);
    std::ostringstream sh;
    sh << "#!/usr/bin/env bash\n# " << header_line(p, "torchrun") << "\n"
       << "# One torchrun per node, static rendezvous: run `NODE_RANK=<k> bash launch.sh` (or `bash launch.sh <k>`) on "
          "node k.\n"
       << "set -euo pipefail\n";
    for (const auto& [k, v] : prog.env) sh << "export " << k << "=" << shell_quote(v) << "\n";
    sh << "NODE_RANK=${NODE_RANK:-${1:-0}}\n"
       << "case \"$NODE_RANK\" in\n";
    for (std::size_t k = 0; k < plan.nodes.size(); ++k) {
        const LaunchNode& n = plan.nodes[k];
        sh << "    " << k << ")  # " << n.host << "\n        ";
        if (!n.devices.empty()) sh << "CUDA_VISIBLE_DEVICES=" << n.cuda_visible_devices() << " ";
        std::vector<std::string> cmd = {"torchrun",
                                        "--nnodes",
                                        std::to_string(plan.nnodes),
                                        "--node_rank",
                                        std::to_string(k),
                                        "--nproc_per_node",
                                        std::to_string(plan.nproc_per_node),
                                        "--rdzv_backend",
                                        "static",
                                        "--master_addr",
                                        plan.master_addr,
                                        "--master_port",
                                        std::to_string(plan.master_port)};
        cmd.insert(cmd.end(), prog.words.begin(), prog.words.end());
        sh << join_shell(cmd) << "\n        ;;\n";
    }
    sh << "    *) echo \"launch.sh: NODE_RANK must be 0.." << plan.nodes.size() - (plan.nodes.empty() ? 0 : 1)
       << ", got $NODE_RANK\" >&2; exit 2 ;;\nesac\n";
    out.files["launch.sh"] = {sh.str(), FileSyntax::Shell};
    for (auto& d : peft_in_script(p, "torchrun", "torchrun launches the script and has no LoRA setting."))
        out.findings.push_back(std::move(d));
    return out;
}

}   // namespace paraplan
