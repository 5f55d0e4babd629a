// Memory model against the papers' own worked figures.
#include "estimate/config.h"
#include "estimate/memory.h"
#include "estimate/pipeline.h"
#include "estimate/shapes.h"
#include "estimate_test_models.h"
#include "catalog/catalog.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {

// One "layer" holding psi parameters, nothing else: pure model states.
LayerShapes states_only(double psi) {
    LayerShapes s;
    s.attn_params = psi;
    return s;
}

double model_state_gb(double psi, int stage, int nd) {
    const LayerShapes s = states_only(psi);
    Config c;
    c.layers_per_stage = {1};
    c.moe_layers_per_stage = {0};
    c.zero_stage = stage;
    c.zero_group = nd;
    c.dp = nd;
    c.bytes = {2, 2, 12};   // ZeRO paper: fp16 weight, fp16 grad, K = 12
    Hardware hw;
    const MemoryResult r = estimate_memory(s, c, hw, {1.0});
    const auto& m = r.stages[0];
    return (m.params + m.grads + m.optimizer) / 1e9;
}

double korthikanti(double s, double b, double h, double a, double t, const char* row) {
    const double sbh = s * b * h;
    const std::string r = row;
    if (r == "none") return sbh * (34 + 5 * a * s / h);
    if (r == "tp") return sbh * (10 + 24 / t + 5 * a * s / (h * t));
    if (r == "tp+sp") return sbh * (34 / t + 5 * a * s / (h * t));
    if (r == "tp+sel") return sbh * (10 + 24 / t);
    if (r == "tp+sp+sel") return sbh * (34 / t);
    return sbh * 2;   // full
}

}   // namespace

class TestEstimateMemory : public QObject {
    Q_OBJECT
private slots:
    // ZeRO (Rajbhandari et al. SC'20) Figure 1 and Table 1, 7.5B model.
    void zero_table_data() {
        QTest::addColumn<double>("psi");
        QTest::addColumn<int>("nd");
        QTest::addColumn<double>("os");
        QTest::addColumn<double>("osg");
        QTest::addColumn<double>("osgp");
        QTest::newRow("7.5B Nd=1") << 7.5e9 << 1 << 120.0 << 120.0 << 120.0;
        QTest::newRow("7.5B Nd=4") << 7.5e9 << 4 << 52.5 << 41.25 << 30.0;
        QTest::newRow("7.5B Nd=16") << 7.5e9 << 16 << 35.625 << 21.5625 << 7.5;
        QTest::newRow("7.5B Nd=64 (Figure 1)") << 7.5e9 << 64 << 31.40625 << 16.640625 << 1.875;
        QTest::newRow("7.5B Nd=1024") << 7.5e9 << 1024 << 30.087890625 << 15.1025390625 << 0.1171875;
        QTest::newRow("128B Nd=64") << 128e9 << 64 << 536.0 << 284.0 << 32.0;
        QTest::newRow("1T Nd=1024") << 1e12 << 1024 << 4011.71875 << 2013.671875 << 15.625;
    }
    void zero_table() {
        QFETCH(double, psi);
        QFETCH(int, nd);
        QFETCH(double, os);
        QFETCH(double, osg);
        QFETCH(double, osgp);
        QCOMPARE(model_state_gb(psi, 0, nd), psi * 16 / 1e9);
        QVERIFY(qAbs(model_state_gb(psi, 1, nd) - os) < 1e-6 * os);
        QVERIFY(qAbs(model_state_gb(psi, 2, nd) - osg) < 1e-6 * osg);
        QVERIFY(qAbs(model_state_gb(psi, 3, nd) - osgp) < 1e-6 * osgp);
    }
    // The paper rounds 31.4 / 16.6 / 1.9 GB.
    void zero_figure1_rounded() {
        QCOMPARE(qRound(model_state_gb(7.5e9, 1, 64) * 10), 314);
        QCOMPARE(qRound(model_state_gb(7.5e9, 2, 64) * 10), 166);
    }

