#pragma once
// A per-thread memo of price() (collective.h) for (fabric, op, bytes). NCCL tunes once per
// communicator (NVIDIA/nccl v2.30.7-1 src/graph/tuning.cc ncclTopoTuneModel, at init) and then only
// looks the fastest algorithm up per call (src/enqueue.cc topoGetAlgoInfo); the estimate asks the same
// collective of the same group many times per layout (the gradient reduction once per pipeline stage)
// and the planner across thousands of layouts. A hit compares the whole fabric (every field, doubles
// by their bits), the op and the bytes, so it returns exactly the double price() returns. Each
// thread has its own table: no locks, nothing shared between the planner's workers.
#include "network/collective.h"
#include "network/fabric.h"

#include <cstdint>

namespace paraplan::network {

// price(f, op, bytes).time_s (Algorithm::Auto), from this thread's memo when it has priced the same
// (and memo::enabled(), util/memo.h).
double priced_time_s(const Fabric& f, Op op, std::uint64_t bytes);

}   // namespace paraplan::network
