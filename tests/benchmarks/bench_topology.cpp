// Full rank map (coordinates, placement, every process group, node spans, pipeline
// neighbours) at 16,384 and 65,536 ranks for ColossalAI, Megatron and torchtitan.
// Prints the median of several runs in milliseconds. See docs/benchmarks.md.
#include "topology/build_rank_map.h"

#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace paraplan::topology;

namespace {

MeshRequest request(const char* framework, int world) {
    MeshRequest r;
    r.framework = framework;
    r.world = world;
    r.gpus_per_node = 8;
    r.tp = 8;
    r.pp = 8;
    if (r.framework == "colossalai") {
        r.sp = 2;
        r.sp_mode = paraplan::SpMode::all_to_all;
    } else if (r.framework == "colossalai-moe") {
        r.ep = 8;
    } else if (r.framework == "megatron") {
        r.cp = 2;
        r.ep = 8;
        r.etp = 1;
    } else if (r.framework == "torchtitan") {
        r.cp = 2;
        r.dp_replicate = 2;
        r.dp_shard = -1;
        r.ep = 8;
    }
    return r;
}

void bench(const char* title) {
    const int runs = 9;
    std::printf("%s\n", title);
    std::printf("%-16s %8s %8s %10s %10s %10s\n", "framework", "ranks", "kinds", "groups", "median ms", "min ms");
    for (const char* f : {"colossalai", "colossalai-moe", "megatron", "torchtitan"}) {
        for (int world : {16384, 65536}) {
            const MeshRequest req = request(f, world);
            std::vector<double> ms;
            std::size_t kinds = 0;
            long long groups = 0;
            for (int i = 0; i < runs; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                const RankMap m = build_rank_map(req);
                const auto t1 = std::chrono::steady_clock::now();
                if (!m.valid()) {
                    std::fprintf(stderr, "%s %d: invalid layout\n", f, world);
                    std::exit(1);
                }
                ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
                kinds = m.groups.size();
                groups = 0;
                for (const auto& [k, g] : m.groups) groups += g.num_groups();
            }
            std::sort(ms.begin(), ms.end());
            std::printf("%-16s %8d %8zu %10lld %10.2f %10.2f\n", f, world, kinds, groups, ms[ms.size() / 2],
                        ms.front());
        }
    }
}

}   // namespace

int main() {
    // Default glibc malloc: vectors over the mmap threshold (128 KiB, i.e. beyond
    // ~32k ranks) are mapped and unmapped on every build, so each build pays fresh
    // page faults.
    bench("default allocator");
    // An application that rebuilds maps (the GUI) keeps freed memory: no page faults.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    bench("\nallocator keeps freed memory (M_MMAP_THRESHOLD / M_TRIM_THRESHOLD raised)");
    return 0;
}
