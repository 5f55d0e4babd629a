// Precision per operation, kernel stacks, power limits and the allocator figures of the
// estimate, and the single meaning of FP8 in project files and exporters (docs/accuracy.md,
// docs/project-format.md).
#include "catalog/catalog.h"
#include "estimate/comm.h"
#include "estimate/comm_terms.h"
#include "estimate/estimate.h"
#include "estimate/moe.h"
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
        QCOMPARE(p.training.precision, Precision::bf16);
        QVERIFY(p.layout.fp8);
        QCOMPARE(p.layout.fp8_recipe, Fp8Recipe::tensorwise);
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
        QCOMPARE(p.layout.fp8_recipe, Fp8Recipe::rowwise);
        QVERIFY(p.layout.fp8_all_gather);
        QCOMPARE(p.layout.kernels, KernelStack::compile);
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
        QCOMPARE(kernel_stack(p.layout), KernelStack::compile);
        Layout l;
        l.framework = "megatron";
        QCOMPARE(kernel_stack(l), KernelStack::te);
        l.framework = "torchtitan";
        QCOMPARE(kernel_stack(l), KernelStack::eager);
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
        const Hardware hw = hardware_for(*capped, Cluster{}, Precision::bf16);
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
        QCOMPARE(kept.layout.loss_logits, LossLogits::kept_fp32);
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

    // fp8_all_gather has one meaning (FrameworkTraits::fp8_all_gather_recipes): the estimate counts
    // FP8 gathers only where the framework gathers FP8 weights. torchtitan's float8 converter
    // (v0.2.2) and torchao's Float8LinearConfig gather in FP8 with tensorwise scaling only, MXLinear
    // never, and only with dp_shard > 1.
    void fp8_all_gather_only_where_the_framework_gathers() {
        const auto buffers = [](const Estimate& e) { return e.memory.stages.at(0).buffers; };
        const auto ignored = [](const Estimate& e) {
            for (const auto& n : e.notes)
                if (n.find("fp8_all_gather") != std::string::npos) return true;
            return false;
        };
        for (const char* recipe : {"tensorwise", "rowwise", "mxfp8"}) {
            const nlohmann::json base = {{"kernels", "compile"}, {"fp8", true}, {"fp8_recipe", recipe}};
            nlohmann::json gather = base;
            gather["fp8_all_gather"] = true;
            const Estimate off = estimate_of(project_json("torchtitan", nlohmann::json::object(), base, "b200"));
            const Estimate on = estimate_of(project_json("torchtitan", nlohmann::json::object(), gather, "b200"));
            const bool tensorwise = std::string(recipe) == "tensorwise";
            QCOMPARE(on.config.fp8_all_gather, tensorwise);
            QCOMPARE(ignored(on), !tensorwise);
            QVERIFY(!ignored(off));
            if (tensorwise) QVERIFY(buffers(on) < buffers(off));
            else QCOMPARE(buffers(on), buffers(off));
        }
        // dp_shard 1 with cp 8: FSDP shards over cp, but torchtitan gathers 16-bit weights.
        const nlohmann::json cp = {{"kernels", "compile"}, {"fp8", true}, {"cp", 8}, {"dp_shard", 1}};
        nlohmann::json cp_gather = cp;
        cp_gather["fp8_all_gather"] = true;
        const Estimate cp_off = estimate_of(project_json("torchtitan", {{"global_batch_size", 2}}, cp));
        const Estimate cp_on = estimate_of(project_json("torchtitan", {{"global_batch_size", 2}}, cp_gather));
        QVERIFY(cp_on.config.zero_stage >= 3);
        QVERIFY(!cp_on.config.fp8_all_gather);
        QVERIFY(ignored(cp_on));
        QCOMPARE(buffers(cp_on), buffers(cp_off));
        QCOMPARE(cp_on.time.step_s, cp_off.time.step_s);
        // DeepSpeed has no FP8 all-gather: ZeRO-3 gathers stay 16-bit.
        const nlohmann::json ds = {{"fp8", true}, {"zero_stage", 3}};
        nlohmann::json ds_gather = ds;
        ds_gather["fp8_all_gather"] = true;
        const Estimate ds_off = estimate_of(project_json("deepspeed", nlohmann::json::object(), ds));
        const Estimate ds_on = estimate_of(project_json("deepspeed", nlohmann::json::object(), ds_gather));
        QVERIFY(!ds_on.config.fp8_all_gather);
        QCOMPARE(buffers(ds_on), buffers(ds_off));
        // ColossalAI's fp8_communication gathers the updated parameters in FP8 after ZeRO-1/2's step,
        // a gather the plugin does not overlap: its exposed data-parallel time drops (4 nodes on a
        // slow network, one short microbatch, so that the gradient sync outlasts the backward).
        const auto cai_json = [&](bool gather) {
            nlohmann::json j = project_json("colossalai",
                                            {{"global_batch_size", 32}, {"seq_len", 1024}, {"micro_batch_size", 1}},
                                            {{"fp8", true}, {"zero_stage", 1}, {"fp8_all_gather", gather}});
            j["cluster"]["nodes"] = 4;
            j["cluster"]["network"]["inter_node_gbps"] = 100;
            return j;
        };
        const Estimate cai_off = estimate_of(cai_json(false));
        const Estimate cai_on = estimate_of(cai_json(true));
        QVERIFY(cai_on.config.fp8_all_gather);
        QVERIFY2(cai_on.time.comm_dp_s < cai_off.time.comm_dp_s,
                 qPrintable(QString("%1 vs %2").arg(cai_on.time.comm_dp_s).arg(cai_off.time.comm_dp_s)));
    }

    // estimate --json's layout.fp8_all_gather_kind follows the framework's row
    // (FrameworkTraits::fp8_all_gather_kind): Megatron gathers FP8 primary weights with the
    // distributed optimizer and nothing without it, ColossalAI casts on the wire, torchtitan's FSDP2
    // gathers FP8 weights, DeepSpeed has no FP8 all-gather.
    void fp8_all_gather_kind_in_the_json() {
        struct Case {
            const char* framework;
            nlohmann::json layout;
            const char* kind;
        };
        const std::vector<Case> cases = {
            {"megatron", {{"fp8", true}, {"distributed_optimizer", true}}, "primary_weights"},
            {"megatron", {{"fp8", true}}, "none"},
            {"colossalai", {{"fp8", true}, {"zero_stage", 1}}, "wire_casts"},
            {"colossalai-gemini", {{"fp8", true}}, "wire_casts"},
            {"torchtitan", {{"fp8", true}, {"kernels", "compile"}}, "fsdp_weights"},
            {"deepspeed", {{"fp8", true}, {"zero_stage", 3}}, "none"},
        };
        for (const Case& k : cases) {
            for (const bool gather : {false, true}) {
                nlohmann::json layout = k.layout;
                layout["fp8_all_gather"] = gather;
                const Estimate e = estimate_of(project_json(k.framework, nlohmann::json::object(), layout));
                const nlohmann::json j = to_json(e);
                const std::string want = gather ? k.kind : "none";
                const std::string what = std::string(k.framework) + " " + layout.dump();
                QVERIFY2(j["layout"]["fp8_all_gather_kind"].get<std::string>() == want, what.c_str());
                QVERIFY2(std::string(to_string(fp8_gather_of(e.config))) == want, what.c_str());
                // The switch is on in the estimate exactly where something is gathered in FP8.
                QVERIFY2(j["layout"]["fp8_all_gather"].get<bool>() == (want != "none"), what.c_str());
            }
        }
        // estimate --json names the TP overlap the estimate ran (layout.tp_comm_overlap), under each
        // framework's own switch.
        {
            const nlohmann::json mg = {{"tp", 2}, {"sp_mode", "split_gather"}, {"tp_comm_overlap", true}};
            QCOMPARE(to_json(estimate_of(
                         project_json("megatron", nlohmann::json::object(), mg)))["layout"]["tp_comm_overlap"]
                         .get<std::string>(),
                     std::string("userbuffers"));
            const nlohmann::json tt = {{"tp", 2}, {"kernels", "compile"}, {"enable_async_tensor_parallel", true}};
            QCOMPARE(to_json(estimate_of(
                         project_json("torchtitan", nlohmann::json::object(), tt)))["layout"]["tp_comm_overlap"]
                         .get<std::string>(),
                     std::string("micro_pipeline"));
            QCOMPARE(to_json(estimate_of(project_json("torchtitan", nlohmann::json::object(),
                                                      {{"tp", 2}})))["layout"]["tp_comm_overlap"]
                         .get<std::string>(),
                     std::string("none"));
        }
        // A Config built by hand: Megatron's row gathers FP8 weights only with the distributed optimizer.
        Config c;
        c.framework = "megatron";
        c.fp8 = Fp8Recipe::tensorwise;
        c.fp8_all_gather = true;
        QCOMPARE(std::string(to_string(fp8_gather_of(c))), std::string("none"));
        c.distributed_optimizer = true;
        QCOMPARE(std::string(to_string(fp8_gather_of(c))), std::string("primary_weights"));
        c.framework = "colossalai-zero";
        QCOMPARE(std::string(to_string(fp8_gather_of(c))), std::string("wire_casts"));
        c.fp8.reset();   // no FP8, no FP8 gathers
        QCOMPARE(std::string(to_string(fp8_gather_of(c))), std::string("none"));
    }

    // A recipe the framework does not have is written as tensorwise by its exporter (ColossalAI's
    // use_fp8 has per-tensor scaling only; Megatron has no rowwise), so it is estimated as tensorwise.
    void refused_recipe_is_estimated_as_written() {
        for (const char* fw : {"colossalai", "megatron"}) {
            const Estimate tw = estimate_of(project_json(fw, nlohmann::json::object(), {{"fp8", true}}));
            const Estimate rw = estimate_of(
                project_json(fw, nlohmann::json::object(), {{"fp8", true}, {"fp8_recipe", "rowwise"}}));
            QCOMPARE(rw.time.step_s, tw.time.step_s);
            QCOMPARE(rw.memory.peak_bytes, tw.memory.peak_bytes);
            bool noted = false;
            for (const auto& n : rw.notes) noted = noted || n.find("estimated as tensorwise") != std::string::npos;
            QVERIFY2(noted, fw);
        }
        // torchtitan has rowwise: estimated as such.
        const Estimate tw = estimate_of(project_json("torchtitan", nlohmann::json::object(), {{"fp8", true}}));
        const Estimate rw = estimate_of(
            project_json("torchtitan", nlohmann::json::object(), {{"fp8", true}, {"fp8_recipe", "rowwise"}}));
        QVERIFY(rw.time.step_s != tw.time.step_s);
        // Its delayed project runs as the tensorwise job.toml says, FP8 all-gather included.
        const nlohmann::json delayed = project_json(
            "torchtitan", nlohmann::json::object(),
            {{"fp8", true}, {"fp8_recipe", "delayed"}, {"fp8_all_gather", true}});
        const Estimate dl = estimate_of(delayed);
        const Estimate tw_ag = estimate_of(
            project_json("torchtitan", nlohmann::json::object(), {{"fp8", true}, {"fp8_all_gather", true}}));
        QVERIFY(dl.config.fp8_all_gather);
        QCOMPARE(dl.memory.peak_bytes, tw_ag.memory.peak_bytes);
        QCOMPARE(dl.time.step_s, tw_ag.time.step_s);
        const std::string toml = file_text(export_torchtitan(project_from_json(delayed), ExportOptions{}), "job.toml");
        QVERIFY2(toml.find("enable_fsdp_float8_all_gather = true") != std::string::npos, toml.c_str());
        QVERIFY2(toml.find("recipe_name") == std::string::npos, toml.c_str());
    }

    // Megatron --fp8-param-gather (fp8_all_gather with the distributed optimizer): the linear weights
    // are Transformer Engine FP8 tensors (fp8_model_init), no 16-bit copy and no per-step FP8 weight
    // cache. Per linear parameter, Megatron core_v0.19.0 with TE v2.16 keeps on an H100: 2 B bf16 +
    // 2 B cached FP8 copy and transpose without it; the 1 B FP8 data (uint8 param buffer) + 1 B
    // transpose (post_all_gather_processing: no non-TN FP8 GEMM below sm100) with it. On a B200
    // with per-tensor scaling no transpose is made: 1 B; MXFP8 keeps row- and column-wise data: 2 B.
    // Llama 3.1 8B, tp 1: the 32 layers hold 32 x (4096 x (4096 + 2 x 1024) + 4096 x 4096
    // + 3 x 4096 x 14336 + 2 x 4096) = 6,979,584,000 linear parameters per GPU.
    void megatron_fp8_param_gather_weights() {
        const double h = 4096, kv = 1024, ffn = 14336, layers = 32, vocab = 128256;
        const double linear = layers * (h * (h + 2 * kv) + h * h + 3 * h * ffn + 2 * h);
        QCOMPARE(linear, 6979584000.0);
        const double all = linear + 2 * vocab * h + h;   // untied embedding and output layer, final norm
        struct Case {
            const char* gpu;
            const char* recipe;
            double fp8_weight_bytes;
        };
        for (const Case& k : {Case{"h100-sxm", "delayed", 2}, Case{"h100-sxm", "tensorwise", 2},
                              Case{"b200", "tensorwise", 1}, Case{"b200", "mxfp8", 2}}) {
            const auto json = [&](bool gather) {
                return project_json("megatron", nlohmann::json::object(),
                                    {{"fp8", true},
                                     {"fp8_recipe", k.recipe},
                                     {"distributed_optimizer", true},
                                     {"fp8_all_gather", gather}},
                                    k.gpu);
            };
            const Estimate off = estimate_of(json(false));
            const Estimate on = estimate_of(json(true));
            QCOMPARE(std::string(to_string(fp8_gather_of(on.config))), std::string("primary_weights"));
            const StageMemory& a = off.memory.stages.at(0);
            const StageMemory& b = on.memory.stages.at(0);
            QCOMPARE(a.params_count, all);
            // Weights: 16-bit everywhere, then the linear ones at the FP8 bytes.
            QCOMPARE(a.params, 2 * all);
            QCOMPARE(b.params, 2 * all - (2 - k.fp8_weight_bytes) * linear);
            // The cached FP8 copy and transpose (2 B per linear parameter) is gone.
            QCOMPARE(a.buffers - b.buffers, 2 * linear);
            // So a linear parameter's weight bytes go from 4 to fp8_weight_bytes.
            QCOMPARE((a.params + a.buffers) - (b.params + b.buffers), (4 - k.fp8_weight_bytes) * linear);
            QCOMPARE(a.grads, b.grads);           // fp32 main_grad buffer
            QCOMPARE(a.optimizer, b.optimizer);   // fp32 main params + moments, sharded
            // The parameter all-gather stays behind the next forward (overlapped): step time unchanged.
            QCOMPARE(on.time.step_s, off.time.step_s);
            // Where it is not overlapped it moves 1 B per FP8 linear weight (uint8 param buffer) and
            // 2 B per other parameter; MXFP8 weights are gathered in BF16 through the grad buffer.
            Config c_on = on.config, c_off = off.config;
            c_on.overlap_param_gather = c_off.overlap_param_gather = false;
            const LayerShapes s = layer_shapes(project_from_json(json(true)).model);
            const ShardedCounts params = stage_params(s, c_on).at(0);
            const ShardedCounts fp8w = stage_fp8_weight_params(s, c_on).at(0);
            QCOMPARE(params.dense, all);
            QCOMPARE(fp8w.dense, linear);
            const auto gather_bytes = [&](const Config& c) {
                for (const CommCall& x : grad_sync(params, fp8w, c))
                    if (x.op == CollectiveOp::all_gather) return x.bytes;
                return -1.0;
            };
            const bool mx = std::string(k.recipe) == "mxfp8";
            QCOMPARE(gather_bytes(c_off), 2 * all);
            QCOMPARE(gather_bytes(c_on), mx ? 2 * all : 2 * all - linear);
        }
        // Without the distributed optimizer Megatron refuses --fp8-param-gather: 16-bit, with a note.
        const Estimate plain = estimate_of(
            project_json("megatron", nlohmann::json::object(), {{"fp8", true}, {"fp8_all_gather", true}}));
        QVERIFY(!plain.config.distributed_optimizer);
        QVERIFY(!plain.config.fp8_all_gather);
        bool noted = false;
        for (const auto& n : plain.notes) noted = noted || n.find("--fp8-param-gather") != std::string::npos;
        QVERIFY(noted);
    }

    // ColossalAI's fp8_communication (v0.5.1 quantization/fp8.py) casts all-gathers and all-to-alls to
    // FP8 only over groups that span nodes, keeps all-reduces and reduce-scatters 16-bit, and sends the
    // pipeline's hidden states in FP8 on any link (1F1B and interleaved, not ZBV). Buffers stay 16-bit.
    void colossalai_fp8_communication_bytes() {
        const auto cai = [&](const std::string& fw, int nodes, const nlohmann::json& extra, bool gather) {
            nlohmann::json layout = {{"fp8", true}, {"fp8_all_gather", gather}};
            for (auto it = extra.begin(); it != extra.end(); ++it) layout[it.key()] = it.value();
            nlohmann::json j = project_json(
                fw, {{"global_batch_size", 256}, {"seq_len", 1024}, {"micro_batch_size", 1}}, layout);
            j["cluster"]["nodes"] = nodes;
            j["cluster"]["network"]["inter_node_gbps"] = 100;   // slow enough that the gathers show
            return estimate_of(j);
        };
        const ModelSpec m = project_from_json(project_json("colossalai", nlohmann::json::object(), {})).model;
        const LayerShapes s = layer_shapes(m);
        // Bytes per parameter of one data-parallel collective of stage 0 (-1: none).
        const auto per_param = [&](const Estimate& e, CollectiveOp op) {
            const ShardedCounts params = stage_params(s, e.config).at(0);
            const ShardedCounts fp8w = stage_fp8_weight_params(s, e.config).at(0);
            for (const CommCall& x : grad_sync(params, fp8w, e.config))
                if (x.op == op) return x.bytes / params.dense;
            return -1.0;
        };
        // ZeRO-1 over 32 GPUs on 4 nodes: the post-step parameter all-gather halves (1 B a parameter);
        // the gradient reduce-scatter stays 16-bit. Over 8 GPUs of one node it stays 2 B.
        for (int nodes : {4, 1}) {
            const Estimate off = cai("colossalai", nodes, {{"zero_stage", 1}}, false);
            const Estimate on = cai("colossalai", nodes, {{"zero_stage", 1}}, true);
            QCOMPARE(std::string(to_string(fp8_gather_of(on.config))), std::string("wire_casts"));
            QCOMPARE(per_param(off, CollectiveOp::all_gather), 2.0);
            QCOMPARE(per_param(on, CollectiveOp::all_gather), nodes > 1 ? 1.0 : 2.0);
            QCOMPARE(per_param(on, CollectiveOp::reduce_scatter), 2.0);
            if (nodes > 1) QVERIFY(on.time.comm_dp_s < off.time.comm_dp_s);
            else QCOMPARE(on.time.comm_dp_s, off.time.comm_dp_s);
            // FP8 weights, caches and buffers are untouched: the casts are for the wire.
            QCOMPARE(on.memory.peak_bytes, off.memory.peak_bytes);
        }
        // Pipeline sends: half the bytes with 1F1B, on one node too; ZBV takes no FP8 switch.
        for (const char* sched : {"1f1b", "zbv"}) {
            const nlohmann::json pp = {{"pp", 2}, {"schedule", sched}};
            const Estimate off = cai("colossalai", 1, pp, false);
            const Estimate on = cai("colossalai", 1, pp, true);
            const double b_off = layer_comm(s, off.config, off.hardware, 0).pp_bytes;
            const double b_on = layer_comm(s, on.config, on.hardware, 0).pp_bytes;
            QCOMPARE(b_off, 2.0 * 1024 * 4096);   // one 16-bit microbatch of hidden states
            QCOMPARE(b_on, std::string(sched) == "1f1b" ? b_off / 2 : b_off);
        }
        // Sequence-parallel all-gathers of tp 16 over two nodes go FP8; tp 8 inside a node does not.
        for (int tp : {16, 8}) {
            const nlohmann::json sp = {{"tp", tp}, {"sp_mode", "split_gather"}};
            const Estimate off = cai("colossalai", 2, sp, false);
            const Estimate on = cai("colossalai", 2, sp, true);
            QVERIFY(on.config.sequence_parallel);
            const LayerComm a = layer_comm(s, off.config, off.hardware, 0);
            const LayerComm b = layer_comm(s, on.config, on.hardware, 0);
            const GroupLink& l = on.config.link[kTp];
            QCOMPARE(l.nodes, tp / 8);
            const double full = all_gather_s(l, a.tp_bytes) + reduce_scatter_s(l, a.tp_bytes);
            const double fp8 = all_gather_s(l, a.tp_bytes / 2) + reduce_scatter_s(l, a.tp_bytes);
            QCOMPARE(a.tp_fwd_s, a.tp_fwd_count * full);
            QCOMPARE(b.tp_fwd_s, b.tp_fwd_count * (tp > 8 ? fp8 : full));
        }
        // MoeHybridParallelPlugin: the forward dispatch and combine all-to-alls of an EP group spanning
        // nodes go FP8 (mixtral.py all_to_all_uneven); AllToAllUneven.backward sends 16-bit gradients.
        for (int gpn : {4, 8}) {
            const auto moe = [&](bool gather) {
                nlohmann::json j = project_json(
                    "colossalai-moe", {{"global_batch_size", 64}, {"seq_len", 1024}},
                    {{"fp8", true}, {"ep", 8}, {"zero_stage", 1}, {"fp8_all_gather", gather}});
                j["model"] = {{"preset", "mixtral-8x7b"}};
                j["cluster"]["nodes"] = 16 / gpn;
                j["cluster"]["gpus_per_node"] = gpn;
                return estimate_of(j);
            };
            const Estimate off = moe(false), on = moe(true);
            QCOMPARE(on.config.link[kEp].nodes, 8 / gpn);
            const LayerShapes mx = layer_shapes(*catalog::find_model("mixtral-8x7b"));
            const MoeBytes a = moe_bytes(mx, off.config), b = moe_bytes(mx, on.config);
            QVERIFY(a.dispatch_fwd > 0);
            const double f = gpn == 4 ? 0.5 : 1.0;
            QCOMPARE(b.dispatch_fwd, f * a.dispatch_fwd);
            QCOMPARE(b.combine_fwd, f * a.combine_fwd);
            QCOMPARE(b.dispatch_bwd, a.dispatch_bwd);
            QCOMPARE(b.combine_bwd, a.combine_bwd);
            if (gpn == 4) QVERIFY(on.time.comm_ep_s < off.time.comm_ep_s);
        }
        // Gemini (ZeRO-3) gathers its chunks into 16-bit buffers: the gathered weights stay 2 B.
        const Estimate g_off = cai("colossalai-gemini", 1, nlohmann::json::object(), false);
        const Estimate g_on = cai("colossalai-gemini", 1, nlohmann::json::object(), true);
        QCOMPARE(g_on.memory.stages.at(0).buffers, g_off.memory.stages.at(0).buffers);
        const ShardedCounts g_params = stage_params(s, g_on.config).at(0);
        const Zero3Comm z = zero3_comm(zero3_volume(g_params, g_params, {}, g_on.config), g_on.config, 0);
        QCOMPARE(z.calls.at(0).bytes, 2 * stage_params(s, g_on.config).at(0).dense);
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
