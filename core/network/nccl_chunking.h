#pragma once
// The chunk steps NCCL's kernels run for one collective, and the time their handshakes add beyond
// the tuning model. NVIDIA/nccl v2.30.7-1, src/enqueue.cc calcCollChunking: a channel moves its
// share in loops of nchunksPerLoop chunks, nstepsPerLoop steps each; the Simple protocol's chunk
// is buffSize / NCCL_STEPS * chunkSteps (4 MiB / 8 * 4 for a ring, src/include/collectives.h
// ALLREDUCE_CHUNKSTEPS), and NVLS shrinks its chunk (128 KiB, NCCL_NVLS_CHUNKSIZE) to 64, 32 and
// 16 KiB for smaller buffers. The ring kernel (src/device/all_reduce.h runRing) runs a whole loop
// of steps even when the buffer fills only part of it, with a smaller chunk.
#include "network/collective.h"

namespace paraplan::network::nccl {

// Time per Simple-protocol step spent on the step's handshake rather than on moving data, in us
// (the sender waits for a free slot, the receiver for the data: src/device/prims_simple.h
// waitPeer). NCCL's bandwidth figures are reached at full chunks; each step beyond that count (a
// partly filled loop, a shrunk chunk) costs this much more. Fitted, not taken from NCCL: the
// least-squares value, on log time, over the 20 tune rows of tests/data/network/nccl_tests.json
// that run ring/Simple (the Azure A100 and GB200 curves from 32 MiB, the A100 and H100 8 GiB rows);
// tst_network_accuracy's stepOverheadIsTheTuneFit refits it. No held-out row was used.
inline constexpr double kSimpleStepOverheadUs = 8.8;

struct ChunkSteps {
    double steps = 0;              // steps one channel runs (nstepsPerLoop * whole loops)
    double steps_full_chunk = 0;   // the same bytes at the full chunk, loops not rounded up
};

// Ring and NVLS with the Simple protocol on NCCL; zero steps for the rest (RCCL's kernels are its
// own: the MI300X rccl-tests curve of tests/data/nccl-tests is at its plateau sooner than NCCL's). LL and LL128 are
// left as NCCL prices them: their receivers poll flags carried in the data, not a step's tail pointer, and no tune row
// separates a step cost of theirs from their bandwidth.
ChunkSteps simple_chunk_steps(const Fabric& f, Op op, Algorithm a, Protocol p, std::uint64_t bytes);

// kSimpleStepOverheadUs for each step beyond the full-chunk count: what the chunking adds to
// algo_time_us's estimate.
double chunking_overhead_us(const Fabric& f, Op op, Algorithm a, Protocol p, std::uint64_t bytes);

}   // namespace paraplan::network::nccl