    // Korthikanti et al. Table 2, every row, at GPT-3 and an odd-shaped model.
    void korthikanti_table2_data() {
        QTest::addColumn<QString>("row");
        QTest::addColumn<int>("t");
        QTest::addColumn<int>("sp");
        QTest::addColumn<int>("rec");
        for (int t : {1, 4, 8}) {
            const QByteArray ts = QByteArray::number(t);
            QTest::newRow(("tp t=" + ts).constData()) << "tp" << t << 0 << 0;
            QTest::newRow(("tp+sp t=" + ts).constData()) << "tp+sp" << t << 1 << 0;
            QTest::newRow(("tp+sel t=" + ts).constData()) << "tp+sel" << t << 0 << 1;
            QTest::newRow(("tp+sp+sel t=" + ts).constData()) << "tp+sp+sel" << t << 1 << 1;
            QTest::newRow(("full t=" + ts).constData()) << "full" << t << 0 << 2;
        }
        QTest::newRow("no parallelism") << "none" << 1 << 0 << 0;
    }
    void korthikanti_table2() {
        QFETCH(QString, row);
        QFETCH(int, t);
        QFETCH(int, sp);
        QFETCH(int, rec);
        for (auto [layers, h, a, s, b] : {std::tuple{96, 12288, 96, 2048, 1}, std::tuple{40, 5120, 40, 4096, 3}}) {
            const LayerShapes shapes = layer_shapes(paper_gpt(layers, h, a));
            ActivationInputs in;
            in.seq = s;
            in.micro_batch = b;
            in.tp = t;
            in.sequence_parallel = sp == 1;
            in.flash_attention = false;
            in.dropout = true;
            in.recompute = rec == 0 ? Recompute::none : rec == 1 ? Recompute::selective : Recompute::full;
            const double got = layer_activation(shapes, false, in).total();
            const double want = korthikanti(s, b, h, a, t, row.toUtf8().constData());
            QVERIFY2(qAbs(got - want) <= 1e-9 * want, qPrintable(QString("%1 vs %2").arg(got).arg(want)));
        }
    }

    // Korthikanti Figure 1 (first pipeline stage, GiB), reproduced with the interleaved
    // in-flight count of the first stage (Table 3 configurations, v = 3 for 175B and 530B).
    void korthikanti_figure1_data() {
        QTest::addColumn<int>("L");
        QTest::addColumn<int>("h");
        QTest::addColumn<int>("a");
        QTest::addColumn<int>("t");
        QTest::addColumn<int>("p");
        QTest::addColumn<int>("b");
        QTest::addColumn<int>("gbs");
        QTest::addColumn<int>("v");
        QTest::addColumn<double>("params_opt");
        QTest::addColumn<double>("none");
        QTest::addColumn<double>("sp_sel");
        QTest::newRow("22B") << 48 << 6144 << 64 << 8 << 1 << 4 << 4 << 1 << 45.5625 << 59.25 << 9.5625;
        QTest::newRow("175B") << 96 << 12288 << 96 << 8 << 8 << 1 << 64 << 3 << 45.5625 << 66.84375 << 12.3515625;
        QTest::newRow("530B") << 105 << 20480 << 128 << 8 << 35 << 1 << 280 << 3 << 31.640625 << 114.0234375
                              << 23.076171875;
        QTest::newRow("1T") << 128 << 25600 << 160 << 8 << 64 << 1 << 512 << 1 << 32.958984375 << 131.25 << 26.5625;
    }
    void korthikanti_figure1() {
        QFETCH(int, L);
        QFETCH(int, h);
        QFETCH(int, a);
        QFETCH(int, t);
        QFETCH(int, p);
        QFETCH(int, b);
        QFETCH(int, gbs);
        QFETCH(int, v);
        QFETCH(double, params_opt);
        QFETCH(double, none);
        QFETCH(double, sp_sel);
        const LayerShapes shapes = layer_shapes(paper_gpt(L, h, a));
        const int m = gbs / b;
        const Schedule sched = v > 1 ? Schedule::interleaved_megatron : Schedule::one_f_one_b;
        const double layer_microbatches = peak_inflight(sched, p, m, v, 0) * (L / p);
        ActivationInputs in;
        in.seq = 2048;
        in.micro_batch = b;
        in.tp = t;
        in.flash_attention = false;
        const double base = layer_activation(shapes, false, in).total() * layer_microbatches / kGiB;
        QVERIFY2(qAbs(base - none) < 1e-9 * none, qPrintable(QString::number(base, 'g', 12)));
        in.sequence_parallel = true;
        in.recompute = Recompute::selective;
        const double sel = layer_activation(shapes, false, in).total() * layer_microbatches / kGiB;
        QVERIFY2(qAbs(sel - sp_sel) < 1e-9 * sp_sel, qPrintable(QString::number(sel, 'g', 12)));
        // Parameters + optimizer at Megatron's 18 bytes per parameter (GEMM weights; the
        // replicated LayerNorm weights add under 0.1%).
        const ShardedCounts per_layer = layer_params_per_gpu(shapes, false, t, 1, t);
        const double po = per_layer.dense * (L / p) * 18 / kGiB;
        QVERIFY2(qAbs(po - params_opt) < 1e-3 * params_opt, qPrintable(QString::number(po, 'g', 12)));
    }

