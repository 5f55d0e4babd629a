// The worker side of a layout edit (issue 15): what ProjectDocument's analysis of one state
// costs, part by part, single-threaded, without the window. Same project as bench_gui_edit
// (NODES x 8 GPUs, Megatron tp 4 <-> 8, pp 64, 256 microbatches); each iteration analyses the
// next state (tp flipped, global batch following) as the document's worker would, then times the
// parts alone: the rank map, the rules (validate), the estimate, the schedule simulation, and the
// step playback (built after the first frame, not part of the analysis). Run:
//   build/dev/tests/benchmarks/bench_gui_analysis [iterations] [nodes]
#include "../scale_project.h"
#include "bench_timing.h"
#include "estimate/estimate.h"
#include "estimate/step_playback.h"
#include "document/projectanalysis.h"
#include "rules/validate.h"
#include "topology/build_rank_map.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
    const int iterations = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
    const int nodes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 16384;
    const paraplan::Project base = scale_project(nodes);
    std::vector<double> analyse_ms, map_ms, rules_ms, estimate_ms, sim_ms, playback_ms;
    std::shared_ptr<const ProjectAnalysis> previous;
    for (int i = 0; i < iterations; ++i) {
        auto p = std::make_shared<paraplan::Project>(base);
        p->layout.tp = i % 2 ? 4 : 8;
        const int dp = nodes * 8 / (p->layout.tp * 64);
        p->training.global_batch_size = 256 * dp;
        std::shared_ptr<const ProjectAnalysis> a;
        analyse_ms.push_back(ms([&] { a = analyse(p, 1, static_cast<std::uint64_t>(i + 1), nullptr, previous); }));
        previous = a;
        std::shared_ptr<const paraplan::topology::RankMap> map;
        map_ms.push_back(ms([&] {
            map = std::make_shared<const paraplan::topology::RankMap>(
                paraplan::topology::build_rank_map(paraplan::topology::from_project(*p), &p->cluster));
        }));
        rules_ms.push_back(ms([&] { (void)paraplan::validate(*p); }));
        estimate_ms.push_back(ms([&] { (void)paraplan::estimate::estimate_project(*p, *map); }));
        sim_ms.push_back(ms([&] { (void)simulate_pipeline(*p); }));
        playback_ms.push_back(ms([&] { (void)paraplan::estimate::step_playback(*p, *map); }));
    }
    std::printf("GPUs %d, iterations %d\n", base.world_size(), iterations);
    std::printf("analyse (as the worker runs it):  median %.1f ms (max %.1f)\n", median(analyse_ms), worst(analyse_ms));
    std::printf("  rank map alone:                 median %.1f ms (max %.1f)\n", median(map_ms), worst(map_ms));
    std::printf("  rules (validate) alone:         median %.1f ms (max %.1f)\n", median(rules_ms), worst(rules_ms));
    std::printf("  estimate alone:                 median %.1f ms (max %.1f)\n", median(estimate_ms),
                worst(estimate_ms));
    std::printf("  schedule simulation alone:      median %.1f ms (max %.1f)\n", median(sim_ms), worst(sim_ms));
    std::printf("step playback (after the frame):  median %.1f ms (max %.1f)\n", median(playback_ms),
                worst(playback_ms));
    return 0;
}
