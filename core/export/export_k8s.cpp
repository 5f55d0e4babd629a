// Kubernetes export: a Kubeflow PyTorchJob (training-operator v1, kubeflow.org/v1):
// Master + Worker replicas, the container named "pytorch", spec.nprocPerNode, GPU
// limits nvidia.com/gpu. The operator injects MASTER_ADDR, MASTER_PORT and RANK (the
// node rank: master 0, worker i -> i+1); torchrun gets them explicitly.
#include "export/export.h"
#include "export/export_common.h"
#include "export/launch_plan.h"

#include <cctype>
#include <sstream>

namespace paraplan {

using namespace exportutil;

FormatOutput export_k8s(const Project& p, const ExportOptions& opt) {
    FormatOutput out;
    const LaunchPlan plan = launch_plan(p, opt);
    out.findings = plan.findings;
    for (const auto& n : plan.nodes)
        if (!n.devices.empty()) {
            out.findings.push_back(
                finding(Severity::Warning, "export.k8s.rank_order",
                        "Kubernetes places the pods and their GPUs itself; the canvas rank order is not "
                        "carried into the PyTorchJob.",
                        {"/cluster/rank_order"}));
            break;
        }
    const LaunchProgram prog = launch_program(p, opt, out.findings);
    // A DNS-1123 name from the project name.
    std::string name;
    for (char c : p.name) {
        const unsigned char u = static_cast<unsigned char>(c);
        if (std::isalnum(u)) name += static_cast<char>(std::tolower(u));
        else if (!name.empty() && name.back() != '-') name += '-';
    }
    while (!name.empty() && name.back() == '-') name.pop_back();
    if (name.size() > 40) name.resize(40);
    while (!name.empty() && name.back() == '-') name.pop_back();
    name = "paraplan" + (name.empty() ? std::string() : "-" + name);

    std::vector<std::string> cmd = {"torchrun",
                                    "--nnodes",
                                    std::to_string(plan.nnodes),
                                    "--nproc_per_node",
                                    std::to_string(plan.nproc_per_node),
                                    "--node_rank",
                                    "$(RANK)",
                                    "--rdzv_backend",
                                    "static",
                                    "--master_addr",
                                    "$(MASTER_ADDR)",
                                    "--master_port",
                                    "$(MASTER_PORT)"};
    cmd.insert(cmd.end(), prog.words.begin(), prog.words.end());

    auto replica = [&](const char* role, int replicas) {
        std::ostringstream y;
        y << "    " << role << ":\n"
          << "      replicas: " << replicas << "\n"
          << "      restartPolicy: OnFailure\n"
          << "      template:\n"
          << "        spec:\n"
          << "          containers:\n"
          << "            - name: pytorch\n"
          << "              image: " << yaml_string("REPLACE-WITH-YOUR-TRAINING-IMAGE") << "\n"
          << "              command:\n";
        for (const auto& w : cmd) y << "                - " << yaml_string(w) << "\n";
        if (!prog.env.empty()) {
            y << "              env:\n";
            for (const auto& [k, v] : prog.env)
                y << "                - name: " << yaml_string(k) << "\n                  value: " << yaml_string(v)
                  << "\n";
        }
        y << "              resources:\n"
          << "                limits:\n"
          << "                  nvidia.com/gpu: " << plan.nproc_per_node << "\n";
        return y.str();
    };
    std::ostringstream y;
    y << "# " << header_line(p, "k8s") << "\n"
      << "# Kubeflow training-operator PyTorchJob; set the image, then: kubectl apply -f pytorchjob.yaml\n"
      << "apiVersion: kubeflow.org/v1\n"
      << "kind: PyTorchJob\n"
      << "metadata:\n"
      << "  name: " << name << "\n"
      << "spec:\n"
      << "  nprocPerNode: " << yaml_string(std::to_string(plan.nproc_per_node)) << "\n"
      << "  pytorchReplicaSpecs:\n"
      << replica("Master", 1);
    if (plan.nnodes > 1) y << replica("Worker", plan.nnodes - 1);
    out.files["pytorchjob.yaml"] = {y.str(), FileSyntax::Yaml};
    out.findings.push_back(finding(Severity::Info, "export.k8s.image",
                                   "pytorchjob.yaml names a placeholder image; replace it with your training image.",
                                   {}));
    return out;
}

}   // namespace paraplan
