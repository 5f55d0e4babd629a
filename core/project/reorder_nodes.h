#pragma once
// Moving one node to another place in the node order. The node order is the rank order
// when ranks fill the nodes (node 0 holds ranks 0..g-1, node 1 the next g, ...), so this
// edit moves ranks between machines. An explicit rank_order names nodes by index: its
// indices are renumbered, so each of its ranks stays on the same machine.
#include "project/cluster.h"

namespace paraplan {

// Moves cluster.nodes[from] to index `to`; the other nodes keep their relative order.
// Returns false (and changes nothing) when from == to. Throws InputError at
// "/cluster/nodes/<index>" when `from` or `to` is not an index of cluster.nodes.
bool reorder_nodes(Cluster& cluster, int from, int to);

}   // namespace paraplan
