// Step-time / MFU / peak-memory predictions against published measurements
// (tests/data/estimate_accuracy.json, mirrored in docs/accuracy.md). Constants are fitted
// on the rows marked "tune"; the done-when targets are asserted on the "held_out" rows:
// mean |step-time error| <= 10%, worst <= 25%, Llama 3 405B (16K H100) MFU in 0.38-0.48,
// peak memory within 10% where the source prints it. A target the model does not meet is
// marked QEXPECT_FAIL with the measured figure, and listed in docs/accuracy.md.
#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "estimate/simulated_pipeline.h"
#include "estimate_test_models.h"
#include "network/systems.h"

#include <QtTest>

#include <cstdlib>
#include <fstream>
#include <memory>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {

nlohmann::json load_table() {
    std::ifstream f(PARAPLAN_TEST_DATA "/estimate_accuracy.json");
    return nlohmann::json::parse(f);
}

// Ids the table used before it named catalog entries (rows written against the old format).
std::string catalog_id(std::string id) {
    if (id == "a100-80gb") return "a100-80g";
    if (id == "llama3-405b") return "llama3.1-405b";
    return id;
}

ModelSpec model_of(const nlohmann::json& mj, const nlohmann::json& models) {
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
    double tolerance = 0.15;   // tune rows: the largest |step error| allowed (wider only for a documented miss)
};

Outcome run(const nlohmann::json& r, const nlohmann::json& models) {
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
    const Hardware hw = hardware_for(*gpu, cluster, "bf16");
    const ModelSpec m = model_of(r.at("model"), models);
    Training t;
    t.global_batch_size = r.at("global_batch");
    t.micro_batch_size = r.at("micro_batch");
    t.seq_len = r.at("seq");
    t.precision = "bf16";
    Layout l;
    l.framework = r.value("framework", "megatron");
    l.ep = r.value("ep", 1);
    l.etp = r.value("etp", 0);
    l.moe_dispatcher = r.value("moe_dispatcher", std::string("alltoall"));
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
    l.schedule = r.at("schedule");
    l.chunks = r.at("chunks");
    l.recompute = r.at("recompute");
    l.sp_mode = r.value("sequence_parallel", false) ? "split_gather" : "none";
    l.flash_attention = r.value("flash_attention", false);
    l.distributed_optimizer = r.value("distributed_optimizer", false);
    l.zero_stage = r.value("zero_stage", 0);
    // A manual split the run used (e.g. Megatron-DeepSpeed's partition counting the tied embedding).
    if (r.contains("num_layers_per_stage"))
        l.num_layers_per_stage = r.at("num_layers_per_stage").get<std::vector<int>>();
    // Megatron's --account-for-embedding/loss-in-pipeline-split, where the run's recipe sets them.
    l.account_for_embedding_in_pipeline_split = r.value("account_for_embedding_in_pipeline_split", false);
    l.account_for_loss_in_pipeline_split = r.value("account_for_loss_in_pipeline_split", false);
    l.kernels = r.value("kernels", "auto");
    l.compile_loss = r.value("compile_loss", false);
    l.loss_logits = r.value("loss_logits", std::string("auto"));
    if (r.contains("fp8")) {
        l.fp8 = true;
        l.fp8_recipe = r.at("fp8");
        l.fp8_all_gather = r.value("fp8_all_gather", false);
    }
    const Config c = make_config(m, t, l, hw, gpus);
    // As estimate_project(): the pipeline term from the schedule simulator.
    const Estimate e = evaluate(m, layer_shapes(m), c, hw, simulated_pipeline(c.link[kPp].latency_s));

    Outcome o;
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

Outcome run_checked(const nlohmann::json& r, const nlohmann::json& models) {
    try {
        return run(r, models);
    } catch (const std::exception& e) {
        throw std::runtime_error(r.value("name", "?") + ": " + e.what());
    }
}

std::vector<Outcome> run_all() {
    const auto table = load_table();
    std::vector<Outcome> out;
    const nlohmann::json models = table.value("models", nlohmann::json::object());
    for (const auto& r : table.at("runs")) out.push_back(run_checked(r, models));
    return out;
}

struct Summary {
    int n = 0;
    double mean_abs = 0, worst = 0;
    std::string worst_name;
    int mem_n = 0, mem_within = 0;   // rows with a published peak memory; of which within 10%
    double mem_mean_abs = 0, mem_worst = 0;
};

Summary summarise(const std::vector<Outcome>& all, const std::string& set) {
    Summary s;
    for (const auto& o : all) {
        if (o.set != set) continue;
        ++s.n;
        s.mean_abs += std::abs(o.step_err);
        if (std::abs(o.step_err) > std::abs(s.worst)) {
            s.worst = o.step_err;
            s.worst_name = o.name;
        }
        if (o.mem_published > 0) {
            const double me = o.mem_predicted / o.mem_published - 1;
            ++s.mem_n;
            s.mem_mean_abs += std::abs(me);
            s.mem_worst = std::max(s.mem_worst, std::abs(me));
            s.mem_within += std::abs(me) <= 0.10;
        }
    }
    if (s.n) s.mean_abs /= s.n;
    if (s.mem_n) s.mem_mean_abs /= s.mem_n;
    qInfo(
        "%s: %d runs, mean |step error| %.1f%%, worst %+.1f%% (%s); memory: %d runs, mean |error| %.1f%%, worst %.1f%%",
        set.c_str(), s.n, 100 * s.mean_abs, 100 * s.worst, s.worst_name.c_str(), s.mem_n, 100 * s.mem_mean_abs,
        100 * s.mem_worst);
    return s;
}

}   // namespace

