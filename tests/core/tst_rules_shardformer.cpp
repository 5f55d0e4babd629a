// The ShardFormer table (rules/shardformer.h) is what the validator enforces: for every
// family and feature, validate() reports exactly what the table's cell says.
#include "rules/colossalai.h"
#include "rules/shardformer.h"
#include "rules_fixtures.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::rules;
using namespace paraplan::test;

namespace {

Project with_family(const std::string& family) {
    return test_project("colossalai", 1, 8, llama3_8b()).family(family).flash_attention(false).build();
}

Severity expected_sp_severity(Support s) { return s == Support::Error ? Severity::Error : Severity::Warning; }

}   // namespace

class TestRulesShardformer : public QObject {
    Q_OBJECT
private slots:
    void tableShape() {
        const auto& feats = shardformer_features();
        QCOMPARE(feats.size(), shardformer_feature_titles().size());
        QVERIFY(shardformer_policies().size() >= 18);
        for (const auto& p : shardformer_policies()) {
            QCOMPARE(p.cells.size(), feats.size());
            QVERIFY(!p.name.empty());
            QVERIFY(p.policy_file.rfind("colossalai/shardformer/policies/", 0) == 0);
            QCOMPARE(shardformer_model_name(p.family), p.name);
            // A cell that warns or fails carries the framework's words.
            for (const auto& c : p.cells)
                if (c.level == Support::Error || c.level == Support::Converted)
                    QVERIFY2(!c.framework.empty(), p.family.c_str());
        }
        QVERIFY(shardformer_policy("gpt_neox") == nullptr);
        QCOMPARE(shardformer_sp_cell(*shardformer_policy("gpt2"), SpMode::all_to_all).level, Support::Error);
        QCOMPARE(shardformer_sp_cell(*shardformer_policy("llama"), SpMode::ring_attn).level, Support::Yes);
        QCOMPARE(shardformer_sp_cell(*shardformer_policy("qwen2"), SpMode::ring_attn).level, Support::Error);
        QCOMPARE(shardformer_sp_cell(*shardformer_policy("mistral"), SpMode::split_gather).level, Support::Ignored);
        QCOMPARE(shardformer_sp_cell(*shardformer_policy("bert"), SpMode::ring).level, Support::Converted);
    }

    // Every sequence-parallel cell against validate(): Yes -> no model_sp_support finding,
    // Error -> an error, anything else -> a warning (the sp ranks duplicate work).
    void spCellsAreWhatTheValidatorSays() {
        for (const auto& pol : shardformer_policies()) {
            for (const SpMode mode : {SpMode::split_gather, SpMode::ring, SpMode::all_to_all, SpMode::ring_attn}) {
                Project p = with_family(pol.family);
                p.layout.sp_mode = mode;
                if (mode == SpMode::split_gather || mode == SpMode::ring) p.layout.tp = 2;
                else p.layout.sp = 2;
                const auto ds = validate(p);
                const SupportCell& c = shardformer_sp_cell(pol, mode);
                const std::string what = pol.family + " " + to_string(mode) + ": " + rule_list(ds);
                if (pol.family == "deepseek_v3") {
                    // config_sanity_check fails before any mode is looked at.
                    QCOMPARE(c.level, Support::Error);
                    QVERIFY2(find_rule(ds, "colossalai.deepseek_v3_limits"), what.c_str());
                    continue;
                }
                const Diagnostic* d = find_rule(ds, "colossalai.model_sp_support");
                if (c.level == Support::Yes) {
                    QVERIFY2(!d, what.c_str());
                } else {
                    QVERIFY2(d, what.c_str());
                    QCOMPARE(d->severity, expected_sp_severity(c.level));
                    if (!c.framework.empty())
                        QVERIFY2(d->framework_error.find(c.framework) != std::string::npos, what.c_str());
                }
            }
        }
    }

    void spWithPipeline() {
        for (const auto& pol : shardformer_policies()) {
            if (pol.family == "deepseek_v3") continue;
            const Project p = ProjectBuilder(with_family(pol.family))
                                  .framework("colossalai-moe")   // the MoE plugin runs the MoE policies
                                  .sp_mode(SpMode::split_gather)
                                  .tp(2)
                                  .pp(2)
                                  .build();
            const auto ds = validate(p);
            QCOMPARE(find_rule(ds, "colossalai.moe_sp_with_pp") != nullptr, pol.sp_excludes_pp);
        }
    }

    // Flash attention, fused norm and JIT: a cell other than Yes gives an Info finding on its field.
    void kernelFlags() {
        for (const auto& pol : shardformer_policies()) {
            const Project p =
                ProjectBuilder(with_family(pol.family)).flash_attention(true).fused_norm(true).jit_fused(true).build();
            const auto ds = validate(p);
            const std::string what = pol.family + ": " + rule_list(ds);
            QCOMPARE(find_rule(ds, "colossalai.model_flash_attention") != nullptr,
                     pol.cell("flash_attention").level != Support::Yes);
            int fused = 0, jit = 0;
            for (const auto& d : ds)
                if (d.rule == "colossalai.model_kernel_flags") {
                    QCOMPARE(d.severity, Severity::Info);
                    fused += d.fields == std::vector<std::string>{"/layout/fused_norm"};
                    jit += d.fields == std::vector<std::string>{"/layout/jit_fused"};
                }
            QVERIFY2(fused == (pol.cell("fused_norm").level != Support::Yes ? 1 : 0), what.c_str());
            QVERIFY2(jit == (pol.cell("jit_fused").level != Support::Yes ? 1 : 0), what.c_str());
        }
        // Spot checks from the policy files: Llama has no JIT path, GPT-2 fuses GeLU, ViT keeps its LayerNorm.
        QCOMPARE(shardformer_policy("llama")->cell("jit_fused").level, Support::NoEffect);
        QCOMPARE(shardformer_policy("gpt2")->cell("jit_fused").level, Support::Yes);
        QCOMPARE(shardformer_policy("vit")->cell("fused_norm").level, Support::NoEffect);
        QCOMPARE(shardformer_policy("mixtral")->cell("flash_attention").level, Support::Ignored);
    }

    void noPolicy() {
        const auto ds = validate(with_family("gpt_neox"));
        QVERIFY(find_rule(ds, "colossalai.model_policy"));
        for (const auto& pol : shardformer_policies())
            QVERIFY2(!find_rule(validate(with_family(pol.family)), "colossalai.model_policy"), pol.family.c_str());
        const auto j = shardformer_checklist_json({"gpt_neox", "llama"});
        int neox = 0, llama = 0;
        for (const auto& f : j["families"]) {
            neox += f["family"] == "gpt_neox";
            llama += f["family"] == "llama";
            if (f["family"] == "gpt_neox") QCOMPARE(f["policy"].get<bool>(), false);
        }
        QCOMPARE(neox, 1);
        QCOMPARE(llama, 1);
    }
};

QTEST_GUILESS_MAIN(TestRulesShardformer)
#include "tst_rules_shardformer.moc"
