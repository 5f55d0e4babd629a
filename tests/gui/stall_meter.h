#pragma once
// How long the GUI thread stays away from its event loop: a timer that fires every 2 ms records
// the longest gap between two of its ticks while it runs (longestMs()): the app's work and its
// waits (on a process, a file, a lock) without returning to the event loop, which is a stall the
// user feels when it is over ~100 ms. longestBusyMs() is the CPU time the thread itself spent
// within one gap (Linux's per-thread clock): how much of a gap was work rather than waiting.
// The wall-clock gap also counts the time a loaded machine gave the core to another process, so
// the tests that use this run alone (tst_stalls, RUN_SERIAL in tests/CMakeLists.txt).
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <algorithm>

#include <time.h>

class StallMeter : public QObject {
public:
    StallMeter() {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(2);
        connect(&timer_, &QTimer::timeout, this, [this] {
            const qint64 now = clock_.nsecsElapsed(), cpu = threadCpuNs();
            if (last_ >= 0) {
                longest_ = std::max(longest_, now - last_);
                longestBusy_ = std::max(longestBusy_, cpu - lastCpu_);
            }
            last_ = now;
            lastCpu_ = cpu;
        });
        clock_.start();
        timer_.start();
    }
    double longestMs() const { return double(longest_) / 1e6; }
    double longestBusyMs() const { return double(longestBusy_) / 1e6; }

private:
    static qint64 threadCpuNs() {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    }

    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = -1, lastCpu_ = 0;
    qint64 longest_ = 0, longestBusy_ = 0;
};
