// Precision per operation, kernel stacks, power limits and the allocator figures of the
// estimate, and the single meaning of FP8 in project files and exporters (docs/accuracy.md,
// docs/project-format.md).
#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "export/export.h"
#include "export/import.h"
#include "project/project.h"
#include "util/input_error.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {

nlohmann::json project_json(const std::string& framework, const nlohmann::json& training,
                            const nlohmann::json& layout_extra, const std::string& gpu = "h100-sxm") {
    nlohmann::json layout = {{"framework", framework}, {"tp", 1}, {"pp", 1}, {"recompute", "full"}};
    for (auto it = layout_extra.begin(); it != layout_extra.end(); ++it) layout[it.key()] = it.value();
    nlohmann::json t = {{"global_batch_size", 16}, {"micro_batch_size", 2}, {"seq_len", 8192}, {"precision", "bf16"}};
    for (auto it = training.begin(); it != training.end(); ++it) t[it.key()] = it.value();
    return {{"paraplan", 1},
            {"name", "precision test"},
            {"cluster",
             {{"gpu", gpu},
              {"nodes", 1},
              {"gpus_per_node", 8},
              {"network", {{"inter_node_gbps", 3200}, {"latency_us", 5}}}}},
            {"model", {{"preset", "llama3.1-8b"}}},
            {"training", t},
            {"layout", layout}};
}

Estimate estimate_of(const nlohmann::json& j) { return estimate_project(project_from_json(j)); }

std::string file_text(const FormatOutput& out, const std::string& name) {
    const auto it = out.files.find(name);
    return it == out.files.end() ? std::string() : it->second.content;
}

}   // namespace

class TestEstimatePrecision : public QObject {
    Q_OBJECT
private slots:
    void legacy_fp8_precision_loads_as_bf16_plus_fp8() {
        const Project p = project_from_json(project_json("megatron", {{"precision", "fp8"}}, nlohmann::json::object()));
        QCOMPARE(p.training.precision, std::string("bf16"));
        QVERIFY(p.layout.fp8);
        QCOMPARE(p.layout.fp8_recipe, std::string("tensorwise"));
        // Saved with the one meaning, and read back the same.
        const nlohmann::json saved = project_to_json(p);
        QCOMPARE(saved["training"]["precision"].get<std::string>(), std::string("bf16"));
        QCOMPARE(saved["layout"]["fp8"].get<bool>(), true);
        // The legacy spelling and the new one give the same estimate.
        const Estimate a = estimate_project(p);
        const Estimate b = estimate_of(project_json("megatron", nlohmann::json::object(), {{"fp8", true}}));
        QCOMPARE(a.time.step_s, b.time.step_s);
        QCOMPARE(a.memory.peak_bytes, b.memory.peak_bytes);
    }

