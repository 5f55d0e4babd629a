#include "network/collective.h"

#include "network/nccl_chunking.h"
#include "network/nccl_tuning.h"
#include "util/input_error.h"

#include <algorithm>
#include <array>

namespace paraplan::network {

namespace {

constexpr std::array<Algorithm, 6> kTuned = {Algorithm::Tree, Algorithm::Ring,     Algorithm::CollNet,
                                             Algorithm::Nvls, Algorithm::NvlsTree, Algorithm::Pat};
constexpr std::array<Protocol, 3> kProtocols = {Protocol::LL, Protocol::LL128, Protocol::Simple};

// Which algorithms NCCL runs for an op (tuning.cc ncclTopoTuneModel's skips; enqueue.cc
// updateCollCostTable's). CollNet, and NVLS across domains (which needs CollNet), only when asked
// for: NCCL_COLLNET_ENABLE is off by default. PAT only with one GPU per domain (ncclPatEnable).
bool runs(const Fabric& f, Op op, Algorithm a, bool asked) {
    const bool rs_like = op == Op::AllGather || op == Op::ReduceScatter;
    if (op == Op::Broadcast && a != Algorithm::Ring) return false;
    if (rs_like && a != Algorithm::Ring && a != Algorithm::Pat && a != Algorithm::Nvls && a != Algorithm::CollNet)
        return false;
    if (op == Op::AllReduce && a == Algorithm::Pat) return false;
    if (a == Algorithm::Pat) return f.ppn == 1;
    if (a == Algorithm::CollNet) return asked && f.sharp && f.nodes > 1 && op == Op::AllReduce;
    if (a == Algorithm::Nvls) return f.nvls && (f.nodes == 1 || (asked && f.sharp && !rs_like));
    if (a == Algorithm::NvlsTree) return f.nvls && f.nodes > 1 && op == Op::AllReduce;
    return true;
}

bool protocol_runs(const Fabric& f, Algorithm a, Protocol p) {
    if (a != Algorithm::Ring && a != Algorithm::Tree) return p == Protocol::Simple;
    if (p == Protocol::LL128) return f.nvlink;   // LL128 is on by default only over NVLink
    return true;
}

std::string bound_tier(const Fabric& f, Op op, Algorithm a) {
    if (f.nodes == 1) return f.domain_tier;
    if (a == Algorithm::Nvls || a == Algorithm::NvlsTree)   // nccl_tuning.cpp bus_bw's min
        return nccl::nvls_inter_bw(f, a) < nccl::nvls_intra_bw(f, op) ? f.net_tier : f.domain_tier;
    return f.bw_inter < f.bw_intra ? f.net_tier : f.domain_tier;
}

CollectiveResult finish(const Fabric& f, Op op, std::uint64_t bytes, double time_us, double bw_term_us) {
    CollectiveResult r;
    r.bytes = bytes;
    r.time_s = time_us * 1e-6;
    r.algbw_gbs = r.time_s > 0 ? static_cast<double>(bytes) / r.time_s / 1e9 : 0;
    r.busbw_gbs = r.algbw_gbs * busbw_factor(op, f.ranks);
    r.latency_bound = time_us - bw_term_us > bw_term_us;
    return r;
}

CollectiveResult price_tuned(const Fabric& f, Op op, std::uint64_t bytes, Algorithm asked) {
    double best = -1;
    Algorithm best_a = Algorithm::Ring;
    Protocol best_p = Protocol::Simple;
    for (Algorithm a : kTuned) {   // NCCL's order; the first strictly fastest wins (topoGetAlgoInfo)
        if (asked != Algorithm::Auto && a != asked) continue;
        if (!runs(f, op, a, asked == a)) continue;
        for (Protocol p : kProtocols) {
            if (!protocol_runs(f, a, p)) continue;
            const double t = nccl::algo_time_us(f, op, a, p, bytes);
            if (t >= 0 && (best < 0 || t < best)) best = t, best_a = a, best_p = p;
        }
    }
    if (best < 0)
        throw InputError("--algorithm", std::string("NCCL does not run ") + algorithm_name(asked) + " for " +
                                            op_name(op) + " on this system and GPU count");
    // NCCL picks by its estimate alone; the run also pays the chunk steps that estimate leaves out.
    const double time = best + nccl::chunking_overhead_us(f, op, best_a, best_p, bytes);
    const double bw = nccl::cost(f, op, best_a, best_p).bw;
    auto r = finish(f, op, bytes, time, static_cast<double>(bytes) / (1000 * bw));
    r.algorithm = best_a;
    r.protocol = best_p;
    r.bound_tier = bound_tier(f, op, best_a);
    return r;
}

// All-to-all and send/recv are NCCL point-to-point operations, outside the tuning model. Each GPU
// sends its share to every peer at once: peers in its domain over its scale-up links, peers in
// other domains over its own NIC only (one NIC's worth per GPU, never the node's sum). Latency: one
// ring step of the Simple protocol (tuning.cc baseLat + hwLat) plus the network hop.
CollectiveResult price_p2p(const Fabric& f, Op op, std::uint64_t bytes) {
    const double n = f.ranks;
    double intra_bytes = 0, inter_bytes = 0;
    if (op == Op::AllToAll) {
        intra_bytes = bytes * (f.ppn - 1) / n;
        inter_bytes = bytes * (n - f.ppn) / n;
    } else {   // nccl-tests sendrecv: each rank sends S to the next; some cross a domain
        (f.nodes > 1 ? inter_bytes : intra_bytes) = static_cast<double>(bytes);
    }
    const double t_intra = intra_bytes / (1000 * f.intra_gbps);
    const double nic = op == Op::AllToAll ? f.a2a_nic_gbps : f.nic_gbps;
    const double t_inter = inter_bytes > 0 ? inter_bytes / (1000 * nic) : 0;
    double lat = 8.4 + (f.nvlink ? 3.4 : 5.7);
    if (f.nodes > 1) lat += 14.0 + 2 * f.latency_inter_us;
    const double bw_term = std::max(t_intra, t_inter);
    auto r = finish(f, op, bytes, lat + bw_term, bw_term);
    r.algorithm = Algorithm::P2p;
    r.protocol = Protocol::Simple;
    r.bound_tier = t_inter > t_intra ? f.net_tier : f.domain_tier;
    return r;
}

}   // namespace

double busbw_factor(Op op, int n) {
    if (n <= 1) return op == Op::AllReduce || op == Op::Broadcast || op == Op::SendRecv ? 1.0 : 0.0;
    switch (op) {
    case Op::AllReduce: return 2.0 * (n - 1) / n;
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::AllToAll: return static_cast<double>(n - 1) / n;
    case Op::Broadcast:
    case Op::SendRecv: return 1.0;
    }
    return 1.0;
}

CollectiveResult price(const Fabric& f, Op op, std::uint64_t bytes, Algorithm algorithm) {
    if (f.ranks < 2) throw InputError("--gpus", "a collective needs at least two GPUs");
    if (op == Op::AllToAll || op == Op::SendRecv) {
        if (algorithm != Algorithm::Auto && algorithm != Algorithm::P2p)
            throw InputError("--algorithm", std::string(op_name(op)) + " runs as point-to-point sends, not " +
                                                algorithm_name(algorithm));
        return price_p2p(f, op, bytes);
    }
    if (algorithm == Algorithm::P2p) throw InputError("--algorithm", "p2p prices all_to_all and send_recv only");
    return price_tuned(f, op, bytes, algorithm);
}

namespace {
constexpr std::array<const char*, 6> kOpNames = {"all_reduce", "all_gather", "reduce_scatter",
                                                 "broadcast",  "all_to_all", "send_recv"};
constexpr std::array<const char*, 8> kAlgoNames = {"auto",      "ring",    "tree", "nvls",
                                                   "nvls_tree", "collnet", "pat",  "p2p"};
}   // namespace

std::optional<Op> op_from_name(const std::string& s) {
    for (std::size_t i = 0; i < kOpNames.size(); ++i)
        if (s == kOpNames[i]) return static_cast<Op>(i);
    return std::nullopt;
}

std::optional<Algorithm> algorithm_from_name(const std::string& s) {
    for (std::size_t i = 0; i < kAlgoNames.size(); ++i)
        if (s == kAlgoNames[i]) return static_cast<Algorithm>(i);
    return std::nullopt;
}

const char* op_name(Op op) { return kOpNames[static_cast<std::size_t>(op)]; }
const char* algorithm_name(Algorithm a) { return kAlgoNames[static_cast<std::size_t>(a)]; }
const char* protocol_name(Protocol p) {
    switch (p) {
    case Protocol::LL: return "LL";
    case Protocol::LL128: return "LL128";
    case Protocol::Simple: return "Simple";
    }
    return "?";
}

std::vector<std::string> op_names() { return {kOpNames.begin(), kOpNames.end()}; }

}   // namespace paraplan::network