    // First vs last stage: embedding on the first, logits on the last; 1F1B in-flight p - r.
    void stages_differ() {
        const ModelSpec m = paper_gpt(24, 2048, 16);
        const LayerShapes s = layer_shapes(m);
        Config c;
        c.tp = 2;
        c.pp = 4;
        c.dp = 1;
        c.num_microbatches = 8;
        c.micro_batch = 1;
        c.seq_len = 2048;
        c.layers_per_stage = {6, 6, 6, 6};
        c.moe_layers_per_stage = {0, 0, 0, 0};
        c.flash_attention = true;
        std::vector<double> inflight;
        for (int r = 0; r < 4; ++r) inflight.push_back(peak_inflight(Schedule::one_f_one_b, 4, 8, 1, r));
        QCOMPARE(inflight, (std::vector<double>{4, 3, 2, 1}));
        Hardware hw;
        const MemoryResult r = estimate_memory(s, c, hw, inflight);
        QCOMPARE(int(r.stages.size()), 4);
        QVERIFY(r.stages[0].params > r.stages[1].params);   // embedding
        QVERIFY(r.stages[3].params > r.stages[1].params);   // tied copy of the embedding + final norm
        QVERIFY(r.stages[0].activations > 3.9 * (r.stages[3].activations - 4 * 2048.0 * (s.h + s.vocab) / 2));
        QCOMPARE(r.peak_stage, 0);
        QVERIFY(r.fits);
        // Megatron distributed optimizer: 6 + 12/dp bytes per parameter.
        c.dp = 8;
        c.zero_group = 8;
        c.distributed_optimizer = true;
        c.bytes = {2, 4, 12};
        const MemoryResult d = estimate_memory(s, c, hw, inflight);
        const double per_param = (d.stages[1].params + d.stages[1].grads + d.stages[1].optimizer) /
                                 d.stages[1].params_count;
        QVERIFY(qAbs(per_param - (6 + 12.0 / 8)) < 1e-9);
    }

    // Our sharded per-part counts add up to the catalog's parameter count (count_params)
    // for every decoder-only catalog model when nothing is split.
    void matches_catalog_counts() {
        int checked = 0;
        for (const ModelSpec& m : catalog::models()) {
            if (m.encoder_layers > 0 || m.family == "bert" || m.family == "t5") continue;
            const LayerShapes s = layer_shapes(m);
            Config c;
            c.layers_per_stage = {m.layers};
            int moe = 0;
            for (int i = 0; i < m.layers; ++i) moe += is_moe_layer(m, i) ? 1 : 0;
            c.moe_layers_per_stage = {moe};
            // Hybrid Mamba models: the per-kind counts make_config takes from split_layers.
            c.hybrid = m.is_hybrid();
            if (c.hybrid) {
                c.mamba_layers_per_stage = {m.hybrid_layer_count('M')};
                c.attention_layers_per_stage = {m.hybrid_layer_count('*')};
                c.mlp_layers_per_stage = {m.hybrid_layer_count('-')};
            }
            const auto p = stage_params(s, c);
            const double ours = p[0].dense + p[0].expert;
            const double theirs = double(count_params(m).total);
            QVERIFY2(qAbs(ours / theirs - 1) < 0.01,
                     qPrintable(QString("%1: ours %2, catalog %3").arg(m.id.c_str()).arg(ours).arg(theirs)));
            ++checked;
        }
        QVERIFY(checked >= 10);
    }

