#include "network/rack.h"

#include <algorithm>
#include <set>
#include <string>

namespace paraplan::network {

RackShape rack_shape(const System& s) {
    RackShape r;
    r.gpus_per_node = std::max(1, s.gpus_per_tray);
    r.nodes = std::max(1, s.domain().domain_gpus / r.gpus_per_node);
    return r;
}

bool rack_replaces(const Cluster& c, const System& s) { return c.system != s.id && !c.nodes.empty(); }

RackAdded add_rack(Cluster& c, const System& s) {
    const bool replaced = rack_replaces(c, s);
    if (c.system != s.id) {
        c.nodes.clear();
        c.network.tiers.clear();
    }
    c.system = s.id;
    c.rank_order.clear();   // an explicit rank order no longer covers every GPU
    std::set<std::string> used;
    for (const auto& n : c.nodes) used.insert(n.name);
    const RackShape shape = rack_shape(s);
    // The first rack number none of whose tray names is taken.
    int rack = 0;
    const auto trayName = [](int r, int t) { return "rack" + std::to_string(r) + "-tray" + std::to_string(t); };
    if (shape.nodes > 1)
        for (;; ++rack) {
            bool free = true;
            for (int t = 0; t < shape.nodes && free; ++t) free = !used.count(trayName(rack, t));
            if (free) break;
        }
    int next = static_cast<int>(c.nodes.size());
    for (int t = 0; t < shape.nodes; ++t) {
        Node n;
        if (shape.nodes > 1) {
            n.name = trayName(rack, t);
        } else {
            while (used.count("node" + std::to_string(next))) ++next;
            n.name = "node" + std::to_string(next);
        }
        used.insert(n.name);
        n.gpu = s.gpu;
        n.gpus = shape.gpus_per_node;
        c.nodes.push_back(n);
    }
    return replaced ? RackAdded::Replaced : RackAdded::Appended;
}

}   // namespace paraplan::network
