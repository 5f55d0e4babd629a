#pragma once
// The project the launch tests start: GPT-2 under DeepSpeed ZeRO-2 (its launch uploads
// ds_config.json), data parallel only, global batch 8 of micro batches of 1, on `cluster`.
#include "project/project.h"

#include <utility>

inline paraplan::Project gpt2_deepspeed_zero2(paraplan::Cluster cluster) {
    paraplan::Project p = paraplan::load_example("gpt2-1node");
    p.cluster = std::move(cluster);
    p.layout.framework = "deepspeed";
    p.layout.tp = 1;
    p.layout.pp = 1;
    p.layout.sp = 1;
    p.layout.sp_mode = paraplan::SpMode::none;
    p.layout.zero_stage = 2;
    p.layout.num_microbatches = 0;
    p.training.global_batch_size = 8;
    p.training.micro_batch_size = 1;
    return p;
}
