#pragma once
// A large Megatron project for the scale tests and the GUI benchmarks: GPT-2 widths with 128
// layers (so 64 pipeline stages hold 2 layers each) on `nodes` x 8 GPUs, tp 4, pp 64 and 256
// microbatches per pipeline; the global batch follows dp.
#include "project/project.h"

#include <string>

inline paraplan::Project scale_project(int nodes) {
    paraplan::Project p = paraplan::load_example("gpt2-1node");
    p.model_preset.clear();
    p.model.layers = 128;
    p.cluster.short_form = false;
    p.cluster.nodes.resize(std::size_t(nodes), p.cluster.nodes[0]);
    for (std::size_t i = 0; i < p.cluster.nodes.size(); ++i) p.cluster.nodes[i].name = "n" + std::to_string(i);
    p.layout.framework = "megatron";
    p.layout.tp = 4;
    p.layout.pp = 64;
    p.layout.sp = 1;
    p.layout.sp_mode = paraplan::SpMode::none;
    p.layout.zero_stage = 0;
    p.layout.schedule = paraplan::Schedule::one_f_one_b;
    p.layout.chunks = 1;
    p.layout.num_microbatches = 256;
    p.training.micro_batch_size = 1;
    p.training.global_batch_size = 256 * (nodes * 8 / (4 * 64));   // 256 microbatches x dp
    return p;
}
