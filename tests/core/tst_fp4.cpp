// layout.fp4_recipe (issue 27): parsed once into its enum with a clear error, the rules that refuse it
// where the GPU or the framework cannot run it, the estimate by mechanism (the FP4 GEMMs at the FP4
// peak, the layers Megatron keeps in BF16 at the 16-bit peak) and the Megatron flags.
#include "catalog/catalog.h"
#include "estimate/efficiency.h"
#include "estimate/estimate.h"
#include "export/export.h"
#include "export/import.h"
#include "project/project.h"
#include "rules/apply_fix.h"
#include "rules/validate.h"
#include "util/input_error.h"

#include <QtTest>

#include <algorithm>

using namespace paraplan;

namespace {

// Llama 3.1 8B on one node of eight GPUs, data parallel only, one 4096-token microbatch per GPU.
nlohmann::json project_json(const std::string& framework, const std::string& gpu, const nlohmann::json& layout_extra) {
    nlohmann::json layout = {{"framework", framework}, {"tp", 1}, {"pp", 1}};
    for (auto it = layout_extra.begin(); it != layout_extra.end(); ++it) layout[it.key()] = it.value();
    return {{"paraplan", 1},
            {"name", "fp4 test"},
            {"cluster", {{"gpu", gpu}, {"nodes", 1}, {"gpus_per_node", 8}}},
            {"model", {{"preset", "llama3.1-8b"}}},
            {"training", {{"global_batch_size", 8}, {"micro_batch_size", 1}, {"seq_len", 4096}, {"precision", "bf16"}}},
            {"layout", layout}};
}

Project project(const std::string& framework, const std::string& gpu, const nlohmann::json& layout_extra) {
    return project_from_json(project_json(framework, gpu, layout_extra));
}

const Diagnostic* find_rule(const std::vector<Diagnostic>& ds, const std::string& rule) {
    const auto it = std::find_if(ds.begin(), ds.end(), [&](const Diagnostic& d) { return d.rule == rule; });
    return it == ds.end() ? nullptr : &*it;
}

bool has_flag_value(const std::string& text, const std::string& flag, const std::string& value) {
    return text.find(flag + " " + value) != std::string::npos;
}

std::string all_files(const FormatOutput& out) {
    std::string s;
    for (const auto& [name, f] : out.files) s += f.content;
    return s;
}

}   // namespace

class TestFp4 : public QObject {
    Q_OBJECT
private slots:
    void parses_into_the_enum_and_round_trips() {
        QCOMPARE(project("megatron", "b200", nlohmann::json::object()).layout.fp4_recipe, Fp4Recipe::none);
        const Project p = project("megatron", "b200", {{"fp4_recipe", "nvfp4"}});
        QCOMPARE(p.layout.fp4_recipe, Fp4Recipe::nvfp4);
        QCOMPARE(project("megatron", "b200", {{"fp4_recipe", "mxfp4"}}).layout.fp4_recipe, Fp4Recipe::mxfp4);
        const nlohmann::json saved = project_to_json(p);
        QCOMPARE(saved["layout"]["fp4_recipe"].get<std::string>(), std::string("nvfp4"));
        QCOMPARE(project_from_json(saved).layout.fp4_recipe, Fp4Recipe::nvfp4);
        // The default is not written.
        QVERIFY(
            !project_to_json(project("megatron", "b200", nlohmann::json::object()))["layout"].contains("fp4_recipe"));
        // A registered key: no project.unknown_key for it.
        QVERIFY(!find_rule(validate(p), "project.unknown_key"));
    }

    void a_bad_value_names_the_pointer_and_the_allowed_list() {
        for (const nlohmann::json& bad : {nlohmann::json("fp4"), nlohmann::json("NVFP4"), nlohmann::json(true)}) {
            try {
                project("megatron", "b200", {{"fp4_recipe", bad}});
                QFAIL("a bad fp4_recipe was accepted");
            } catch (const InputError& e) {
                QCOMPARE(e.pointer(), std::string("/layout/fp4_recipe"));
                for (const char* v : {"\"none\"", "\"nvfp4\"", "\"mxfp4\""})
                    QVERIFY2(e.message().find(v) != std::string::npos, e.message().c_str());
            }
        }
    }

