#include "telemetry/telemetry_heat.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace paraplan::runtime {

std::string to_string(HeatMetric m) { return m == HeatMetric::Memory ? "memory" : "utilization"; }

const GroupHeat* HeatMap::group_of(const std::string& kind, int rank) const {
    for (const auto& g : kind == "stage" ? stages : groups)
        if (g.kind == kind && std::find(g.ranks.begin(), g.ranks.end(), rank) != g.ranks.end()) return &g;
    return nullptr;
}

namespace {

std::string whole(double v) { return std::to_string(static_cast<long long>(std::lround(v))); }

GroupHeat aggregate(std::string kind, int index, std::vector<int> ranks, const std::vector<RankHeat>& heat) {
    GroupHeat g{std::move(kind), index, std::move(ranks), std::nullopt, std::nullopt, 0};
    double sum = 0, fsum = 0;
    int n = 0, nf = 0;
    for (int r : g.ranks) {
        const RankHeat& h = heat[static_cast<std::size_t>(r)];
        if (!h.value) {
            ++g.missing;
            continue;
        }
        sum += *h.value;
        ++n;
        if (h.fraction) {
            fsum += *h.fraction;
            ++nf;
        }
    }
    if (n) g.mean = sum / n;
    if (nf) g.mean_fraction = fsum / nf;
    return g;
}

// The latest sample of each rank that is fresh enough, or null.
struct Latest {
    const GpuSeries* series = nullptr;
    const GpuSample* sample = nullptr;
    double age_s = -1;
};

}   // namespace

