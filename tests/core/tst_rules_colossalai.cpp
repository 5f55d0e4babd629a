// ColossalAI plugin rules: each rule with a failing and a passing project, the
// numbers in its message, the plugin's own error text, and fixes that clear it.
// Cases from ColossalAI v0.5.1: HybridParallelPlugin/MoeHybridParallelPlugin.__init__, the
// pipeline schedules, ShardFormer policies, and hpcaitech/ColossalAI issues #6202, #6237, #6381.
#include "rules_fixtures.h"

#include "rules/rule_kit.h"

#include <functional>

using namespace paraplan;
using namespace paraplan::test;

namespace {

// Llama-3.1-8B on 2 x 8 H100, tp 2 pp 2 (dp 4), ZeRO-1, 1f1b: valid.
Project base() {
    Project p = make_project("colossalai", 2, 8, llama3_8b());
    p.layout.tp = 2;
    p.layout.pp = 2;
    p.layout.zero_stage = 1;
    return p;
}

// Mixtral on 2 x 8 H100 with the MoE plugin: tp 1 pp 2 ep 8, ZeRO-1 (the bundled example).
Project moe_base() {
    Project p = make_project("colossalai-moe", 2, 8, mixtral_8x7b());
    p.layout.pp = 2;
    p.layout.ep = 8;
    p.layout.zero_stage = 1;
    p.training.global_batch_size = 128;
    return p;
}

Project edit(Project p, const std::function<void(Project&)>& f) {
    f(p);
    return p;
}

}   // namespace

class TestRulesColossalai : public QObject {
    Q_OBJECT
private slots:
    void baseProjectsAreClean() {
        for (const Project& p : {base(), moe_base()}) {
            const auto ds = validate(p);
            QVERIFY2(!has_errors(ds), rule_list(ds).c_str());
        }
    }

