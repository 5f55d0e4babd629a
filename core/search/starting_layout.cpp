#include "search/starting_layout.h"

#include "estimate/estimate.h"
#include "rules/validate.h"

#include <algorithm>

namespace paraplan::search {
namespace {

int error_count(const Project& p) {
    const auto ds = validate(p);
    return static_cast<int>(
        std::count_if(ds.begin(), ds.end(), [](const Diagnostic& d) { return d.severity == Severity::Error; }));
}

bool fits(const Project& p) {
    try {
        return estimate::estimate_project(p).memory.fits;
    } catch (const std::exception&) {
        return false;   // no estimate (an unknown GPU, a model without sizes): nothing to fit against
    }
}

}   // namespace

StartingLayout start_data_parallel(Project& p) {
    const int world = p.world_size();
    Layout plain;
    plain.framework = p.layout.framework;
    p.layout = plain;
    p.training.micro_batch_size = 1;
    p.training.global_batch_size = world * std::max(1, (8 + world - 1) / std::max(1, world));   // divisible by dp
    if (p.model.max_seq > 0) p.training.seq_len = std::min(p.training.seq_len, p.model.max_seq);
    p.layout.zero_stage = 0;
    const int base_errors = error_count(p);
    if (base_errors == 0 && fits(p)) return {0, true};
    // ZeRO shards what every data-parallel rank would otherwise hold whole: optimizer states
    // (stage 1), gradients (2), weights (3) (Rajbhandari et al. 2020, ZeRO, section 5).
    for (int stage = 1; stage <= 3; ++stage) {
        Project q = p;
        q.layout.zero_stage = stage;
        if (error_count(q) > base_errors) continue;   // the framework does not take this stage
        if (fits(q)) {
            p = std::move(q);
            return {stage, true};
        }
    }
    return {0, false};
}

}   // namespace paraplan::search
