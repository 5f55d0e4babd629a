// Advisor: split counts for small worlds against an independent brute force of
// the frameworks' divisibility and model rules; nearest layouts of invalid projects.
#include "rules_fixtures.h"

#include "rules/advisor.h"

using namespace paraplan;
using namespace paraplan::test;

namespace {
bool divides(int a, int b) { return a > 0 && b % a == 0; }
}   // namespace

class TestRulesAdvisor : public QObject {
    Q_OBJECT
private slots:
    // HybridParallelPlugin without a model: tp*pp*sp divides the world, and the
    // all_to_all split of the 4096-token sequence is even (seq % sp).
    void colossalaiCounts() {
        for (int world : {1, 2, 4, 6, 8, 12, 16}) {
            AdvisorQuery q;
            q.world = world;
            const auto splits = enumerate_splits(q);
            int expected = 0;
            for (int tp = 1; tp <= world; ++tp)
                for (int pp = 1; pp <= world; ++pp)
                    for (int sp = 1; sp <= world; ++sp)
                        if (divides(tp * pp * sp, world) && 4096 % sp == 0) ++expected;
            QCOMPARE(static_cast<int>(splits.size()), expected);
            for (const auto& s : splits) QCOMPARE(s.tp * s.pp * s.sp * s.dp, world);
        }
    }

    // With a model (GPT-2 small: 12 heads): heads % sp, (heads/sp) % tp for all_to_all;
    // fixed and bounded axes.
    void colossalaiWithModel() {
        AdvisorQuery q;
        q.world = 16;
        q.gpus_per_node = 8;
        q.model = gpt2_small();
        q.model->family = "";   // no ShardFormer family: only the dimension rules
        q.seq_len = 1024;
        int expected = 0;
        for (int tp = 1; tp <= 16; ++tp)
            for (int pp = 1; pp <= 16; ++pp)
                for (int sp = 1; sp <= 16; ++sp)
                    if (divides(tp * pp * sp, 16) && 12 % sp == 0 && (12 / sp) % tp == 0) ++expected;
        QCOMPARE(static_cast<int>(enumerate_splits(q).size()), expected);
        q.max["tp"] = 2;
        q.fixed["pp"] = 2;
        const auto bounded = enumerate_splits(q);
        int expected_b = 0;
        for (int tp = 1; tp <= 2; ++tp)
            for (int sp = 1; sp <= 16; ++sp)
                if (divides(tp * 2 * sp, 16) && 12 % sp == 0 && (12 / sp) % tp == 0) ++expected_b;
        QCOMPARE(static_cast<int>(bounded.size()), expected_b);
        for (const auto& s : bounded) QVERIFY(s.tp <= 2 && s.pp == 2);
    }

    // Megatron with Mixtral on 16 GPUs: world % (tp*pp*cp), expert grid world % (tp*ep*pp),
    // experts % ep, heads/groups/ffn % tp, layers % pp.
    void megatronMoeCounts() {
        AdvisorQuery q;
        q.world = 16;
        q.framework = "megatron";
        q.model = mixtral_8x7b();
        int expected = 0;
        for (int tp = 1; tp <= 16; ++tp)
            for (int pp = 1; pp <= 16; ++pp)
                for (int cp = 1; cp <= 16; ++cp)
                    for (int ep = 1; ep <= 16; ++ep) {
                        if (!divides(tp * pp * cp, 16)) continue;
                        if (!divides(ep, 16)) continue;
                        if (ep > 1 && (!divides(tp * ep * pp, 16) || 8 % ep != 0)) continue;
                        if (32 % tp || 14336 % tp || 32 % pp) continue;
                        if (8 % tp && tp % 8) continue;   // query groups (core >= 0.16 rule)
                        ++expected;
                    }
        QCOMPARE(static_cast<int>(enumerate_splits(q).size()), expected);
    }

    void torchtitanCounts() {
        AdvisorQuery q;
        q.world = 8;
        q.framework = "torchtitan";
        int expected = 0;
        for (int tp = 1; tp <= 8; ++tp)
            for (int pp = 1; pp <= 8; ++pp)
                for (int cp = 1; cp <= 8; ++cp)
                    if (divides(tp * pp * cp, 8)) ++expected;
        QCOMPARE(static_cast<int>(enumerate_splits(q).size()), expected);
    }

    void nearestOfInvalidProject() {
        const Project p = test_project("colossalai", 2, 8, llama3_8b()).tp(2).pp(3).build();   // 16 % 6
        const auto n = nearest_layouts(p, 5);
        QVERIFY(!n.empty());
        // One knob changed by the smallest ratio: pp 3 -> 2 or 4 (tp kept).
        QCOMPARE(n.front().changed, 1);
        QCOMPARE(n.front().split.tp, 2);
        QVERIFY(n.front().split.pp == 2 || n.front().split.pp == 4);
        for (std::size_t i = 1; i < n.size(); ++i) QVERIFY(n[i - 1].distance <= n[i].distance);
        for (const auto& x : n) {
            Project q = p;
            q.layout.tp = x.split.tp;
            q.layout.pp = x.split.pp;
            q.layout.sp = x.split.sp;
            if (x.split.sp > 1) q.layout.sp_mode = SpMode::all_to_all;
            QVERIFY2(!has_errors(validate(q)), rule_list(validate(q)).c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestRulesAdvisor)
#include "tst_rules_advisor.moc"
