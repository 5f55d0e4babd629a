// LoRA (layout.peft) in the estimate: the adapters' parameter count against the LoRA paper's worked
// figures, the memory of a frozen base, the backward without weight gradients, the gradient sync
// and the optimizer over the adapters alone, ZeRO-3's gathers of the frozen base and
// reduce-scatter of the adapters, and the model FLOPs.
#include "catalog/catalog.h"
#include "estimate/comm.h"
#include "estimate/comm_terms.h"
#include "estimate/config.h"
#include "estimate/efficiency.h"
#include "estimate/flops.h"
#include "estimate/lora.h"
#include "estimate/memory.h"
#include "estimate/shapes.h"
#include "estimate/time.h"
#include "estimate_test_models.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {

const std::vector<LoraTarget> kAll = {LoraTarget::linear_qkv, LoraTarget::linear_proj, LoraTarget::linear_fc1,
                                      LoraTarget::linear_fc2};

// Llama 3.1 70B's widths (meta-llama/Llama-3.1-70B config.json): h 8192, 64 query heads of 128,
// 8 key/value heads, SwiGLU MLP 28672 wide, 80 layers.
constexpr double kH = 8192, kHkv = 1024, kFfn = 28672;

Config lora_config(int rank, int tp, int pp, int layers) {
    Config c;
    c.tp = tp;
    c.pp = pp;
    c.layers_per_stage.assign(std::size_t(pp), layers / pp);
    c.moe_layers_per_stage.assign(std::size_t(pp), 0);
    c.bytes = {2, 2, 12};
    c.lora.rank = rank;
    c.lora.targets = kAll;
    return c;
}

}   // namespace

class TestEstimateLora : public QObject {
    Q_OBJECT
private slots:
    // Hu et al. 2021 (arXiv 2106.09685) Table 4: GPT-3 175B (d_model 12288, 96 layers) with LoRA on
    // W_q and W_v has 4.7M trainable parameters at r = 1 and 37.7M at r = 8. Each is a d x d
    // projection, so each layer adds 2 r (d + d) = 4 d r. Paraplan's layers hold one fused
    // linear_qkv (Megatron-core), so the paper's separate q and v adapters are counted through the
    // public count of one adapter, lora_params(in, out, r), with the q and v shapes.
    void paper_table4() {
        const double d = 12288;
        for (const auto& [r, paper_m] : std::vector<std::pair<int, double>>{{1, 4.7}, {8, 37.7}}) {
            const double n = 96 * (lora_params(d, d, r) + lora_params(d, d, r));
            QCOMPARE(n, 4.0 * d * r * 96);
            QVERIFY2(std::abs(n / 1e6 - paper_m) < 0.05, std::to_string(n).c_str());
        }
    }

    // The per-layer linears: Megatron-Bridge adapts the fused linear_qkv (h -> q + 2 kv) and
    // linear_fc1 (h -> 2 ffn, gate and up) once each; Hugging Face PEFT adapts q, k, v, gate and up
    // apart, each with its own A.
    void layer_linears_fused_and_split() {
        const LayerShapes s = layer_shapes(*catalog::find_model("llama3.1-70b"));
        LoraOptions o;
        o.rank = 16;
        o.targets = kAll;
        double fused = 0;
        for (const auto& l : lora_linears(s, false, o)) fused += l.copies * lora_params(l.in, l.out, o.rank);
        const double want_fused = 16 * ((kH + kH + 2 * kHkv) + (kH + kH) + (kH + 2 * kFfn) + (kFfn + kH));
        QCOMPARE(fused, want_fused);
        o.fused = false;
        double split = 0;
        for (const auto& l : lora_linears(s, false, o)) split += l.copies * lora_params(l.in, l.out, o.rank);
        const double want_split = 16 * ((kH + kH) + 2 * (kH + kHkv) + (kH + kH) + 2 * (kH + kFfn) + (kFfn + kH));
        QCOMPARE(split, want_split);
        // Whole model: 80 layers of it.
        QCOMPARE(model_adapter_params(*catalog::find_model("llama3.1-70b"), s, LoraOptions{16, kAll, true, 2}),
                 80 * want_fused);
    }

