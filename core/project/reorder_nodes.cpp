#include "project/reorder_nodes.h"

#include "util/input_error.h"

#include <numeric>
#include <string>
#include <vector>

namespace paraplan {

namespace {
void check_index(const Cluster& c, int index, const char* what) {
    const int count = static_cast<int>(c.nodes.size());
    if (index >= 0 && index < count) return;
    const std::string range = count == 0 ? std::string("the cluster has no nodes")
                                         : "the cluster has " + std::to_string(count) +
                                               (count == 1 ? " node (index 0)"
                                                           : " nodes (indices 0 to " + std::to_string(count - 1) + ")");
    throw InputError("/cluster/nodes/" + std::to_string(index),
                     std::string("cannot move a node ") + what + " index " + std::to_string(index) + ": " + range);
}
}   // namespace

bool reorder_nodes(Cluster& cluster, int from, int to) {
    check_index(cluster, from, "from");
    check_index(cluster, to, "to");
    if (from == to) return false;
    // order[i]: the old index of the node that ends up at i.
    std::vector<int> order(cluster.nodes.size());
    std::iota(order.begin(), order.end(), 0);
    order.erase(order.begin() + from);
    order.insert(order.begin() + to, from);
    std::vector<Node> moved;
    moved.reserve(cluster.nodes.size());
    std::vector<int> new_index(cluster.nodes.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
        moved.push_back(std::move(cluster.nodes[static_cast<std::size_t>(order[i])]));
        new_index[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    }
    cluster.nodes = std::move(moved);
    for (auto& slot : cluster.rank_order)
        if (slot.node >= 0 && slot.node < static_cast<int>(new_index.size()))
            slot.node = new_index[static_cast<std::size_t>(slot.node)];
    return true;
}

}   // namespace paraplan
