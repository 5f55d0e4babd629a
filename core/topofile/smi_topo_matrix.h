#pragma once
// `nvidia-smi topo -m`: the matrix of how each pair of GPUs and NICs is connected, in the words of
// its own legend (printed under the matrix): X self; SYS (SOC in older drivers) across the SMP
// interconnect between NUMA nodes; NODE across host bridges within a NUMA node; PHB through a
// host bridge; PXB through several PCIe bridges; PIX through at most one; NV# a bonded set of #
// NVLinks. The header names the columns (GPU0.., NIC0.. or mlx5_0.. in older drivers) and then
// "CPU Affinity", "NUMA Affinity", "GPU NUMA ID"; newer drivers map NICn to a device under
// "NIC Legend:". Columns are separated by tabs (or spaces in copies), the header may carry ANSI
// underline escapes. The matrix gives no bandwidths: link and NIC speeds stay unknown.
#include "topofile/imported_topology.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::topofile {

inline constexpr std::size_t kMaxSmiDevices = 1024;
inline constexpr std::size_t kMaxSmiLineChars = 1u << 16;
inline constexpr std::size_t kMaxSmiLines = 1u << 14;

enum class SmiLink { Self, Sys, Node, Phb, Pxb, Pix, NvLink };

struct SmiCell {
    SmiLink link = SmiLink::Sys;
    int nvlinks = 0;   // NV# count
};

struct SmiMatrix {
    std::vector<std::string> devices;          // column names in order (GPU0, NIC0...)
    std::vector<std::vector<SmiCell>> cells;   // [row][column], rows in the order of devices
    std::vector<std::string> cpu_affinity;     // per row ("" for NICs)
    std::vector<std::string> nic_names;        // per device: "mlx5_0" from the NIC Legend, else ""

    bool is_gpu(std::size_t i) const;   // "GPU<n>"
};

// Throws InputError naming the line and the column of a bad cell.
SmiMatrix parse_smi_topo(std::string_view text);

// GPUs (one node), NVLink links per GPU and the NVLink domain, NICs and how many GPUs have one
// behind the same PCIe switch (PIX or PXB).
ImportedTopology read_smi_topo_matrix(std::string_view text);

}   // namespace paraplan::topofile
