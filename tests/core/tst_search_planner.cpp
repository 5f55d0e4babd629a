// The auto-planner: ranking, constraints, Pareto front, cancellation, and agreement
// with a direct estimate of the layout it returns.
#include "estimate/estimate.h"
#include "catalog/catalog.h"
#include "project/framework.h"
#include "project/project.h"
#include "rules/validate.h"
#include "search/apply_plan.h"
#include "search/planner.h"
#include "estimate_test_models.h"
#include "network/systems.h"
#include "util/input_error.h"
#include "util/memo.h"

#include <QtTest>

#include <memory>
#include <optional>

using namespace paraplan;
using namespace paraplan::estimate;
using namespace paraplan::search;

namespace {

PlanRequest request(const ModelSpec& m, int nodes, int gbs, int seq, const std::string& fw) {
    PlanRequest r;
    r.base.model = m;
    for (int i = 0; i < nodes; ++i) {
        Node n;
        n.name = "node" + std::to_string(i);
        n.gpu = "a100-80gb";
        n.gpus = 8;
        r.base.cluster.nodes.push_back(n);
    }
    r.base.cluster.network.inter_node_gbps = 1600;
    r.base.training.global_batch_size = gbs;
    r.base.training.seq_len = seq;
    r.base.layout.framework = fw;
    r.hardware = paper_a100();
    r.threads = 2;
    r.top = 5;
    return r;
}

}   // namespace

class TestSearchPlanner : public QObject {
    Q_OBJECT
private slots:
    void ranks_and_agrees_with_estimate() {
        const ModelSpec m = paper_gpt(40, 6144, 48);   // 18.4B (Narayanan Table 1)
        PlanRequest req = request(m, 4, 256, 2048, "megatron");
        const PlanResult r = plan(req);
        QVERIFY(r.evaluated > 100);
        QVERIFY(r.valid > 0 && r.valid <= r.evaluated);
        QVERIFY(r.fitting > 0 && r.fitting <= r.valid);
        QCOMPARE(int(r.results.size()), 5);
        for (std::size_t i = 1; i < r.results.size(); ++i) QVERIFY(r.results[i - 1].step_s <= r.results[i].step_s);
        for (const auto& e : r.results) QVERIFY(e.peak_gib <= 80);
        // The best layout, estimated as a project (the refined figures), gives the same step
        // time; the closed form the search ranked by is within a few percent of it.
        const PlanEntry& best = r.results.front();
        Project bp = req.base;
        apply_entry(best, bp);
        const Estimate e = estimate_project(bp, req.hardware);
        QVERIFY(qAbs(e.time.step_s - best.step_s) < 1e-12 * best.step_s);
        QCOMPARE(e.memory.peak_bytes / kGiB, best.peak_gib);
        const Config c = make_config(m, bp.training, best.layout, req.hardware, 32);
        const Estimate closed = evaluate(m, layer_shapes(m), c, req.hardware);
        QVERIFY(qAbs(closed.time.step_s - best.step_s) < 0.05 * best.step_s);
        // Without refinement the figures are the closed form's.
        PlanRequest raw = req;
        raw.refine = false;
        const PlanResult rr = plan(raw);
        QVERIFY(!rr.results.empty());
        Project rp = req.base;
        apply_entry(rr.results.front(), rp);
        const Estimate rc = evaluate(m, layer_shapes(m), make_config(m, rp.training, rp.layout, req.hardware, 32),
                                     req.hardware);
        QVERIFY(qAbs(rc.time.step_s - rr.results.front().step_s) < 1e-12 * rc.time.step_s);
        // And it beats pure data parallelism with full recomputation (which does fit).
        Layout naive;
        naive.framework = "megatron";
        naive.tp = 8;
        naive.recompute = Recompute::full;
        Training tn = req.base.training;
        tn.micro_batch_size = 1;
        const Estimate ne = evaluate(m, layer_shapes(m), make_config(m, tn, naive, req.hardware, 32), req.hardware);
        QVERIFY(best.step_s <= ne.time.step_s);
        // Pareto front: time ascending, memory strictly descending; its first point is the fastest.
        QVERIFY(!r.pareto.empty());
        QCOMPARE(r.pareto.front().step_s, best.step_s);
        for (std::size_t i = 1; i < r.pareto.size(); ++i) {
            QVERIFY(r.pareto[i - 1].step_s <= r.pareto[i].step_s);
            QVERIFY(r.pareto[i - 1].peak_gib > r.pareto[i].peak_gib);
        }
    }