    // torchtitan FSDP2 under pipeline parallelism: parameters stay gathered for the whole stage
    // (reshard_after_forward = False), the pipelining stage turns off gradient sync until the last
    // backward so FSDP2 keeps every parameter's unsharded gradient in fp32, and the last stage
    // keeps each microbatch's bf16 logits for the output merge. Without pp the per-layer buffers.
    void torchtitan_pipeline_fsdp() {
        const ModelSpec m = paper_gpt(16, 2048, 16);
        const LayerShapes s = layer_shapes(m);
        Config c;
        c.framework = "torchtitan";
        c.tp = 2;
        c.pp = 2;
        c.dp = 4;
        c.zero_stage = 3;
        c.zero_group = 4;
        c.bytes = {4, 4, 8};
        c.grad_reduce_bytes = 4;
        c.num_microbatches = 6;
        c.micro_batch = 2;
        c.seq_len = 1024;
        c.recompute = Recompute::full;
        c.flash_attention = true;
        c.layers_per_stage = {8, 8};
        c.moe_layers_per_stage = {0, 0};
        Hardware hw;
        const MemoryResult r = estimate_memory(s, c, hw, {2, 1});
        const auto& st = r.stages[0];
        const double layer = (st.params_count - s.embedding_params / 2) / 8;   // stage 0: 8 layers + the embedding
        // 16-bit gathered stage + fp32 accumulated unsharded gradient + one layer's 16-bit gradient,
        // and the pipelining stage's buffers of the 16-bit stage boundary (s b h): the first stage
        // receives no activations, keeps a gradient-receive buffer per microbatch (6) and the
        // output of each in-flight microbatch (2).
        const double io = 2.0 * 1024 * 2 * 2048;
        QVERIFY(qAbs(st.buffers - (2.0 * st.params_count + 4.0 * st.params_count + 2.0 * layer + (6 + 2) * io)) < 1);
        // Last stage: one microbatch's bf16 logits (vocabulary split by tp) per microbatch of the step.
        Config fewer = c;
        fewer.num_microbatches = 1;
        const MemoryResult r6 = estimate_memory(s, fewer, hw, {2, 1});
        const double logits = 2.0 * 1024 * 2 * s.vocab / 2;
        const double extra = r.stages[1].activations - r6.stages[1].activations;
        QVERIFY2(qAbs(extra - 5 * logits) < 1, qPrintable(QString("%1 vs %2").arg(extra).arg(5 * logits)));
        QCOMPARE(r.stages[0].activations, r6.stages[0].activations);
        Config one = c;
        one.pp = 1;
        one.layers_per_stage = {16};
        one.moe_layers_per_stage = {0};
        const MemoryResult r1 = estimate_memory(s, one, hw, {1});
        // Without pp FSDP2 reshards after forward and reduce-scatters per layer: no whole-stage buffers.
        QVERIFY(r1.stages[0].buffers < 0.5 * st.buffers);
    }

    // Interleaved 1F1B with one round of microbatches (n_microbatches < 2 pp) runs a rank's
    // backwards chunk by chunk, and each chunk's last backward frees its accumulated gradients:
    // only one chunk's fp32 gradients at a time. With more rounds both chunks accumulate.
    void torchtitan_interleaved_gradients_per_chunk() {
        const ModelSpec m = paper_gpt(16, 2048, 16);
        const LayerShapes s = layer_shapes(m);
        Config c;
        c.framework = "torchtitan";
        c.pp = 2;
        c.chunks = 2;
        c.schedule = Schedule::interleaved_pytorch;
        c.dp = 4;
        c.zero_stage = 3;
        c.zero_group = 4;
        c.bytes = {4, 4, 8};
        c.grad_reduce_bytes = 4;
        c.num_microbatches = 2;
        c.micro_batch = 1;
        c.seq_len = 1024;
        c.recompute = Recompute::full;
        c.layers_per_stage = {8, 8};
        c.moe_layers_per_stage = {0, 0};
        Hardware hw;
        const MemoryResult one_round = estimate_memory(s, c, hw, {2, 2});
        Config more = c;
        more.num_microbatches = 4;   // two rounds: both chunks' gradients accumulate together
        const MemoryResult two_rounds = estimate_memory(s, more, hw, {2, 2});
        const double p = one_round.stages[1].params_count;
        const double io = 2.0 * 1024 * 2048;
        // Stage 1 (last rank): fp32 gradients of 4 of its 8 layers vs all 8; its P2P buffers
        // differ by the 2 extra microbatches (receive buffers for 2 chunks, gradient-receive for 1).
        const double diff = two_rounds.stages[1].buffers - one_round.stages[1].buffers;
        const double expected = 4.0 * p / 2 + io * (2 * 2 + 1 * 2);
        QVERIFY2(qAbs(diff - expected) < 1, qPrintable(QString("%1 vs %2").arg(diff).arg(expected)));
    }

