#pragma once
// GPU telemetry of a running job: a bounded time series per (node, GPU), the rank
// each GPU runs (from Cluster::placement()), group aggregates and warning flags.
// Pure data; TelemetryMonitor (telemetry.h) feeds it from nvidia-smi streams.
#include "project/cluster.h"
#include "telemetry/nvidia_smi.h"

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace paraplan::runtime {

struct GpuSeries {
    int node = 0;
    int gpu = 0;                                        // nvidia-smi index
    int rank = -1;                                      // planned rank on this GPU, -1 when none
    std::deque<std::pair<double, GpuSample>> samples;   // (time in s, sample), oldest first
};

struct TelemetryFlag {
    std::string kind;   // "memory_above_expected", "idle_while_group_works", "gpu_missing"
    int node = 0;
    int gpu = -1;
    int rank = -1;
    std::string message;
};

class TelemetryStore {
public:
    explicit TelemetryStore(const Cluster& cluster, std::size_t capacity = 600);

    // One line from node's nvidia-smi stream at time t (seconds). Bad lines become
    // diagnostics (kept, bounded), never exceptions.
    void ingest(int node, std::string_view line, double t);
    // One parsed sample (rocm-smi's JSON gives them whole), and a note on what a node's tool
    // printed that could not be read.
    void ingest_sample(int node, const GpuSample& sample, double t);
    void note(int node, const std::string& problem);

    const std::map<std::pair<int, int>, GpuSeries>& series() const { return series_; }
    const GpuSeries* find(int node, int gpu) const;
    const std::deque<std::string>& diagnostics() const { return diagnostics_; }
    int rank_of(int node, int gpu) const;

    // Mean utilisation of the ranks' latest samples (nullopt when none is known).
    std::optional<double> group_utilization(const std::vector<int>& ranks) const;

    // Flags: a GPU using more memory than expected_mib (when given); a rank near 0 %
    // (< idle_pct over its last `window` samples) while its group's mean is >= busy_pct;
    // planned GPUs the node never reported.
    std::vector<TelemetryFlag> flags(std::optional<double> expected_mib,
                                     const std::map<std::string, std::vector<std::vector<int>>>& groups = {},
                                     double idle_pct = 5, double busy_pct = 30, std::size_t window = 3) const;

private:
    const GpuSeries* of_rank(int rank) const;
    std::size_t capacity_;
    std::map<std::pair<int, int>, int> rank_of_;   // (node, gpu) -> rank
    std::vector<std::string> node_names_;
    std::map<std::pair<int, int>, GpuSeries> series_;
    std::deque<std::string> diagnostics_;
};

}   // namespace paraplan::runtime