    void gpu_rule_fires_on_h100_not_on_b200() {
        const Project h100 = project("megatron", "h100-sxm", {{"fp4_recipe", "nvfp4"}});
        const auto ds = validate(h100);
        const Diagnostic* d = find_rule(ds, "kernel.fp4_gpu");
        QVERIFY(d);
        QCOMPARE(d->severity, Severity::Error);
        QCOMPARE(d->fields.front(), std::string("/layout/fp4_recipe"));
        // It names every catalog GPU with NVIDIA FP4 tensor cores, and no other.
        for (const GpuSpec& g : catalog::gpus()) {
            const bool able = g.tflops_fp4 > 0 && g.vendor == "nvidia";
            const bool named = d->message.find(g.id + ",") != std::string::npos ||
                               d->message.find(g.id + ")") != std::string::npos;
            QVERIFY2(able == named, (g.id + ": " + d->message).c_str());
        }
        // The first fix trains without FP4 and clears the rule.
        QVERIFY(!d->fixes.empty());
        const Project fixed = with_fix(h100, d->fixes.front());
        QCOMPARE(fixed.layout.fp4_recipe, Fp4Recipe::none);
        QVERIFY(!find_rule(validate(fixed), "kernel.fp4_gpu"));

        const auto ok = validate(project("megatron", "b200", {{"fp4_recipe", "nvfp4"}}));
        QVERIFY(!find_rule(ok, "kernel.fp4_gpu"));
        QVERIFY(!find_rule(ok, "kernel.fp4_recipe"));
        QVERIFY(!find_rule(ok, "kernel.fp4_fp8"));
        // MI355X has FP4 tensor cores (MXFP4) but not NVIDIA's NVFP4.
        QVERIFY(find_rule(validate(project("megatron", "mi355x", {{"fp4_recipe", "nvfp4"}})), "kernel.fp4_gpu"));
        QVERIFY(!find_rule(validate(project("megatron", "mi355x", {{"fp4_recipe", "mxfp4"}})), "kernel.fp4_gpu"));
    }

    void framework_rule_refuses_what_it_cannot_run() {
        // Megatron-LM has nvfp4 only: mxfp4 is refused with the fix to nvfp4 first.
        const auto mx = validate(project("megatron", "b200", {{"fp4_recipe", "mxfp4"}}));
        const Diagnostic* d = find_rule(mx, "kernel.fp4_recipe");
        QVERIFY(d);
        QCOMPARE(d->severity, Severity::Error);
        QVERIFY(!d->fixes.empty());
        QCOMPARE(d->fixes.front().changes.front().value.get<std::string>(), std::string("nvfp4"));
        // The others have no FP4 training: refused, the fix sets the recipe back to none.
        for (const char* fw : {"torchtitan", "deepspeed", "colossalai", "devicemesh"}) {
            const Project p = project(fw, "b200", {{"fp4_recipe", "nvfp4"}});
            const auto ds = validate(p);
            const Diagnostic* r = find_rule(ds, "kernel.fp4_recipe");
            QVERIFY2(r, fw);
            QVERIFY2(!r->fixes.empty(), fw);
            const Project fixed = with_fix(p, r->fixes.front());
            QCOMPARE(fixed.layout.fp4_recipe, Fp4Recipe::none);
        }
        // FP4 with FP8: one format for the linear layers.
        const auto both_ds = validate(project("megatron", "b200", {{"fp4_recipe", "nvfp4"}, {"fp8", true}}));
        const Diagnostic* both = find_rule(both_ds, "kernel.fp4_fp8");
        QVERIFY(both);
        QCOMPARE(both->severity, Severity::Error);
    }

