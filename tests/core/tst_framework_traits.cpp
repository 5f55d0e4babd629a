// The framework traits table (project/framework.h) and derived_sizes() (project/derived_sizes.h):
// every id parses back to its row, unknown ids fail with a message that says where, and the
// derived data-parallel size and microbatch count follow each framework's own formula on
// published configurations.
#include "project/derived_sizes.h"
#include "project/framework.h"
#include "project/layout.h"
#include "util/input_error.h"

#include <QtTest>

using namespace paraplan;

namespace {

Layout layout(const std::string& fw, int tp, int pp, int cp = 1, int sp = 1, SpMode sp_mode = SpMode::none) {
    Layout l;
    l.framework = fw;
    l.tp = tp;
    l.pp = pp;
    l.cp = cp;
    l.sp = sp;
    l.sp_mode = sp_mode;
    return l;
}

Training batch(int global, int micro) {
    Training t;
    t.global_batch_size = global;
    t.micro_batch_size = micro;
    return t;
}

}   // namespace

class TestFrameworkTraits : public QObject {
    Q_OBJECT
private slots:
    void table_rows_match_the_enum() {
        const auto& ids = framework_ids();
        QCOMPARE(int(ids.size()), 8);
        QCOMPARE(int(framework_table().size()), 8);
        for (const auto& t : framework_table()) {
            // traits(f) indexes the table by the enum: the rows must be in enum order.
            QCOMPARE(traits(t.id).name, t.name);
            const auto parsed = parse_framework(t.name);
            QVERIFY(parsed.has_value());
            QVERIFY(*parsed == t.id);
            QVERIFY(std::string(t.display_name).size() > 0);
            QVERIFY(std::string(t.exporter).size() > 0);
            QVERIFY(!zero_stages(t, 1).empty());
        }
        // The project file's list is the table's.
        QCOMPARE(kFrameworks, ids);
        QCOMPARE(ids.front(), std::string("colossalai"));
    }

    void unknown_framework_is_a_clear_error() {
        QVERIFY(!parse_framework("megatron-lm").has_value());
        QVERIFY(find_traits("") == nullptr);
        try {
            traits_of(std::string("fsdp"));
            QFAIL("no error for an unknown framework");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/layout/framework"));
            const std::string msg = e.message();
            QVERIFY2(msg.find("'fsdp'") != std::string::npos, msg.c_str());
            for (const auto& id : framework_ids()) QVERIFY2(msg.find(id) != std::string::npos, msg.c_str());
        }
    }

