#pragma once
// How long work says how far it is and stops when asked: a reader or a search takes a
// Progress, calls report() now and then from its own thread, and throws Cancelled at its next
// check once *cancel is set (from any thread). A default Progress reports nothing and never
// stops.
#include <atomic>
#include <functional>
#include <stdexcept>

namespace paraplan {

struct Cancelled : std::runtime_error {
    Cancelled() : std::runtime_error("cancelled") {}
};

struct Progress {
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(long long done, long long total)> on_progress;   // called from the worker

    bool cancelled() const { return cancel && cancel->load(std::memory_order_relaxed); }
    // Reports done of total, then throws Cancelled if asked to stop.
    void step(long long done, long long total) const {
        if (on_progress) on_progress(done, total);
        if (cancelled()) throw Cancelled();
    }
};

}   // namespace paraplan