    // The loss outside Megatron: eager 10 B per local logit beyond the 4 B of the head, 6 B with
    // compiled blocks, none with a compiled loss. torchtitan drops its logits before backward
    // (train.py `del pred`): 8 B whatever the blocks' kernels; its loss parallel (tp > 1) 4 B more.
    void loss_memory_by_kernels() {
        const ModelSpec m = paper_gpt(4, 1024, 16);
        const LayerShapes s = layer_shapes(m);
        Config c;
        c.framework = "colossalai";
        c.layers_per_stage = {4};
        c.moe_layers_per_stage = {0};
        c.micro_batch = 2;
        c.seq_len = 512;
        c.kernels = KernelStack::eager;
        Hardware hw;
        const double logits = 2.0 * 512 * s.vocab;
        const auto act = [&](const Config& x) { return estimate_memory(s, x, hw, {1}).stages[0].activations; };
        Config compiled_loss = c;
        compiled_loss.kernels = KernelStack::compile;
        compiled_loss.compile_loss = true;
        const double base = act(compiled_loss);
        QVERIFY2(qAbs(act(c) - base - 10 * logits) < 1, qPrintable(QString::number(act(c) - base)));
        Config blocks = c;
        blocks.kernels = KernelStack::compile;
        QVERIFY2(qAbs(act(blocks) - base - 6 * logits) < 1, qPrintable(QString::number(act(blocks) - base)));
        // What the loop holds of the logits, when the project says: freed 8 B, the 16-bit logits
        // kept 10 B, the fp32 logits kept 12 B, whatever the kernels.
        for (const auto& [held, bytes] : {std::pair{LossLogits::freed, 8.0}, std::pair{LossLogits::kept, 10.0},
                                          std::pair{LossLogits::kept_fp32, 12.0}}) {
            Config x = blocks;
            x.loss_logits = held;
            QVERIFY2(qAbs(act(x) - base - bytes * logits) < 1, qPrintable(QString::number(act(x) - base)));
        }
        // torchtitan: 8 B with eager and with compiled blocks alike.
        for (const KernelStack k : {KernelStack::eager, KernelStack::compile}) {
            Config tt = c;
            tt.framework = "torchtitan";
            tt.kernels = k;
            Config tt_loss = tt;
            tt_loss.kernels = KernelStack::compile;
            tt_loss.compile_loss = true;
            QVERIFY2(qAbs(act(tt) - act(tt_loss) - 8 * logits) < 1,
                     qPrintable(QString::number(act(tt) - act(tt_loss))));
        }
        Config tp = c;
        tp.framework = "torchtitan";
        tp.kernels = KernelStack::compile;
        tp.tp = 2;
        Config tp_plain = tp;
        tp_plain.compile_loss = true;
        // 8 B (logits dropped before backward) + 4 B (decomposed loss parallel) per local logit (vocab / 2).
        QVERIFY2(qAbs(act(tp) - act(tp_plain) - 12 * logits / 2) < 1,
                 qPrintable(QString::number(act(tp) - act(tp_plain))));
    }

