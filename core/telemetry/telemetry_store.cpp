#include "telemetry/telemetry_store.h"

#include <cstdio>
#include <cmath>

namespace paraplan::runtime {

TelemetryStore::TelemetryStore(const Cluster& cluster, std::size_t capacity) : capacity_(capacity ? capacity : 1) {
    const auto placement = cluster.placement();
    for (std::size_t r = 0; r < placement.size(); ++r)
        rank_of_[{placement[r].node, placement[r].local_rank}] = static_cast<int>(r);
    for (const auto& n : cluster.nodes) node_names_.push_back(n.name);
}

int TelemetryStore::rank_of(int node, int gpu) const {
    auto it = rank_of_.find({node, gpu});
    return it == rank_of_.end() ? -1 : it->second;
}

const GpuSeries* TelemetryStore::find(int node, int gpu) const {
    auto it = series_.find({node, gpu});
    return it == series_.end() ? nullptr : &it->second;
}

void TelemetryStore::ingest(int node, std::string_view line, double t) {
    const auto parsed = parse_nvidia_smi_line(line);
    if (parsed.sample) ingest_sample(node, *parsed.sample, t);
    else if (!parsed.error.empty()) note(node, parsed.error);
}

void TelemetryStore::note(int node, const std::string& problem) {
    const std::string name = node >= 0 && node < static_cast<int>(node_names_.size())
                                 ? node_names_[static_cast<std::size_t>(node)]
                                 : "node " + std::to_string(node);
    diagnostics_.push_back(name + ": " + problem);
    while (diagnostics_.size() > 200) diagnostics_.pop_front();
}

void TelemetryStore::ingest_sample(int node, const GpuSample& sample, double t) {
    auto& s = series_[{node, sample.index}];
    s.node = node;
    s.gpu = sample.index;
    s.rank = rank_of(node, s.gpu);
    s.samples.emplace_back(t, sample);
    while (s.samples.size() > capacity_) s.samples.pop_front();
}

const GpuSeries* TelemetryStore::of_rank(int rank) const {
    for (const auto& [key, s] : series_)
        if (s.rank == rank) return &s;
    return nullptr;
}

std::optional<double> TelemetryStore::group_utilization(const std::vector<int>& ranks) const {
    double sum = 0;
    int n = 0;
    for (int r : ranks) {
        const GpuSeries* s = of_rank(r);
        if (!s || s->samples.empty() || !s->samples.back().second.utilization_gpu) continue;
        sum += *s->samples.back().second.utilization_gpu;
        ++n;
    }
    if (n == 0) return std::nullopt;
    return sum / n;
}

namespace {
// A whole number of MiB as text, for any double a GPU tool may report (a cast to an integer type
// is undefined beyond its range; fuzz_smi_stream found 7.7e78).
std::string mib_text(double mib) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.0f", mib);
    return buf;
}
}   // namespace

std::vector<TelemetryFlag> TelemetryStore::flags(std::optional<double> expected_mib,
                                                 const std::map<std::string, std::vector<std::vector<int>>>& groups,
                                                 double idle_pct, double busy_pct, std::size_t window) const {
    std::vector<TelemetryFlag> out;
    for (const auto& [key, s] : series_) {
        if (s.samples.empty() || !expected_mib) continue;
        const auto& last = s.samples.back().second;
        if (last.memory_used_mib && *last.memory_used_mib > *expected_mib) {
            out.push_back({"memory_above_expected", s.node, s.gpu, s.rank,
                           "GPU " + std::to_string(s.gpu) + " on " + node_names_[static_cast<std::size_t>(s.node)] +
                               (s.rank >= 0 ? " (rank " + std::to_string(s.rank) + ")" : std::string()) + " uses " +
                               mib_text(*last.memory_used_mib) + " MiB, more than the " + mib_text(*expected_mib) +
                               " MiB expected"});
        }
    }
    for (const auto& [kind, list] : groups) {
        for (const auto& g : list) {
            const auto mean = group_utilization(g);
            if (!mean || *mean < busy_pct || g.size() < 2) continue;
            for (int r : g) {
                const GpuSeries* s = of_rank(r);
                if (!s || s->samples.size() < window) continue;
                bool idle = true;
                for (std::size_t i = s->samples.size() - window; i < s->samples.size(); ++i) {
                    const auto& u = s->samples[i].second.utilization_gpu;
                    idle = idle && u && *u < idle_pct;
                }
                if (idle)
                    out.push_back({"idle_while_group_works", s->node, s->gpu, r,
                                   "rank " + std::to_string(r) + " is near 0 % utilisation while its " + kind +
                                       " group averages " + std::to_string(static_cast<int>(std::lround(*mean))) +
                                       " %"});
            }
        }
    }
    // Planned GPUs that never reported (a node shows fewer GPUs than the plan).
    std::map<int, int> seen_per_node;
    for (const auto& [key, s] : series_) ++seen_per_node[s.node];
    for (const auto& [slot, rank] : rank_of_) {
        if (series_.count(slot) || !seen_per_node.count(slot.first)) continue;
        out.push_back({"gpu_missing", slot.first, slot.second, rank,
                       node_names_[static_cast<std::size_t>(slot.first)] + " reports no GPU " +
                           std::to_string(slot.second) + " but the plan puts rank " + std::to_string(rank) + " there"});
    }
    return out;
}

}   // namespace paraplan::runtime
