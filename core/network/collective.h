#pragma once
// One collective priced the way NCCL's own tuning model prices it (NVIDIA/nccl v2.30.7-1,
// src/graph/tuning.cc ncclTopoTuneModel and ncclTopoGetAlgoTime; the pick of the fastest in
// src/enqueue.cc topoGetAlgoInfo), over the graph inputs of network/fabric.h. algbw and busbw are
// nccl-tests' (doc/PERFORMANCE.md): algbw = S / t with S the total buffer size as nccl-tests' -b/-e
// pass it, busbw = algbw * 2(n-1)/n (all-reduce), (n-1)/n (all-gather, reduce-scatter, all-to-all),
// 1 (broadcast, send/recv).
#include "network/fabric.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace paraplan::network {

enum class Op { AllReduce, AllGather, ReduceScatter, Broadcast, AllToAll, SendRecv };
enum class Algorithm { Auto, Ring, Tree, Nvls, NvlsTree, CollNet, Pat, P2p };
enum class Protocol { LL, LL128, Simple };

struct CollectiveResult {
    std::uint64_t bytes = 0;
    double time_s = 0, algbw_gbs = 0, busbw_gbs = 0;
    Algorithm algorithm = Algorithm::Ring;
    Protocol protocol = Protocol::Simple;
    std::string bound_tier;       // the tier whose bandwidth bounds it
    bool latency_bound = false;   // the latency term is larger than the bandwidth term
};

// nccl-tests' busbw factor for n ranks.
double busbw_factor(Op op, int n);

// Throws InputError when `algorithm` cannot run `op` on this fabric.
CollectiveResult price(const Fabric& f, Op op, std::uint64_t bytes, Algorithm algorithm = Algorithm::Auto);

std::optional<Op> op_from_name(const std::string& s);
std::optional<Algorithm> algorithm_from_name(const std::string& s);
const char* op_name(Op op);
const char* algorithm_name(Algorithm a);
const char* protocol_name(Protocol p);
std::vector<std::string> op_names();

}   // namespace paraplan::network
