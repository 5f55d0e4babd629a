#pragma once
// What a real topology file says about a cluster, in one plain struct, whichever format it came
// from: NCCL's topology dump (nccl_topo_xml.h), `nvidia-smi topo -m` (smi_topo_matrix.h) or
// Slurm's topology.conf (slurm_topology_conf.h); and that as Paraplan network tiers
// (network/system.h). A figure the file does not give stays 0 and a note says so: nothing here
// guesses a bandwidth the file does not carry.
#include "network/system.h"
#include "topofile/slurm_topology_conf.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::topofile {

enum class Format { NcclXml, SmiTopo, SlurmTopology };

const char* format_name(Format f);   // "nccl-xml", "smi-topo", "slurm-topology"
std::optional<Format> format_from_name(std::string_view name);
// The format of `text` from its first meaningful line: an XML element (<system>), a matrix
// header starting with GPU0, or a SwitchName=/BlockName=/BlockSizes= line. nullopt if none.
std::optional<Format> guess_format(std::string_view text);

struct ImportedNode {
    std::string name;          // host name (Slurm), "host<i>" per host_hash (NCCL), "node0" (smi)
    int gpus = 0;              // 0: the file does not say (Slurm)
    std::string gpu_arch;      // "sm90" when the file gives the compute capability
    std::string gpu_name;      // "H200 SXM 141GB" from the PCI device id where known
    std::string gpu_catalog;   // GPU catalog id ("h200") where the device id names one
    int nics = 0;
};

// The scale-up domain: GPUs that reach each other over NVLink (or, without NVLink, PCIe).
struct ScaleUp {
    network::TierKind kind = network::TierKind::Pcie;
    std::string generation;   // "nvlink4", "pcie5"; empty when the file does not say
    int domain_gpus = 0;      // GPUs per NVLink domain (per node for PCIe)
    int links_per_gpu = 0;    // NVLink links of one GPU (1 for PCIe)
    double link_gbps = 0;     // per link, each way, nominal for the generation; 0 when unknown
    bool nvswitch = false;    // the links end on NVSwitches (every GPU pair at full width)
};

struct ScaleOut {
    int nics_per_node = 0;
    double nics_per_gpu = 0;
    double nic_gbit = 0;           // speed of the node's fastest NIC, Gbit/s; 0 when unknown
    int gpus_with_local_nic = 0;   // GPUs that share a PCIe switch with a NIC (PIX/PXB)
};

struct ImportedTopology {
    Format format = Format::NcclXml;
    std::vector<ImportedNode> nodes;
    ScaleUp scale_up;
    ScaleOut scale_out;
    std::optional<SlurmTopology> slurm;   // the switch tree or blocks of a topology.conf
    std::vector<std::string> notes;       // what the file does not say, and what was assumed

    int gpus_per_node() const;   // the first node's GPUs (0 when unknown)
};

// Reads `text` as `format` (guessed from the content when nullopt). Throws InputError naming the
// line and the reason; an unguessable text is an InputError too.
ImportedTopology import_topology(std::string_view text, std::optional<Format> format = std::nullopt);

// A Slurm topology as an ImportedTopology: its nodes (no GPU counts) and the tree or blocks.
ImportedTopology from_slurm(SlurmTopology t);

// The file's scale-up domain and its NICs as one Paraplan tier each, with the file's own figures
// (0 where it gives none; the scale-out tier named "network", one rail per NIC of a node).
network::Tier scale_up_tier(const ScaleUp& up);
network::Tier scale_out_tier(const ScaleOut& out);

// Figures the file lacks, to fill the tiers with (0: leave unknown).
struct TierHints {
    int gpus_per_node = 0;   // Slurm files name nodes only
};

// The file as Paraplan network tiers, GPU outwards: the scale-up domain, the scale-out NICs when
// the file shows any, then one switch tier per level of a Slurm tree (leaf, spine, core...) or
// per block size. Unknown figures stay 0 (and are listed in the topology's notes); latencies and
// oversubscription are never in these files and stay at 0 and 1.
std::vector<network::Tier> to_tiers(const ImportedTopology& t, const TierHints& hints = {});

// {"format", "nodes": [...], "scale_up": {...}, "scale_out": {...}, "slurm": {...}?, "notes"}
nlohmann::json to_json(const ImportedTopology& t);

}   // namespace paraplan::topofile