    void nvfp4_gemms_run_at_the_fp4_peak() {
        const Project fp4 = project("megatron", "b200", {{"fp4_recipe", "nvfp4"}});
        const Project fp8 = project("megatron", "b200", {{"fp8", true}});
        const Project bf16 = project("megatron", "b200", nlohmann::json::object());
        const estimate::Estimate e4 = estimate::estimate_project(fp4);
        const estimate::Estimate e8 = estimate::estimate_project(fp8);
        const estimate::Estimate e16 = estimate::estimate_project(bf16);
        QVERIFY(e4.time.step_s < e8.time.step_s);
        QVERIFY(e8.time.step_s < e16.time.step_s);

        // The GEMM time of the one stage, derived here from the catalog peaks and the layer's FLOPs:
        // Llama 3.1 8B, h 4096, 32 query heads and 8 KV heads of 128, SwiGLU ffn 14336, vocab 128256.
        const GpuSpec* b200 = catalog::find_gpu("b200");
        QVERIFY(b200);
        const double derate = b200->power_derate();
        const estimate::Efficiency eff = estimate::efficiency_for("blackwell");
        const double h = 4096, hq = 32 * 128, hkv = 8 * 128, ffn = 14336, vocab = 128256;
        const double tokens = 4096;   // one microbatch of 4096 tokens, no tp or cp split
        const double linear_flops = tokens * 2 * (h * (hq + 2 * hkv) + hq * h + 3 * h * ffn);
        const double share = tokens / (tokens + eff.gemm_d0);   // the smallest GEMM dimension is 4096 either way
        const double fp4_layer = linear_flops / (b200->tflops_fp4 * 1e12 * derate * eff.gemm_max_fp8 * share);
        const double bf16_layer = linear_flops / (b200->tflops_bf16 * 1e12 * derate * eff.gemm_max * share);
        const double logits = tokens * 2 * h * vocab / (b200->tflops_bf16 * 1e12 * derate * eff.gemm_max * share);
        // Megatron keeps the first and the last layer in BF16 (--first-last-layers-bf16, one each).
        const double expected = 30 * fp4_layer + 2 * bf16_layer + logits;
        QVERIFY(e4.time.stages.size() == 1);
        QVERIFY2(std::abs(e4.time.stages[0].compute_w / expected - 1) < 1e-9,
                 (std::to_string(e4.time.stages[0].compute_w) + " vs " + std::to_string(expected)).c_str());
        // Without FP4 every layer runs at the 16-bit peak.
        QVERIFY(std::abs(e16.time.stages[0].compute_w / (32 * bf16_layer + logits) - 1) < 1e-9);
    }

    void fp4_is_a_compute_format_for_memory() {
        // Master weights, gradients and optimizer states are the same; the cached weight copies are
        // NVFP4 (1.125 B a linear parameter) instead of FP8 (2 B).
        const auto e4 = estimate::estimate_project(project("megatron", "b200", {{"fp4_recipe", "nvfp4"}}));
        const auto e8 = estimate::estimate_project(project("megatron", "b200", {{"fp8", true}}));
        QCOMPARE(e4.memory.stages[0].params, e8.memory.stages[0].params);
        QCOMPARE(e4.memory.stages[0].grads, e8.memory.stages[0].grads);
        QCOMPARE(e4.memory.stages[0].optimizer, e8.memory.stages[0].optimizer);
        QVERIFY(e4.memory.peak_bytes < e8.memory.peak_bytes);
    }

    void megatron_writes_the_fp4_flags() {
        const std::string text = all_files(
            export_megatron(project("megatron", "b200", {{"fp4_recipe", "nvfp4"}}), ExportOptions{}));
        QVERIFY2(has_flag_value(text, "--fp4-format", "e2m1"), text.c_str());
        QVERIFY(has_flag_value(text, "--fp4-recipe", "nvfp4"));
        QVERIFY(text.find("--first-last-layers-bf16") != std::string::npos);
        QVERIFY(has_flag_value(text, "--num-layers-at-start-in-bf16", "1"));
        QVERIFY(has_flag_value(text, "--num-layers-at-end-in-bf16", "1"));
        QVERIFY(text.find("--fp8-format") == std::string::npos);
        // Read back by the Megatron importer, without warnings about the FP4 flags.
        const ImportResult back = import_megatron(text, project("megatron", "b200", nlohmann::json::object()));
        QCOMPARE(back.project.layout.fp4_recipe, Fp4Recipe::nvfp4);
        for (const auto& w : back.warnings)
            QVERIFY2(w.find("fp4") == std::string::npos && w.find("bf16") == std::string::npos, w.c_str());
        // Without FP4 no FP4 flag.
        const std::string plain = all_files(export_megatron(project("megatron", "b200", nlohmann::json::object()), {}));
        QVERIFY(plain.find("--fp4") == std::string::npos);
        // mxfp4: refused by the rule; forced, the files say FP4 is not written and carry no FP4 flag.
        const Project mx = project("megatron", "b200", {{"fp4_recipe", "mxfp4"}});
        QVERIFY(export_project(mx, "megatron", {}).refused);
        ExportOptions force;
        force.force = true;
        const ExportResult r = export_project(mx, "megatron", force);
        QVERIFY(find_rule(r.diagnostics, "export.fp4_recipe"));
        std::string files;
        for (const auto& [name, f] : r.files) files += f.content;
        QVERIFY(files.find("--fp4-format") == std::string::npos);
        QVERIFY(files.find("train without FP4") != std::string::npos);
    }
};

QTEST_APPLESS_MAIN(TestFp4)
#include "tst_fp4.moc"
