#pragma once
// The live heat of a running job for the GUI (issue #8): one metric (GPU utilization or
// memory) per rank, its mean per pipeline stage and per process group of the rank map,
// and the ranks to flag. A rank whose GPU never reported, reported the field as
// "[N/A]", or stopped reporting (stale) is *missing*: it has no value and is left out
// of the means, never counted as 0.
#include "telemetry/telemetry_store.h"
#include "topology/rank_map.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan::runtime {

enum class HeatMetric { Utilization, Memory };
std::string to_string(HeatMetric m);   // "utilization", "memory"

struct RankHeat {
    std::optional<double> value;          // % (utilization) or MiB used (memory)
    std::optional<double> fraction;       // value on [0, 1]: utilization / 100, used / total
    std::optional<double> expected_mib;   // the estimate for this rank (memory), if given
    double age_s = -1;                    // age of the sample used (-1: none)
    std::string missing;                  // why there is no value ("" when there is one)
    std::vector<std::string> flags;       // messages of the flags on this rank
};

// Mean over the members that have a value; `missing` counts the others.
struct GroupHeat {
    std::string kind;   // a group kind of the rank map ("tp", "dp", ...) or "stage"
    int index = 0;      // group index, or the pipeline stage (pp coordinate)
    std::vector<int> ranks;
    std::optional<double> mean;
    std::optional<double> mean_fraction;
    int missing = 0;
};

struct HeatOptions {
    double now_s = 0;     // the store's clock (TelemetryMonitor::now_s())
    double stale_s = 5;   // a latest sample older than this is missing
    // Memory the estimate expects per rank (MiB, index = rank; empty or nullopt: unknown).
    std::vector<std::optional<double>> expected_mib;
    // Headroom over the estimate before flagging: the CUDA context and NCCL buffers that
    // nvidia-smi counts but the memory model does not (about 0.5-1.5 GiB per process).
    double memory_margin_mib = 1536;
    double idle_pct = 5;      // "near zero" utilization ...
    double busy_pct = 30;     // ... while the group's mean is at least this
    std::size_t window = 3;   // over the last `window` samples
};

struct HeatMap {
    HeatMetric metric = HeatMetric::Utilization;
    std::vector<RankHeat> ranks;        // index = rank (map.world_size entries)
    std::vector<GroupHeat> stages;      // one per pipeline stage (empty without a "pp" coordinate)
    std::vector<GroupHeat> groups;      // every group of every kind of the rank map
    std::vector<TelemetryFlag> flags;   // memory_above_estimate, idle_while_group_works, gpu_missing
    int missing = 0;                    // ranks without a value

    // The group of `kind` holding `rank` (nullptr when none).
    const GroupHeat* group_of(const std::string& kind, int rank) const;
};

HeatMap telemetry_heat(const TelemetryStore& store, const topology::RankMap& map, HeatMetric metric,
                       const HeatOptions& options = {});

// Per-rank expected memory (MiB) from per-stage totals (bytes, index = pipeline stage):
// rank r expects stage_bytes[pp coordinate of r] (stage 0 without "pp").
std::vector<std::optional<double>> expected_mib_by_stage(const topology::RankMap& map,
                                                         const std::vector<double>& stage_bytes);

}   // namespace paraplan::runtime
