// Rules throughput: validate() of a valid and an invalid project (with fix search),
// error lookup, and the advisor's enumeration for large worlds.
#include "catalog/catalog.h"
#include "project/project.h"
#include "rules/advisor.h"
#include "rules/explain_error.h"
#include "rules/validate.h"

#include <chrono>
#include <cstdio>
#include <functional>

using namespace paraplan;

namespace {
double time_us(int reps, const std::function<void()>& f) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::micro>(t1 - t0).count() / reps;
}
}   // namespace

int main() {
    const Project valid = load_example("llama3.1-405b-128nodes");
    Project invalid = valid;
    invalid.layout.pp = 12;            // 1024 % 96
    invalid.layout.zero_stage = 2;     // with pp
    invalid.training.seq_len = 8191;   // split_gather over tp 8
    std::size_t sink = 0;
    std::printf("validate, valid 1024-GPU project:        %8.1f us\n",
                time_us(2000, [&] { sink += validate(valid).size(); }));
    std::printf("validate, invalid (3 errors + fixes):    %8.1f us\n",
                time_us(50, [&] { sink += validate(invalid).size(); }));
    std::printf("explain_error (last pattern, NCCL):      %8.1f us\n", time_us(200, [&] {
                    sink += explain_error("no kernel image is available for execution on the device").matched;
                }));
    for (const char* fw : {"colossalai", "megatron", "colossalai-moe"}) {
        AdvisorQuery q;
        q.world = 1024;
        q.gpus_per_node = 8;
        q.framework = fw;
        q.model = *catalog::find_model(std::string(fw) == "colossalai-moe" ? "mixtral-8x7b" : "llama3.1-405b");
        std::size_t n = 0;
        const double us = time_us(1, [&] { n = enumerate_splits(q).size(); });
        std::printf("advise 1024 GPUs, %-15s %6zu splits in %8.1f ms\n", fw, n, us / 1000);
    }
    std::printf("nearest_layouts of the invalid project:  %8.1f ms\n",
                time_us(5, [&] { sink += nearest_layouts(invalid).size(); }) / 1000);
    return sink == 0 ? 1 : 0;
}
