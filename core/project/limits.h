#pragma once
// Stated limits of a cluster (docs/project-format.md), far above the largest machines built
// (about 100,000 GPUs): the project loader and the CLI's cluster options check them before
// anything is allocated per node or per GPU.
namespace paraplan {

inline constexpr int kMaxNodes = 100'000;
inline constexpr int kMaxGpusPerNode = 4'096;
inline constexpr int kMaxWorldSize = 1 << 22;   // 4,194,304 GPUs

}   // namespace paraplan
