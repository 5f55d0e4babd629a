#pragma once
// The published runs of tests/data/estimate_accuracy.json, each priced as a project of its shape:
// shared by tst_estimate_accuracy (the targets) and tst_error_band (the error band they ship).
#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "estimate/simulated_pipeline.h"
#include "estimate_test_models.h"
#include "network/systems.h"

#include <QtGlobal>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace paraplan::accuracy_table {

using namespace paraplan;
using namespace paraplan::estimate;

inline nlohmann::json load_table() {
    std::ifstream f(PARAPLAN_TEST_DATA "/estimate_accuracy.json");
    return nlohmann::json::parse(f);
}

// Ids the table used before it named catalog entries (rows written against the old format).
inline std::string catalog_id(std::string id) {
    if (id == "a100-80gb") return "a100-80g";
    if (id == "llama3-405b") return "llama3.1-405b";
    return id;
}

inline ModelSpec model_of(const nlohmann::json& mj, const nlohmann::json& models) {
    // The table's own architectures ("models": {id: spec}), read as a project's inline model.
    if (mj.is_string() && models.contains(mj.get<std::string>()))
        return model_from_json(models.at(mj.get<std::string>()), "/models/" + mj.get<std::string>());
    if (mj.is_string()) {
        const ModelSpec* m = catalog::find_model(catalog_id(mj.get<std::string>()));
        if (!m) throw std::runtime_error("unknown model " + mj.get<std::string>());
        return *m;
    }
    if (mj.value("paper_gpt", false)) return paper_gpt(mj.at("layers"), mj.at("hidden"), mj.at("heads"));
    return model_from_json(mj, "/model");
}

struct Outcome {
    std::string name, set, metric;
    double published = 0, predicted = 0;   // in the row's metric
    double step_published = 0, step_predicted = 0;
    double step_err = 0;   // predicted / published step time - 1
    double mfu = 0;
    double mem_published = 0, mem_predicted = 0;   // GiB (0: not printed by the source)
    bool fits = true, fit_check = true;
    RunKind kind;
    double tolerance = 0.15;   // tune rows: the largest |step error| allowed (wider only for a documented miss)
};

