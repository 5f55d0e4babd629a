// Hybrid Mamba models (Nemotron-H) in the estimate: Megatron's hybrid FLOPs formula worked by
// hand, the pipeline split per pattern layer kind, parameters and activations per stage.
#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "estimate/flops.h"
#include "estimate/hybrid.h"
#include "estimate/layers.h"
#include "estimate/shapes.h"
#include "estimate_test_models.h"

#include <QtTest>

#include <cmath>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {

ModelSpec nemotron_h_8b() {
    const ModelSpec* m = catalog::find_model("nemotron-h-8b");
    return m ? *m : ModelSpec{};
}

}   // namespace

class TestEstimateHybrid : public QObject {
    Q_OBJECT
private slots:
    // Megatron-LM num_floating_point_operations, hybrid branch (training.py hybrid_flops,
    // core_v0.16.0), for Nemotron-H 8B, one 8192-token sequence. Per token (B s = 1):
    //   attention  4 h p (h + h g/H + s/2), p = 1, g/H = 8/32:
    //              GEMMs 4*4096*(4096 + 1024) = 83,886,080; core 4*4096*4096 = 67,108,864
    //   MLP        4 * 4096 * 21504 = 352,321,536 (squared ReLU: not gated)
    //   Mamba      2*4096*(2*8192 + 2*8*128 + 128) + 2*8192*4096 = 152,043,520 + 67,108,864
    //              = 219,152,384 GEMMs; scan 7 * 8192 * 128 = 7,340,032
    //   layers     4*(83,886,080 + 67,108,864) + 24*352,321,536 + 24*(219,152,384 + 7,340,032)
    //              = 603,979,776 + 8,455,716,864 + 5,435,817,984 = 14,495,514,624
    //   logits     2 * 4096 * 131072 = 1,073,741,824
    //   step       3 * 8192 * (14,495,514,624 + 1,073,741,824) = 382,630,046,466,048
    void megatronHybridFlops() {
        const ModelSpec m = nemotron_h_8b();
        QVERIFY(m.is_hybrid());
        const HybridLayerFlops f = hybrid_layer_flops_per_token(m, 8192);
        QCOMPARE(f.attention_gemm, 83886080.0);
        QCOMPARE(f.attention_core, 67108864.0);
        QCOMPARE(f.mlp, 352321536.0);
        QCOMPARE(f.mamba_gemm, 219152384.0);
        QCOMPARE(f.mamba_scan, 7340032.0);
        QCOMPARE(hybrid_fwd_flops_per_token(m, 8192), 14495514624.0);
        const StepFlops s = step_flops(m, layer_shapes(m), 1, 8192, Recompute::none);
        QCOMPARE(s.model, 382630046466048.0);
        QCOMPARE(s.hardware, s.model);
        // Full recomputation runs the layers' forward once more; selective the attention cores.
        QCOMPARE(step_flops(m, layer_shapes(m), 1, 8192, Recompute::full).hardware, s.model + 8192 * 14495514624.0);
        QCOMPARE(step_flops(m, layer_shapes(m), 1, 8192, Recompute::selective).hardware,
                 s.model + 3 * 8192 * 4 * 67108864.0);
        // About 6 x 8.1B parameters per token plus the attention cores and the scan.
        QVERIFY(s.model / 8192 > 6 * 7.5e9 && s.model / 8192 < 6 * 8.5e9);
    }

    // Megatron's MambaStack gives each pipeline rank num_layers // pp consecutive pattern layers
    // (mamba_block.py _select_layers_for_pipeline_parallel): counted per kind.
    void layerSplitPerKind() {
        ModelSpec m = nemotron_h_8b();
        m.layers = 8;
        m.hybrid_override_pattern = "MM**--MM";
        const StageLayers sl = split_layers(m, 2, 1, Schedule::one_f_one_b, {}, "megatron");
        QCOMPARE(sl.layers, (std::vector<int>{4, 4}));
        QCOMPARE(sl.mamba_layers, (std::vector<int>{2, 2}));
        QCOMPARE(sl.attention_layers, (std::vector<int>{2, 0}));
        QCOMPARE(sl.mlp_layers, (std::vector<int>{0, 2}));
        QCOMPARE(sl.moe_layers, (std::vector<int>{0, 0}));
        const StageLayers n = split_layers(nemotron_h_8b(), 4, 1, Schedule::one_f_one_b, {}, "megatron");
        QCOMPARE(n.mamba_layers, (std::vector<int>{6, 6, 6, 6}));
        QCOMPARE(n.attention_layers, (std::vector<int>{1, 1, 1, 1}));
        QCOMPARE(n.mlp_layers, (std::vector<int>{6, 6, 6, 6}));
    }

