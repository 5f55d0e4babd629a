#include "estimate/efficiency.h"

#include <algorithm>

namespace paraplan::estimate {

Efficiency efficiency_for(const std::string& arch) {
    Efficiency e;
    if (arch == "ampere") {
        e.gemm_max = 0.80;
        e.attention = 0.55;   // FlashAttention-2 on A100: 50-70% of peak forward (Dao 2023)
    } else if (arch == "hopper") {
        e.gemm_max = 0.70;
        e.attention = 0.45;   // FlashAttention-2 on H100 ~35-50%; FA-3 higher (Shah et al. 2024)
    } else if (arch == "blackwell") {
        e.gemm_max = 0.70;
        e.attention = 0.5;
    } else if (arch == "volta") {
        e.gemm_max = 0.75;
        e.attention = 0.4;
    } else {
        e.gemm_max = 0.65;
        e.attention = 0.4;
    }
    return e;
}

double gemm_efficiency(const Efficiency& e, double d) {
    d = std::max(1.0, d);
    return e.gemm_max * d / (d + e.gemm_d0);
}

}  // namespace paraplan::estimate