    // With full recomputation the loss's temporaries and the one layer rebuilt during its backward
    // are never alive together: the head stage holds the larger of the two, not their sum.
    void full_recompute_loss_or_layer() {
        const ModelSpec m = paper_gpt(4, 1024, 16);
        const LayerShapes s = layer_shapes(m);
        Config c;
        c.framework = "torchtitan";
        c.layers_per_stage = {4};
        c.moe_layers_per_stage = {0};
        c.micro_batch = 2;
        c.seq_len = 512;
        c.flash_attention = true;
        c.dropout = false;
        c.recompute = Recompute::full;
        Hardware hw;
        ActivationInputs in;
        in.seq = 512;
        in.micro_batch = 2;
        in.flash_attention = true;
        in.dropout = false;
        in.recompute = Recompute::full;
        const double kept = layer_activation(s, false, in).total();   // the layer input, 2sbh
        in.recompute = Recompute::none;
        const double layer = layer_activation(s, false, in).total();
        const double tokens = 512.0 * 2;
        const double ids = 8 * tokens;   // token ids on the embedding stage
        // torchtitan's eager loss: 12 B per logit + 4 B per hidden value, far above one layer here.
        const double loss = 12 * tokens * s.vocab + 4 * tokens * s.h;
        QVERIFY(loss > layer);
        const double with_loss = estimate_memory(s, c, hw, {1}).stages[0].activations;
        QVERIFY2(qAbs(with_loss - (4 * kept + ids + loss)) < 1, qPrintable(QString::number(with_loss)));
        // A tiny vocabulary: the rebuilt layer is the larger term.
        ModelSpec small = m;
        small.vocab = 8;
        const LayerShapes ss = layer_shapes(small);
        const double small_loss = 12 * tokens * ss.vocab + 4 * tokens * ss.h;
        QVERIFY(small_loss < layer);
        const double with_layer = estimate_memory(ss, c, hw, {1}).stages[0].activations;
        QVERIFY2(qAbs(with_layer - (4 * kept + ids + layer)) < 1, qPrintable(QString::number(with_layer)));
    }

    // DTensor tensor parallelism with sequence parallelism (torchtitan apply_tp) all-gathers the
    // sequence-sharded inputs of the column-parallel linears and their autograd saves the gathered
    // tensor: the attention and MLP block inputs are whole sequences (2 B, or 1 B where torchao's
    // Float8 TP styles gather in FP8), and so is the output layer's input at the loss. Megatron saves
    // the shard and gathers again in backward (Korthikanti's 2sbh/t each).
    void dtensor_sp_saves_gathered_inputs() {
        const ModelSpec m = paper_gpt(4, 1024, 16);
        const LayerShapes s = layer_shapes(m);
        const double tokens = 512.0 * 2, t = 4;
        const double sbh = tokens * s.h;
        ActivationInputs in;
        in.seq = 512;
        in.micro_batch = 2;
        in.tp = int(t);
        in.sequence_parallel = true;
        in.flash_attention = true;
        in.dropout = false;
        const double sharded = layer_activation(s, false, in).total();
        in.gathered_input_bytes = 2;
        QVERIFY2(qAbs(layer_activation(s, false, in).total() - sharded - (4 * sbh - 4 * sbh / t)) < 1, "16-bit");
        in.gathered_input_bytes = 1;
        QVERIFY2(qAbs(layer_activation(s, false, in).total() - sharded - (2 * sbh - 4 * sbh / t)) < 1, "FP8");
        in.sequence_parallel = false;   // without SP the inputs are whole sequences either way
        const double no_sp = layer_activation(s, false, in).total();
        in.gathered_input_bytes = 0;
        QCOMPARE(layer_activation(s, false, in).total(), no_sp);

        Config c;
        c.layers_per_stage = {4};
        c.moe_layers_per_stage = {0};
        c.micro_batch = 2;
        c.seq_len = 512;
        c.tp = int(t);
        c.sequence_parallel = true;
        c.flash_attention = true;
        c.dropout = false;
        c.recompute = Recompute::full;
        c.kernels = KernelStack::compile;
        Hardware hw;
        const auto act = [&](const std::string& framework, std::optional<Fp8Recipe> fp8) {
            Config x = c;
            x.framework = framework;
            x.fp8 = fp8;
            return estimate_memory(s, x, hw, {1}).stages[0].activations;
        };
        // The head stage's peak is the loss here (vocabulary >> one layer): torchtitan's output layer
        // saves its 16-bit gathered input, 2sbh instead of 2sbh/t, FP8 or not (the output layer is no
        // Float8Linear).
        ActivationInputs full;
        full.seq = 512;
        full.micro_batch = 2;
        full.tp = int(t);
        full.sequence_parallel = true;
        full.flash_attention = true;
        full.dropout = false;
        full.recompute = Recompute::full;
        const double kept = layer_activation(s, false, full).total();
        const double ids = 8 * tokens;
        const double loss = 2 * sbh / t + 2 * sbh + 4 * tokens * s.vocab / t + 12 * tokens * s.vocab / t;
        for (const std::optional<Fp8Recipe> r : {std::optional<Fp8Recipe>(), std::optional(Fp8Recipe::tensorwise)}) {
            const double got = act("torchtitan", r);
            QVERIFY2(qAbs(got - (4 * kept + ids + loss)) < 1,
                     qPrintable(QString::number(got - (4 * kept + ids + loss))));
        }
        // Megatron: the fused vocab-parallel loss and sharded saves: 4sbh/t + 4 B per local logit.
        const double megatron = act("megatron", std::nullopt);
        QVERIFY2(qAbs(megatron - (4 * kept + ids + 4 * sbh / t + 4 * tokens * s.vocab / t)) < 1,
                 qPrintable(QString::number(megatron)));
    }

