#pragma once
// NCCL's tuning model for one (op, algorithm, protocol): bandwidth (GB/s, already turned from
// bus into algorithm bandwidth as NCCL does) and latency (us), or a bandwidth of 0 where NCCL
// does not run that combination. NVIDIA/nccl v2.30.7-1, src/graph/tuning.cc, ncclTopoTuneModel
// and ncclTopoGetAlgoTime. Left out: the CPU's part (an AMD host's multi-node LL rows, and the tree
// correction ncclTopoGetAlgoTime applies to NVLS-tree below 1 GiB on Blackwell with x86 hosts): a
// system here does not say its CPU, and the model takes an Intel x86 host's rows without that
// correction.
#include "network/collective.h"

namespace paraplan::network::nccl {

struct Cost {
    double bw = 0;    // GB/s; 0: not available
    double lat = 0;   // us
};

Cost cost(const Fabric& f, Op op, Algorithm a, Protocol p);

// One NVLS channel's bandwidth through the NVSwitch (GB/s): the graph's speed at NCCL's NVLS
// efficiency, less the head's own share; an all-reduce pipelines its reduce and its broadcast.
double nvls_intra_bw(const Fabric& f, Op op);

// One NVLS or NVLS-tree channel's bandwidth across domains (GB/s), 0 within one: its head's NIC.
double nvls_inter_bw(const Fabric& f, Algorithm a);

// ncclTopoGetAlgoTime: time in us for nBytes, with the tree correction and the ring plateau.
double algo_time_us(const Fabric& f, Op op, Algorithm a, Protocol p, std::uint64_t bytes);

}   // namespace paraplan::network::nccl