    // Every parameter count_params counts sits on one stage; tp splits the mixers, not the norms.
    void paramsPerStage() {
        const ModelSpec m = nemotron_h_8b();
        const Project p = paper_project(m, "megatron", 16).pp(2).build();
        Hardware hw;
        const Config c = make_config(m, p.training, p.layout, hw, 2);
        QVERIFY(c.hybrid);
        const LayerShapes s = layer_shapes(m);
        const Estimate e = evaluate(m, s, c, hw, {});
        QCOMPARE(e.memory.stages.size(), std::size_t{2});
        const double placed = e.memory.stages[0].params_count + e.memory.stages[1].params_count;
        QCOMPARE(placed, double(count_params(m).total));
        // One Mamba layer at tp 2: the mixer halves, its RMSNorm (4096) stays whole.
        const ShardedCounts one = hybrid_layer_params_per_gpu(s, 'M', 2, 1, 1);
        QCOMPARE(one.dense, 109635968.0 / 2 + 4096);
    }

    // One Mamba layer's saved activations (hybrid.h) at b 1, s 8192, tp 1, no SP, bf16: its norm
    // input and in_proj input (2 x 2 s h), zxBCdt (2 s (2*8192 + 2048 + 128)), the scan output and
    // the gated norm's output (2 x 2 s 8192).
    void mambaActivationByHand() {
        const ModelSpec m = nemotron_h_8b();
        const LayerShapes s = layer_shapes(m);
        ActivationInputs in;
        in.seq = 8192;
        in.dropout = false;
        in.flash_attention = true;
        const double sq = 8192;
        const double expected = 2 * 2 * sq * 4096 + 2 * sq * (2 * 8192 + 2048 + 128) + 2 * 2 * sq * 8192;
        QCOMPARE(hybrid_layer_activation(s, 'M', in).total(), expected);
        // tp 2 with sequence parallelism halves all of it.
        in.tp = 2;
        in.sequence_parallel = true;
        QCOMPARE(hybrid_layer_activation(s, 'M', in).total(), expected / 2);
        // Full recomputation keeps the layer input only.
        in.recompute = Recompute::full;
        QCOMPARE(hybrid_layer_activation(s, 'M', in).total(), 2 * sq * 4096 / 2);
    }

    // The estimate prices a hybrid model by its layers: far fewer attention cores and a smaller
    // saved state than the same 52 layers as full transformer layers, and its MFU counts
    // Megatron's hybrid FLOPs.
    void estimateRuns() {
        const ModelSpec m = nemotron_h_8b();
        const Project p = paper_project(m, "megatron", 64).tp(2).seq_len(8192).build();
        Hardware hw = paper_a100();
        const Config c = make_config(m, p.training, p.layout, hw, 8);
        const LayerShapes s = layer_shapes(m);
        const Estimate e = evaluate(m, s, c, hw, {});
        QVERIFY(std::isfinite(e.time.step_s) && e.time.step_s > 0);
        ModelSpec dense = m;   // the same shapes as a plain transformer: 52 attention + MLP layers
        dense.hybrid_override_pattern.clear();
        const Config cd = make_config(dense, p.training, p.layout, hw, 8);
        QVERIFY(!cd.hybrid);
        const Estimate ed = evaluate(dense, layer_shapes(dense), cd, hw, {});
        QVERIFY(e.time.step_s < ed.time.step_s);
        QVERIFY(e.memory.stages[0].activations < ed.memory.stages[0].activations);
        QVERIFY(e.memory.stages[0].params_count < ed.memory.stages[0].params_count);
    }
};

QTEST_APPLESS_MAIN(TestEstimateHybrid)
#include "tst_estimate_hybrid.moc"
