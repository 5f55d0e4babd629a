#pragma once
// Mixtral-8x22B with Megatron, pp 4, 256 sequences of 4K in 32 microbatches, ZeRO-1 with the
// distributed optimizer: the MoE project the network tests place on different clusters.
#include "catalog/catalog.h"
#include "project_builder.h"

namespace paraplan::test {

inline Project mixtral_megatron(int nodes, int gpus_per_node, const std::string& gpu, int tp, int ep) {
    return ProjectBuilder()
        .model(*catalog::find_model("mixtral-8x22b"))
        .nodes(nodes, gpus_per_node, gpu)
        .global_batch_size(256)
        .micro_batch_size(1)
        .seq_len(4096)
        .precision(Precision::bf16)
        .framework("megatron")
        .tp(tp)
        .pp(4)
        .ep(ep)
        .sp_mode(SpMode::split_gather)
        .zero_stage(1)
        .schedule(Schedule::one_f_one_b)
        .num_microbatches(32)
        .recompute(Recompute::none)
        .flash_attention(true)
        .distributed_optimizer(true)
        .build();
}

}   // namespace paraplan::test
