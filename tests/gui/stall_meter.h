#pragma once
// How long the GUI thread stays away from its event loop: a timer that fires every 2 ms records
// the longest gap between two of its ticks while it runs.
//
// Two figures: longestMs(), the wall-clock gap (what a user sees, which on a loaded machine also
// counts the time the scheduler gave the core to another process), and longestBusyMs(), the CPU
// time the GUI thread itself spent within one gap (Linux's per-thread clock): the work the app did
// without returning to the event loop, which is what the app controls. A stall the user feels is
// one over about 100 ms.
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
