#include "network/efficiency.h"

#include "util/input_error.h"

#include <cmath>
#include <string>

namespace paraplan::network {

namespace {

void check(double f, const char* what) {
    if (!std::isfinite(f) || f <= 0 || f > 1)
        throw InputError(std::string("/") + what,
                         std::string(what) + " efficiency " + std::to_string(f) + " is outside (0, 1]");
}

}   // namespace

System with_efficiency(System s, double scale_up, double scale_out) {
    check(scale_up, "nvlink");
    check(scale_out, "network");
    for (auto& t : s.tiers) {
        if (t.scale_up()) {
            t.link_gbps *= scale_up;
            t.efficiency *= scale_up;
        } else if (t.kind == TierKind::ScaleOut) t.nic_gbit *= scale_out;
    }
    return s;
}

}   // namespace paraplan::network
