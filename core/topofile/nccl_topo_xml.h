#pragma once
// NCCL's topology dump: the XML NCCL writes to NCCL_TOPO_DUMP_FILE (NVIDIA/nccl v2.30.7-1,
// src/graph/xml.cc ncclTopoDumpXmlRec: elements with attributes in double quotes, two-space
// indent, no text content; its reader xmlGetNode also skips <!-- comments -->). The tree is
//   <system version="1">
//     <cpu host_hash=".." numaid="0" arch="x86_64" ...>      one per NUMA node and host
//       <pci busid=".." class="0x060400" link_speed="32.0 GT/s PCIe" link_width="16">  bridges
//         <pci busid=".." class="0x030200" device="0x2335" ...>
//           <gpu dev="0" sm="90" rank="0" gdr="1">
//             <nvlink target=".." count="5" tclass="0x068000"/>   tclass 0x068000: NVSwitch
//         <pci ...><nic><net name="mlx5_0" speed="400000" .../></nic></pci>  speed in Mbit/s
//       <nic><net .../></nic>                                     a NIC straight under the CPU
// A small reader of just that, bounded (size, depth, element count, attribute count and length,
// the last two as NCCL's own reader: src/graph/xml.h MAX_STR_LEN, MAX_ATTR_COUNT), with errors
// naming the line; then what Paraplan needs from it (imported_topology.h).
#include "topofile/imported_topology.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace paraplan::topofile {

inline constexpr std::size_t kMaxXmlBytes = 16u << 20;
inline constexpr std::size_t kMaxXmlDepth = 64;
inline constexpr std::size_t kMaxXmlElements = 1u << 16;
inline constexpr std::size_t kMaxXmlAttrs = 32;
inline constexpr std::size_t kMaxXmlString = 255;   // a name or a value; NCCL's MAX_STR_LEN

struct XmlElement {
    std::string name;
    std::vector<std::pair<std::string, std::string>> attrs;   // in file order, values raw
    int parent = -1;                                          // index into XmlDocument::elements
    std::vector<int> children;
    int line = 0;

    const std::string* attr(std::string_view key) const;   // nullptr when absent
};

struct XmlDocument {
    std::vector<XmlElement> elements;   // elements[0] is the root, parents before children
};

// Throws InputError ("line N, column C: why") on anything outside that subset or its bounds.
XmlDocument parse_topo_xml(std::string_view text);

// GPUs (per host, sm, PCI device), their NVLinks (count, NVSwitch or peer), NICs (count, speed)
// and the PCIe switches they share. Throws InputError naming the element's line.
ImportedTopology read_nccl_topo_xml(std::string_view text);

}   // namespace paraplan::topofile
