#pragma once
// NCCL's tuning model for one (op, algorithm, protocol): bandwidth (GB/s, already turned from
// bus into algorithm bandwidth as NCCL does) and latency (us), or a bandwidth of 0 where NCCL
// does not run that combination. NVIDIA/nccl v2.23.4-1, src/graph/tuning.cc, ncclTopoTuneModel
// and ncclTopoGetAlgoTime.
#include "network/collective.h"

namespace paraplan::network::nccl {

struct Cost {
    double bw = 0;    // GB/s; 0: not available
    double lat = 0;   // us
};

Cost cost(const Fabric& f, Op op, Algorithm a, Protocol p);

// ncclTopoGetAlgoTime: time in us for nBytes, with the tree correction and the ring plateau.
double algo_time_us(const Fabric& f, Op op, Algorithm a, Protocol p, std::uint64_t bytes);

}   // namespace paraplan::network::nccl
