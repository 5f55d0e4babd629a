// paraplan-cli comm: one collective priced the way NCCL runs it, on a catalog system or a
// project's cluster.
#include "cli/command.h"
#include "network/byte_sizes.h"
#include "network/collective.h"
#include "network/systems.h"
#include "project/project.h"

#include <cstdio>

namespace paraplan::cli {
namespace {

network::System system_of(const Args& a) {
    if (a.has("system") == a.has("project")) throw UsageError("give one of --system ID or --project FILE");
    if (a.has("project")) return network::system_from_cluster(load_project(*a.get("project")).cluster);
    const auto* s = network::find_system(*a.get("system"));
    if (!s) throw UsageError("unknown system '" + *a.get("system") + "' (see paraplan-cli catalog systems)");
    return *s;
}

nlohmann::json result_json(const network::CollectiveResult& r) {
    return {{"bytes", r.bytes},
            {"time_s", r.time_s},
            {"algbw_gbs", r.algbw_gbs},
            {"busbw_gbs", r.busbw_gbs},
            {"algorithm", network::algorithm_name(r.algorithm)},
            {"protocol", network::protocol_name(r.protocol)},
            {"bound_tier", r.bound_tier},
            {"latency_bound", r.latency_bound}};
}

int run_comm(const Args& a) {
    const network::System sys = system_of(a);
    const int gpus = a.get_int("gpus", 0);
    if (gpus < 2) throw UsageError("--gpus N (at least 2) is required");
    const auto op = network::op_from_name(a.get("op", ""));
    if (!op)
        throw UsageError(
            "--op must be one of all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send_recv");
    const auto algo = network::algorithm_from_name(a.get("algorithm", "auto"));
    if (!algo) throw UsageError("--algorithm must be one of auto, ring, tree, nvls, nvls_tree, collnet, pat, p2p");
    if (!a.has("bytes")) throw UsageError("--bytes LIST is required (e.g. 1M,64M,1G)");
    const auto sizes = network::parse_byte_list(*a.get("bytes"));
    const auto fabric = network::fabric_for(sys, gpus);
    std::vector<network::CollectiveResult> results;
    for (auto b : sizes) results.push_back(network::price(fabric, *op, b, *algo));
    if (a.flag("json")) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& r : results) arr.push_back(result_json(r));
        print_json(nlohmann::json{
            {"system", sys.id},
            {"gpus", gpus},
            {"op", network::op_name(*op)},
            {"domains", fabric.nodes},
            {"results",
             arr}}.dump(2));
        return kOk;
    }
    std::printf("%s, %d GPUs in %d domain(s), %s\n", sys.id.c_str(), gpus, fabric.nodes, network::op_name(*op));
    std::printf("%14s %12s %10s %10s  %-10s %-7s %s\n", "bytes", "time us", "algbw", "busbw", "algorithm", "proto",
                "bound by");
    for (const auto& r : results)
        std::printf("%14llu %12.2f %10.2f %10.2f  %-10s %-7s %s%s\n", static_cast<unsigned long long>(r.bytes),
                    r.time_s * 1e6, r.algbw_gbs, r.busbw_gbs, network::algorithm_name(r.algorithm),
                    network::protocol_name(r.protocol), r.bound_tier.c_str(), r.latency_bound ? " (latency)" : "");
    return kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    "comm",
    "price one collective (time, algbw, busbw) the way NCCL's tuning model runs it",
    "Usage: paraplan-cli comm (--system ID | --project FILE) --gpus N --op OP --bytes LIST\n"
    "                         [--algorithm A] [--json]\n\n"
    "  --system ID     a system of `paraplan-cli catalog systems`\n"
    "  --project FILE  the project's cluster: its node's GPU link and one scale-out tier from\n"
    "                  network.inter_node_gbps (shared by the node's GPUs) and network.latency_us\n"
    "  --gpus N        the first N GPUs (filling trays, domains, then racks)\n"
    "  --op OP         all_reduce, all_gather, reduce_scatter, broadcast, all_to_all or send_recv\n"
    "  --bytes LIST    comma list of total buffer sizes as nccl-tests' -b/-e take them; K, M, G\n"
    "                  are powers of two (1M = 1048576)\n"
    "  --algorithm A   auto (NCCL's pick, the default), ring, tree, nvls, nvls_tree, collnet, pat,\n"
    "                  or p2p (all_to_all and send_recv run as point-to-point sends)\n"
    "  --json          {\"system\", \"gpus\", \"op\", \"domains\", \"results\": [{bytes, time_s,\n"
    "                  algbw_gbs, busbw_gbs, algorithm, protocol, bound_tier, latency_bound}]};\n"
    "                  algbw = bytes / time, busbw as nccl-tests (all_reduce 2(n-1)/n, all_gather,\n"
    "                  reduce_scatter, all_to_all (n-1)/n, broadcast and send_recv 1), GB/s decimal\n\n"
    "The model is NCCL's (NVIDIA/nccl v2.23.4-1, src/graph/tuning.cc): per algorithm and protocol\n"
    "a latency and a bus bandwidth from the system's tiers; the fastest is picked. all_to_all is\n"
    "limited across domains by each GPU's own NIC.\n",
    {"json"},
    run_comm});

}   // namespace paraplan::cli
