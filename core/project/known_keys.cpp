#include "project/known_keys.h"

#include <algorithm>

namespace paraplan {

std::string_view section_pointer(KeySection s) {
    switch (s) {
    case KeySection::root: return "";
    case KeySection::layout: return "/layout";
    case KeySection::training: return "/training";
    case KeySection::network: return "/cluster/network";
    case KeySection::node: return "/cluster/nodes";
    }
    return "";
}

const std::vector<std::string_view>& typed_keys(KeySection s) {
    static const std::vector<std::string_view> root = {"paraplan", "name",   "cluster", "model",
                                                       "training", "layout", "runtime"};
    static const std::vector<std::string_view> layout = {
        "framework",
        "tp",
        "pp",
        "sp",
        "sp_mode",
        "cp",
        "ep",
        "etp",
        "dp",
        "zero_stage",
        "schedule",
        "chunks",
        "num_microbatches",
        "recompute",
        "offload",
        "offload_fraction",
        "flash_attention",
        "fused_norm",
        "jit_fused",
        "fp8",
        "fp8_recipe",
        "fp8_all_gather",
        "fp8_params",
        "fp4_recipe",
        "kernels",
        "compile_loss",
        "loss_logits",
        "order",
        "dp_outside",
        "inner_ring_size",
        "dp_shard",
        "dp_replicate",
        "tp_mode",
        "tp_depth",
        "num_layers_per_stage",
        "distributed_optimizer",
        "moe_dispatcher",
        "moe_capacity_factor",
        "moe_imbalance",
        "moe_overlap",
        "tp_comm_overlap",
        "enable_async_tensor_parallel",
        "tp_comm_overlap_cfg",
        "account_for_embedding_in_pipeline_split",
        "account_for_loss_in_pipeline_split",
        "peft",
    };
    static const std::vector<std::string_view> training = {"global_batch_size", "micro_batch_size", "seq_len",
                                                           "precision",         "optimizer",        "train_tokens"};
    static const std::vector<std::string_view> network = {"inter_node_gbps", "latency_us", "tiers", "slurm_topology"};
    static const std::vector<std::string_view> node = {"name", "host", "gpu",      "gpus",
                                                       "user", "port", "identity", "intra_node_gbps"};
    switch (s) {
    case KeySection::root: return root;
    case KeySection::layout: return layout;
    case KeySection::training: return training;
    case KeySection::network: return network;
    case KeySection::node: return node;
    }
    return root;
}

bool is_typed_key(KeySection s, std::string_view key) {
    const auto& k = typed_keys(s);
    return std::find(k.begin(), k.end(), key) != k.end();
}

const std::vector<std::string_view>& extra_keys_read(KeySection s) {
    // estimate/profile.cpp (project_profile), rules/megatron.cpp (version),
    // topology/mesh_request.cpp (ColossalAI LowLevelZeroPlugin extra_dp_size).
    static const std::vector<std::string_view> root = {"estimate"};
    static const std::vector<std::string_view> layout = {"megatron_version", "extra_dp_size"};
    static const std::vector<std::string_view> none;
    switch (s) {
    case KeySection::root: return root;
    case KeySection::layout: return layout;
    default: return none;
    }
}

}   // namespace paraplan
