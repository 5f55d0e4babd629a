// ColossalAI plugin rules: each rule with a failing and a passing project, the
// numbers in its message, the plugin's own error text, and fixes that clear it.
// Cases from ColossalAI v0.5.1: HybridParallelPlugin/MoeHybridParallelPlugin.__init__, the
// pipeline schedules, ShardFormer policies, and hpcaitech/ColossalAI issues #6202, #6237, #6381.
#include "rules_fixtures.h"

#include "rules/rule_kit.h"

using namespace paraplan;
using namespace paraplan::test;

namespace {

// Llama-3.1-8B on 2 x 8 H100, tp 2 pp 2 (dp 4), ZeRO-1, 1f1b: valid.
Project base() { return test_project("colossalai", 2, 8, llama3_8b()).tp(2).pp(2).zero_stage(1).build(); }

// Mixtral on 2 x 8 H100 with the MoE plugin: tp 1 pp 2 ep 8, ZeRO-1 (the bundled example).
Project moe_base() {
    return test_project("colossalai-moe", 2, 8, mixtral_8x7b())
        .pp(2)
        .ep(8)
        .zero_stage(1)
        .global_batch_size(128)
        .build();
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
             ProjectBuilder(b).pp(3).build(),
             b,
             "colossalai.world_divisible",
             Severity::Error,
             {"16", "6"},
             "World size 16 is not divisible by tp_size 2 * pp_size 3"},
            {"sp unset",
             ProjectBuilder(b).sp(2).build(),
             b,
             "colossalai.sp_mode_unset",
             Severity::Error,
             {"sp is 2"},
             "You should not set sp_size when sequence parallelism is not enabled."},
            {"split_gather tp1",
             ProjectBuilder(b).tp(1).sp_mode(SpMode::split_gather).build(),
             ProjectBuilder(b).sp_mode(SpMode::split_gather).build(),
             "colossalai.sp_mode_needs_tp",
             Severity::Error,
             {"split_gather", "tp is 1"},
             "Sequence parallelism mode split_gather must be enabled when using tensor parallelism"},
            {"sp ignored",
             ProjectBuilder(b).sp_mode(SpMode::ring).sp(4).build(),
             ProjectBuilder(b).sp_mode(SpMode::ring).build(),
             "colossalai.sp_size_ignored",
             Severity::Warning,
             {"sp = 4", "2 GPUs"},
             "will ignore the given sequence parallelism size"},
            {"mesh product",
             test_project("colossalai", 1, 8, llama3_8b()).sp_mode(SpMode::all_to_all).sp(3).build(),
             test_project("colossalai", 1, 8, llama3_8b()).sp_mode(SpMode::all_to_all).sp(4).build(),
             "colossalai.world_divisible_sp",
             Severity::Error,
             {"8", "3"},
             "The product of the size(6) must be equal to the world size(8)."},
            {"zero 3",
             ProjectBuilder(b).pp(1).zero_stage(3).build(),
             b,
             "colossalai.zero_stage",
             Severity::Error,
             {"zero_stage 3"},
             "zero_stage in (0, 1, 2)"},
            {"pp style",
             ProjectBuilder(b).schedule(Schedule::gpipe).build(),
             b,
             "colossalai.pp_style",
             Severity::Error,
             {"gpipe"},
             "Unsupported pipeline parallelism style"},
            // The plugin's schedules come from its row (FrameworkTraits::schedules): its own interleaved under
            // either name runs, Megatron's does not.
            {"pp style from the table",
             ProjectBuilder(b).schedule(Schedule::interleaved_megatron).chunks(2).build(),
             ProjectBuilder(b).schedule(Schedule::interleaved_colossalai).chunks(2).build(),
             "colossalai.pp_style",
             Severity::Error,
             {"1f1b, interleaved, zbv", "interleaved-megatron"},
             "Unsupported pipeline parallelism style"},
            {"interleaved chunks",
             ProjectBuilder(b).schedule(Schedule::interleaved).build(),
             ProjectBuilder(b).schedule(Schedule::interleaved).chunks(2).build(),
             "colossalai.model_chunks",
             Severity::Error,
             {"chunks is 1"},
             "number of model chunks must be > 1 when using interleaved"},
            {"1f1b chunks",
             ProjectBuilder(b).chunks(2).build(),
             b,
             "colossalai.model_chunks",
             Severity::Error,
             {"chunks is 2"},
             "num_model_chunks must be 1 when using 1f1b"},
            {"zbv chunks",
             ProjectBuilder(b).schedule(Schedule::zbv).chunks(3).build(),
             ProjectBuilder(b).schedule(Schedule::zbv).chunks(2).build(),
             "colossalai.model_chunks",
             Severity::Error,
             {"chunks is 3"},
             "num_model_chunks must be 2 when using zero bubble pipeline"},
            {"zero2 with pp",
             ProjectBuilder(b).zero_stage(2).build(),
             b,
             "colossalai.zero_stage_with_pp",
             Severity::Error,
             {"ZeRO-2", "pp = 2"},
             "zero stage must be 0 or 1 when using pipeline parallelism"},
            {"layers per stage len",
             ProjectBuilder(b).num_layers_per_stage({10, 11, 11}).build(),
             ProjectBuilder(b).num_layers_per_stage({15, 17}).build(),
             "colossalai.num_layers_per_stage",
             Severity::Error,
             {"3 entries", "pp is 2"},
             "len(num_layers_per_stage)"},
            {"layers per stage sum",
             ProjectBuilder(b).num_layers_per_stage({10, 10}).build(),
             b,
             "colossalai.num_layers_per_stage",
             Severity::Error,
             {"20", "32"},
             "sum(num_layers_per_stage)"},
            {"layers per stage interleaved",
             ProjectBuilder(b).schedule(Schedule::interleaved).chunks(2).num_layers_per_stage({16, 16}).build(),
             b,
             "colossalai.num_layers_per_stage",
             Severity::Error,
             {"interleaved", "4"},
             "IndexError"},
            {"empty stages",
             ProjectBuilder(b).layers(3).pp(4).tp(1).build(),
             ProjectBuilder(b).layers(4).pp(4).tp(1).build(),
             "colossalai.empty_stages",
             Severity::Warning,
             {"3 layers", "4"},
             ""},
            {"no policy",
             ProjectBuilder(b).family("gpt_neox").build(),
             b,
             "colossalai.model_policy",
             Severity::Error,
             {"gpt_neox"},
             "Auto policy",
             false},
            {"mistral sp",
             ProjectBuilder(b).family("mistral").sp_mode(SpMode::split_gather).build(),
             ProjectBuilder(b).family("mistral").build(),
             "colossalai.model_sp_support",
             Severity::Warning,
             {"Mistral", "split_gather"},
             "doesn't support sequence parallelism now"},
            {"gpt2 all_to_all",
             test_project("colossalai", 1, 8, gpt2_small()).sp_mode(SpMode::all_to_all).sp(2).seq_len(1024).build(),
             test_project("colossalai", 1, 8, gpt2_small()).sp_mode(SpMode::ring_attn).sp(2).seq_len(1024).build(),
             "colossalai.model_sp_support",
             Severity::Error,
             {"GPT2", "all_to_all"},
             "all_to_all sequence parallelism is not supported for GPT2"},
            {"heads % tp",
             test_project("colossalai", 2, 8, gpt2_small()).tp(8).pp(2).seq_len(1024).build(),
             test_project("colossalai", 2, 8, gpt2_small()).tp(4).pp(2).seq_len(1024).build(),
             "colossalai.tp_divides_heads",
             Severity::Error,
             {"tp = 8", "12"},
             "The number of attention heads must be divisible by tensor parallel size."},
            {"kv heads % tp",
             test_project("colossalai", 4, 8, llama3_8b()).tp(16).build(),
             test_project("colossalai", 4, 8, llama3_8b()).tp(8).build(),
             "colossalai.tp_divides_kv_heads",
             Severity::Error,
             {"tp = 16", "8 key/value"},
             "must not be less than tensor parallel size"},
            {"heads % sp",
             test_project("colossalai", 3, 8, llama3_8b()).sp_mode(SpMode::all_to_all).sp(3).build(),
             test_project("colossalai", 3, 8, llama3_8b()).sp_mode(SpMode::all_to_all).sp(4).build(),
             "colossalai.sp_divides_heads",
             Severity::Error,
             {"sp = 3", "32"},
             ""},
            {"seq % tp",
             ProjectBuilder(b).sp_mode(SpMode::split_gather).seq_len(4095).build(),
             ProjectBuilder(b).sp_mode(SpMode::split_gather).build(),
             "colossalai.seq_divisible",
             Severity::Error,
             {"4095", "2"},
             "The dimension to split (4095) is not a multiple of world size (2), cannot split tensor evenly"},
            {"seq % 2sp",
             ProjectBuilder(b).sp_mode(SpMode::ring_attn).sp(2).pp(1).seq_len(4094).build(),
             ProjectBuilder(b).sp_mode(SpMode::ring_attn).sp(2).pp(1).build(),
             "colossalai.seq_divisible_ring",
             Severity::Error,
             {"4094", "4"},
             "Bro, the seq length 4094 for tensor 0 can't be split by 4!"},
            {"inner ring",
             ProjectBuilder(b).sp_mode(SpMode::ring_attn).sp(4).pp(1).tp(1).inner_ring_size(3).build(),
             ProjectBuilder(b).sp_mode(SpMode::ring_attn).sp(4).pp(1).tp(1).inner_ring_size(2).build(),
             "colossalai.inner_ring_size",
             Severity::Error,
             {"3", "sp = 4"},
             "sp_size 4 should be divisible by inner_ring_size 3"},
            {"precision fp8",
             ProjectBuilder(b).precision(Precision::fp8).build(),
             b,
             "colossalai.precision",
             Severity::Error,
             {"fp8"},
             "KeyError: 'fp8'"},
            {"zero fp32",
             ProjectBuilder(b).precision(Precision::fp32).flash_attention(false).build(),
             b,
             "colossalai.zero_precision",
             Severity::Error,
             {"fp32"},
             "Please set precision to 'fp16' or 'bf16' when using ZeRO."},
            {"zero dp1",
             test_project("colossalai", 1, 8, llama3_8b()).tp(2).pp(4).zero_stage(1).build(),
             test_project("colossalai", 1, 8, llama3_8b()).tp(2).pp(2).zero_stage(1).build(),
             "colossalai.zero_dp1",
             Severity::Warning,
             {"1 rank"},
             "Use Zero Optimizer when data parallel size is 1"},
            {"1f1b microbatches",
             ProjectBuilder(b).pp(4).tp(1).num_microbatches(2).global_batch_size(8).build(),
             ProjectBuilder(b).pp(4).tp(1).num_microbatches(4).global_batch_size(16).build(),
             "colossalai.microbatches",
             Severity::Error,
             {"pp = 4", "2"},
             "Number of microbatch should be larger than number of stages"},
            {"interleaved microbatches",
             ProjectBuilder(b)
                 .schedule(Schedule::interleaved)
                 .chunks(2)
                 .num_microbatches(3)
                 .global_batch_size(12)
                 .build(),
             ProjectBuilder(b)
                 .schedule(Schedule::interleaved)
                 .chunks(2)
                 .num_microbatches(4)
                 .global_batch_size(16)
                 .build(),
             "colossalai.microbatches",
             Severity::Error,
             {"pp = 2", "3"},
             "Number of microbatch should be an integer multiple of number of pipeline parallel devices"},
            {"batch",
             ProjectBuilder(b).global_batch_size(66).build(),
             b,
             "colossalai.batch_divisible",
             Severity::Error,
             {"66", "4"},
             ""},
            {"explicit dp",
             ProjectBuilder(b).dp(3).build(),
             ProjectBuilder(b).dp(4).build(),
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
        const Project ds = test_project("colossalai-moe", 2, 8, deepseek_v3())
                               .pp(16)
                               .zero_stage(1)
                               .num_microbatches(16)
                               .global_batch_size(16)
                               .build();
        const Project ds_ok = ProjectBuilder(ds).pp(8).num_microbatches(8).build();
        std::vector<RuleCase> cases = {
            {"zero2 downgraded",
             ProjectBuilder(b).zero_stage(2).build(),
             b,
             "colossalai.moe_zero2_downgraded",
             Severity::Warning,
             {"ZeRO-2"},
             "zero_stage are set to False and 1"},
            {"ring_attn",
             ProjectBuilder(b).pp(1).sp_mode(SpMode::ring_attn).sp(2).build(),
             b,
             "colossalai.moe_ring_attn_unsupported",
             Severity::Error,
             {"ring_attn"},
             "has no attribute 'dp_size'"},
            {"dp % ep",
             ProjectBuilder(b).ep(3).build(),
             b,
             "colossalai.moe_dp_divisible_ep",
             Severity::Error,
             {"dp = 8", "ep = 3"},
             "dp_size should be divisible by ep_size, self.dp_size=8 ep_size=3"},
            {"experts % ep",
             ProjectBuilder(b).pp(1).ep(16).build(),
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
             ProjectBuilder(b).pp(1).zero_stage(0).build(),
             b,
             "colossalai.moe_ddp_groups",
             Severity::Error,
             {"ep = 8"},
             "dp_group"},
            {"sp with pp",
             ProjectBuilder(b).sp_mode(SpMode::all_to_all).sp(2).ep(4).build(),
             b,
             "colossalai.moe_sp_with_pp",
             Severity::Error,
             {"pp = 2"},
             "Sequence parallelism is not supported with pipeline parallelism."},
            {"deepseek v3 tp",
             ProjectBuilder(ds_ok).tp(2).build(),
             ds_ok,
             "colossalai.deepseek_v3_limits",
             Severity::Error,
             {"DeepSeek-V3"},
             "DeepSeekV3 does not support tensor parallelism"},
            {"dense model",
             ProjectBuilder(b).model(llama3_8b()).ep(1).build(),
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
        const Project g = test_project("colossalai-gemini", 2, 8, llama3_8b()).tp(2).zero_stage(3).build();
        QVERIFY2(!has_errors(validate(g)), rule_list(validate(g)).c_str());
        const Project z = test_project("colossalai-zero", 1, 8, llama3_8b()).zero_stage(2).build();
        QVERIFY2(!has_errors(validate(z)), rule_list(validate(z)).c_str());
        std::vector<RuleCase> cases = {
            {"gemini pp",
             ProjectBuilder(g).pp(2).build(),
             g,
             "colossalai.gemini_axes",
             Severity::Error,
             {"pipeline"},
             "Gemini is not compatible with pipeline"},
            {"gemini fp32",
             ProjectBuilder(g).precision(Precision::fp32).build(),
             g,
             "colossalai.gemini_precision",
             Severity::Error,
             {"fp32"},
             "precision fp32 is not supported"},
            {"gemini world",
             ProjectBuilder(g).tp(3).build(),
             g,
             "colossalai.gemini_world_divisible",
             Severity::Error,
             {"16", "tp = 3"},
             "The global group size can't be evenly divided by the subgroup size."},
            {"zero stage 0",
             ProjectBuilder(z).zero_stage(0).build(),
             z,
             "colossalai.zero_plugin_stage",
             Severity::Error,
             {"0"},
             "LowLevelZeroPlugin only supports stage 1/2 training"},
            {"zero tp",
             ProjectBuilder(z).tp(2).build(),
             z,
             "colossalai.zero_plugin_axes",
             Severity::Error,
             {"tensor"},
             ""},
            // booster/plugin/*_plugin.py take no torch.compile switch.
            {"gemini compile",
             ProjectBuilder(g).kernels("compile").build(),
             g,
             "colossalai.kernels",
             Severity::Warning,
             {"GeminiPlugin", "torch.compile"},
             ""},
            // quantization/fp8.py linear_fp8: per-tensor current scaling only.
            {"gemini rowwise fp8",
             ProjectBuilder(g).fp8(true).fp8_recipe(Fp8Recipe::rowwise).build(),
             ProjectBuilder(g).fp8(true).build(),
             "colossalai.fp8_recipe",
             Severity::Warning,
             {"per tensor", "rowwise", "tensorwise"},
             ""},
            // LowLevelZeroPlugin runs no ShardFormer: no enable_fused_normalization / enable_jit_fused.
            {"zero fused kernels",
             ProjectBuilder(z)
                 .fused_norm(true)
                 .jit_fused(true)   // kernels auto -> te
                 .build(),
             ProjectBuilder(z).kernels("eager").build(),
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
        Project p = ProjectBuilder(base()).layers(30).pp(4).tp(1).build();
        const auto ds = validate(p);
        const Diagnostic* d = find_rule(ds, "colossalai.uneven_layers");
        QVERIFY(d);
        QCOMPARE(d->severity, Severity::Info);
        QVERIFY2(d->message.find("7/8/8/7") != std::string::npos, d->message.c_str());
        // Vocabulary padding: GPT-2's 50257 tokens with tp 2 pad to a multiple of 128 -> 50304.
        Project g = test_project("colossalai", 1, 8, gpt2_small()).tp(2).seq_len(1024).build();
        const auto gd = validate(g);
        const Diagnostic* v = find_rule(gd, "colossalai.vocab_padding");
        QVERIFY(v);
        QVERIFY2(v->message.find("50304") != std::string::npos, v->message.c_str());
        // ring_attn forces flash attention on.
        Project r = ProjectBuilder(base()).pp(1).sp_mode(SpMode::ring_attn).sp(2).flash_attention(false).build();
        QVERIFY(find_rule(validate(r), "colossalai.ring_attn_flash"));
        QVERIFY(!has_errors(validate(r)));
    }

    // Fixes of the world rule are valid splits, nearest first.
    void worldFixesAreNearestFirst() {
        Project p = ProjectBuilder(base()).pp(3).build();
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
