#pragma once
// An imported topology file (imported_topology.h) loaded into a project's cluster: the file's
// network replaces what it describes in cluster.network.tiers and keeps the rest, and a Slurm
// topology.conf also sets cluster.network.slurm_topology. Nothing else of the cluster changes.
#include "project/cluster.h"
#include "topofile/imported_topology.h"

#include <string>
#include <vector>

namespace paraplan::topofile {

struct ClusterImport {
    Cluster cluster;
    std::vector<std::string> notes;   // what was kept from the project for a figure the file lacks
};

// The tiers start from the cluster's network as it prices collectives now (network::system_of:
// its tiers, its system's, else the two-tier default).
//   NCCL topology XML, nvidia-smi topo -m: the scale-up tier from the file (a link speed the
//     file does not give is the project's, when its scale-up tier is of the same kind), the
//     scale-out tier from the file's NICs when it shows any (the NIC speed likewise), switch
//     tiers kept.
//   topology.conf: scale-up and scale-out tiers kept, switch tiers from the file at the nodes'
//     GPU count (to_tiers), and the switch tree or blocks as cluster.network.slurm_topology.
// Throws InputError naming the project field when the file does not fit the cluster: another
// GPU count per node or another GPU, nodes with different GPU counts (a topology.conf), fewer
// Slurm nodes than the cluster has, or a figure neither the file nor the project gives.
ClusterImport import_into_cluster(const Cluster& c, const ImportedTopology& t);

}   // namespace paraplan::topofile
