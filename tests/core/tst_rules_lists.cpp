// Issue 29 item 2, "every rule once": the rules every framework runs are listed once
// (rules/shared_rules.h) and each framework's list is built around its own rules. Checked on the
// lists validate() runs (rules_for): the shared head first, the shared tail last, the shared
// precision checks once, no rule twice, and each rule id emitted by one rule function only.
#include "catalog/catalog.h"
#include "network/systems.h"
#include "project/framework.h"
#include "project/project.h"
#include "rules/shared_rules.h"
#include "rules/validate.h"
#include "rules_fixtures.h"

#include <algorithm>
#include <map>
#include <set>

using namespace paraplan;
using namespace paraplan::rules;
using namespace paraplan::test;

namespace {

bool starts_with(const std::vector<RuleFn>& list, const std::vector<RuleFn>& part) {
    return list.size() >= part.size() && std::equal(part.begin(), part.end(), list.begin());
}

bool ends_with(const std::vector<RuleFn>& list, const std::vector<RuleFn>& part) {
    return list.size() >= part.size() && std::equal(part.rbegin(), part.rend(), list.rbegin());
}

// How often `part` occurs as a contiguous run in `list`.
int runs_of(const std::vector<RuleFn>& list, const std::vector<RuleFn>& part) {
    int n = 0;
    for (auto it = list.begin(); (it = std::search(it, list.end(), part.begin(), part.end())) != list.end(); ++it) ++n;
    return n;
}

void set_gpu(Project& p, const std::string& gpu) {
    for (auto& n : p.cluster.nodes) n.gpu = gpu;
}

// Each example under every framework, plain and with the settings the shared and framework
// rules look at switched on, so that most rules have a project on which they fire.
std::vector<Project> variants(const Project& base) {
    std::vector<Project> out;
    auto add = [&](auto&& change) {
        Project p = base;
        change(p);
        out.push_back(std::move(p));
    };
    add([](Project&) {});
    for (const Fp8Recipe r : enum_values<Fp8Recipe>())
        add([&](Project& p) {
            p.layout.fp8 = true;
            p.layout.fp8_recipe = r;
            p.layout.fp8_all_gather = true;
        });
    add([](Project& p) { p.training.precision = Precision::fp8; });
    add([](Project& p) {
        p.layout.fp4_recipe = Fp4Recipe::nvfp4;
        p.layout.fp8 = true;
    });
    add([](Project& p) { p.layout.fp4_recipe = Fp4Recipe::mxfp4; });
    add([](Project& p) {
        p.layout.tp_comm_overlap = true;
        p.layout.fused_norm = true;
        p.layout.jit_fused = true;
        p.layout.kernels = KernelStack::eager;
    });
    add([](Project& p) { p.layout.peft = Peft{}; });
    add([](Project& p) {   // a Mamba size on a model without a hybrid pattern (model.mamba_without_pattern)
        if (!p.model.is_hybrid()) p.model.mamba_state_dim = 128;
    });
    add([](Project& p) {
        p.layout.tp = 3;
        p.layout.pp = 5;
        p.layout.dp = 7;
        p.layout.sp = 2;
        p.layout.sp_mode = SpMode::ring_attn;
        p.layout.cp = 2;
        p.layout.ep = 3;
        p.layout.chunks = 3;
        p.layout.num_microbatches = 3;
        p.layout.zero_stage = 3;
    });
    add([](Project& p) { p.training.precision = Precision::fp32; });
    add([](Project& p) { p.cluster.nodes.edit().clear(); });
    add([](Project& p) {
        Node n = p.cluster.nodes.at(0);
        n.gpus += 1;
        p.cluster.nodes.edit().push_back(n);
    });
    add([](Project& p) {
        p.extra = nlohmann::json{{"not_a_paraplan_key", 1}};
        p.layout.extra = nlohmann::json{{"not_a_layout_key", 1}};
    });
    for (const auto& s : network::systems())
        if (s.gpu != base.cluster.nodes.at(0).gpu) {
            add([&](Project& p) { p.cluster.system = s.id; });
            break;
        }
    for (const auto& g : catalog::gpus())
        if (!g.supports_bf16() || !g.supports_fp8() || !g.supports_flash_attention())
            add([&](Project& p) {
                set_gpu(p, g.id);
                p.training.precision = Precision::bf16;
                p.layout.flash_attention = true;
                p.layout.fp8 = true;
                p.layout.fp4_recipe = Fp4Recipe::nvfp4;
            });
    return out;
}

}   // namespace