    void traits_say_what_the_frameworks_do() {
        // ColossalAI plugins by their classes, both ways.
        QVERIFY(framework_for_plugin("GeminiPlugin") == Framework::colossalai_gemini);
        QVERIFY(framework_for_plugin("MoeHybridParallelPlugin") == Framework::colossalai_moe);
        QVERIFY(!framework_for_plugin("").has_value());
        QVERIFY(is_colossalai("colossalai-zero"));
        QVERIFY(!is_colossalai("megatron"));
        // ZeRO: DeepSpeed pipelines take 0/1 only; Gemini is always 3; Megatron's 1 is the distributed optimizer.
        const auto& ds = traits(Framework::deepspeed);
        QCOMPARE(zero_stages(ds, 1), (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(zero_stages(ds, 4), (std::vector<int>{0, 1}));
        QVERIFY(traits(Framework::colossalai_gemini).zero == ZeroSemantics::always_3);
        QVERIFY(traits(Framework::megatron).zero == ZeroSemantics::distributed_optimizer);
        // Kernel stacks and exporters.
        QCOMPARE(traits(Framework::megatron).kernels, KernelStack::te);
        QCOMPARE(traits(Framework::torchtitan).kernels, KernelStack::eager);
        QCOMPARE(std::string(traits(Framework::colossalai_moe).exporter), std::string("colossalai"));
        QCOMPARE(std::string(traits(Framework::devicemesh).exporter), std::string("torchrun"));
        Layout l = layout("colossalai", 1, 1);
        QCOMPARE(kernel_stack(l), KernelStack::eager);
        l.fused_norm = l.jit_fused = true;
        QCOMPARE(kernel_stack(l), KernelStack::te);
        l.framework = "deepspeed";   // the switches mean nothing to DeepSpeed's stack
        QCOMPARE(kernel_stack(l), KernelStack::eager);
        // Axes: ColossalAI has sp, Megatron/torchtitan cp, DeepSpeed neither.
        QCOMPARE(traits(Framework::colossalai).axes, (std::vector<std::string>{"tp", "pp", "sp"}));
        QCOMPARE(traits(Framework::megatron).axes, (std::vector<std::string>{"tp", "pp", "cp", "ep"}));
        QCOMPARE(traits(Framework::deepspeed).axes, (std::vector<std::string>{"tp", "pp", "ep"}));
    }

    // Two rows per framework: whether layout.num_microbatches is its per-flush count
    // (num_microbatches_knob) and whether gradients are reduced after every accumulation flush
    // (grad_sync_each_flush). ColossalAI's HybridParallelPlugin(num_microbatches=...) takes the count
    // and reduces once (execute_pipeline skips sync_dp_grads under booster.no_sync()); Megatron-LM
    // (ConstantNumMicroBatchesCalculator) and DeepSpeed (gradient_accumulation_steps) derive it and
    // run one flush; torchtitan and PyTorch pipelining take it per schedule step and reduce at each
    // step's last backward. Gemini and LowLevelZero share the ColossalAI row (they run no pipeline).
    void microbatch_knob_and_grad_sync_rows() {
        struct Want {
            Framework id;
            bool knob, sync_each_flush;
        };
        const std::vector<Want> want = {
            {Framework::colossalai, true, false},        {Framework::colossalai_moe, true, false},
            {Framework::colossalai_gemini, true, false}, {Framework::colossalai_zero, true, false},
            {Framework::megatron, false, false},         {Framework::torchtitan, true, true},
            {Framework::deepspeed, false, false},        {Framework::devicemesh, true, true},
        };
        QCOMPARE(want.size(), framework_table().size());
        for (const Want& w : want) {
            const FrameworkTraits& t = traits(w.id);
            QVERIFY2(t.num_microbatches_knob == w.knob, t.name);
            QVERIFY2(t.grad_sync_each_flush == w.sync_each_flush, t.name);
            // The readers follow the row: has_microbatch_knob() and the per-flush count with pp > 1.
            QCOMPARE(has_microbatch_knob(t.name), w.knob);
            Layout l = layout(t.name, 1, 4);
            l.num_microbatches = 8;
            QCOMPARE(layout_microbatches(l), w.knob ? 8 : 0);
            // 64 / (1 x dp) microbatches per step (dp 2 with pp 4 on 8 GPUs; 8 where pp is no axis):
            // flushes of 8 with the knob, else all of them in one flush.
            const DerivedSizes s = derived_sizes(l, batch(64, 1), 8);
            QVERIFY(s.dp == 2 || (!t.world.pp && s.dp == 8));
            const long long per_step = 64 / s.dp;
            QCOMPARE(s.microbatches, w.knob ? 8LL : per_step);
            QCOMPARE(s.grad_accum, w.knob ? per_step / 8 : 1LL);
        }
        QVERIFY(has_microbatch_knob("no-such-framework"));   // unknown: run as a plain DeviceMesh
    }

    // What layout.fp8_all_gather gathers, per framework (fp8_all_gather_kind): ColossalAI's
    // fp8_communication casts on the wire (v0.5.1 zero/gemini/chunk/chunk.py Chunk.__gather,
    // all_gather_fp8) for every plugin; Megatron's --fp8-param-gather gathers FP8 primary weights
    // and only with the distributed optimizer (core_v0.19.0 arguments.py validate_args);
    // torchtitan's FSDP2 gathers FP8 weights (torchao enable_fsdp_float8_all_gather); DeepSpeed
    // and a plain DeviceMesh have none. A kind exists exactly where some recipe gathers.
    void fp8_all_gather_kind_rows() {
        struct Want {
            Framework id;
            Fp8AllGatherKind kind;
            bool needs_distributed_optimizer;
        };
        const std::vector<Want> want = {
            {Framework::colossalai, Fp8AllGatherKind::wire_casts, false},
            {Framework::colossalai_moe, Fp8AllGatherKind::wire_casts, false},
            {Framework::colossalai_gemini, Fp8AllGatherKind::wire_casts, false},
            {Framework::colossalai_zero, Fp8AllGatherKind::wire_casts, false},
            {Framework::megatron, Fp8AllGatherKind::primary_weights, true},
            {Framework::torchtitan, Fp8AllGatherKind::fsdp_weights, false},
            {Framework::deepspeed, Fp8AllGatherKind::none, false},
            {Framework::devicemesh, Fp8AllGatherKind::none, false},
        };
        QCOMPARE(want.size(), framework_table().size());
        for (const Want& w : want) {
            const FrameworkTraits& t = traits(w.id);
            QVERIFY2(t.fp8_all_gather_kind == w.kind, t.name);
            QVERIFY2(t.fp8_all_gather_needs_distributed_optimizer == w.needs_distributed_optimizer, t.name);
            QVERIFY2((t.fp8_all_gather_kind == Fp8AllGatherKind::none) == t.fp8_all_gather_recipes.empty(), t.name);
            // The switch reader agrees: with tensorwise (every framework's first recipe) it gathers
            // FP8 weights exactly where the row names a kind.
            QCOMPARE(gathers_fp8_weights(t.name, Fp8Recipe::tensorwise), w.kind != Fp8AllGatherKind::none);
        }
    }

    // Megatron: dp = world / (tp x pp x cp) (parallel_state.py initialize_model_parallel) and
    // num_microbatches = global / (micro x dp) (num_microbatches_calculator.py
    // ConstantNumMicroBatchesCalculator), on the configurations the papers publish.
    void megatron_worked_examples() {
        // Narayanan et al. 2021, Table 1: 529.6B on 2,520 GPUs, tp 8, pp 35, batch 2,520.
        DerivedSizes s = derived_sizes(layout("megatron", 8, 35), batch(2520, 1), 2520);
        QCOMPARE(s.model, 280LL);
        QCOMPARE(s.dp, 9);                       // 2520 / (8 * 35)
        QCOMPARE(s.batch_microbatches, 280LL);   // 2520 / (1 * 9)
        QCOMPARE(s.microbatches, 280LL);
        QCOMPARE(s.grad_accum, 1LL);
        // Dubey et al. 2024 (Llama 3), Table 4: 405B on 16,384 GPUs, tp 8, pp 16, cp 1, dp 128,
        // 2,048 sequences of 8,192 tokens per step (16M tokens).
        s = derived_sizes(layout("megatron", 8, 16, 1), batch(2048, 1), 16384);
        QCOMPARE(s.dp, 128);
        QCOMPARE(s.microbatches, 16LL);   // 2048 / (1 * 128): the table's batch size per DP
        // The same table's 128K-context row: cp 16 leaves dp 8; 64 sequences per step.
        s = derived_sizes(layout("megatron", 8, 16, 16), batch(64, 1), 16384);
        QCOMPARE(s.dp, 8);
        QCOMPARE(s.microbatches, 8LL);
        // A batch that is no whole number of micro x dp derives no microbatch count.
        s = derived_sizes(layout("megatron", 8, 35), batch(2521, 1), 2520);
        QCOMPARE(s.dp, 9);
        QCOMPARE(s.batch_microbatches, 0LL);
        QCOMPARE(microbatches_from_batch(2521, 1, 9), 0LL);
        QCOMPARE(microbatches_from_batch(2520, 2, 9), 140LL);
        // World not divisible by tp x pp x cp: no data-parallel size.
        s = derived_sizes(layout("megatron", 8, 3), batch(64, 1), 64);
        QCOMPARE(s.dp, 0);
        QCOMPARE(s.microbatches, 0LL);
    }

    void step_microbatches_layout_then_batch_then_floor() {
        // Narayanan et al. 2021 Table 1 (global batch 2520, dp 9): 280 from the batch.
        Layout l = layout("megatron", 8, 35);
        QCOMPARE(step_microbatches(l, batch(2520, 1), 9), 280);
        QCOMPARE(step_microbatches(l, batch(2520, 2), 9), 140);
        // An inexact batch: its floor (an error the rules report), at least 1.
        QCOMPARE(step_microbatches(l, batch(2521, 1), 9), 280);
        QCOMPARE(step_microbatches(l, batch(4, 1), 9), 1);
        QCOMPARE(step_microbatches(l, batch(2520, 2), 0), 1260);   // no dp yet: one replica
        // A stated count is one pipeline flush where the framework has that knob (ColossalAI's
        // num_microbatches, with pp > 1); Megatron has none and runs the batch's 280 regardless.
        l.num_microbatches = 64;
        QCOMPARE(step_microbatches(l, batch(2520, 1), 9), 280);
        Layout c = layout("colossalai", 8, 35);
        c.num_microbatches = 70;
        QCOMPARE(step_microbatches(c, batch(2520, 1), 9), 70);   // 4 flushes of 70 per step
        DerivedSizes s = derived_sizes(c, batch(2520, 1), 8 * 35 * 9);
        QCOMPARE(s.microbatches, 70LL);
        QCOMPARE(s.grad_accum, 4LL);
        s = derived_sizes(l, batch(2520, 1), 8 * 35 * 9);
        QCOMPARE(s.microbatches, 280LL);
        QCOMPARE(s.grad_accum, 1LL);
        c.pp = 1;   // ColossalAI reads num_microbatches only with a pipeline
        QCOMPARE(step_microbatches(c, batch(2520, 1), 9 * 35), 8);
    }

    void other_frameworks_read_their_own_axes() {
        // ColossalAI: sp is an axis only in all_to_all / ring_attn (ProcessGroupMesh(dp, pp, sp, tp)).
        DerivedSizes s = derived_sizes(layout("colossalai", 2, 2, 1, 4, SpMode::all_to_all), batch(64, 1), 64);
        QCOMPARE(s.sp, 4);
        QCOMPARE(s.dp, 4);   // 64 / (2 * 2 * 4)
        QCOMPARE(s.microbatches, 16LL);
        s = derived_sizes(layout("colossalai", 2, 2, 1, 4, SpMode::split_gather), batch(64, 1), 64);
        QCOMPARE(s.sp, 1);
        QCOMPARE(s.dp, 16);
        // DeepSpeed has no cp axis; Gemini no pp; LowLevelZero only dp.
        QCOMPARE(derived_sizes(layout("deepspeed", 2, 2, 2), batch(64, 1), 16).dp, 4);
        QCOMPARE(derived_sizes(layout("colossalai-gemini", 2, 4), batch(64, 1), 8).dp, 4);
        QCOMPARE(derived_sizes(layout("colossalai-zero", 2, 4), batch(64, 1), 8).dp, 8);
        // A DeviceMesh counts every named dimension.
        QCOMPARE(derived_sizes(layout("devicemesh", 2, 2, 2, 2), batch(64, 1), 32).dp, 2);
        // torchtitan: dp = dp_replicate x dp_shard, with dp_shard -1 inferred (parallel_dims.py).
        Layout tt = layout("torchtitan", 2, 2, 2);
        tt.dp_replicate = 2;
        tt.dp_shard = -1;
        s = derived_sizes(tt, batch(64, 2), 64);
        QCOMPARE(s.dp, 8);               // 2 x (64 / (2 * 2 * 2) / 2)
        QCOMPARE(s.microbatches, 4LL);   // 64 / (2 * 8)
        tt.dp_shard = 3;                 // 2 x 3 x 8 != 64
        QCOMPARE(derived_sizes(tt, batch(64, 2), 64).dp, 0);
    }

    void layout_microbatches_and_accumulation() {
        // A layout microbatch count wins; the rest of the batch is gradient accumulation.
        Layout l = layout("colossalai", 1, 4);
        l.num_microbatches = 4;
        const DerivedSizes s = derived_sizes(l, batch(64, 2), 16);   // dp 4
        QCOMPARE(s.dp, 4);
        QCOMPARE(s.batch_microbatches, 8LL);
        QCOMPARE(s.microbatches, 4LL);
        QCOMPARE(s.grad_accum, 2LL);   // 64 / (2 * 4 * 4)
    }
};

QTEST_APPLESS_MAIN(TestFrameworkTraits)
#include "tst_framework_traits.moc"
