#pragma once
// How long the GUI thread stays away from its event loop: a timer that fires every 2 ms records
// the longest gap between two of its ticks while it runs (longestMs()): the app's work and its
// waits (on a process, a file, a lock) without returning to the event loop, which is a stall the
// user feels when it is over ~100 ms. longestBusyMs() is the CPU time the thread itself spent
// within one gap (Linux's per-thread clock): how much of a gap was work rather than waiting.
// The wall-clock gap also counts the time a loaded machine kept the thread waiting for a core;
// longestOwnMs() is the longest gap less that time (the run-queue delay the kernel records per
// thread, the second field of /proc/thread-self/schedstat, Documentation/scheduler/sched-stats.rst):
// the thread's own work and waits, the same on a quiet and on a loaded machine. The tests decide on
// it, so another process's load is not a stall; where the kernel does not give the delay (no
// schedstat), ownIsWall() is true and it is the wall-clock gap, which the tests print.
#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>

#include <algorithm>
#include <cstdio>

#include <time.h>

class StallMeter : public QObject {
public:
    StallMeter() {
        timer_.setTimerType(Qt::PreciseTimer);
        timer_.setInterval(2);
        connect(&timer_, &QTimer::timeout, this, [this] {
            const qint64 now = clock_.nsecsElapsed(), cpu = threadCpuNs(), delay = runQueueDelayNs();
            if (last_ >= 0) {
                longest_ = std::max(longest_, now - last_);
                longestBusy_ = std::max(longestBusy_, cpu - lastCpu_);
                longestOwn_ = std::max(longestOwn_, now - last_ - (delay >= 0 ? delay - lastDelay_ : 0));
            }
            last_ = now;
            lastCpu_ = cpu;
            lastDelay_ = delay;
        });
        clock_.start();
        timer_.start();
    }
    double longestMs() const { return double(longest_) / 1e6; }
    double longestBusyMs() const { return double(longestBusy_) / 1e6; }
    double longestOwnMs() const { return double(longestOwn_) / 1e6; }
    bool ownIsWall() const { return lastDelay_ < 0; }
    // "own 41.2 ms (wall 180.3, busy 38.0)": the three longest figures, for messages.
    QString summary() const {
        return QStringLiteral("own %1 ms (wall %2, busy %3%4)")
            .arg(longestOwnMs(), 0, 'f', 1)
            .arg(longestMs(), 0, 'f', 1)
            .arg(longestBusyMs(), 0, 'f', 1)
            .arg(ownIsWall() ? QStringLiteral("; no run-queue delay from the kernel: own is wall") : QString());
    }

private:
    static qint64 threadCpuNs() {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return qint64(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
    }
    // Nanoseconds this thread has waited on a run queue, runnable but not running; -1 if unknown.
    static qint64 runQueueDelayNs() {
        FILE* f = std::fopen("/proc/thread-self/schedstat", "r");
        if (!f) return -1;
        unsigned long long running = 0, waiting = 0;
        const bool ok = std::fscanf(f, "%llu %llu", &running, &waiting) == 2;
        std::fclose(f);
        return ok ? qint64(waiting) : -1;
    }

    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = -1, lastCpu_ = 0, lastDelay_ = 0;
    qint64 longest_ = 0, longestBusy_ = 0, longestOwn_ = 0;
};
