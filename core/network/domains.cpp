#include "network/domains.h"

#include "network/group.h"
#include "util/input_error.h"

#include <algorithm>

namespace paraplan::network {

std::vector<NodeBlock> node_blocks(const Cluster& c, int block_gpus) {
    if (block_gpus < 1) throw InputError("block_gpus", "a block needs at least one GPU");
    const std::vector<int> offsets = node_offsets(c);
    std::vector<NodeBlock> out;
    for (std::size_t i = 0; i < c.nodes.size(); ++i) {
        const int first = offsets[i];
        const int gpus = std::max(0, c.nodes[i].gpus);
        const int block = first / block_gpus;
        if (out.empty() || out.back().index != block) {
            NodeBlock b;
            b.index = block;
            b.first_node = static_cast<int>(i);
            out.push_back(b);
        }
        NodeBlock& b = out.back();
        ++b.nodes;
        b.gpus += gpus;
        if (gpus > 0 && (first + gpus - 1) / block_gpus != block) b.straddles = true;
    }
    return out;
}

bool domains_span_nodes(const System& s, const Cluster& c) {
    const int per_domain = s.domain().domain_gpus;
    if (per_domain < 2 || c.nodes.size() < 2) return false;
    for (const auto& b : node_blocks(c, per_domain))
        if (b.nodes > 1) return true;
    return false;
}

}   // namespace paraplan::network