    void constraints() {
        const ModelSpec m = paper_gpt(24, 2304, 24);
        PlanRequest req = request(m, 2, 64, 2048, "megatron");
        req.constraints = Constraints::parse("tp=2,pp=1..2,recompute=selective,mbs=..2");
        req.top = 50;
        const PlanResult r = plan(req);
        QVERIFY(!r.results.empty());
        for (const auto& e : r.results) {
            QCOMPARE(e.layout.tp, 2);
            QVERIFY(e.layout.pp >= 1 && e.layout.pp <= 2);
            QCOMPARE(e.layout.recompute, Recompute::selective);
            QVERIFY(e.micro_batch_size <= 2);
        }
        // Memory objective: smallest peak first.
        req.objective = Objective::memory;
        const PlanResult rm = plan(req);
        for (std::size_t i = 1; i < rm.results.size(); ++i)
            QVERIFY(rm.results[i - 1].peak_gib <= rm.results[i].peak_gib);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Constraints::parse("tp=eight"));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, Constraints::parse("colour=blue"));
    }

    // A microbatch bound below global / (micro x dp) plans gradient accumulation where the
    // framework runs num_microbatches per pipeline flush (ColossalAI), and nothing where it has
    // no such knob (Megatron); the entry estimates as the project does, flushes and all.
    void microbatch_bound_plans_accumulation() {
        const ModelSpec m = paper_gpt(24, 2304, 24);
        PlanRequest req = request(m, 2, 64, 2048, "colossalai");
        req.constraints = Constraints::parse("tp=2,pp=4,mbs=1,m=..4,recompute=selective");
        const PlanResult r = plan(req);
        QVERIFY(!r.results.empty());
        for (const auto& e : r.results) QCOMPARE(e.layout.num_microbatches, 4);   // 64 / (1 x dp 2) = 32 = 8 x 4
        Project bp = req.base;
        apply_entry(r.results.front(), bp);
        const Estimate e = estimate_project(bp, req.hardware);
        QCOMPARE(e.config.num_microbatches, 4);
        QCOMPARE(e.config.grad_accum_steps, 8);
        QVERIFY(qAbs(e.time.step_s - r.results.front().step_s) < 1e-12 * e.time.step_s);
        for (const auto& d : validate(bp)) QVERIFY2(d.severity != Severity::Error, d.message.c_str());
        req.base.layout.framework = "megatron";
        QVERIFY(plan(req).results.empty());
    }

    // A schedule outside the default search (1F1B, interleaved, zbv) is searched when the
    // constraints name it, with its own bubble: PyTorch's interleaved 1F1B beats 1F1B on a
    // bubble-bound batch, and every returned row carries it with several chunks.
    void searches_a_named_schedule() {
        const ModelSpec m = paper_gpt(24, 2304, 24);
        PlanRequest req = request(m, 2, 16, 2048, "torchtitan");
        req.top = 20;
        req.constraints = Constraints::parse("tp=1,pp=4,schedule=interleaved-pytorch,recompute=selective");
        const PlanResult il = plan(req);
        QVERIFY(!il.results.empty());
        for (const auto& e : il.results) {
            QCOMPARE(e.layout.schedule, Schedule::interleaved_pytorch);
            QVERIFY(e.layout.chunks >= 2);
        }
        req.constraints = Constraints::parse("tp=1,pp=4,schedule=1f1b,recompute=selective");
        const PlanResult one = plan(req);
        QVERIFY(!one.results.empty());
        QVERIFY2(il.results.front().step_s < 0.95 * one.results.front().step_s,
                 qPrintable(QString("%1 vs %2").arg(il.results.front().step_s).arg(one.results.front().step_s)));
    }

    void colossalai_moe_and_frameworks() {
        ModelSpec m = paper_gpt(16, 2048, 16);
        m.family = "mixtral";
        m.experts = 8;
        m.top_k = 2;
        m.expert_ffn_hidden = 4096;
        PlanRequest req = request(m, 2, 64, 2048, "colossalai-moe");
        req.frameworks = {"colossalai-moe", "megatron"};
        // ColossalAI runs the Hugging Face model code (eager kernels unless fused_norm and
        // jit_fused), so Megatron's Transformer Engine layouts fill the first few hundred places;
        // keep enough to see both frameworks ranked.
        req.top = 2000;
        const PlanResult r = plan(req);
        QVERIFY(!r.results.empty());
        bool saw_ep = false, saw_cmoe = false, saw_meg = false;
        for (const auto& e : r.results) {
            saw_ep = saw_ep || e.layout.ep > 1;
            saw_cmoe = saw_cmoe || e.layout.framework == "colossalai-moe";
            saw_meg = saw_meg || e.layout.framework == "megatron";
            if (e.layout.framework == "colossalai-moe") QVERIFY(e.layout.zero_stage <= 1 || e.layout.pp == 1);
        }
        QVERIFY(saw_ep && saw_cmoe && saw_meg);
    }

    void cancel_and_progress() {
        const ModelSpec m = paper_gpt(40, 6144, 48);
        PlanRequest req = request(m, 4, 256, 2048, "megatron");
        std::atomic<bool> cancel{true};
        const PlanResult r = plan(req, &cancel);
        QVERIFY(r.cancelled);
        QCOMPARE(r.evaluated, 0LL);
        long long last = -1, total_seen = 0;
        int calls = 0;
        const PlanResult r2 = plan(req, nullptr, [&](long long done, long long total) {
            last = done;
            total_seen = total;
            ++calls;
        });
        QVERIFY(calls >= 1);
        QCOMPARE(last, total_seen);
        QCOMPARE(r2.evaluated, total_seen);
    }

    // Cancelling mid-search (as the Planner view's Cancel does, from the progress callback)
    // stops the workers and skips the rule pass and the refinement: the result says it was
    // cancelled and returns no layout that the rules have not seen.
    void cancelled_search_skips_rules_and_refinement() {
        const ModelSpec m = paper_gpt(40, 6144, 48);
        PlanRequest req = request(m, 4, 256, 2048, "megatron");
        req.threads = 1;
        const PlanResult full = plan(req);
        QVERIFY(!full.cancelled);
        QVERIFY(full.rules_checked > 0);
        QVERIFY(!full.results.empty());
        QVERIFY(full.evaluated > 1);

        std::atomic<bool> cancel{false};
        const PlanResult r = plan(req, &cancel, [&](long long, long long) { cancel.store(true); });
        QVERIFY(r.cancelled);
        QVERIFY(r.evaluated < full.evaluated);
        QCOMPARE(r.rules_checked, 0LL);
        QVERIFY(r.results.empty());
        QVERIFY(r.pareto.empty());
        const auto j = to_json(r);
        QCOMPARE(j["cancelled"].get<bool>(), true);
        QCOMPARE(j["results"].size(), std::size_t(0));
    }

    // The planner prunes with the traits table: ZeRO stages as each framework accepts them,
    // ZBV only where it runs, and Megatron's distributed optimizer in place of a ZeRO stage.
    void enumeration_follows_the_traits() {
        const ModelSpec m = paper_gpt(40, 6144, 48);
        PlanRequest req = request(m, 4, 256, 2048, "deepspeed");
        req.frameworks = {"deepspeed", "megatron", "colossalai"};
        req.top = 200;
        req.refine = false;
        const PlanResult r = plan(req);
        QVERIFY(!r.results.empty());
        bool saw_zbv = false, saw_dist_opt = false;
        for (const auto& e : r.results) {
            const FrameworkTraits& t = traits_of(e.layout.framework);
            const auto& zs = zero_stages(t, e.layout.pp);
            if (t.zero != ZeroSemantics::distributed_optimizer)
                QVERIFY2(std::find(zs.begin(), zs.end(), e.layout.zero_stage) != zs.end(), e.layout.framework.c_str());
            else QCOMPARE(e.layout.zero_stage, 0);
            saw_dist_opt = saw_dist_opt || e.layout.distributed_optimizer;
            if (e.layout.schedule == Schedule::zbv) {
                QVERIFY(t.zbv);
                saw_zbv = true;
            }
            if (t.id == Framework::deepspeed) QVERIFY(e.layout.pp == 1 || e.layout.zero_stage <= 1);
        }
        QVERIFY(saw_zbv || saw_dist_opt);
    }

    // A returned entry is a whole layout: applied to the project it is valid under the
    // framework's rules, keeps what the planner does not choose (rank order, kernels, unknown
    // keys), and estimates to the step time the planner reported.
    void apply_entry_to_project() {
        Project p = load_example("llama3.1-70b-4nodes");
        p.layout.framework = "megatron";
        p.layout.order = "tp-cp-ep-pp-dp";
        p.layout.flash_attention = false;
        p.layout.num_layers_per_stage = {79, 1};   // an explicit split the planner must not keep
        p.layout.extra.edit()["my_key"] = 42;
        PlanRequest req;
        req.base = p;
        req.hardware = hardware_for(*catalog::find_gpu(p.cluster.nodes[0].gpu), p.cluster, p.training.precision);
        req.top = 3;
        req.threads = 2;
        const PlanResult r = plan(req);
        QCOMPARE(int(r.results.size()), 3);
        for (const PlanEntry& e : r.results) {
            Project q = p;
            apply_entry(e, q);
            QCOMPARE(q.layout.tp, e.layout.tp);
            QCOMPARE(q.layout.pp, e.layout.pp);
            QCOMPARE(q.layout.num_microbatches, e.layout.num_microbatches);
            QCOMPARE(q.training.micro_batch_size, e.micro_batch_size);
            QCOMPARE(q.layout.order, std::string("tp-cp-ep-pp-dp"));
            QCOMPARE(q.layout.flash_attention, false);
            QVERIFY(q.layout.num_layers_per_stage.empty());
            QCOMPARE(q.layout.extra->value("my_key", 0), 42);
            QCOMPARE(e.dp * e.layout.tp * e.layout.pp * e.layout.cp, q.world_size());
            QVERIFY2(!has_errors(validate(q)), describe(e).c_str());
            const Estimate est = estimate_project(q);   // what the app shows once applied
            QVERIFY(qAbs(est.time.step_s - e.step_s) < 1e-9 * e.step_s);
            const std::string d = describe(e);
            QVERIFY(d.rfind("megatron: tp " + std::to_string(e.layout.tp) + " · pp " + std::to_string(e.layout.pp),
                            0) == 0);
            QVERIFY(d.find("dp " + std::to_string(e.dp)) != std::string::npos);
        }
        // Changing framework drops the order string (it belongs to Megatron).
        req.frameworks = {"colossalai"};
        const PlanResult rc = plan(req);
        QVERIFY(!rc.results.empty());
        Project q = p;
        apply_entry(rc.results.front(), q);
        QCOMPARE(q.layout.framework, std::string("colossalai"));
        QVERIFY(q.layout.order.empty());
        QVERIFY(!has_errors(validate(q)));
    }

    void fp8_recipe_rules_filter_frameworks() {
        // Row-wise FP8 is a torchtitan recipe_name; Megatron's --fp8-recipe has no rowwise
        // (megatron.fp8_recipe), so searching both frameworks proposes torchtitan layouts only.
        Project p = load_example("llama3.1-70b-4nodes");
        p.layout.fp8 = true;
        p.layout.fp8_recipe = Fp8Recipe::rowwise;
        PlanRequest req;
        req.base = p;
        req.hardware = hardware_for(*catalog::find_gpu(p.cluster.nodes[0].gpu), p.cluster, p.training.precision);
        req.frameworks = {"megatron", "torchtitan"};
        req.top = 4;
        req.threads = 2;
        const PlanResult r = plan(req);
        QVERIFY(!r.results.empty());
        for (const PlanEntry& e : r.results) {
            Project q = p;
            apply_entry(e, q);
            QCOMPARE(q.layout.framework, std::string("torchtitan"));
            QCOMPARE(q.layout.fp8_recipe, Fp8Recipe::rowwise);
            QVERIFY2(!has_errors(validate(q)), describe(e).c_str());
        }
    }
    // The per-thread memos (util/memo.h: collective prices, links, layer splits) change no figure:
    // layouts of every framework estimated with them (a first and a repeated call) and without give
    // the same estimate, field for field, with three networks taken in turns so that the memos
    // must tell their fabrics apart; and a search returns the same with and without them.
    void memos_change_no_estimate() {
        const ModelSpec m = paper_gpt(40, 6144, 48);
        std::vector<Hardware> hws = {paper_a100()};
        for (const char* id : {"dgx-a100", "dgx-h100"}) {
            Hardware hw = paper_a100();
            hw.network = std::make_shared<const network::System>(*network::find_system(id));
            hws.push_back(hw);
        }
        const int world = 256;
        Training t;
        t.global_batch_size = 512;
        t.seq_len = 2048;
        int compared = 0, rejected = 0;
        auto estimate_json = [&](const Layout& l, const Hardware& hw) -> std::optional<nlohmann::json> {
            try {
                const Config c = make_config(m, t, l, hw, world);
                return to_json(evaluate(m, layer_shapes(m), c, hw));
            } catch (const InputError&) {
                return std::nullopt;
            }
        };
        for (const char* fw : {"megatron", "colossalai", "deepspeed", "torchtitan"})
            for (int tp : {1, 2, 8, 16})
                for (int pp : {1, 2, 5, 8})
                    for (const char* sched : {"1f1b", "interleaved", "zbv"})
                        for (int zero : {0, 1, 3})
                            for (int mbs : {1, 2})
                                for (const Recompute rc : {Recompute::none, Recompute::full}) {
                                    Layout l;
                                    l.framework = fw;
                                    l.tp = tp;
                                    l.pp = pp;
                                    l.schedule = *parse_schedule(sched);
                                    l.chunks = std::string(sched) == "1f1b" ? 1 : 2;
                                    l.zero_stage = zero;
                                    l.recompute = rc;
                                    t.micro_batch_size = mbs;
                                    for (const Hardware& hw : hws) {
                                        memo::set_enabled(true);
                                        const auto first = estimate_json(l, hw), again = estimate_json(l, hw);
                                        memo::set_enabled(false);
                                        const auto plain = estimate_json(l, hw);
                                        memo::set_enabled(true);
                                        QCOMPARE(first.has_value(), plain.has_value());
                                        QCOMPARE(again.has_value(), plain.has_value());
                                        if (!plain) {
                                            ++rejected;
                                            continue;
                                        }
                                        QVERIFY2(*first == *plain, qPrintable(QString("%1 tp %2 pp %3 %4 zero %5")
                                                                                  .arg(fw)
                                                                                  .arg(tp)
                                                                                  .arg(pp)
                                                                                  .arg(sched)
                                                                                  .arg(zero)));
                                        QVERIFY(*again == *plain);
                                        ++compared;
                                    }
                                }
        QVERIFY(compared > 1000);
        QVERIFY(rejected > 0);

        // A whole search on the tiers: memos on with two workers, off with one.
        PlanRequest req = request(m, 32, 512, 2048, "megatron");
        req.frameworks = {"megatron", "colossalai", "torchtitan"};
        req.hardware = hws[1];
        req.base.cluster.system = "dgx-a100";
        for (auto& n : req.base.cluster.nodes) n.gpu = "a100-80g";   // the system's GPU
        auto answer = [&](bool memos, int threads) {
            memo::set_enabled(memos);
            req.threads = threads;
            nlohmann::json j = to_json(plan(req));
            memo::set_enabled(true);
            j.erase("seconds");
            return j;
        };
        const nlohmann::json with = answer(true, 2), without = answer(false, 1);
        QVERIFY(with.at("evaluated").get<long long>() > 1000);
        QVERIFY(!with.at("results").empty());
        QVERIFY(with == without);
    }
    // The planner checks memory before it estimates the time, with the closed form's in-flight
    // microbatches (closed_form_inflight): the memory it finds is evaluate()'s, stage by stage.
    void memory_first_is_evaluates_memory() {
        const ModelSpec m = paper_gpt(96, 12288, 96);   // 175B: some layouts fit 80 GiB, some do not
        const LayerShapes shapes = layer_shapes(m);
        Hardware hw = paper_a100();
        hw.network = std::make_shared<const network::System>(*network::find_system("dgx-a100"));
        Training t;
        t.global_batch_size = 512;
        t.seq_len = 2048;
        int compared = 0, fit = 0;
        for (const char* fw : {"megatron", "colossalai", "torchtitan"})
            for (int pp : {1, 4, 16})
                for (const char* sched : {"1f1b", "interleaved", "zbv"})
                    for (int mbs : {1, 4})
                        for (const Recompute rc : {Recompute::none, Recompute::selective, Recompute::full}) {
                            Layout l;
                            l.framework = fw;
                            l.tp = 8;
                            l.pp = pp;
                            l.schedule = *parse_schedule(sched);
                            l.chunks = std::string(sched) == "1f1b" ? 1 : 2;
                            l.recompute = rc;
                            t.micro_batch_size = mbs;
                            Config c;
                            try {
                                c = make_config(m, t, l, hw, 256);
                            } catch (const InputError&) {
                                continue;
                            }
                            const MemoryResult first = estimate_memory(shapes, c, hw, closed_form_inflight(c));
                            const MemoryResult full = evaluate(m, shapes, c, hw).memory;
                            QCOMPARE(first.fits, full.fits);
                            QCOMPARE(first.peak_bytes, full.peak_bytes);
                            QCOMPARE(first.stages.size(), full.stages.size());
                            for (std::size_t i = 0; i < full.stages.size(); ++i)
                                QCOMPARE(first.stages[i].inflight, full.stages[i].inflight);
                            ++compared;
                            fit += full.fits ? 1 : 0;
                        }
        QVERIFY(compared > 50);
        QVERIFY(fit > 0 && fit < compared);   // both outcomes are compared
    }
};

QTEST_APPLESS_MAIN(TestSearchPlanner)
#include "tst_search_planner.moc"
