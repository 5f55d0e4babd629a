#pragma once
// A fluent builder of test projects: fills the real paraplan::Project (the struct the
// project loader produces and validate(), make_config() and estimate_project() read), one
// setter per field, named as the field is. It adds no defaults of its own: a new builder
// holds a default-constructed Project, and ProjectBuilder(p) starts from an existing one.
//   const Project p = ProjectBuilder(base).tp(1).sp_mode(SpMode::split_gather).seq_len(4095).build();
#include "catalog/model.h"
#include "project/project.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace paraplan::test {

class ProjectBuilder {
public:
    ProjectBuilder() = default;
    explicit ProjectBuilder(Project base) : p_(std::move(base)) {}

    Project build() const { return p_; }

    ProjectBuilder& name(const std::string& v) { return set(p_.name, v); }

    // Cluster: `count` more nodes of `gpus_per_node` GPUs of catalog type `gpu`, each named
    // "node<i>" by its position in the cluster.
    ProjectBuilder& nodes(int count, int gpus_per_node, const std::string& gpu) {
        for (int i = 0; i < count; ++i) {
            Node n;
            n.name = "node" + std::to_string(p_.cluster.nodes.size());
            n.gpu = gpu;
            n.gpus = gpus_per_node;
            p_.cluster.nodes.push_back(n);
        }
        return *this;
    }
    // Every node's GPU type.
    ProjectBuilder& gpu(const std::string& v) {
        for (auto& n : p_.cluster.nodes) n.gpu = v;
        return *this;
    }

    // Model.
    ProjectBuilder& model(const ModelSpec& v) { return set(p_.model, v); }
    ProjectBuilder& layers(int v) { return set(p_.model.layers, v); }
    ProjectBuilder& family(const std::string& v) { return set(p_.model.family, v); }
    ProjectBuilder& heads(int v) { return set(p_.model.heads, v); }
    ProjectBuilder& kv_heads(int v) { return set(p_.model.kv_heads, v); }
    ProjectBuilder& ffn_hidden(int v) { return set(p_.model.ffn_hidden, v); }
    ProjectBuilder& experts(int v) { return set(p_.model.experts, v); }

    // Training.
    ProjectBuilder& global_batch_size(int v) { return set(p_.training.global_batch_size, v); }
    ProjectBuilder& micro_batch_size(int v) { return set(p_.training.micro_batch_size, v); }
    ProjectBuilder& seq_len(int v) { return set(p_.training.seq_len, v); }
    ProjectBuilder& precision(Precision v) { return set(p_.training.precision, v); }

    // Layout.
    ProjectBuilder& framework(const std::string& v) { return set(p_.layout.framework, v); }
    ProjectBuilder& tp(int v) { return set(p_.layout.tp, v); }
    ProjectBuilder& pp(int v) { return set(p_.layout.pp, v); }
    ProjectBuilder& sp(int v) { return set(p_.layout.sp, v); }
    ProjectBuilder& sp_mode(SpMode v) { return set(p_.layout.sp_mode, v); }
    ProjectBuilder& cp(int v) { return set(p_.layout.cp, v); }
    ProjectBuilder& ep(int v) { return set(p_.layout.ep, v); }
    ProjectBuilder& etp(int v) { return set(p_.layout.etp, v); }
    ProjectBuilder& dp(int v) { return set(p_.layout.dp, v); }
    ProjectBuilder& zero_stage(int v) { return set(p_.layout.zero_stage, v); }
    ProjectBuilder& schedule(Schedule v) { return set(p_.layout.schedule, v); }
    ProjectBuilder& chunks(int v) { return set(p_.layout.chunks, v); }
    ProjectBuilder& num_microbatches(int v) { return set(p_.layout.num_microbatches, v); }
    ProjectBuilder& num_layers_per_stage(std::vector<int> v) {
        return set(p_.layout.num_layers_per_stage, std::move(v));
    }
    ProjectBuilder& recompute(Recompute v) { return set(p_.layout.recompute, v); }
    ProjectBuilder& flash_attention(bool v) { return set(p_.layout.flash_attention, v); }
    ProjectBuilder& fused_norm(bool v) { return set(p_.layout.fused_norm, v); }
    ProjectBuilder& jit_fused(bool v) { return set(p_.layout.jit_fused, v); }
    ProjectBuilder& fp8(bool v) { return set(p_.layout.fp8, v); }
    ProjectBuilder& fp8_recipe(Fp8Recipe v) { return set(p_.layout.fp8_recipe, v); }
    ProjectBuilder& fp8_all_gather(bool v) { return set(p_.layout.fp8_all_gather, v); }
    ProjectBuilder& kernels(const std::string& v) { return set(p_.layout.kernels, parse_enum<KernelStack>(v).value()); }
    ProjectBuilder& tp_comm_overlap(bool v) { return set(p_.layout.tp_comm_overlap, v); }
    ProjectBuilder& enable_async_tensor_parallel(bool v) { return set(p_.layout.enable_async_tensor_parallel, v); }
    ProjectBuilder& order(const std::string& v) { return set(p_.layout.order, v); }
    ProjectBuilder& inner_ring_size(int v) { return set(p_.layout.inner_ring_size, v); }
    ProjectBuilder& dp_shard(int v) { return set(p_.layout.dp_shard, v); }
    ProjectBuilder& dp_replicate(int v) { return set(p_.layout.dp_replicate, v); }
    ProjectBuilder& distributed_optimizer(bool v) { return set(p_.layout.distributed_optimizer, v); }
    ProjectBuilder& account_for_embedding_in_pipeline_split(bool v) {
        return set(p_.layout.account_for_embedding_in_pipeline_split, v);
    }
    ProjectBuilder& account_for_loss_in_pipeline_split(bool v) {
        return set(p_.layout.account_for_loss_in_pipeline_split, v);
    }
    ProjectBuilder& moe_dispatcher(MoeDispatcher v) { return set(p_.layout.moe_dispatcher, v); }
    ProjectBuilder& moe_capacity_factor(double v) { return set(p_.layout.moe_capacity_factor, v); }
    ProjectBuilder& moe_imbalance(double v) { return set(p_.layout.moe_imbalance, v); }
    // A layout key this version keeps in layout.extra (e.g. "megatron_version").
    ProjectBuilder& layout_extra(const std::string& key, const nlohmann::json& v) {
        p_.layout.extra.edit()[key] = v;
        return *this;
    }

    // Anything without a setter (one node's GPU count or type, another model dimension).
    ProjectBuilder& edit(const std::function<void(Project&)>& f) {
        f(p_);
        return *this;
    }

private:
    template <class T, class V>
    ProjectBuilder& set(T& field, V&& v) {
        field = std::forward<V>(v);
        return *this;
    }

    Project p_;
};

}   // namespace paraplan::test