    // Memory: the frozen layers at base_dtype bytes split over tp and pp, no gradients or optimizer
    // states for them; the adapters with 16-bit weight and gradient and 12 B of fp32 states
    // (master, Adam m and v), sharded like any optimizer state.
    void memory_of_a_frozen_base() {
        const LayerShapes s = layer_shapes(*catalog::find_model("llama3.1-70b"));
        const int tp = 4, pp = 2, dp = 2;
        const double layers = 80, stage_layers = layers / pp;
        for (PeftBaseDtype base : {PeftBaseDtype::bf16, PeftBaseDtype::fp8, PeftBaseDtype::nf4}) {
            Config c = lora_config(16, tp, pp, 80);
            c.lora.base_bytes = base_weight_bytes(base);
            c.zero_stage = 1;
            c.zero_group = dp;
            c.dp = dp;
            const MemoryResult r = estimate_memory(s, c, Hardware{}, {1.0, 1.0});
            // One layer's linears on one GPU: attention and MLP split tp ways; its two RMSNorm weight
            // vectors stay 16-bit and whole.
            const double layer = (kH * (kH + 2 * kHkv) + kH * kH + 3 * kH * kFfn) / tp;
            const double adapter = 16 * ((kH + kH + 2 * kHkv) + (kH + kH) + (kH + 2 * kFfn) + (kFfn + kH)) / tp *
                                   stage_layers;
            const double frozen = layer * stage_layers;
            // 16-bit: the norms, and on stage 1 the final norm and the (untied) output layer too.
            const double outside = 2 * kH * stage_layers + kH + 128256.0 * kH / tp;
            const StageMemory& m = r.stages[1];
            QCOMPARE(m.optimizer, 12 * adapter / dp);
            QCOMPARE(m.grads, 2 * adapter);
            QCOMPARE(m.params, base_weight_bytes(base) * frozen + 2 * (outside + adapter));
        }
        // Bytes per frozen weight: bf16 2, fp8 1, NF4 4 bits with double-quantized block scales
        // (Dettmers et al. 2023 section 3: 8/64 + 32/(64 * 256) = 0.127 bits of constants).
        QCOMPARE(base_weight_bytes(PeftBaseDtype::bf16), 2.0);
        QCOMPARE(base_weight_bytes(PeftBaseDtype::fp8), 1.0);
        QVERIFY(std::abs(base_weight_bytes(PeftBaseDtype::nf4) * 8 - 4.127) < 0.001);
    }

    // Time: the frozen GEMMs run no weight gradients, so the stage's backward loses what full
    // training spends on them (its W pass) and gains the adapters' own backward, twice their forward.
    void backward_without_weight_gradients() {
        const ModelSpec m = *catalog::find_model("llama3.1-70b");
        const LayerShapes s = layer_shapes(m);
        Config full = lora_config(16, 8, 1, 80);
        full.lora = {};
        full.seq_len = 4096;
        Config lora = lora_config(16, 8, 1, 80);
        lora.seq_len = 4096;
        const Hardware hw;
        const Efficiency eff = efficiency_for(hw.arch, KernelStack::te, std::nullopt);
        const StageTimes f = stage_times(m, s, full, hw, eff, stage_params(s, full))[0];
        const StageTimes l = stage_times(m, s, lora, hw, eff, stage_params(s, lora))[0];
        const double adapters_f = l.compute_w;   // the adapters' forward, their weight-gradient GEMMs' time
        QVERIFY(adapters_f > 0);
        QVERIFY(adapters_f < 0.05 * f.compute_f);
        QVERIFY(std::abs((l.compute_f - f.compute_f) - adapters_f) < 1e-12);
        QVERIFY(std::abs((f.compute_b - l.compute_b) - (f.compute_w - 2 * adapters_f)) < 1e-12);
    }

    // The data-parallel gradient reduction and the optimizer step move only the adapters.
    void gradient_sync_over_adapters() {
        const LayerShapes s = layer_shapes(*catalog::find_model("llama3.1-70b"));
        Config c = lora_config(16, 8, 1, 80);
        c.dp = 4;
        c.link[kDp] = GroupLink{4, 4, 1, 25, 5e-6, std::nullopt};
        const auto trained = stage_trained_params(s, c);
        const double adapter = 80 * 16 * ((kH + kH + 2 * kHkv) + (kH + kH) + (kH + 2 * kFfn) + (kFfn + kH)) / 8;
        QCOMPARE(trained[0].dense, adapter);
        const auto calls = grad_sync(trained[0], stage_trained_fp8_weights(s, c)[0], c);
        QCOMPARE(int(calls.size()), 1);
        QCOMPARE(calls[0].bytes, adapter * c.grad_reduce_bytes);
    }

