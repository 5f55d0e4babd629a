#pragma once
// A probe result held against the plan (issue #8): per process group, the measured
// bus bandwidth of its largest collective next to the bandwidth the cost model assumes
// for that group (estimate/comm.h group_bandwidth_gbs over the nodes it spans), the
// slow groups, and the groups whose membership check failed.
//
// Bus bandwidth is nccl-tests' busbw (doc/PERFORMANCE.md): for a ring all-reduce
// busbw = algbw * 2(n-1)/n, which is the per-GPU link bandwidth the ring runs at, the
// same quantity as the model's group bandwidth (all-reduce time = 2(n-1)/n * bytes / bw).
#include "estimate/config.h"
#include "project/cluster.h"
#include "probe/probe_result.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan::runtime {

struct ProbeGroupCheck {
    std::string kind;
    int index = 0;
    std::vector<int> ranks;
    bool membership_ok = false;
    std::optional<double> measured_gbps;   // busbw of the largest all_reduce (else all_gather)
    std::string measured_op;
    long long measured_bytes = 0;
    double assumed_gbps = 0;   // the cost model's bandwidth for this group
    int nodes_spanned = 0;
    bool slow = false;     // measured < slow_ratio * assumed
    std::string message;   // plain words for a tooltip or a log
};

// slow_ratio: below this share of the assumed bandwidth a group is slow.
std::vector<ProbeGroupCheck> compare_probe(const ProbeResult& result, const Cluster& cluster,
                                           const estimate::Hardware& hw, double slow_ratio = 0.5);

}   // namespace paraplan::runtime