    void hybridRules() {
        const Project b = base();
        std::vector<RuleCase> cases = {
            {"world",
             edit(b, [](Project& p) { p.layout.pp = 3; }),
             b,
             "colossalai.world_divisible",
             Severity::Error,
             {"16", "6"},
             "World size 16 is not divisible by tp_size 2 * pp_size 3"},
            {"sp unset",
             edit(b, [](Project& p) { p.layout.sp = 2; }),
             b,
             "colossalai.sp_mode_unset",
             Severity::Error,
             {"sp is 2"},
             "You should not set sp_size when sequence parallelism is not enabled."},
            {"split_gather tp1",
             edit(b,
                  [](Project& p) {
                      p.layout.tp = 1;
                      p.layout.sp_mode = "split_gather";
                  }),
             edit(b, [](Project& p) { p.layout.sp_mode = "split_gather"; }),
             "colossalai.sp_mode_needs_tp",
             Severity::Error,
             {"split_gather", "tp is 1"},
             "Sequence parallelism mode split_gather must be enabled when using tensor parallelism"},
            {"sp ignored",
             edit(b,
                  [](Project& p) {
                      p.layout.sp_mode = "ring";
                      p.layout.sp = 4;
                  }),
             edit(b, [](Project& p) { p.layout.sp_mode = "ring"; }),
             "colossalai.sp_size_ignored",
             Severity::Warning,
             {"sp = 4", "2 GPUs"},
             "will ignore the given sequence parallelism size"},
            {"mesh product",
             edit(make_project("colossalai", 1, 8, llama3_8b()),
                  [](Project& p) {
                      p.layout.sp_mode = "all_to_all";
                      p.layout.sp = 3;
                  }),
             edit(make_project("colossalai", 1, 8, llama3_8b()),
                  [](Project& p) {
                      p.layout.sp_mode = "all_to_all";
                      p.layout.sp = 4;
                  }),
             "colossalai.world_divisible_sp",
             Severity::Error,
             {"8", "3"},
             "The product of the size(6) must be equal to the world size(8)."},
            {"zero 3",
             edit(b,
                  [](Project& p) {
                      p.layout.pp = 1;
                      p.layout.zero_stage = 3;
                  }),
             b,
             "colossalai.zero_stage",
             Severity::Error,
             {"zero_stage 3"},
             "zero_stage in (0, 1, 2)"},
            {"pp style",
             edit(b, [](Project& p) { p.layout.schedule = "gpipe"; }),
             b,
             "colossalai.pp_style",
             Severity::Error,
             {"gpipe"},
             "Unsupported pipeline parallelism style"},
            {"interleaved chunks",
             edit(b, [](Project& p) { p.layout.schedule = "interleaved"; }),
             edit(b,
                  [](Project& p) {
                      p.layout.schedule = "interleaved";
                      p.layout.chunks = 2;
                  }),
             "colossalai.model_chunks",
             Severity::Error,
             {"chunks is 1"},
             "number of model chunks must be > 1 when using interleaved"},
            {"1f1b chunks",
             edit(b, [](Project& p) { p.layout.chunks = 2; }),
             b,
             "colossalai.model_chunks",
             Severity::Error,
             {"chunks is 2"},
             "num_model_chunks must be 1 when using 1f1b"},
            {"zbv chunks",
             edit(b,
                  [](Project& p) {
                      p.layout.schedule = "zbv";
                      p.layout.chunks = 3;
                  }),
             edit(b,
                  [](Project& p) {
                      p.layout.schedule = "zbv";
                      p.layout.chunks = 2;
                  }),
             "colossalai.model_chunks",
             Severity::Error,
             {"chunks is 3"},
             "num_model_chunks must be 2 when using zero bubble pipeline"},
            {"zero2 with pp",
             edit(b, [](Project& p) { p.layout.zero_stage = 2; }),
             b,
             "colossalai.zero_stage_with_pp",
             Severity::Error,
             {"ZeRO-2", "pp = 2"},
             "zero stage must be 0 or 1 when using pipeline parallelism"},
            {"layers per stage len",
             edit(b,
                  [](Project& p) {
                      p.layout.num_layers_per_stage = {10, 11, 11};
                  }),
             edit(b,
                  [](Project& p) {
                      p.layout.num_layers_per_stage = {15, 17};
                  }),
             "colossalai.num_layers_per_stage",
             Severity::Error,
             {"3 entries", "pp is 2"},
             "len(num_layers_per_stage)"},
            {"layers per stage sum",
             edit(b,
                  [](Project& p) {
                      p.layout.num_layers_per_stage = {10, 10};
                  }),
             b,
             "colossalai.num_layers_per_stage",
             Severity::Error,
             {"20", "32"},
             "sum(num_layers_per_stage)"},
            {"layers per stage interleaved",
             edit(b,
                  [](Project& p) {
                      p.layout.schedule = "interleaved";
                      p.layout.chunks = 2;
                      p.layout.num_layers_per_stage = {16, 16};
                  }),
             b,
             "colossalai.num_layers_per_stage",
             Severity::Error,
             {"interleaved", "4"},
             "IndexError"},
            {"empty stages",
             edit(b,
                  [](Project& p) {
                      p.model.layers = 3;
                      p.layout.pp = 4;
                      p.layout.tp = 1;
                  }),
             edit(b,
                  [](Project& p) {
                      p.model.layers = 4;
                      p.layout.pp = 4;
                      p.layout.tp = 1;
                  }),
             "colossalai.empty_stages",
             Severity::Warning,
             {"3 layers", "4"},
             ""},
            {"no policy",
             edit(b, [](Project& p) { p.model.family = "gpt_neox"; }),
             b,
             "colossalai.model_policy",
             Severity::Error,
             {"gpt_neox"},
             "Auto policy",
             false},
            {"mistral sp",
             edit(b,
                  [](Project& p) {
                      p.model.family = "mistral";
                      p.layout.sp_mode = "split_gather";
                  }),
             edit(b, [](Project& p) { p.model.family = "mistral"; }),
             "colossalai.model_sp_support",
             Severity::Warning,
             {"Mistral", "split_gather"},
             "doesn't support sequence parallelism now"},
            {"gpt2 all_to_all",
             edit(make_project("colossalai", 1, 8, gpt2_small()),
                  [](Project& p) {
                      p.layout.sp_mode = "all_to_all";
                      p.layout.sp = 2;
                      p.training.seq_len = 1024;
                  }),
             edit(make_project("colossalai", 1, 8, gpt2_small()),
                  [](Project& p) {
                      p.layout.sp_mode = "ring_attn";
                      p.layout.sp = 2;
                      p.training.seq_len = 1024;
                  }),
             "colossalai.model_sp_support",
             Severity::Error,
             {"GPT2", "all_to_all"},
             "all_to_all sequence parallelism is not supported for GPT2"},
            {"heads % tp",
             edit(make_project("colossalai", 2, 8, gpt2_small()),
                  [](Project& p) {
                      p.layout.tp = 8;
                      p.layout.pp = 2;
                      p.training.seq_len = 1024;
                  }),
             edit(make_project("colossalai", 2, 8, gpt2_small()),
                  [](Project& p) {
                      p.layout.tp = 4;
                      p.layout.pp = 2;
                      p.training.seq_len = 1024;
                  }),
             "colossalai.tp_divides_heads",
             Severity::Error,
             {"tp = 8", "12"},
             "The number of attention heads must be divisible by tensor parallel size."},
            {"kv heads % tp",
             edit(make_project("colossalai", 4, 8, llama3_8b()), [](Project& p) { p.layout.tp = 16; }),
             edit(make_project("colossalai", 4, 8, llama3_8b()), [](Project& p) { p.layout.tp = 8; }),
             "colossalai.tp_divides_kv_heads",
             Severity::Error,
             {"tp = 16", "8 key/value"},
             "must not be less than tensor parallel size"},
            {"heads % sp",
             edit(make_project("colossalai", 3, 8, llama3_8b()),
                  [](Project& p) {
                      p.layout.sp_mode = "all_to_all";
                      p.layout.sp = 3;
                  }),
             edit(make_project("colossalai", 3, 8, llama3_8b()),
                  [](Project& p) {
                      p.layout.sp_mode = "all_to_all";
                      p.layout.sp = 4;
                  }),
             "colossalai.sp_divides_heads",
             Severity::Error,
             {"sp = 3", "32"},
             ""},
            {"seq % tp",
             edit(b,
                  [](Project& p) {
                      p.layout.sp_mode = "split_gather";
                      p.training.seq_len = 4095;
                  }),
             edit(b, [](Project& p) { p.layout.sp_mode = "split_gather"; }),
             "colossalai.seq_divisible",
             Severity::Error,
             {"4095", "2"},
             "The dimension to split (4095) is not a multiple of world size (2), cannot split tensor evenly"},
            {"seq % 2sp",
             edit(b,
                  [](Project& p) {
                      p.layout.sp_mode = "ring_attn";
                      p.layout.sp = 2;
                      p.layout.pp = 1;
                      p.training.seq_len = 4094;
                  }),
             edit(b,
                  [](Project& p) {
                      p.layout.sp_mode = "ring_attn";
                      p.layout.sp = 2;
                      p.layout.pp = 1;
                  }),
             "colossalai.seq_divisible_ring",
             Severity::Error,
             {"4094", "4"},
             "Bro, the seq length 4094 for tensor 0 can't be split by 4!"},
            {"inner ring",
             edit(b,
                  [](Project& p) {
                      p.layout.sp_mode = "ring_attn";
                      p.layout.sp = 4;
                      p.layout.pp = 1;
                      p.layout.tp = 1;
                      p.layout.inner_ring_size = 3;
                  }),
             edit(b,
                  [](Project& p) {
                      p.layout.sp_mode = "ring_attn";
                      p.layout.sp = 4;
                      p.layout.pp = 1;
                      p.layout.tp = 1;
                      p.layout.inner_ring_size = 2;
                  }),
             "colossalai.inner_ring_size",
             Severity::Error,
             {"3", "sp = 4"},
             "sp_size 4 should be divisible by inner_ring_size 3"},
            {"precision fp8",
             edit(b, [](Project& p) { p.training.precision = "fp8"; }),
             b,
             "colossalai.precision",
             Severity::Error,
             {"fp8"},
             "KeyError: 'fp8'"},
            {"zero fp32",
             edit(b,
                  [](Project& p) {
                      p.training.precision = "fp32";
                      p.layout.flash_attention = false;
                  }),
             b,
             "colossalai.zero_precision",
             Severity::Error,
             {"fp32"},
             "Please set precision to 'fp16' or 'bf16' when using ZeRO."},
            {"zero dp1",
             edit(make_project("colossalai", 1, 8, llama3_8b()),
                  [](Project& p) {
                      p.layout.tp = 2;
                      p.layout.pp = 4;
                      p.layout.zero_stage = 1;
                  }),
             edit(make_project("colossalai", 1, 8, llama3_8b()),
                  [](Project& p) {
                      p.layout.tp = 2;
                      p.layout.pp = 2;
                      p.layout.zero_stage = 1;
                  }),
             "colossalai.zero_dp1",
             Severity::Warning,
             {"1 rank"},
             "Use Zero Optimizer when data parallel size is 1"},
            {"1f1b microbatches",
             edit(b,
                  [](Project& p) {
                      p.layout.pp = 4;
                      p.layout.tp = 1;
                      p.layout.num_microbatches = 2;
                      p.training.global_batch_size = 8;
                  }),
             edit(b,
                  [](Project& p) {
                      p.layout.pp = 4;
                      p.layout.tp = 1;
                      p.layout.num_microbatches = 4;
                      p.training.global_batch_size = 16;
                  }),
             "colossalai.microbatches",
             Severity::Error,
             {"pp = 4", "2"},
             "Number of microbatch should be larger than number of stages"},
            {"interleaved microbatches",
             edit(b,
                  [](Project& p) {
                      p.layout.schedule = "interleaved";
                      p.layout.chunks = 2;
                      p.layout.num_microbatches = 3;
                      p.training.global_batch_size = 12;
                  }),
             edit(b,
                  [](Project& p) {
                      p.layout.schedule = "interleaved";
                      p.layout.chunks = 2;
                      p.layout.num_microbatches = 4;
                      p.training.global_batch_size = 16;
                  }),
             "colossalai.microbatches",
             Severity::Error,
             {"pp = 2", "3"},
             "Number of microbatch should be an integer multiple of number of pipeline parallel devices"},
            {"batch",
             edit(b, [](Project& p) { p.training.global_batch_size = 66; }),
             b,
             "colossalai.batch_divisible",
             Severity::Error,
             {"66", "4"},
             ""},
            {"explicit dp",
             edit(b, [](Project& p) { p.layout.dp = 3; }),
             edit(b, [](Project& p) { p.layout.dp = 4; }),
             "layout.dp_matches",
             Severity::Error,
             {"3", "dp = 4"},
             ""},
        };
        for (const auto& c : cases) {
            check_case(c);
            if (QTest::currentTestFailed()) return;
        }
    }

