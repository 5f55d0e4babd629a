// A project's trip through its file form at 131,072 GPUs (16,384 listed nodes, tests/scale_project.h):
// project_to_json, project_from_json, and both with the JSON freed, as ProjectDocument::edit does for
// an edit that changes the cluster (on the GUI thread: tst_journey_131k). Median and max of N runs,
// wall clock and this thread's CPU time.
#include "../scale_project.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include <algorithm>

using paraplan::Project;

namespace {
double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

struct Times {
    std::vector<double> wall, cpu;
};

void run(const char* what, int reps, const std::function<void()>& f) {
    Times t;
    for (int i = 0; i < reps; ++i) {
        const double c0 = thread_cpu_ms();
        const auto w0 = std::chrono::steady_clock::now();
        f();
        t.wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count());
        t.cpu.push_back(thread_cpu_ms() - c0);
    }
    const auto med = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const auto max = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
    std::printf("%-42s wall %7.1f ms (max %7.1f), cpu %7.1f ms (max %7.1f)\n", what, med(t.wall), max(t.wall),
                med(t.cpu), max(t.cpu));
}
}   // namespace

int main(int argc, char** argv) {
    const int reps = argc > 1 ? std::atoi(argv[1]) : 10;
    const int nodes = argc > 2 ? std::atoi(argv[2]) : 16384;
    const Project p = scale_project(nodes);
    std::printf("%d nodes, %d GPUs, %d runs\n", nodes, p.world_size(), reps);
    std::size_t sink = 0;
    run("project_to_json (freed)", reps, [&] { sink += paraplan::project_to_json(p).size(); });
    const nlohmann::json j = paraplan::project_to_json(p);
    run("project_from_json", reps, [&] { sink += paraplan::project_from_json(j).cluster.nodes.size(); });
    run("trip: from_json(to_json(p)), all freed", reps,
        [&] { sink += paraplan::project_from_json(paraplan::project_to_json(p)).cluster.nodes.size(); });
    std::printf("(%zu)\n", sink);
    return 0;
}
