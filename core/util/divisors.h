#pragma once
// The divisors of a whole number, ascending: the sizes an axis can take over a world of n GPUs.
#include <vector>

namespace paraplan {

// Pairs (i, n / i) up to the square root, so a world of 131,072 GPUs costs 362 steps, not 131,072.
inline std::vector<int> divisors(int n) {
    std::vector<int> d, high;
    for (int i = 1; static_cast<long long>(i) * i <= n; ++i) {
        if (n % i != 0) continue;
        d.push_back(i);
        if (i != n / i) high.push_back(n / i);
    }
    d.insert(d.end(), high.rbegin(), high.rend());
    return d;
}

}   // namespace paraplan