    // ZeRO-3 / FSDP with LoRA, worked by hand for Llama 3.1 70B, tp 8, one stage, a ZeRO group of 4:
    // every microbatch gathers the frozen base (in its stored dtype) with the 16-bit norms, embedding,
    // output layer and adapters twice, and reduce-scatters only the adapters' gradients, which alone
    // exist (FSDP2 post_backward, DeepSpeed's trainable groups; comm_terms.cpp zero3_volume).
    void zero3_reduce_scatters_the_adapters_only() {
        const ModelSpec m = *catalog::find_model("llama3.1-70b");
        const LayerShapes s = layer_shapes(m);
        const int tp = 8, dp = 4, mb = 4;
        const GroupLink link{dp, dp, 1, 25, 5e-6, std::nullopt};
        auto configure = [&](Config c) {
            c.seq_len = 4096;
            c.dp = dp;
            c.zero_stage = 3;
            c.zero_group = dp;
            c.num_microbatches = mb;
            c.overlap_param_gather = false;   // nothing prefetched: the whole ZeRO-3 traffic is exposed
            c.link[kDp] = link;
            return c;
        };
        Config full = configure(lora_config(16, tp, 1, 80));
        full.lora = {};
        const double vocab = 128256;
        const double frozen = 80 * (kH * (kH + 2 * kHkv) + kH * kH + 3 * kH * kFfn) / tp;
        const double outside = 80 * 2 * kH + kH + 2 * vocab * kH / tp;   // norms, final norm, embedding, head
        const double adapter = 80 * 16 * ((kH + kH + 2 * kHkv) + (kH + kH) + (kH + 2 * kFfn) + (kFfn + kH)) / tp;
        auto volume = [&](const Config& c) {
            return zero3_volume(stage_params(s, c)[0], stage_trained_params(s, c)[0], stage_base_linear_params(s, c)[0],
                                c);
        };
        // Full fine-tuning gathers and reduce-scatters every 16-bit parameter.
        const Zero3Volume vf = volume(full);
        QCOMPARE(vf.gather_bytes, 2 * (frozen + outside));
        QCOMPARE(vf.grad_bytes, 2 * (frozen + outside));
        const Hardware hw;
        const Efficiency eff = efficiency_for(hw.arch, KernelStack::te, std::nullopt);
        const TimeResult tf = estimate_time(m, s, full, hw, eff);
        for (PeftBaseDtype base : {PeftBaseDtype::bf16, PeftBaseDtype::fp8, PeftBaseDtype::nf4}) {
            Config lora = configure(lora_config(16, tp, 1, 80));
            lora.lora.base_bytes = base_weight_bytes(base);
            const Zero3Volume v = volume(lora);
            // The reduce-scatter: the adapters' gradients alone (the whole layer's would be ~100x more).
            QCOMPARE(v.grad_bytes, 2 * adapter);
            QVERIFY(v.grad_bytes < 0.01 * vf.grad_bytes);
            // The gathers: the frozen linears as stored, the rest and the adapters 16-bit.
            QCOMPARE(v.gather_bytes, base_weight_bytes(base) * frozen + 2 * (outside + adapter));
            const Zero3Comm z = zero3_comm(v, lora, 0);
            QCOMPARE(int(z.calls.size()), 2);
            QCOMPARE(z.calls[1].op, CollectiveOp::reduce_scatter);
            QCOMPARE(z.calls[1].bytes, 2 * adapter);
            // The step charges per microbatch two gathers and one reduce-scatter, all exposed here.
            const TimeResult t = estimate_time(m, s, lora, hw, eff);
            const double ag = all_gather_s(link, base_weight_bytes(base) * frozen + 2 * (outside + adapter));
            const double rs = reduce_scatter_s(link, 2 * adapter);
            QVERIFY(std::abs(t.stages[0].dp - (2 * ag + rs)) <= 1e-12 * t.stages[0].dp);
            QVERIFY(std::abs(t.comm_dp_s - mb * (2 * ag + rs)) <= 1e-12 * t.comm_dp_s);
            // Against full fine-tuning: the reduce-scatter saved, less the adapters' extra gathers
            // and plus the narrower base's; with an 8-bit or 4-bit base the gathers shrink too, and
            // the step is shorter than full fine-tuning's by at least the saved reduce-scatters.
            const double rs_saved = reduce_scatter_s(link, 2 * (frozen + outside)) - rs;
            const double ag_full = all_gather_s(link, 2 * (frozen + outside));
            QVERIFY(std::abs((tf.stages[0].dp - t.stages[0].dp) - (rs_saved + 2 * (ag_full - ag))) <=
                    1e-9 * tf.stages[0].dp);
            if (base != PeftBaseDtype::bf16) {
                QVERIFY(tf.comm_dp_s - t.comm_dp_s >= mb * rs_saved);
                QVERIFY2(tf.step_s - t.step_s >= mb * rs_saved,
                         qPrintable(QStringLiteral("full %1 s, LoRA %2 s, saved reduce-scatter %3 s")
                                        .arg(tf.step_s)
                                        .arg(t.step_s)
                                        .arg(mb * rs_saved)));
            }
        }
    }

