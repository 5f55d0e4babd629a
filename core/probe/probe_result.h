#pragma once
// The result of the probe job (resources/probe/paraplan_probe.py), written by rank 0
// as one JSON document and printed on one stdout line after kProbeResultMarker.
//   {"paraplan_probe": 1, "ok": bool, "backend": "gloo"|"nccl", "world_size": N,
//    "torch_version": "...", "elapsed_s": x,
//    "groups": [{"kind": "tp", "index": 0, "ranks": [...], "membership_ok": bool,
//                "allreduce_sum": s, "expected_sum": s,
//                "bandwidth": [{"op": "all_reduce"|"all_gather", "bytes": b, "time_ms": t,
//                               "algbw_gbps": a, "busbw_gbps": b}]}],
//    "p2p": [{"group": i, "src": r, "dst": r, "src_stage": s, "dst_stage": s+1, "bytes": b,
//             "time_ms": t, "gbps": g}],
//    "errors": ["..."]}
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace paraplan::runtime {

inline constexpr const char* kProbeResultMarker = "__PARAPLAN_PROBE_RESULT__ ";

struct ProbeBandwidth {
    std::string op;
    long long bytes = 0;
    double time_ms = 0;
    double algbw_gbps = 0;
    double busbw_gbps = 0;
};

struct ProbeGroup {
    std::string kind;
    int index = 0;
    std::vector<int> ranks;
    bool membership_ok = false;
    double allreduce_sum = 0;
    double expected_sum = 0;
    std::vector<ProbeBandwidth> bandwidth;
};

struct ProbeP2P {
    int group = 0;
    int src = 0, dst = 0;
    int src_stage = 0, dst_stage = 0;
    long long bytes = 0;
    double time_ms = 0;
    double gbps = 0;
};

struct ProbeResult {
    bool ok = false;
    std::string backend;
    int world_size = 0;
    std::string torch_version;
    double elapsed_s = 0;
    std::vector<ProbeGroup> groups;
    std::vector<ProbeP2P> p2p;
    std::vector<std::string> errors;

    int failed_groups() const;
};

// Throws InputError naming the JSON pointer of a missing or mistyped field.
ProbeResult probe_result_from_json(const nlohmann::json& j);
ProbeResult probe_result_from_text(std::string_view text);

// The probe result in a stream of output lines (the line after the marker), or "".
std::string find_probe_result_line(std::string_view line);

}   // namespace paraplan::runtime
