// Generate + simulate large pipeline schedules. The target: pp = 64, m = 1024, v = 2
// (about 260,000 ops) in under 50 ms in a Release build. Usage:
//   bench_schedule [repeats]
#include "schedule/generate.h"
#include "schedule/simulate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace paraplan::schedule;

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
    struct Case {
        const char* name;
        int pp, m, v;
    };
    const Case cases[] = {
        {"1f1b", 64, 1024, 1},
        {"interleaved", 64, 1024, 2},
        {"interleaved-megatron", 64, 1024, 2},
        {"interleaved-pytorch", 64, 1024, 2},
        {"interleaved-zb", 64, 1024, 2},
        {"zbh1", 64, 1024, 1},
        {"zbh2", 64, 1024, 1},
        {"zbv", 64, 1024, 2},
        {"dualpipev", 64, 1024, 2},
    };
    std::printf("%-22s %4s %5s %2s %9s %10s %10s %10s\n", "schedule", "pp", "m", "v", "ops", "gen ms", "sim ms",
                "total ms");
    for (const auto& c : cases) {
        double best_gen = 1e30, best_sim = 1e30, best_total = 1e30;
        std::size_t ops = 0;
        double makespan = 0;
        for (int r = 0; r < repeats; ++r) {
            ScheduleRequest req;
            req.schedule = c.name;
            req.pp = c.pp;
            req.microbatches = c.m;
            req.chunks = c.v;
            const auto t0 = std::chrono::steady_clock::now();
            const auto g = generate(req);
            const auto t1 = std::chrono::steady_clock::now();
            if (!g.schedule) {
                std::printf("%s: %s\n", c.name, g.diagnostics.front().message.c_str());
                return 1;
            }
            SimConfig cfg;
            cfg.cost = {1.0, 1.0, 1.0};
            cfg.comm = 0.01;
            const auto sim = simulate(*g.schedule, cfg);
            const auto t2 = std::chrono::steady_clock::now();
            if (!sim.ok()) {
                std::printf("%s: %s\n", c.name, sim.diagnostics.front().message.c_str());
                return 1;
            }
            ops = sim.timeline.ops.size();
            makespan = sim.timeline.makespan;
            const double gen = std::chrono::duration<double, std::milli>(t1 - t0).count();
            const double sm = std::chrono::duration<double, std::milli>(t2 - t1).count();
            best_gen = std::min(best_gen, gen);
            best_sim = std::min(best_sim, sm);
            best_total = std::min(best_total, gen + sm);
        }
        std::printf("%-22s %4d %5d %2d %9zu %10.2f %10.2f %10.2f  (makespan %.1f)\n", c.name, c.pp, c.m, c.v, ops,
                    best_gen, best_sim, best_total, makespan);
    }
    return 0;
}