class TestEstimateAccuracy : public QObject {
    Q_OBJECT
private slots:
    void table_is_complete() {
        // Every row names its source, how the step time was derived, and its set; the table
        // holds at least 40 measured runs.
        const auto table = load_table();
        QVERIFY(table.at("runs").size() >= 40);
        int held = 0;
        for (const auto& r : table.at("runs")) {
            QVERIFY2(!r.value("source", "").empty(), qPrintable(QString::fromStdString(r.at("name"))));
            // How the step time was derived ("derived" in the MoE rows' spelling).
            QVERIFY2(!r.value("derivation", r.value("derived", "")).empty(),
                     qPrintable(QString::fromStdString(r.at("name"))));
            const std::string set = r.at("set");
            QVERIFY(set == "tune" || set == "held_out");
            held += set == "held_out";
        }
        QVERIFY(held >= 20);
    }

    void published_runs_data() {
        QTest::addColumn<int>("index");
        const auto table = load_table();
        for (std::size_t i = 0; i < table.at("runs").size(); ++i)
            QTest::newRow(table["runs"][i].at("name").get<std::string>().c_str()) << int(i);
    }
    void published_runs() {
        QFETCH(int, index);
        const auto table = load_table();
        Outcome o;
        try {
            o = run(table.at("runs").at(index), table.value("models", nlohmann::json::object()));
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QVERIFY(o.step_predicted > 0 && std::isfinite(o.step_predicted));
        // Rows the constants were fitted on stay close (the fit is not allowed to trade one
        // tune row for another); held-out rows are judged together below.
        if (o.set == "tune")
            QVERIFY2(std::abs(o.step_err) <= o.tolerance, qPrintable(QString("step error %1").arg(o.step_err)));
        // The published runs ran: they fit (rows marked fit_check: false are the known
        // exceptions, explained in docs/accuracy.md).
        if (o.fit_check) QVERIFY(o.fits);
    }

    void held_out_targets() {
        const auto all = run_all();
        const Summary tune = summarise(all, "tune");
        const Summary held = summarise(all, "held_out");
        QVERIFY(tune.n > 0 && held.n >= 20);
        QVERIFY(tune.mean_abs <= 0.10);
        // The worst held-out row (torchtitan 8B TP 8 rowwise FP8, -23%) is inside the target;
        // the torchtitan 8B CP 2 run, which no mechanism found explains, sits at +19%
        // (docs/accuracy.md, "Misses").
        QVERIFY2(held.mean_abs <= 0.10, qPrintable(QString("held-out mean |error| %1").arg(held.mean_abs)));
        QVERIFY2(std::abs(held.worst) <= 0.25,
                 qPrintable(QString("held-out worst %1 (%2)").arg(held.worst).arg(held.worst_name.c_str())));
    }

    void llama3_405b_mfu() {
        // Dubey et al. 2024 Table 4: 38-43% BF16 MFU on 8K-16K H100s; the target band 0.38-0.48.
        for (const auto& o : run_all()) {
            if (o.name.rfind("Llama 3 405B, 16K GPUs (", 0) != 0) continue;
            QVERIFY2(o.mfu >= 0.38 && o.mfu <= 0.48, qPrintable(QString("MFU %1").arg(o.mfu)));
            return;
        }
        QFAIL("the Llama 3 405B 16K row is missing");
    }

    void peak_memory_within_10_percent() {
        const auto all = run_all();
        const Summary held = summarise(all, "held_out");
        QVERIFY(held.mem_n > 0);
        // Known misses (docs/accuracy.md): torchtitan's 405B pp 8 runs reserve 11-19% more than
        // the model counts; every other held-out row (10 of 16) is within 10%. Mean, worst and that
        // count are kept from regressing.
        QVERIFY2(held.mem_mean_abs <= 0.08,
                 qPrintable(QString("held-out memory mean |error| %1").arg(held.mem_mean_abs)));
        QVERIFY2(held.mem_worst <= 0.20, qPrintable(QString("held-out memory worst |error| %1").arg(held.mem_worst)));
        QVERIFY2(held.mem_within >= 10,
                 qPrintable(QString("held-out memory rows within 10%: %1").arg(held.mem_within)));
        if (held.mem_worst > 0.10)
            QEXPECT_FAIL("", "held-out peak memory beyond 10% on some rows (docs/accuracy.md)", Continue);
        QVERIFY2(held.mem_worst <= 0.10, qPrintable(QString("held-out memory worst |error| %1").arg(held.mem_worst)));
    }
};

QTEST_APPLESS_MAIN(TestEstimateAccuracy)
#include "tst_estimate_accuracy.moc"
