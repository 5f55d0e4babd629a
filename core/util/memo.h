#pragma once
// The switch of the library's per-thread memos of pure functions: network::priced_time_s
// (network/price_memo.h), estimate::strided_link (estimate/comm.cpp) and estimate::split_layers
// (estimate/layers.cpp). Each memo returns exactly what its function computes (a hit compares
// every input), so the switch changes only how fast an estimate is; tests turn it off to compare.
// Process-wide, on by default.
#include <atomic>

namespace paraplan::memo {

inline std::atomic<bool>& enabled_flag() {
    static std::atomic<bool> on{true};
    return on;
}
inline bool enabled() { return enabled_flag().load(std::memory_order_relaxed); }
inline void set_enabled(bool on) { enabled_flag().store(on, std::memory_order_relaxed); }

}   // namespace paraplan::memo