    void moeRules() {
        const Project b = moe_base();
        Project ds = make_project("colossalai-moe", 2, 8, deepseek_v3());
        ds.layout.pp = 16;
        ds.layout.zero_stage = 1;
        ds.layout.num_microbatches = 16;
        ds.training.global_batch_size = 16;
        Project ds_ok = ds;
        ds_ok.layout.pp = 8;
        ds_ok.layout.num_microbatches = 8;
        std::vector<RuleCase> cases = {
            {"zero2 downgraded",
             edit(b, [](Project& p) { p.layout.zero_stage = 2; }),
             b,
             "colossalai.moe_zero2_downgraded",
             Severity::Warning,
             {"ZeRO-2"},
             "zero_stage are set to False and 1"},
            {"ring_attn",
             edit(b,
                  [](Project& p) {
                      p.layout.pp = 1;
                      p.layout.sp_mode = "ring_attn";
                      p.layout.sp = 2;
                  }),
             b,
             "colossalai.moe_ring_attn_unsupported",
             Severity::Error,
             {"ring_attn"},
             "has no attribute 'dp_size'"},
            {"dp % ep",
             edit(b, [](Project& p) { p.layout.ep = 3; }),
             b,
             "colossalai.moe_dp_divisible_ep",
             Severity::Error,
             {"dp = 8", "ep = 3"},
             "dp_size should be divisible by ep_size, self.dp_size=8 ep_size=3"},
            {"experts % ep",
             edit(b,
                  [](Project& p) {
                      p.layout.pp = 1;
                      p.layout.ep = 16;
                  }),
             b,
             "colossalai.moe_experts_divisible_ep",
             Severity::Error,
             {"ep = 16", "8 experts"},
             "The number of experts must be divisible by the number of expert parallel groups."},
            {"stage without experts",
             ds,
             ds_ok,
             "colossalai.moe_stage_has_experts",
             Severity::Error,
             {"stage 0", "0–2"},
             "No parameters found in moe_dp_group"},
            {"ddp groups",
             edit(b,
                  [](Project& p) {
                      p.layout.pp = 1;
                      p.layout.zero_stage = 0;
                  }),
             b,
             "colossalai.moe_ddp_groups",
             Severity::Error,
             {"ep = 8"},
             "dp_group"},
            {"sp with pp",
             edit(b,
                  [](Project& p) {
                      p.layout.sp_mode = "all_to_all";
                      p.layout.sp = 2;
                      p.layout.ep = 4;
                  }),
             b,
             "colossalai.moe_sp_with_pp",
             Severity::Error,
             {"pp = 2"},
             "Sequence parallelism is not supported with pipeline parallelism."},
            {"deepseek v3 tp",
             edit(ds_ok, [](Project& p) { p.layout.tp = 2; }),
             ds_ok,
             "colossalai.deepseek_v3_limits",
             Severity::Error,
             {"DeepSeek-V3"},
             "DeepSeekV3 does not support tensor parallelism"},
            {"dense model",
             edit(b,
                  [](Project& p) {
                      p.model = llama3_8b();
                      p.layout.ep = 1;
                  }),
             b,
             "colossalai.moe_dense_model",
             Severity::Warning,
             {"no experts"},
             ""},
        };
        for (const auto& c : cases) {
            check_case(c);
            if (QTest::currentTestFailed()) return;
        }
        // The DeepSeek fix list offers a manual split that puts a MoE layer on stage 0.
        const auto dsd = validate(ds);
        const Diagnostic* d = find_rule(dsd, "colossalai.moe_stage_has_experts");
        QVERIFY(d);
        bool has_split = false;
        for (const auto& f : d->fixes)
            for (const auto& c : f.changes)
                if (c.field == "/layout/num_layers_per_stage") {
                    has_split = true;
                    QVERIFY(c.value.at(0).get<int>() >= 4);   // stage 0 reaches layer 3, the first MoE layer
                }
        QVERIFY(has_split);
    }