    // ZeRO-3 memory with LoRA: the frozen base (at base_dtype bytes) and the adapters are sharded over
    // the ZeRO group; gradients and optimizer states exist for the adapters alone. The gathered layer
    // buffers hold the base as stored and one layer's adapter gradients, not the layer's.
    void zero3_memory_of_a_frozen_base() {
        const LayerShapes s = layer_shapes(*catalog::find_model("llama3.1-70b"));
        const int tp = 8, zg = 4;
        const double vocab = 128256;
        const double layer = (kH * (kH + 2 * kHkv) + kH * kH + 3 * kH * kFfn) / tp;   // one layer's linears
        const double adapter_layer = 16 * ((kH + kH + 2 * kHkv) + (kH + kH) + (kH + 2 * kFfn) + (kFfn + kH)) / tp;
        const double outside = 80 * 2 * kH + kH + 2 * vocab * kH / tp;
        auto configure = [&](Config c) {
            c.dp = zg;
            c.zero_stage = 3;
            c.zero_group = zg;
            return c;
        };
        Config full = configure(lora_config(16, tp, 1, 80));
        full.lora = {};
        const StageMemory mf = estimate_memory(s, full, Hardware{}, {1.0}).stages[0];
        for (PeftBaseDtype base : {PeftBaseDtype::bf16, PeftBaseDtype::fp8, PeftBaseDtype::nf4}) {
            Config c = configure(lora_config(16, tp, 1, 80));
            const double bb = base_weight_bytes(base);
            c.lora.base_bytes = bb;
            const StageMemory m = estimate_memory(s, c, Hardware{}, {1.0}).stages[0];
            QCOMPARE(m.params, (bb * 80 * layer + 2 * (outside + 80 * adapter_layer)) / zg);
            QCOMPARE(m.grads, 2 * 80 * adapter_layer / zg);
            QCOMPARE(m.optimizer, 12 * 80 * adapter_layer / zg);
            // Buffers: two gathered layers (base as stored; norms and adapters 16-bit) and one layer's
            // gradients in the reduce dtype, against full training's two 16-bit layers and one layer's
            // gradients; the rest of the buffers is the same.
            const double norms = 2 * kH;
            const double lora_live = 2 * (bb * layer + 2 * (norms + adapter_layer)) +
                                     c.grad_reduce_bytes * adapter_layer;
            const double full_live = 2 * 2 * (layer + norms) + c.grad_reduce_bytes * (layer + norms);
            QVERIFY(std::abs((m.buffers - mf.buffers) - (lora_live - full_live)) <= 1e-9 * mf.buffers);
        }
    }

    // Model FLOPs: forward F, backward of the frozen GEMMs and output layer 1x (input gradient),
    // attention's core 2x, the adapters 3x their forward (2 r (in + out) per token each).
    void model_flops() {
        const ModelSpec m = paper_gpt(24, 2048, 16);
        const LayerShapes s = layer_shapes(m);
        LoraOptions o{8, kAll, true, 2};
        const double seq = 2048, seqs = 4, tokens = seqs * seq, h = 2048, L = 24, V = 51200;
        const StepFlops full = step_flops(m, s, seqs, seq, Recompute::none);
        const StepFlops lora = step_flops(m, s, seqs, seq, Recompute::none, 0, o);
        // Per token and layer forward: G = 2 (attention + MLP weights) GEMM FLOPs and 4 s h of
        // attention's core (Korthikanti App. A); 2 h V for the logits.
        const double G = 2 * (s.attn_params + s.dense_mlp_params), A = 4 * seq * h;
        QCOMPARE(full.model, 3 * tokens * (L * (G + A) + 2 * h * V));
        // GPT's MLP is 4h wide and not gated: fc1 h -> 4h, fc2 4h -> h; its QKV h -> 3h.
        const double adapters = L * 2 * 8 * ((h + 3 * h) + (h + h) + (h + 4 * h) + (4 * h + h));
        QCOMPARE(lora.model, tokens * (3 * L * A + 2 * (L * G + 2 * h * V) + 3 * adapters));
    }
};

QTEST_APPLESS_MAIN(TestEstimateLora)
#include "tst_estimate_lora.moc"
