#include "project/cluster.h"
#include "util/plain_name.h"

#include <cctype>

namespace paraplan {

int Cluster::world_size() const {
    int n = 0;
    for (const auto& node : nodes) n += node.gpus;
    return n;
}

bool Cluster::uniform() const {
    for (const auto& node : nodes)
        if (node.gpu != nodes.front().gpu || node.gpus != nodes.front().gpus) return false;
    return true;
}

int Cluster::gpus_per_node() const { return nodes.empty() ? 0 : nodes.front().gpus; }

std::vector<GpuSlot> Cluster::placement() const {
    if (!rank_order.empty() && static_cast<int>(rank_order.size()) == world_size()) return rank_order;
    std::vector<GpuSlot> out;
    out.reserve(static_cast<std::size_t>(world_size()));
    for (int n = 0; n < static_cast<int>(nodes.size()); ++n)
        for (int g = 0; g < nodes[static_cast<std::size_t>(n)].gpus; ++g) out.push_back({n, g});
    return out;
}

bool is_host_name(std::string_view host) { return is_plain_name(host, {.colon = true}); }
bool is_user_name(std::string_view user) { return is_plain_name(user); }

}   // namespace paraplan