inline Outcome run(const nlohmann::json& r, const nlohmann::json& models) {
    const GpuSpec* gpu = catalog::find_gpu(catalog_id(r.at("gpu").get<std::string>()));
    if (!gpu) throw std::runtime_error("unknown gpu " + r.at("gpu").get<std::string>());
    // Each row is priced as a project of its shape is (hardware_for on its cluster): nodes of 8
    // of its GPUs with its inter_node_gbps; a row that names its system
    // (resources/catalog/systems.json) is priced on that system's tiers, as a project with
    // cluster.system is, its nodes the system's trays.
    const int gpus = r.at("gpus");
    Cluster cluster;
    int per_node = 8;
    if (r.contains("system")) {
        const auto* sys = paraplan::network::find_system(r.at("system").get<std::string>());
        if (!sys) throw std::runtime_error("unknown system " + r.at("system").get<std::string>());
        if (sys->gpu != gpu->id) throw std::runtime_error("system " + sys->id + " is not built of " + gpu->id);
        cluster.system = sys->id;
        per_node = sys->gpus_per_tray;
    }
    cluster.network.inter_node_gbps = r.at("inter_node_gbps");
    for (int i = 0; i < (gpus + per_node - 1) / per_node; ++i) {
        Node n;
        n.name = "node" + std::to_string(i);
        n.gpu = gpu->id;
        n.gpus = per_node;
        cluster.nodes.push_back(std::move(n));
    }
    const Hardware hw = hardware_for(*gpu, cluster, Precision::bf16);
    const ModelSpec m = model_of(r.at("model"), models);
    Training t;
    t.global_batch_size = r.at("global_batch");
    t.micro_batch_size = r.at("micro_batch");
    t.seq_len = r.at("seq");
    t.precision = Precision::bf16;
    Layout l;
    l.framework = r.value("framework", "megatron");
    l.ep = r.value("ep", 1);
    l.etp = r.value("etp", 0);
    l.moe_dispatcher = r.value("moe_dispatcher", MoeDispatcher::alltoall);
    l.moe_imbalance = r.value("moe_imbalance", 0.0);
    l.moe_overlap = r.value("moe_overlap", false);
    // TP communication overlap where the run's own config turns it on (each row's source says).
    l.tp_comm_overlap = r.value("tp_comm_overlap", false);
    l.enable_async_tensor_parallel = r.value("enable_async_tensor_parallel", false);
    if (r.contains("tp_comm_overlap_cfg")) l.tp_comm_overlap_cfg = r.at("tp_comm_overlap_cfg");
    l.tp = r.at("tp");
    l.pp = r.at("pp");
    l.cp = r.value("cp", 1);
    l.dp_shard = r.value("dp_shard", -1);
    l.schedule = r.at("schedule").get<Schedule>();
    l.chunks = r.at("chunks");
    l.recompute = r.at("recompute").get<Recompute>();
    l.sp_mode = r.value("sequence_parallel", false) ? SpMode::split_gather : SpMode::none;
    l.flash_attention = r.value("flash_attention", false);
    l.distributed_optimizer = r.value("distributed_optimizer", false);
    l.zero_stage = r.value("zero_stage", 0);
    // A manual split the run used (e.g. Megatron-DeepSpeed's partition counting the tied embedding).
    if (r.contains("num_layers_per_stage"))
        l.num_layers_per_stage = r.at("num_layers_per_stage").get<std::vector<int>>();
    // Megatron's --account-for-embedding/loss-in-pipeline-split, where the run's recipe sets them.
    l.account_for_embedding_in_pipeline_split = r.value("account_for_embedding_in_pipeline_split", false);
    l.account_for_loss_in_pipeline_split = r.value("account_for_loss_in_pipeline_split", false);
    l.kernels = r.value("kernels", KernelStack::framework);
    l.compile_loss = r.value("compile_loss", false);
    l.loss_logits = r.value("loss_logits", LossLogits::framework);
    if (r.contains("fp8")) {
        l.fp8 = true;
        l.fp8_recipe = r.at("fp8").get<Fp8Recipe>();
        l.fp8_all_gather = r.value("fp8_all_gather", false);
    }
    const Config c = make_config(m, t, l, hw, gpus);
    // As estimate_project(): the pipeline term from the schedule simulator.
    const Estimate e = evaluate(m, layer_shapes(m), c, hw, simulated_pipeline(c.link[kPp].latency_s));

    Outcome o;
    o.kind = run_kind(c, m.is_moe(), hw.arch);
    o.name = r.at("name");
    o.set = r.at("set");
    o.metric = r.at("metric");
    o.published = r.at("published");
    o.step_predicted = e.time.step_s;
    o.mfu = e.time.mfu;
    const double tokens = double(t.global_batch_size) * t.seq_len;
    if (o.metric == "mfu") {
        o.predicted = e.time.mfu;
        o.step_published = e.time.flops.model / (o.published * gpus * hw.peak_tflops * 1e12);
    } else if (o.metric == "tflops_per_gpu") {
        o.predicted = e.time.tflops_per_gpu;
        o.step_published = e.time.flops.hardware / (o.published * 1e12 * gpus);
    } else if (o.metric == "step_s") {
        // The published step time of the whole global batch, seconds.
        o.predicted = e.time.step_s;
        o.step_published = o.published;
    } else {
        o.predicted = e.time.tokens_per_s / gpus;
        o.step_published = tokens / (o.published * gpus);
    }
    o.step_err = o.step_predicted / o.step_published - 1;
    if (r.contains("published_memory_gib")) {
        o.mem_published = r.at("published_memory_gib");
        // The figure the source prints, named by the row: torch.cuda.max_memory_reserved
        // ("reserved", torchtitan's log), max_memory_allocated ("allocated"), or the whole
        // device footprint ("total", nvidia-smi).
        const std::string which = r.value("memory_metric", "reserved");
        if (which == "reserved") o.mem_predicted = e.memory.reserved_peak_bytes / kGiB;
        else if (which == "allocated") o.mem_predicted = e.memory.allocated_peak_bytes / kGiB;
        else if (which == "total") o.mem_predicted = e.memory.peak_bytes / kGiB;
        else throw std::runtime_error("memory_metric must be reserved, allocated or total, not " + which);
    }
    // PARAPLAN_ACCURACY_STAGES=1: each pipeline stage's memory terms (GiB), to see where a row's peak is.
    if (std::getenv("PARAPLAN_ACCURACY_STAGES"))
        for (const auto& st : e.memory.stages)
            qInfo(
                "  stage %d inflight %.1f params %.2f grads %.2f opt %.2f act %.2f buffers %.2f frag %.2f alloc %.2f "
                "reserved %.2f",
                st.stage, st.inflight, st.params / kGiB, st.grads / kGiB, st.optimizer / kGiB, st.activations / kGiB,
                st.buffers / kGiB, st.fragmentation / kGiB, st.allocated() / kGiB, st.reserved() / kGiB);
    o.fits = e.memory.fits;
    o.fit_check = r.value("fit_check", true);
    o.tolerance = r.value("tolerance", 0.15);
    qInfo(
        "%-8s %-62s %-20s published %9.3f predicted %9.3f step %+6.1f%%  mem %5.1f / %5.1f GiB (reserved %.1f, peak "
        "%.1f)",
        o.set.c_str(), o.name.c_str(), o.metric.c_str(), o.published, o.predicted, 100 * o.step_err, o.mem_predicted,
        o.mem_published, e.memory.reserved_peak_bytes / kGiB, e.memory.peak_bytes / kGiB);
    return o;
}

inline Outcome run_checked(const nlohmann::json& r, const nlohmann::json& models) {
    try {
        return run(r, models);
    } catch (const std::exception& e) {
        throw std::runtime_error(r.value("name", "?") + ": " + e.what());
    }
}

inline std::vector<Outcome> run_all() {
    const auto table = load_table();
    std::vector<Outcome> out;
    const nlohmann::json models = table.value("models", nlohmann::json::object());
    for (const auto& r : table.at("runs")) out.push_back(run_checked(r, models));
    return out;
}

}   // namespace paraplan::accuracy_table
