#pragma once
// What an nccl-tests binary (all_reduce_perf, all_gather_perf, ...; NVIDIA/nccl-tests, and
// ROCm's rccl-tests, which prints the same) writes to stdout, read back. The layout, from
// NVIDIA/nccl-tests v2.19.6 src/util.cu (writeBenchmarkLinePreamble, writeBenchmarkLineBody,
// writeResultHeader, writeResultFooter and the device report) and v2.13.9 src/common.cu:
//
//   # nccl-tests version 2.19.6 nccl-headers=... nccl-library=...      (2.17.4 and later)
//   # Collective test starting: all_reduce_perf                       (2.16.7 and later)
//   # nThread 1 nGpus 8 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 ...
//   #  Rank  0 Group  0 Pid  1234 on   host-01 device  0 [0000:19:00] NVIDIA H100 80GB HBM3
//       ("#   Rank  0 Pid ..." before 2.13.4 added the Group column; one line per rank, all
//        processes' lines gathered by rank 0, a process's block cut to "...\n" past 2048 bytes)
//   #       size   count   type   redop   root   time   algbw   busbw  #wrong   time ...
//   #        (B)  (elements)                     (us)  (GB/s)  (GB/s)           (us) ...
//          1024     256   float     sum     -1  12.34    0.08    0.15       0  12.01 ...
//   # Out of bounds values : 0 OK
//   # Avg bus bandwidth    : 12.345
//   # Collective test concluded: all_reduce_perf
//
// The header line names the columns, so older layouts (no root column before 2.13.0, "error"
// for "#wrong", "cputime" for "time" with -C, the per-iteration columns of -I, a timestamp
// of two words with -T) are read by name. Lines that are not nccl-tests' own (MPI warnings,
// NCCL_DEBUG output, "NCCL version ...") are skipped; a line that starts with a number inside
// the table must be a whole row. A second run in the same text is refused.
#include "network/collective.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::calibrate {

inline constexpr std::size_t kMaxNcclTestsBytes = 64u << 20;
inline constexpr std::size_t kMaxNcclTestsLineChars = 1u << 16;
inline constexpr std::size_t kMaxNcclTestsRows = 1u << 16;
inline constexpr int kMaxNcclTestsRanks = 1 << 20;

// One half of a row: out-of-place or in-place.
struct NcclTestsTiming {
    double time_us = 0, algbw_gbs = 0, busbw_gbs = 0;
    std::optional<double> wrong;   // #wrong; absent where nccl-tests printed N/A (-c 0)
};

struct NcclTestsRow {
    int line = 0;   // 1-based line in the text
    std::uint64_t bytes = 0, count = 0;
    std::string type, redop;
    int root = -1;   // -1 when the layout has no root column
    NcclTestsTiming out_of_place, in_place;
};

struct NcclTestsOutput {
    std::string program;                    // "all_reduce_perf" from the banner, "" when not printed
    std::string collective;                 // nccl-tests' name without _perf: all_reduce, all_gather, reduce, ...
    std::optional<network::Op> op;          // the collective as the network model knows it, if it does
    int threads = 0, gpus_per_thread = 0;   // nThread, nGpus
    int ranks = 0;                          // the run's ranks (see ranks_from_devices)
    int hosts = 0;                          // distinct host names in the rank lines
    int max_ranks_per_host = 0;
    std::string device;         // rank 0's device name ("NVIDIA H100 80GB HBM3")
    bool devices_cut = false;   // a process's rank lines were cut short ("...")
    std::vector<NcclTestsRow> rows;
    std::optional<double> avg_busbw_gbs;   // the footer's
};

// Throws InputError naming the 1-based line and why: no header, a bad or out-of-range number,
// a row whose columns do not match the header, rank lines that contradict each other, a
// second run, or more than the limits above.
NcclTestsOutput parse_nccl_tests_output(std::string_view text);

// parse_nccl_tests_output over a file of at most kMaxNcclTestsBytes (errors name the file).
NcclTestsOutput read_nccl_tests_output(const std::string& path);

// The network model's op for an nccl-tests collective name ("all_reduce", "alltoall", ...).
std::optional<network::Op> op_of_collective(const std::string& collective);

}   // namespace paraplan::calibrate
