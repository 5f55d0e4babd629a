#pragma once
// The largest set of GPUs that reach each other over NVLink, from which GPU links to which: the
// scale-up domain both topology readers (NCCL's XML, nvidia-smi topo -m) take for a host.
#include <cstddef>
#include <vector>

namespace paraplan::topofile {

// `links[i]` lists the GPUs GPU i has a link to. Returns the indices (ascending) of the largest
// connected set; of sets of equal size, the one holding the lowest index. Empty for no GPUs.
std::vector<std::size_t> largest_linked_set(const std::vector<std::vector<std::size_t>>& links);

}   // namespace paraplan::topofile