HeatMap telemetry_heat(const TelemetryStore& store, const topology::RankMap& map, HeatMetric metric,
                       const HeatOptions& o) {
    HeatMap out;
    out.metric = metric;
    const int world = map.valid() ? map.world_size : 0;
    out.ranks.resize(static_cast<std::size_t>(world));
    std::vector<Latest> latest(static_cast<std::size_t>(world));
    for (const auto& [slot, s] : store.series())
        if (s.rank >= 0 && s.rank < world && !s.samples.empty())
            latest[static_cast<std::size_t>(s.rank)] = {&s, &s.samples.back().second, o.now_s - s.samples.back().first};

    for (int r = 0; r < world; ++r) {
        RankHeat& h = out.ranks[static_cast<std::size_t>(r)];
        const Latest& l = latest[static_cast<std::size_t>(r)];
        if (r < static_cast<int>(o.expected_mib.size())) h.expected_mib = o.expected_mib[static_cast<std::size_t>(r)];
        if (!l.sample) {
            h.missing = "no sample";
            continue;
        }
        h.age_s = l.age_s;
        if (l.age_s > o.stale_s) {
            h.missing = "no sample for " + whole(l.age_s) + " s";
            continue;
        }
        if (metric == HeatMetric::Utilization) {
            if (!l.sample->utilization_gpu) {
                h.missing = "utilization.gpu not reported";
                continue;
            }
            h.value = *l.sample->utilization_gpu;
            h.fraction = std::clamp(*h.value / 100.0, 0.0, 1.0);
        } else {
            if (!l.sample->memory_used_mib) {
                h.missing = "memory.used not reported";
                continue;
            }
            h.value = *l.sample->memory_used_mib;
            if (l.sample->memory_total_mib && *l.sample->memory_total_mib > 0)
                h.fraction = std::clamp(*h.value / *l.sample->memory_total_mib, 0.0, 1.0);
        }
    }
    for (const auto& h : out.ranks) out.missing += h.value ? 0 : 1;

    // Pipeline stages: the ranks sharing a pp coordinate.
    if (world > 0 && map.coord_index("pp") >= 0) {
        std::vector<std::vector<int>> stages;
        for (int r = 0; r < world; ++r) {
            const int s = map.coord(r, "pp");
            if (s < 0) continue;
            if (s >= static_cast<int>(stages.size())) stages.resize(static_cast<std::size_t>(s) + 1);
            stages[static_cast<std::size_t>(s)].push_back(r);
        }
        for (std::size_t s = 0; s < stages.size(); ++s)
            out.stages.push_back(aggregate("stage", static_cast<int>(s), stages[s], out.ranks));
    }
    for (const auto& [kind, set] : map.groups)
        for (int g = 0; g < set.num_groups(); ++g) {
            const auto members = set.group(g);
            out.groups.push_back(aggregate(kind, g, std::vector<int>(members.begin(), members.end()), out.ranks));
        }

    auto flag = [&](TelemetryFlag f) {
        if (f.rank >= 0 && f.rank < world) out.ranks[static_cast<std::size_t>(f.rank)].flags.push_back(f.message);
        out.flags.push_back(std::move(f));
    };
    // Memory above the estimate (plus the context headroom).
    for (int r = 0; r < world; ++r) {
        const Latest& l = latest[static_cast<std::size_t>(r)];
        const auto& exp = out.ranks[static_cast<std::size_t>(r)].expected_mib;
        if (!l.sample || !exp || !l.sample->memory_used_mib || l.age_s > o.stale_s) continue;
        if (*l.sample->memory_used_mib > *exp + o.memory_margin_mib)
            flag({"memory_above_estimate", l.series->node, l.series->gpu, r,
                  "rank " + std::to_string(r) + " uses " + whole(*l.sample->memory_used_mib) + " MiB, more than the " +
                      whole(*exp) + " MiB estimated"});
    }
    // Near-zero utilization while the rest of a group works: judged on the fresh
    // utilization of every group of every kind (one flag per rank, first kind wins).
    std::set<int> idle_flagged;
    for (const auto& [kind, set] : map.groups) {
        if (set.group_size < 2) continue;
        for (int g = 0; g < set.num_groups(); ++g) {
            double sum = 0;
            int n = 0;
            for (int r : set.group(g)) {
                const Latest& l = latest[static_cast<std::size_t>(r)];
                if (l.sample && l.age_s <= o.stale_s && l.sample->utilization_gpu) {
                    sum += *l.sample->utilization_gpu;
                    ++n;
                }
            }
            if (n < 2 || sum / n < o.busy_pct) continue;
            for (int r : set.group(g)) {
                const Latest& l = latest[static_cast<std::size_t>(r)];
                if (!l.sample || l.age_s > o.stale_s || l.series->samples.size() < o.window || idle_flagged.count(r))
                    continue;
                bool idle = true;
                for (std::size_t i = l.series->samples.size() - o.window; i < l.series->samples.size(); ++i) {
                    const auto& u = l.series->samples[i].second.utilization_gpu;
                    idle = idle && u && *u < o.idle_pct;
                }
                if (!idle) continue;
                idle_flagged.insert(r);
                flag({"idle_while_group_works", l.series->node, l.series->gpu, r,
                      "rank " + std::to_string(r) + " is near 0 % utilization while its " + kind + " group " +
                          std::to_string(g) + " averages " + whole(sum / n) + " %"});
            }
        }
    }
    for (auto& f : store.flags(std::nullopt))
        if (f.kind == "gpu_missing") flag(std::move(f));
    return out;
}

std::vector<std::optional<double>> expected_mib_by_stage(const topology::RankMap& map,
                                                         const std::vector<double>& stage_bytes) {
    std::vector<std::optional<double>> out;
    if (!map.valid() || stage_bytes.empty()) return out;
    out.resize(static_cast<std::size_t>(map.world_size));
    const bool pp = map.coord_index("pp") >= 0;
    for (int r = 0; r < map.world_size; ++r) {
        const int s = pp ? map.coord(r, "pp") : 0;
        if (s >= 0 && s < static_cast<int>(stage_bytes.size()))
            out[static_cast<std::size_t>(r)] = stage_bytes[static_cast<std::size_t>(s)] / (1024.0 * 1024.0);
    }
    return out;
}

}   // namespace paraplan::runtime
