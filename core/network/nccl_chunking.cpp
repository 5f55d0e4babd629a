#include "network/nccl_chunking.h"

#include "network/nccl_tuning.h"

#include <algorithm>
#include <cmath>

namespace paraplan::network::nccl {

namespace {

constexpr double kKiB = 1024;
constexpr double kRingChunk = 4 * kKiB * kKiB / 8 * 4;   // DEFAULT_BUFFSIZE / NCCL_STEPS * chunkSteps
constexpr double kNvlsChunk = 128 * kKiB;                // NCCL_NVLS_CHUNKSIZE

// calcCollChunking's NVLS chunk for nBytes over `ops` concurrent (channel, head) pairs.
double nvls_chunk(const Fabric& f, double bytes, double ops) {
    double chunk = kNvlsChunk;
    // More than one node with an NVLS all-reduce bandwidth under 150 GB/s: 32 KiB at most.
    if (f.nodes > 1 && cost(f, Op::AllReduce, Algorithm::Nvls, Protocol::Simple).bw < 150) chunk = 32 * kKiB;
    if (bytes < 64 * ops * chunk && chunk > 64 * kKiB) chunk = 64 * kKiB;
    if (bytes < 8 * ops * chunk && chunk > 32 * kKiB) chunk = 32 * kKiB;
    if (bytes < 2 * ops * chunk && chunk > 16 * kKiB) chunk = 16 * kKiB;
    return chunk;
}

}   // namespace

ChunkSteps simple_chunk_steps(const Fabric& f, Op op, Algorithm a, Protocol p, std::uint64_t bytes) {
    // RCCL (AMD) chunks in its own kernels; only NCCL's are modelled here.
    if (p != Protocol::Simple || bytes == 0 || f.rccl) return {};
    const double b = static_cast<double>(bytes);
    if (a == Algorithm::Ring && (op == Op::AllReduce || op == Op::AllGather || op == Op::ReduceScatter)) {
        const int n = f.ranks;
        const double steps_per_loop = op == Op::AllReduce ? 2.0 * (n - 1) : n - 1.0;   // ncclPatternRing(Twice)
        // NCCL's ring channel count is the model's (fabric.h: one per NVLink link).
        const double loop = static_cast<double>(f.channels) * n * kRingChunk;   // nchunksPerLoop = nRanks
        return {steps_per_loop * std::ceil(b / loop), steps_per_loop * b / loop};
    }
    if (a == Algorithm::Nvls && f.nvls_channels > 0) {
        // One step per loop (ncclPatternNvls); nchunksPerLoop = nvls.nHeads (fabric.h nvls_heads),
        // over the nvlsChannels CTAs.
        const double ops = static_cast<double>(f.nvls_channels) * f.nvls_heads;
        return {std::ceil(b / (ops * nvls_chunk(f, b, ops))), b / (ops * kNvlsChunk)};
    }
    return {};
}

double chunking_overhead_us(const Fabric& f, Op op, Algorithm a, Protocol p, std::uint64_t bytes) {
    const ChunkSteps s = simple_chunk_steps(f, op, a, p, bytes);
    return kSimpleStepOverheadUs * std::max(0.0, s.steps - s.steps_full_chunk);
}

}   // namespace paraplan::network::nccl