    void new_fields_round_trip_and_are_checked() {
        const Project p = project_from_json(
            project_json("torchtitan", nlohmann::json::object(),
                         {{"fp8", true}, {"fp8_recipe", "rowwise"}, {"fp8_all_gather", true}, {"kernels", "compile"}}));
        QCOMPARE(p.layout.fp8_recipe, std::string("rowwise"));
        QVERIFY(p.layout.fp8_all_gather);
        QCOMPARE(p.layout.kernels, std::string("compile"));
        const Project q = project_from_json(project_to_json(p));
        QCOMPARE(q.layout.fp8_recipe, p.layout.fp8_recipe);
        QCOMPARE(q.layout.fp8_all_gather, p.layout.fp8_all_gather);
        QCOMPARE(q.layout.kernels, p.layout.kernels);
        try {
            project_from_json(project_json("megatron", nlohmann::json::object(), {{"fp8_recipe", "int4"}}));
            QFAIL("an unknown recipe was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("/layout/fp8_recipe") != std::string::npos, e.what());
        }
        QCOMPARE(kernel_stack(p.layout), std::string("compile"));
        Layout l;
        l.framework = "megatron";
        QCOMPARE(kernel_stack(l), std::string("te"));
        l.framework = "torchtitan";
        QCOMPARE(kernel_stack(l), std::string("eager"));
    }

    void fp8_speeds_up_only_the_linear_gemms() {
        const Estimate bf = estimate_of(project_json("megatron", nlohmann::json::object(), nlohmann::json::object()));
        const Estimate f8 = estimate_of(project_json("megatron", nlohmann::json::object(), {{"fp8", true}}));
        // FP8 doubles only the GEMM peak: the step gets faster, but by well under 2x, because
        // attention, element-wise work, casts, the loss head and the optimizer stay 16/32-bit.
        QVERIFY(f8.time.step_s < bf.time.step_s);
        QVERIFY(f8.time.step_s > 0.5 * bf.time.step_s);
        QVERIFY(f8.time.step_s > 0.6 * bf.time.step_s);
        // MFU stays against the 16-bit peak (and so rises with FP8).
        QCOMPARE(f8.hardware.peak_tflops, bf.hardware.peak_tflops);
        QVERIFY(f8.hardware.peak_fp8_tflops > 1.9 * f8.hardware.peak_tflops);
        QVERIFY(f8.time.mfu > bf.time.mfu);
        // Transformer Engine's FP8 weight copies (2 B per local linear parameter) add memory.
        const double params = bf.memory.stages[0].params_count;
        const double extra = f8.memory.stages[0].buffers - bf.memory.stages[0].buffers;
        QVERIFY2(extra > 1.5 * params && extra < 2.0 * params, qPrintable(QString("%1 vs %2").arg(extra).arg(params)));
        // Delayed scaling moves fewer cast bytes than current (tensorwise) scaling.
        const Estimate dl = estimate_of(
            project_json("megatron", nlohmann::json::object(), {{"fp8", true}, {"fp8_recipe", "delayed"}}));
        QVERIFY(dl.time.step_s < f8.time.step_s);
        // A GPU without FP8 tensor cores estimates in 16-bit and says so.
        const Estimate a100 = estimate_of(
            project_json("megatron", nlohmann::json::object(), {{"fp8", true}}, "a100-80g"));
        const Estimate a100bf = estimate_of(
            project_json("megatron", nlohmann::json::object(), nlohmann::json::object(), "a100-80g"));
        QCOMPARE(a100.time.step_s, a100bf.time.step_s);
        bool noted = false;
        for (const auto& n : a100.notes) noted = noted || n.find("no FP8 tensor cores") != std::string::npos;
        QVERIFY(noted);
    }

    void kernel_stack_orders_the_step_time() {
        const Estimate te = estimate_of(project_json("torchtitan", nlohmann::json::object(), {{"kernels", "te"}}));
        const Estimate cc = estimate_of(project_json("torchtitan", nlohmann::json::object(), {{"kernels", "compile"}}));
        const Estimate ea = estimate_of(project_json("torchtitan", nlohmann::json::object(), {{"kernels", "eager"}}));
        QVERIFY(te.time.step_s < cc.time.step_s);
        QVERIFY(cc.time.step_s < ea.time.step_s);
        const Efficiency h_te = efficiency_for("hopper", KernelStack::te);
        const Efficiency h_sdpa = efficiency_for("hopper", KernelStack::compile);
        QVERIFY(h_te.attention > h_sdpa.attention);   // cuDNN/FA3-class vs FlashAttention-2 through SDPA
        QCOMPARE(h_sdpa.attention, 0.35);
        QCOMPARE(efficiency_for("hopper").gemm_max, h_te.gemm_max);
    }

    void power_limit_derates_the_peaks() {
        const GpuSpec* sxm = catalog::find_gpu("h100-sxm");
        const GpuSpec* capped = catalog::find_gpu("h100-96g-500w");
        QVERIFY(sxm && capped);
        QCOMPARE(sxm->power_derate(), 1.0);
        QCOMPARE(capped->power_limit_w, 500.0);
        // Linear between the SXM (700 W, 989.4) and NVL (400 W, 835.5) datasheet points.
        QVERIFY(std::abs(capped->power_derate() -
                         (1 - (1 - 835.5 / 989.4) / (1 - 400.0 / 700.0) * (1 - 500.0 / 700.0))) < 1e-12);
        GpuSpec nvl_like = *sxm;
        nvl_like.power_limit_w = 400;
        QVERIFY(std::abs(nvl_like.power_derate() * 989.4 - 835.5) < 1e-6);
        const Hardware hw = hardware_for(*capped, Cluster{}, "bf16");
        QVERIFY(std::abs(hw.peak_tflops - 989.4 * capped->power_derate()) < 1e-9);
        QVERIFY(std::abs(hw.power_ratio - 500.0 / 700.0) < 1e-12);
        // Above the TDP is refused with the field named.
        nlohmann::json g = to_json(*sxm);
        g["power_limit_w"] = 800;
        try {
            gpu_from_json(g, "/gpus/3");
            QFAIL("a power limit above the TDP was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("/gpus/3/power_limit_w") != std::string::npos, e.what());
        }
    }

    void allocated_reserved_and_peak() {
        const Estimate e = estimate_of(project_json("torchtitan", nlohmann::json::object(), {{"kernels", "compile"}}));
        const auto& m = e.memory;
        QVERIFY(m.allocated_peak_bytes > 0);
        QVERIFY(m.reserved_peak_bytes > m.allocated_peak_bytes);
        QVERIFY(m.peak_bytes > m.reserved_peak_bytes);   // + CUDA context and NCCL buffers
        for (const auto& s : m.stages) {
            QCOMPARE(s.allocated(), s.params + s.grads + s.optimizer + s.activations + s.buffers);
            QVERIFY(s.other >= s.buffers + s.fragmentation);
        }
        // FSDP2 (dp_shard 8): gathered layer buffers are counted; FP8 all-gather halves them.
        const Estimate ag = estimate_of(project_json(
            "torchtitan", nlohmann::json::object(), {{"kernels", "compile"}, {"fp8", true}, {"fp8_all_gather", true}}));
        QVERIFY(m.stages[0].buffers > 0);
        QVERIFY(ag.memory.stages[0].buffers < m.stages[0].buffers);
        // The JSON keeps every old field and adds the new figures.
        const nlohmann::json j = to_json(e);
        for (const char* k :
             {"peak_gib", "peak_stage", "capacity_gib", "fits", "allocated_peak_gib", "reserved_peak_gib"})
            QVERIFY2(j["memory"].contains(k), k);
        for (const char* k :
             {"total_gib", "other_gib", "allocated_gib", "reserved_gib", "buffers_gib", "fragmentation_gib"})
            QVERIFY2(j["memory"]["stages"][0].contains(k), k);
        QCOMPARE(j["layout"]["kernels"].get<std::string>(), std::string("compile"));
        QCOMPARE(j["layout"]["fp8_recipe"].get<std::string>(), std::string("none"));
    }

    // layout.loss_logits: what the training loop holds of the logits through the eager loss's
    // backward. kept_fp32 (fp32 logits returned and kept) holds 4 B per logit more than freed, and
    // the field is saved and read back; an unknown value is refused at its JSON pointer.
    void loss_logits_field() {
        const auto with = [](const char* v) {
            return project_json("colossalai", nlohmann::json::object(), {{"loss_logits", v}});
        };
        const Project kept = project_from_json(with("kept_fp32"));
        QCOMPARE(kept.layout.loss_logits, std::string("kept_fp32"));
        QCOMPARE(project_to_json(kept)["layout"]["loss_logits"].get<std::string>(), std::string("kept_fp32"));
        QVERIFY(!project_to_json(project_from_json(with("auto")))["layout"].contains("loss_logits"));
        const Estimate k = estimate_project(kept);
        const Estimate f = estimate_of(with("freed"));
        const Estimate b = estimate_of(with("kept"));
        // Local batch 2 x 8192 tokens, Llama 3.1 8B's vocabulary 128256 (no tp).
        const double logits = 2.0 * 8192 * 128256;
        QVERIFY2(qAbs(k.memory.allocated_peak_bytes - f.memory.allocated_peak_bytes - 4 * logits) < 1e3,
                 qPrintable(QString::number(k.memory.allocated_peak_bytes - f.memory.allocated_peak_bytes)));
        QVERIFY2(qAbs(b.memory.allocated_peak_bytes - f.memory.allocated_peak_bytes - 2 * logits) < 1e3,
                 qPrintable(QString::number(b.memory.allocated_peak_bytes - f.memory.allocated_peak_bytes)));
        QCOMPARE(to_json(k)["layout"]["loss_logits"].get<std::string>(), std::string("kept_fp32"));
        try {
            project_from_json(with("gone"));
            QFAIL("an unknown loss_logits was accepted");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("/layout/loss_logits") != std::string::npos, e.what());
        }
    }

    void exporters_write_the_recipe() {
        ExportOptions opt;
        Project meg = project_from_json(project_json("megatron", nlohmann::json::object(),
                                                     {{"fp8", true}, {"fp8_recipe", "mxfp8"}, {"fp8_all_gather", true}},
                                                     "b200"));
        std::vector<Diagnostic> findings;
        const MegatronArgs a = megatron_args(meg, findings);
        std::string flat;
        for (const auto& arg : a.training) flat += arg + " ";
        QVERIFY2(flat.find("--fp8-format hybrid ") != std::string::npos, flat.c_str());
        QVERIFY2(flat.find("--fp8-recipe mxfp8 ") != std::string::npos, flat.c_str());
        QVERIFY2(flat.find("--fp8-param-gather") != std::string::npos, flat.c_str());
        QVERIFY2(flat.find("--bf16") != std::string::npos, flat.c_str());

        Project tt = project_from_json(
            project_json("torchtitan", nlohmann::json::object(),
                         {{"fp8", true}, {"fp8_recipe", "rowwise"}, {"kernels", "compile"}}));
        const std::string toml = file_text(export_torchtitan(tt, opt), "job.toml");
        QVERIFY2(toml.find("converters = [\"quantize.linear.float8\"]") != std::string::npos, toml.c_str());
        QVERIFY2(toml.find("[quantize.linear.float8]") != std::string::npos, toml.c_str());
        QVERIFY2(toml.find("recipe_name = \"rowwise\"") != std::string::npos, toml.c_str());
        QVERIFY2(toml.find("[compile]\nenable = true\ncomponents = [\"model\"]\n") != std::string::npos, toml.c_str());
        // A compiled loss is written only when the project says so, and reads back the same.
        tt.layout.compile_loss = true;
        const std::string toml_loss = file_text(export_torchtitan(tt, opt), "job.toml");
        QVERIFY2(toml_loss.find("components = [\"model\", \"loss\"]") != std::string::npos, toml_loss.c_str());
        QVERIFY(import_config(toml_loss, "torchtitan", default_import_base(8), true).project.layout.compile_loss);
        QVERIFY(!import_config(toml, "torchtitan", default_import_base(8), true).project.layout.compile_loss);
        QVERIFY2(toml.find("mixed_precision_param = \"bfloat16\"") != std::string::npos, toml.c_str());
    }
};

QTEST_APPLESS_MAIN(TestEstimatePrecision)
#include "tst_estimate_precision.moc"