class TestRulesLists : public QObject {
    Q_OBJECT
private slots:
    void sharedPartsAreWhereTheyBelong() {
        QVERIFY(!framework_ids().empty());
        for (const auto& id : framework_ids()) {
            const auto& r = rules_for(id);
            QVERIFY2(&r == &rules_for(id), id.c_str());   // built once
            QVERIFY2(starts_with(r, shared_head()), id.c_str());
            QVERIFY2(ends_with(r, shared_tail()), id.c_str());
            QVERIFY2(runs_of(r, shared_precision()) == 1, id.c_str());
            // The framework adds rules of its own between the shared parts.
            QVERIFY2(r.size() > shared_head().size() + shared_precision().size() + shared_tail().size(), id.c_str());
        }
    }

    void noRuleTwiceInAList() {
        for (const auto& id : framework_ids()) {
            const auto& r = rules_for(id);
            const std::set<RuleFn> unique(r.begin(), r.end());
            QVERIFY2(unique.size() == r.size(), id.c_str());
        }
        // Nor twice among the shared parts.
        std::vector<RuleFn> shared = shared_head();
        shared.insert(shared.end(), shared_precision().begin(), shared_precision().end());
        shared.insert(shared.end(), shared_tail().begin(), shared_tail().end());
        QCOMPARE(std::set<RuleFn>(shared.begin(), shared.end()).size(), shared.size());
    }

    // A rule id comes from one rule function: run every function of every framework's list on
    // each example project (and its variants) under that framework and collect the ids per function.
    void eachRuleIdFromOneFunction() {
        const NoFixSearch no_fixes;
        std::map<std::string, std::set<RuleFn>> by_id;                            // over all lists
        std::map<std::string, std::map<std::string, std::set<RuleFn>>> in_list;   // framework -> id -> functions
        std::map<RuleFn, std::string> where;   // "framework #index" for the failure messages
        for (const auto& name : example_names()) {
            const Project example = load_example(name);
            for (const auto& fw : framework_ids()) {
                Project base = example;
                base.layout.framework = fw;
                const auto& list = rules_for(fw);
                for (const Project& p : variants(base))
                    for (std::size_t i = 0; i < list.size(); ++i) {
                        Out out;
                        list[i](p, out);
                        where.emplace(list[i], fw + " #" + std::to_string(i));
                        for (const auto& d : out) {
                            by_id[d.rule].insert(list[i]);
                            in_list[fw][d.rule].insert(list[i]);
                        }
                    }
            }
        }
        QVERIFY(by_id.size() >= 40);   // the variants reach many rules, not a handful
        auto names = [&](const std::string& id, const std::set<RuleFn>& fns) {
            std::string msg = id + " from";
            for (RuleFn f : fns) msg += " " + where[f];
            return msg;
        };
        // Within the list validate() runs, one function per id (fires() and the fix search re-run it).
        for (const auto& [fw, ids] : in_list)
            for (const auto& [id, fns] : ids) QVERIFY2(fns.size() == 1, names(id, fns).c_str());
        // Across the lists too, but for torchtitan's tt_fp8_all_gather: it reports the shared
        // kernel.fp8_all_gather warning for the recipes torchtitan ignores and its own error for the
        // rowwise recipe it refuses, so torchtitan's list holds it instead of fp8_all_gather_ignored.
        for (const auto& [id, fns] : by_id)
            QVERIFY2(fns.size() == 1 || (id == "kernel.fp8_all_gather" && fns.size() == 2), names(id, fns).c_str());
        // The shared rules fire on these projects too.
        for (const auto* part : {&shared_head(), &shared_precision(), &shared_tail()})
            for (RuleFn f : *part) {
                const bool fired = std::any_of(by_id.begin(), by_id.end(),
                                               [&](const auto& e) { return e.second.count(f) > 0; });
                QVERIFY2(fired, where[f].c_str());
            }
    }
};

QTEST_APPLESS_MAIN(TestRulesLists)
#include "tst_rules_lists.moc"
