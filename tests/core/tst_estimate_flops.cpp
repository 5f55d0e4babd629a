// FLOPs and pipeline formulas against Narayanan et al. 2021, Korthikanti et al. 2022,
// Qi et al. 2024 and Megatron's schedule code.
#include "estimate/estimate.h"
#include "estimate/flops.h"
#include "estimate/layers.h"
#include "estimate/pipeline.h"
#include "estimate/shapes.h"
#include "estimate_test_models.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::estimate;
using paraplan::test::ProjectBuilder;

class TestEstimateFlops : public QObject {
    Q_OBJECT
private slots:
    // Model FLOPs reduce to Korthikanti's 72BLsh^2(1 + s/6h + V/12hL) for GPT shapes; full
    // recomputation gives Narayanan's eq. 3, 96Bslh^2(1 + s/6h + V/16lh); selective the
    // paper's hardware count 72BLsh^2(1 + s/3h + V/12hL).
    void paper_flops_data() {
        QTest::addColumn<int>("L");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("a");
        QTest::addColumn<double>("B");
        QTest::newRow("1.7B") << 24 << 2304 << 24 << 512.0;
        QTest::newRow("175B") << 96 << 12288 << 96 << 1536.0;
        QTest::newRow("530B") << 105 << 20480 << 128 << 2520.0;
        QTest::newRow("1T") << 128 << 25600 << 160 << 3072.0;
    }
    void paper_flops() {
        QFETCH(int, L);
        QFETCH(int, h);
        QFETCH(int, a);
        QFETCH(double, B);
        const double s = 2048, V = 51200;
        const ModelSpec m = paper_gpt(L, h, a);
        const LayerShapes shapes = layer_shapes(m);
        const StepFlops none = step_flops(m, shapes, B, s, Recompute::none);
        const StepFlops full = step_flops(m, shapes, B, s, Recompute::full);
        const StepFlops sel = step_flops(m, shapes, B, s, Recompute::selective);
        const double k_model = korthikanti_model_flops(B, L, s, h, V);
        QVERIFY(qAbs(none.model - k_model) < 1e-12 * k_model);
        QCOMPARE(none.hardware, none.model);
        QVERIFY(qAbs(full.hardware - narayanan_flops(B, s, L, h, V)) < 1e-12 * full.hardware);
        QVERIFY(qAbs(sel.hardware - korthikanti_selective_hw_flops(B, L, s, h, V)) < 1e-12 * sel.hardware);
        QCOMPARE(full.model, none.model);
    }
    // Narayanan eq. 2 parameter count; Table 1 lists 1.7 / 175 (GPT-3) / 529.6 / 1008 B.
    void paper_params() {
        QCOMPARE(qRound(narayanan_params(24, 2304, 51200, 2048) / 1e8), 17);
        QCOMPARE(qRound(narayanan_params(105, 20480, 51200, 2048) / 1e8), 5296);
        QCOMPARE(qRound(narayanan_params(128, 25600, 51200, 2048) / 1e9), 1008);
        // Our per-part counts (biases included) give the same total; eq. 2 leaves out the final
        // LayerNorm (2h), and so does this sum.
        const LayerShapes s = layer_shapes([] {
            ModelSpec m = paper_gpt(105, 20480, 128);
            m.attn_bias = true;
            m.mlp_bias = true;
            return m;
        }());
        const double ours = 105 * (s.attn_params + s.dense_mlp_params + s.norm_params) + s.embedding_params;
        const double eq2 = narayanan_params(105, 20480, 51200, 2048);
        QVERIFY2(qAbs(ours - eq2) < 1e-9 * eq2, qPrintable(QString("%1 vs %2").arg(ours).arg(eq2)));
    }
    // GQA and SwiGLU change the projections as Megatron's formula does:
    // 12Bs L h^2 (1 + ffn/h * 3/2 (gated) + g/a + s/h + V/(2Lh)) ... per its expansion.
    void gqa_swiglu() {
        const ModelSpec m = llama3_405b();
        const LayerShapes s = layer_shapes(m);
        const double B = 1, seq = 8192, L = m.layers, h = m.hidden;
        const double megatron = 12 * B * seq * L * h * h *
                                    (1 + double(m.kv_heads) / m.heads + (double(m.ffn_hidden) / h) * 1.5 + seq / h) +
                                6 * B * seq * h * m.vocab;
        const double ours = step_flops(m, s, B, seq, Recompute::none).model;
        QVERIFY2(qAbs(ours - megatron) < 1e-12 * megatron, qPrintable(QString("%1 vs %2").arg(ours).arg(megatron)));
        // About 6 x 405B FLOPs per token plus attention.
        QVERIFY(ours / seq > 6 * 400e9 && ours / seq < 6 * 480e9);
    }

