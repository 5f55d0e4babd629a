#pragma once
// Wall-clock helpers shared by the GUI benchmarks.
#include <QElapsedTimer>

#include <algorithm>
#include <functional>
#include <vector>

inline double ms(const std::function<void()>& f) {
    QElapsedTimer t;
    t.start();
    f();
    return static_cast<double>(t.nsecsElapsed()) / 1e6;
}
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
inline double worst(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }
