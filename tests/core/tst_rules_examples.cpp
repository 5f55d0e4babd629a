// The bundled example projects validate clean under the real rules, and catalog
// models carry the facts the rules rely on (DeepSeek-V3's dense prefix).
#include "catalog/catalog.h"
#include "project/project.h"
#include "rules/validate.h"
#include "rules_fixtures.h"

using namespace paraplan;
using namespace paraplan::test;

class TestRulesExamples : public QObject {
    Q_OBJECT
private slots:
    void examplesAreValid() {
        const auto names = example_names();
        QVERIFY(!names.empty());
        for (const auto& n : names) {
            const Project p = load_example(n);
            const auto ds = validate(p);
            QVERIFY2(!has_errors(ds), (n + ": " + rule_list(ds)).c_str());
        }
    }

    // DeepSeek-V3 from the catalog, MoE plugin, pp 16: stage 0 holds the dense layers 0-2 (issue #6237).
    void deepseekCatalogStage() {
        const ModelSpec* m = catalog::find_model("deepseek-v3");
        QVERIFY(m);
        const Project p = test_project("colossalai-moe", 2, 8, *m)
                              .pp(16)
                              .zero_stage(1)
                              .global_batch_size(16)
                              .num_microbatches(16)
                              .build();
        const auto ds = validate(p);
        const Diagnostic* d = find_rule(ds, "colossalai.moe_stage_has_experts");
        QVERIFY2(d, rule_list(ds).c_str());
        QVERIFY(!d->fixes.empty());
        for (const auto& f : d->fixes)
            QVERIFY(!find_rule(validate(with_fix(p, f)), "colossalai.moe_stage_has_experts"));
    }

    // Every catalog GPU: the kernel rules agree with the catalog's capability flags.
    void kernelRulesFollowCatalog() {
        for (const auto& g : catalog::gpus()) {
            const Project p = test_project("colossalai", 1, 8, llama3_8b(), g.id)
                                  .precision(g.supports_bf16() ? Precision::bf16 : Precision::fp16)
                                  .fp8(true)
                                  .build();
            const auto ds = validate(p);
            QCOMPARE(find_rule(ds, "kernel.fp8_gpu") != nullptr, !g.supports_fp8());
            QCOMPARE(find_rule(ds, "kernel.flash_attention_gpu") != nullptr, !g.supports_flash_attention());
        }
    }
};

QTEST_APPLESS_MAIN(TestRulesExamples)
#include "tst_rules_examples.moc"