    // Narayanan Sec. 2.2 bubble fractions.
    void bubble_fractions() {
        QCOMPARE(bubble_fraction(4, 8, 1), 0.375);
        QCOMPARE(bubble_fraction(4, 8, 2), 0.1875);
        QCOMPARE(bubble_fraction(4, 8, 4), 0.09375);
        QCOMPARE(bubble_fraction(8, 32, 1), 0.21875);
        QCOMPARE(bubble_fraction(8, 32, 2), 0.109375);
        QCOMPARE(bubble_fraction(4, 4, 1), 0.75);
        // The closed-form makespan gives the same bubble for uniform stages.
        for (int v : {1, 2, 4}) {
            const Schedule s = v > 1 ? Schedule::interleaved_megatron : Schedule::one_f_one_b;
            std::vector<StageCost> c(4, StageCost{1.0, 2.0, 1.0});
            const PipelineResult r = simulate_closed_form(s, 4, 8, v, c);
            QVERIFY(qAbs(r.bubble_s / r.busy_s - bubble_fraction(4, 8, v)) < 1e-12);
            QVERIFY(qAbs(r.bubble_s / r.makespan_s - 3.0 / (8 * v + 3)) < 1e-12);
        }
        // Zero bubble ZB-H1 (Qi et al. Table 2): (p - 1)(T_F + T_B - T_W), T_B without W.
        std::vector<StageCost> c(4, StageCost{1.0, 2.0, 0.8});   // T_F = 1, T_B = 1.2, T_W = 0.8
        const PipelineResult zb = simulate_closed_form(Schedule::zb1p, 4, 8, 1, c);
        QVERIFY(qAbs(zb.bubble_s - 3 * (1.0 + 1.2 - 0.8)) < 1e-12);
        // Heterogeneous stages: the slowest stage sets the steady state.
        std::vector<StageCost> h = {{1, 2, 1}, {1, 2, 1}, {1, 2, 1}, {2, 4, 2}};
        const PipelineResult hr = simulate_closed_form(Schedule::one_f_one_b, 4, 8, 1, h);
        QCOMPARE(hr.busy_s, 8 * 6.0);
        QCOMPARE(hr.makespan_s, 8 * 6.0 + 3 * 3.0);
    }

    // In-flight microbatches: 1F1B p - r; Megatron interleaved warmup test vectors
    // (PP=4, v=2: M=8 -> warmup 10, 8, 6, 4; M=4 -> 8, 8, 6, 4 with T = 8).
    void inflight() {
        for (int r = 0; r < 4; ++r) QCOMPARE(peak_inflight(Schedule::one_f_one_b, 4, 8, 1, r), double(4 - r));
        QCOMPARE(peak_inflight(Schedule::one_f_one_b, 4, 2, 1, 0), 2.0);
        QCOMPARE(peak_inflight(Schedule::gpipe, 4, 8, 1, 3), 8.0);
        const double m8[] = {11, 9, 7, 5};
        const double m4[] = {8, 8, 7, 5};
        for (int r = 0; r < 4; ++r) {
            QCOMPARE(peak_inflight(Schedule::interleaved_megatron, 4, 8, 2, r), m8[r] / 2);
            QCOMPARE(peak_inflight(Schedule::interleaved_megatron, 4, 4, 2, r), m4[r] / 2);
        }
        // Korthikanti: first stage interleaved factor 1 + (p - 1)/(p v).
        QCOMPARE(peak_inflight(Schedule::interleaved_megatron, 8, 64, 3, 0) * (96 / 8), 96 * (1 + 7.0 / 24));
    }

