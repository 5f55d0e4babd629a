#include "probe/probe_compare.h"

#include "estimate/comm.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace paraplan::runtime {

namespace {
std::string gbps(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v >= 10 ? "%.0f" : v >= 0.1 ? "%.2f" : "%.4f", v);
    return std::string(buf) + " GB/s";
}
std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}
}   // namespace

std::vector<ProbeGroupCheck> compare_probe(const ProbeResult& result, const Cluster& cluster,
                                           const estimate::Hardware& hw, double slow_ratio) {
    const auto placement = cluster.placement();
    std::vector<ProbeGroupCheck> out;
    for (const auto& g : result.groups) {
        ProbeGroupCheck c;
        c.kind = g.kind;
        c.index = g.index;
        c.ranks = g.ranks;
        c.membership_ok = g.membership_ok;
        // Nodes the group spans and its members per node, from the plan's placement.
        std::map<int, int> per_node;
        for (int r : g.ranks)
            if (r >= 0 && r < static_cast<int>(placement.size()))
                ++per_node[placement[static_cast<std::size_t>(r)].node];
        c.nodes_spanned = static_cast<int>(per_node.size());
        int members = 0;
        for (const auto& [node, n] : per_node) members = std::max(members, n);
        c.assumed_gbps = estimate::group_bandwidth_gbs(hw, c.nodes_spanned, members);
        // The largest message of the all-reduce (the op the model prices), else all-gather.
        for (const char* op : {"all_reduce", "all_gather"}) {
            const ProbeBandwidth* best = nullptr;
            for (const auto& b : g.bandwidth)
                if (b.op == op && b.time_ms > 0 && (!best || b.bytes > best->bytes)) best = &b;
            if (best) {
                c.measured_gbps = best->busbw_gbps;
                c.measured_op = best->op;
                c.measured_bytes = best->bytes;
                break;
            }
        }
        c.slow = c.measured_gbps && c.assumed_gbps > 0 && *c.measured_gbps < slow_ratio * c.assumed_gbps;
        std::string m = c.kind + " group " + std::to_string(c.index);
        if (!c.membership_ok)
            m += ": membership check failed (all-reduce of the rank ids gave " + num(g.allreduce_sum) + ", expected " +
                 num(g.expected_sum) + ")";
        else if (c.measured_gbps)
            m += ": " + gbps(*c.measured_gbps) + " measured (" + c.measured_op + " busbw, " +
                 std::to_string(c.measured_bytes) + " B) vs " + gbps(c.assumed_gbps) + " assumed" +
                 (c.slow ? " — slow" : "");
        else m += ": no bandwidth measured (one rank)";
        c.message = m;
        out.push_back(std::move(c));
    }
    return out;
}

}   // namespace paraplan::runtime