    void geminiAndZeroRules() {
        Project g = make_project("colossalai-gemini", 2, 8, llama3_8b());
        g.layout.tp = 2;
        g.layout.zero_stage = 3;
        QVERIFY2(!has_errors(validate(g)), rule_list(validate(g)).c_str());
        Project z = make_project("colossalai-zero", 1, 8, llama3_8b());
        z.layout.zero_stage = 2;
        QVERIFY2(!has_errors(validate(z)), rule_list(validate(z)).c_str());
        std::vector<RuleCase> cases = {
            {"gemini pp",
             edit(g, [](Project& p) { p.layout.pp = 2; }),
             g,
             "colossalai.gemini_axes",
             Severity::Error,
             {"pipeline"},
             "Gemini is not compatible with pipeline"},
            {"gemini fp32",
             edit(g, [](Project& p) { p.training.precision = "fp32"; }),
             g,
             "colossalai.gemini_precision",
             Severity::Error,
             {"fp32"},
             "precision fp32 is not supported"},
            {"gemini world",
             edit(g, [](Project& p) { p.layout.tp = 3; }),
             g,
             "colossalai.gemini_world_divisible",
             Severity::Error,
             {"16", "tp = 3"},
             "The global group size can't be evenly divided by the subgroup size."},
            {"zero stage 0",
             edit(z, [](Project& p) { p.layout.zero_stage = 0; }),
             z,
             "colossalai.zero_plugin_stage",
             Severity::Error,
             {"0"},
             "LowLevelZeroPlugin only supports stage 1/2 training"},
            {"zero tp",
             edit(z, [](Project& p) { p.layout.tp = 2; }),
             z,
             "colossalai.zero_plugin_axes",
             Severity::Error,
             {"tensor"},
             ""},
            // booster/plugin/*_plugin.py take no torch.compile switch.
            {"gemini compile",
             edit(g, [](Project& p) { p.layout.kernels = "compile"; }),
             g,
             "colossalai.kernels",
             Severity::Warning,
             {"GeminiPlugin", "torch.compile"},
             ""},
            // quantization/fp8.py linear_fp8: per-tensor current scaling only.
            {"gemini rowwise fp8",
             edit(g,
                  [](Project& p) {
                      p.layout.fp8 = true;
                      p.layout.fp8_recipe = "rowwise";
                  }),
             edit(g, [](Project& p) { p.layout.fp8 = true; }),
             "colossalai.fp8_recipe",
             Severity::Warning,
             {"per tensor", "rowwise", "tensorwise"},
             ""},
            // LowLevelZeroPlugin runs no ShardFormer: no enable_fused_normalization / enable_jit_fused.
            {"zero fused kernels",
             edit(z,
                  [](Project& p) {
                      p.layout.fused_norm = true;
                      p.layout.jit_fused = true;   // kernels auto -> te
                  }),
             edit(z, [](Project& p) { p.layout.kernels = "eager"; }),
             "colossalai.kernels",
             Severity::Warning,
             {"LowLevelZeroPlugin", "no kernel switches"},
             ""},
        };
        for (const auto& c : cases) {
            check_case(c);
            if (QTest::currentTestFailed()) return;
        }
    }

