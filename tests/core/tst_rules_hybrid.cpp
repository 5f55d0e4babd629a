// Hybrid Mamba models: only Megatron-LM builds them (model.hybrid_framework), and Megatron's Mamba
// mixer splits its heads and groups over tp and cp (mamba_mixer.py, mamba_context_parallel.py) and its
// stack refuses virtual pipeline stages (mamba_block.py), core_v0.16.0.
#include "rules_fixtures.h"

#include "catalog/catalog.h"
#include "project/project.h"
#include "rules/rule_kit.h"

using namespace paraplan;
using namespace paraplan::test;

namespace {

ModelSpec nemotron(int mamba_heads = 128, int mamba_groups = 8) {
    ModelSpec m = *catalog::find_model("nemotron-h-8b");
    m.mamba_num_heads = mamba_heads;
    m.mamba_num_groups = mamba_groups;
    return m;
}

// Nemotron-H 8B with Megatron on 8 GPUs: tp 2 with --sequence-parallel, the distributed optimizer.
ProjectBuilder base(const ModelSpec& m = nemotron(), int nodes = 1) {
    return test_project("megatron", nodes, 8, m)
        .tp(2)
        .sp_mode(SpMode::split_gather)
        .zero_stage(1)
        .distributed_optimizer(true)
        .global_batch_size(32);
}

}   // namespace

class TestRulesHybrid : public QObject {
    Q_OBJECT
private slots:
    void baseIsClean() {
        const auto d = validate(base().build());
        QVERIFY2(!has_errors(d), rule_list(d).c_str());
        const auto pp = validate(base().pp(2).build());
        QVERIFY2(!has_errors(pp), rule_list(pp).c_str());
    }

    void otherFrameworksRefuse() {
        for (const char* fw : {"torchtitan", "colossalai", "deepspeed", "devicemesh"}) {
            const Project bad = test_project(fw, 1, 8, nemotron()).global_batch_size(32).build();
            const auto ds = validate(bad);
            const Diagnostic* d = find_rule(ds, "model.hybrid_framework");
            QVERIFY2(d, (std::string(fw) + ": " + rule_list(ds)).c_str());
            QCOMPARE(d->severity, Severity::Error);
            QVERIFY(d->message.find("Megatron-LM") != std::string::npos);
        }
        // A transformer model is not a hybrid one: the rule stays silent.
        QVERIFY(!find_rule(validate(test_project("torchtitan", 1, 8, llama3_8b()).build()), "model.hybrid_framework"));
        check_case({"framework",
                    test_project("torchtitan", 1, 8, nemotron()).global_batch_size(32).build(),
                    base().build(),
                    "model.hybrid_framework",
                    Severity::Error,
                    {"Megatron-LM"},
                    "",
                    true});
    }

    void mambaTensorParallel() {
        // 132 heads in 4 groups: tp 8 splits the groups but not the heads (132 % 8 = 4).
        check_case({"heads",
                    base(nemotron(132, 4)).tp(8).build(),
                    base(nemotron(132, 4)).tp(4).build(),
                    "megatron.mamba_heads_divisible_tp",
                    Severity::Error,
                    {"tp = 8", "132"},
                    "nheads must be evenly divisble by tp_size"});
        // 128 heads in 4 groups: tp 8 splits the heads, not the groups.
        check_case({"groups",
                    base(nemotron(128, 4)).tp(8).build(),
                    base(nemotron(128, 4)).tp(4).build(),
                    "megatron.mamba_groups_divisible_tp",
                    Severity::Error,
                    {"tp = 8", "4 Mamba groups"},
                    "ngroups must be evenly divisible by tp_size"});
    }

    void mambaContextParallel() {
        // 136 heads, tp 8: 17 heads per tp rank do not divide over cp 2.
        check_case({"cp heads",
                    base(nemotron(136, 8), 2).tp(8).cp(2).build(),
                    base(nemotron(136, 8), 2).tp(8).build(),
                    "megatron.mamba_cp",
                    Severity::Error,
                    {"17 Mamba heads", "cp = 2"},
                    "nheads must be evenly divisible by tp_size * cp_size"});
        // 128 heads, 8 groups, tp 2 (64 heads, 4 groups per rank), cp 8: cp % groups = 0, heads % cp = 0.
        const auto ok = validate(base(nemotron(), 2).cp(8).build());
        QVERIFY2(!find_rule(ok, "megatron.mamba_cp"), rule_list(ok).c_str());
        // 128 heads, 12 groups is no model (12 does not divide 128); 96 heads, 12 groups, tp 2: 6 groups
        // per rank and cp 4 divide neither way.
        check_case({"cp groups",
                    base(nemotron(96, 12), 1).cp(4).build(),
                    base(nemotron(96, 12), 1).cp(2).build(),
                    "megatron.mamba_cp",
                    Severity::Error,
                    {"6 Mamba groups", "cp = 4"},
                    "ngroups must be evenly divisible by tp_size * cp_size"});
    }

    // 100 heads x 64 in 4 groups of 128: 2 * 6400 + 1024 + 100 = 13924, not a multiple of 16.
    void mambaFp8Width() {
        check_case({"fp8",
                    base(nemotron(100, 4)).precision(Precision::fp8).build(),
                    base(nemotron(100, 4)).build(),
                    "megatron.mamba_fp8_width",
                    Severity::Error,
                    {"13924"},
                    "must be a multiple of 16"});
        const auto ok = validate(base().precision(Precision::fp8).build());   // Nemotron-H 8B: 18560
        QVERIFY2(!find_rule(ok, "megatron.mamba_fp8_width"), rule_list(ok).c_str());
    }

    void hybridPipeline() {
        check_case({"vpp",
                    base().pp(2).chunks(2).schedule(Schedule::interleaved).global_batch_size(32).build(),
                    base().pp(2).build(),
                    "megatron.hybrid_pipeline",
                    Severity::Error,
                    {"chunks = 2"},
                    "does not currently support virtual/interleaved"});
        check_case({"accounted",
                    base().pp(2).account_for_loss_in_pipeline_split(true).build(),
                    base().pp(2).build(),
                    "megatron.hybrid_pipeline",
                    Severity::Error,
                    {"num_layers // pp"},
                    ""});
    }
};

QTEST_APPLESS_MAIN(TestRulesHybrid)
#include "tst_rules_hybrid.moc"