    // ColossalAI distribute_layers test vectors (remainder to the middle; V shape for zbv).
    void layer_split() {
        auto split = [](int L, int S, int C, Schedule s) {
            return split_layers(paper_gpt(L, 64, 1), S, C, s, {}).layers;
        };
        QCOMPARE(split(30, 4, 1, Schedule::one_f_one_b), (std::vector<int>{7, 8, 8, 7}));
        QCOMPARE(split(32, 3, 1, Schedule::one_f_one_b), (std::vector<int>{11, 11, 10}));
        QCOMPARE(split(7, 4, 1, Schedule::one_f_one_b), (std::vector<int>{1, 2, 2, 2}));
        QCOMPARE(split(30, 4, 2, Schedule::interleaved_megatron), (std::vector<int>{3 + 4, 4 + 4, 4 + 4, 4 + 3}));
        QCOMPARE(split(26, 4, 2, Schedule::zbv), (std::vector<int>{6, 6, 6, 8}));
        QCOMPARE(split_layers(paper_gpt(8, 64, 1), 4, 2, Schedule::zbv, {}).head_stage, 0);
        QCOMPARE(split_layers(paper_gpt(10, 64, 1), 2, 1, Schedule::one_f_one_b, {3, 7}).layers,
                 (std::vector<int>{3, 7}));
    }

    // Megatron --account-for-embedding/loss-in-pipeline-split (transformer_block.py
    // get_num_layers_to_build): (L + 1 + 1) / (pp vp) per model chunk, one fewer decoder layer
    // in the embedding's chunk (first of stage 0) and in the loss's (last of the last stage).
    void megatron_account_for_split() {
        auto split = [](int L, int S, int C, Schedule s, bool emb, bool loss) {
            return split_layers(paper_gpt(L, 64, 1), S, C, s, {}, "megatron", emb, loss).layers;
        };
        QCOMPARE(split(30, 4, 1, Schedule::one_f_one_b, true, true), (std::vector<int>{7, 8, 8, 7}));
        QCOMPARE(split(31, 4, 1, Schedule::one_f_one_b, true, false), (std::vector<int>{7, 8, 8, 8}));
        QCOMPARE(split(31, 4, 1, Schedule::one_f_one_b, false, true), (std::vector<int>{8, 8, 8, 7}));
        // vp 2: 32 / 8 = 4 per chunk; rank 0 holds chunks 0 (3 layers + embedding) and 4, rank 3
        // chunks 3 and 7 (3 layers + loss).
        QCOMPARE(split(30, 4, 2, Schedule::interleaved_megatron, true, true), (std::vector<int>{7, 8, 8, 7}));
        // 32 + 2 does not divide by 4 (Megatron refuses it; the rules report it): the even split.
        QCOMPARE(split(32, 4, 1, Schedule::one_f_one_b, true, true), (std::vector<int>{8, 8, 8, 8}));
        // Other frameworks ignore the flags.
        QCOMPARE(split_layers(paper_gpt(30, 64, 1), 4, 1, Schedule::one_f_one_b, {}, "colossalai", true, true).layers,
                 (std::vector<int>{7, 8, 8, 7}));
        QCOMPARE(split_layers(paper_gpt(31, 64, 1), 4, 1, Schedule::one_f_one_b, {}, "colossalai", true, false).layers,
                 (std::vector<int>{7, 8, 8, 8}));

        // The estimate follows the layout's flags: stage layer counts, parameters and memory per stage.
        const ModelSpec m = paper_gpt(31, 2048, 16);
        const Project p = paper_project(m, "megatron", 64).tp(2).pp(4).schedule(Schedule::one_f_one_b).build();
        Hardware hw;
        const Config plain = make_config(m, p.training, p.layout, hw, 8);
        QCOMPARE(plain.layers_per_stage, (std::vector<int>{7, 8, 8, 8}));   // 31 % 4 != 0: distribute_layers
        const Project loss = ProjectBuilder(p).account_for_loss_in_pipeline_split(true).build();
        const Config acc = make_config(m, loss.training, loss.layout, hw, 8);
        QCOMPARE(acc.layers_per_stage, (std::vector<int>{8, 8, 8, 7}));   // (31 + 1) / 4, the loss's stage one fewer
        const LayerShapes s = layer_shapes(m);
        const Estimate e = evaluate(m, s, acc, hw, {});
        const Estimate e0 = evaluate(m, s, plain, hw, {});
        // The embedding's stage holds one layer more, the loss's one fewer: parameters and
        // activations per stage follow.
        const double layer = e.memory.stages[0].params_count - e0.memory.stages[0].params_count;
        QVERIFY(layer > 0);
        QVERIFY(qAbs(e0.memory.stages[3].params_count - e.memory.stages[3].params_count - layer) < 1);
        QVERIFY(e.memory.stages[3].activations < e0.memory.stages[3].activations);
    }
};

QTEST_APPLESS_MAIN(TestEstimateFlops)
#include "tst_estimate_flops.moc"