    void infoFindings() {
        // Uneven split: 30 layers over 4 stages -> 7/8/8/7 (distribute_layers gives the middle the extra layers).
        Project p = edit(base(), [](Project& q) {
            q.model.layers = 30;
            q.layout.pp = 4;
            q.layout.tp = 1;
        });
        const auto ds = validate(p);
        const Diagnostic* d = find_rule(ds, "colossalai.uneven_layers");
        QVERIFY(d);
        QCOMPARE(d->severity, Severity::Info);
        QVERIFY2(d->message.find("7/8/8/7") != std::string::npos, d->message.c_str());
        // Vocabulary padding: GPT-2's 50257 tokens with tp 2 pad to a multiple of 128 -> 50304.
        Project g = edit(make_project("colossalai", 1, 8, gpt2_small()), [](Project& q) {
            q.layout.tp = 2;
            q.training.seq_len = 1024;
        });
        const auto gd = validate(g);
        const Diagnostic* v = find_rule(gd, "colossalai.vocab_padding");
        QVERIFY(v);
        QVERIFY2(v->message.find("50304") != std::string::npos, v->message.c_str());
        // ring_attn forces flash attention on.
        Project r = edit(base(), [](Project& q) {
            q.layout.pp = 1;
            q.layout.sp_mode = "ring_attn";
            q.layout.sp = 2;
            q.layout.flash_attention = false;
        });
        QVERIFY(find_rule(validate(r), "colossalai.ring_attn_flash"));
        QVERIFY(!has_errors(validate(r)));
    }

    // Fixes of the world rule are valid splits, nearest first.
    void worldFixesAreNearestFirst() {
        Project p = edit(base(), [](Project& q) { q.layout.pp = 3; });
        const auto ds = validate(p);
        const Diagnostic* d = find_rule(ds, "colossalai.world_divisible");
        QVERIFY(d);
        QVERIFY(d->fixes.size() >= 2);
        // pp 3 -> pp 2 or 4 (one knob, nearest by ratio) come first.
        const auto& first = d->fixes.front().changes.front();
        QCOMPARE(first.field, std::string("/layout/pp"));
        QVERIFY(first.value == 2 || first.value == 4);
        for (const auto& f : d->fixes) QVERIFY2(!has_errors(validate(with_fix(p, f))), f.label.c_str());
    }
};

QTEST_APPLESS_MAIN(TestRulesColossalai)
#include "tst_rules_colossalai.moc"
