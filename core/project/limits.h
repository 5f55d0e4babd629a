#pragma once
// Stated limits of a cluster (docs/project-format.md), far above the largest machines built
// (about 100,000 GPUs): the project loader and the CLI's cluster options check them before
// anything is allocated per node or per GPU.
namespace paraplan {

inline constexpr int kMaxNodes = 100'000;
inline constexpr int kMaxGpusPerNode = 4'096;
inline constexpr int kMaxWorldSize = 1 << 22;   // 4,194,304 GPUs

// A project file's size. Above the other inputs' 64 MiB (util/read_file.h): a project keeps the
// keys it does not know (another tool's sections, a user's notes) and writes them back, and those
// may run to 100 MB; parsed, 128 MiB of JSON stays within about a GiB of memory.
inline constexpr unsigned long long kMaxProjectBytes = 128ull << 20;

}   // namespace paraplan
