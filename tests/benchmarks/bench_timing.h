#pragma once
// Wall-clock helpers shared by the GUI benchmarks.
#include <QElapsedTimer>

#include <ctime>

#include <algorithm>
#include <functional>
#include <vector>

inline double ms(const std::function<void()>& f) {
    QElapsedTimer t;
    t.start();
    f();
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}
// CPU time this process has used, ms: on a shared machine under load a frame's wall time
// includes waiting for a core; its CPU time is what it costs (single-threaded work).
inline double process_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
// CPU time the calling thread has used, ms (the GUI thread's own work, without the workers').
inline double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
inline double worst(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }
