// paraplan-cli comm: one collective priced the way NCCL runs it, on a catalog system or a
// project's cluster.
#include "cli/command.h"
#include "network/byte_sizes.h"
#include "network/collective.h"
#include "network/group.h"
#include "network/systems.h"
#include "project/project.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <algorithm>
#include <cstdio>

namespace paraplan::cli {
namespace {

// What is priced: the system, and where the group's GPUs lie on it.
struct Target {
    network::System sys;
    network::GroupShape shape;
    std::string group;   // --group KIND, else ""
    int num_groups = 0;
};

std::string group_kinds(const topology::RankMap& m) {
    std::string s;
    for (const auto& [kind, set] : m.groups) s += (s.empty() ? "" : ", ") + kind;
    return s;
}

// --group KIND: every group of that kind of the project's rank map, each on the fabric of its own
// GPUs; the one that prices slowest at the largest size stands for the kind (the step waits for it).
Target project_group(const Project& p, const network::System& sys, const std::string& kind, network::Op op,
                     std::uint64_t largest, network::Algorithm algo) {
    const topology::RankMap m = topology::build_rank_map(topology::from_project(p), &p.cluster);
    if (!m.valid()) {
        std::string why;
        for (const auto& d : m.diagnostics) why += "\n  [" + d.rule + "] " + d.message;
        throw UsageError("the project's layout gives no rank map:" + why);
    }
    const topology::GroupSet* gs = m.group_set(kind);
    if (!gs) throw UsageError("--group: the layout has no '" + kind + "' groups (it has: " + group_kinds(m) + ")");
    if (gs->group_size < 2)
        throw UsageError("--group: the '" + kind + "' groups have one rank each; there is nothing to price");
    const auto offsets = network::node_offsets(p.cluster);
    return {sys, network::slowest_shape(sys, offsets, m.placement, gs->members, gs->group_size, op, largest, algo),
            kind, gs->num_groups()};
}

Target target_of(const Args& a, network::Op op, std::uint64_t largest, network::Algorithm algo) {
    if (a.has("system") == a.has("project")) throw UsageError("give one of --system ID or --project FILE");
    if (a.has("group") && !a.has("project")) throw UsageError("--group needs --project FILE");
    if (a.has("group") == a.has("gpus") && a.has("project"))
        throw UsageError("with --project give one of --gpus N or --group KIND");
    if (a.has("project")) {
        const Project p = load_project(*a.get("project"));
        const network::System sys = network::system_of(p.cluster);
        if (a.has("group")) return project_group(p, sys, *a.get("group"), op, largest, algo);
        const int gpus = a.get_int("gpus", 0);
        if (gpus < 2) throw UsageError("--gpus N (at least 2) is required");
        if (gpus > p.cluster.world_size())
            throw UsageError("--gpus " + std::to_string(gpus) + ": the project's cluster has " +
                             std::to_string(p.cluster.world_size()) + " GPUs");
        return {sys, network::first_gpus(sys, gpus), "", 0};
    }
    const auto* s = network::find_system(*a.get("system"));
    if (!s) throw UsageError("unknown system '" + *a.get("system") + "' (see paraplan-cli catalog systems)");
    const int gpus = a.get_int("gpus", 0);
    if (gpus < 2) throw UsageError("--gpus N (at least 2) is required");
    return {*s, network::first_gpus(*s, gpus), "", 0};
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
    const auto op = network::op_from_name(a.get("op", ""));
    if (!op)
        throw UsageError(
            "--op must be one of all_reduce, all_gather, reduce_scatter, broadcast, all_to_all, send_recv");
    const auto algo = network::algorithm_from_name(a.get("algorithm", "auto"));
    if (!algo) throw UsageError("--algorithm must be one of auto, ring, tree, nvls, nvls_tree, collnet, pat, p2p");
    if (!a.has("bytes")) throw UsageError("--bytes LIST is required (e.g. 1M,64M,1G)");
    const auto sizes = network::parse_byte_list(*a.get("bytes"));
    if (sizes.empty()) throw UsageError("--bytes LIST is required (e.g. 1M,64M,1G)");
    const Target t = target_of(a, *op, *std::max_element(sizes.begin(), sizes.end()), *algo);
    const network::System& sys = t.sys;
    const int gpus = t.shape.ranks;
    const auto fabric = network::fabric_for(sys, t.shape);
    std::vector<network::CollectiveResult> results;
    for (auto b : sizes) results.push_back(network::price(fabric, *op, b, *algo));
    if (a.flag("json")) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& r : results) arr.push_back(result_json(r));
        nlohmann::json out{{"system", sys.id},
                           {"gpus", gpus},
                           {"op", network::op_name(*op)},
                           {"domains", fabric.nodes},
                           {"gpus_per_domain", fabric.ppn},
                           {"results", arr}};
        if (!t.group.empty()) {
            out["group"] = t.group;
            out["num_groups"] = t.num_groups;
        }
        print_json(out.dump(2));
        return kOk;
    }
    if (!t.group.empty()) std::printf("%s group (%d of them), the slowest placed: ", t.group.c_str(), t.num_groups);
    std::printf("%s, %d GPUs in %d domain(s) (up to %d in one), %s\n", sys.id.c_str(), gpus, fabric.nodes, fabric.ppn,
                network::op_name(*op));
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
    .name = "comm",
    .summary = "price one collective (time, algbw, busbw) the way NCCL's tuning model runs it",
    .synopsis = {"(--system ID --gpus N | --project FILE (--gpus N | --group KIND))\n"
                 "--op OP --bytes LIST [--algorithm A] [--json]"},
    .description = "The model is NCCL's (NVIDIA/nccl v2.30.7-1, src/graph/tuning.cc): per algorithm and protocol\n"
                   "a latency and a bus bandwidth from the system's tiers; the fastest is picked. all_to_all is\n"
                   "limited across domains by each GPU's own NIC.\n",
    .options = {{"system", "ID", "a system of `paraplan-cli catalog systems`"},
                {"project", "FILE",
                 "the project's cluster: its cluster.network.tiers, else its cluster.system,\n"
                 "else its node's GPU link and one scale-out tier from network.inter_node_gbps\n"
                 "(shared by the node's GPUs) and network.latency_us"},
                {"gpus", "N", "the first N GPUs (filling trays, domains, then racks)"},
                {"group", "KIND",
                 "with --project: the groups of that kind (tp, pp, dp, cp, ep, edp, ... as\n"
                 "`paraplan-cli groups` lists them) of the layout's rank map, each priced on\n"
                 "the domains its GPUs lie in; the slowest stands for the kind"},
                {"op", "OP", "all_reduce, all_gather, reduce_scatter, broadcast, all_to_all or send_recv"},
                {"bytes", "LIST",
                 "comma list of total buffer sizes as nccl-tests' -b/-e take them; K, M, G\n"
                 "are powers of two (1M = 1048576)"},
                {"algorithm", "A",
                 "auto (NCCL's pick, the default), ring, tree, nvls, nvls_tree, collnet, pat,\n"
                 "or p2p (all_to_all and send_recv run as point-to-point sends)"},
                {"json", "",
                 "{\"system\", \"gpus\", \"op\", \"domains\", \"gpus_per_domain\", (with --group\n"
                 "\"group\", \"num_groups\"), \"results\": [{bytes, time_s,\n"
                 "algbw_gbs, busbw_gbs, algorithm, protocol, bound_tier, latency_bound}]};\n"
                 "algbw = bytes / time, busbw as nccl-tests (all_reduce 2(n-1)/n, all_gather,\n"
                 "reduce_scatter, all_to_all (n-1)/n, broadcast and send_recv 1), GB/s decimal"}},
    .run = run_comm});

}   // namespace paraplan::cli
