#pragma once
// The layout a new project starts from (File > New): plain data parallelism over every GPU,
// one micro-batch per GPU per step, and the lowest ZeRO stage at which the estimate fits the
// GPUs' memory without bringing a finding the stage-0 layout does not have. The planner (F5)
// and the Layout panel refine it from there.
#include "project/project.h"

namespace paraplan::search {

struct StartingLayout {
    int zero_stage = 0;
    bool fits = false;   // no ZeRO stage made it fit (or there is no estimate): stage 0 is kept
};

// Sets p's layout (tp = pp = sp = cp = ep = 1, its framework kept) and batch sizes; returns what
// it chose.
StartingLayout start_data_parallel(Project& p);

}   // namespace paraplan::search
