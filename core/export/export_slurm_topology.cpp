// slurm-topology export: the cluster's Slurm topology (cluster.network.slurm_topology) as the
// topology.conf Slurm reads, with the slurm.conf setting that selects its plugin
// (slurm.conf(5) TopologyPlugin, topology.conf(5); Slurm 25.11, doc/man/man5 at slurm-25-11-1-1).
#include "export/export.h"
#include "topofile/slurm_topology_conf.h"
#include "util/input_error.h"

namespace paraplan {

FormatOutput export_slurm_topology(const Project& p, const ExportOptions&) {
    if (!p.cluster.network.slurm_topology)
        throw InputError("/cluster/network/slurm_topology",
                         "the cluster has no Slurm topology to export: load a topology.conf into the project with "
                         "`paraplan-cli topology import FILE --project IN -o OUT`");
    const topofile::SlurmTopology& t = *p.cluster.network.slurm_topology;
    const bool tree = t.plugin == topofile::SlurmTopology::Plugin::Tree;
    std::string s = std::string("# slurm.conf: TopologyPlugin=") + (tree ? "topology/tree" : "topology/block") + "\n";
    // topology/block is in Slurm from 23.11 (src/plugins/topology/block at slurm-23-11-1-1).
    if (!tree) s += "# topology/block needs Slurm 23.11 or later, sbatch --segment 24.05 or later\n";
    s += topofile::write_slurm_topology_conf(t);
    FormatOutput out;
    out.files["topology.conf"] = {s, FileSyntax::HashCommentText};
    return out;
}

}   // namespace paraplan