    // FSDP2 keeps its root module (torchtitan: the embedding, final norm and output layer) gathered
    // from the forward through the backward, in 16 bits even with FP8 all-gathers; the layers'
    // gathered buffers count only the layers' own parameters.
    void fsdp2_root_stays_gathered() {
        ModelSpec m = paper_gpt(8, 1024, 16);
        m.tied_embeddings = false;
        const LayerShapes s = layer_shapes(m);
        Config c;
        c.framework = "torchtitan";
        c.layers_per_stage = {8};
        c.moe_layers_per_stage = {0};
        c.dp = 8;
        c.zero_stage = 3;
        c.zero_group = 8;
        c.bytes = {4, 4, 8};
        c.grad_reduce_bytes = 4;
        c.fp8 = Fp8Recipe::tensorwise;
        c.fp8_all_gather = true;
        c.kernels = KernelStack::compile;
        Hardware hw;
        const auto st = estimate_memory(s, c, hw, {1}).stages[0];   // a copy: the estimate is a temporary
        const double root = s.embedding_params + s.head_params + s.final_norm_params;
        const double layer = (st.params_count - root) / 8;
        // Two layers gathered in FP8 + one layer's fp32 unsharded gradient + the 16-bit root.
        const double expected = 1.0 * 2 * layer + 4.0 * layer + 2.0 * root;
        QVERIFY2(qAbs(st.buffers - expected) < 1, qPrintable(QString("%1 vs %2").arg(st.buffers).arg(expected)));
        // ZeRO-3 outside FSDP2 (DeepSpeed) has no such root group.
        Config ds = c;
        ds.framework = "deepspeed";
        ds.fp8.reset();
        const auto d = estimate_memory(s, ds, hw, {1}).stages[0];
        QVERIFY2(qAbs(d.buffers - (2.0 * 2 * layer + 4.0 * layer)) < 1, qPrintable(QString::number(d.buffers)));
    }

    // CPU offload moves optimizer states off the GPU; MoE experts are split by ep.
    void offload_and_experts() {
        ModelSpec m = paper_gpt(8, 1024, 16);
        m.family = "mixtral";
        m.experts = 8;
        m.top_k = 2;
        m.expert_ffn_hidden = 4096;
        const LayerShapes s = layer_shapes(m);
        Config c;
        c.layers_per_stage = {8};
        c.moe_layers_per_stage = {8};
        c.ep = 4;
        c.expert_zero_group = 1;
        Hardware hw;
        const MemoryResult a = estimate_memory(s, c, hw, {1});
        c.ep = 8;
        const MemoryResult b = estimate_memory(s, c, hw, {1});
        QVERIFY(qAbs(a.stages[0].expert_params_count - 2 * b.stages[0].expert_params_count) < 1);
        QVERIFY(qAbs(b.stages[0].expert_params_count - 8 * 8 * 2 * 1024.0 * 4096 / 8) < 1);
        c.offload_optimizer = 1.0;
        const MemoryResult o = estimate_memory(s, c, hw, {1});
        QCOMPARE(o.stages[0].optimizer, 0.0);
        QVERIFY(qAbs(o.stages[0].offloaded - b.stages[0].optimizer) < 1);
    }
};

QTEST_APPLESS_MAIN(TestEstimateMemory)
#include "tst_estimate_memory.moc"
