// layout.peft (LoRA) through the project: read once with errors naming the field, written back,
// refused by the frameworks that cannot run it (rule peft.framework), planned and exported. The
// bundled example is Llama 3.1 70B with LoRA on one 8 x H100 node.
#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "export/export.h"
#include "project/project.h"
#include "rules/apply_fix.h"
#include "rules/validate.h"
#include "rules_fixtures.h"
#include "search/planner.h"
#include "util/input_error.h"

using namespace paraplan;
using namespace paraplan::test;
using nlohmann::json;

namespace {

const char* kExample = "llama3.1-70b-lora-1node";

json example_json() { return project_to_json(load_example(kExample)); }

// The message of the InputError reading `j` throws ("" when it reads).
std::string load_error(const json& j) {
    try {
        project_from_json(j);
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

search::PlanRequest plan_request(const Project& p) {
    search::PlanRequest r;
    r.base = p;
    r.hardware = estimate::hardware_for(*catalog::find_gpu("h100-sxm"), p.cluster, p.training.precision);
    r.threads = 2;
    r.top = 3;
    r.refine = false;
    return r;
}

}   // namespace

class TestPeft : public QObject {
    Q_OBJECT
private slots:
    void reads_and_writes_back() {
        const Project p = load_example(kExample);
        QVERIFY(p.layout.peft);
        QCOMPARE(p.layout.peft->rank, 16);
        QCOMPARE(p.layout.peft->alpha, 32.0);
        QCOMPARE(int(p.layout.peft->targets.size()), 4);
        QCOMPARE(project_to_json(project_from_json(project_to_json(p))), project_to_json(p));
        // Absent: full training, and nothing written.
        json j = example_json();
        j["layout"].erase("peft");
        QVERIFY(!project_from_json(j).layout.peft);
        QVERIFY(!project_to_json(project_from_json(j))["layout"].contains("peft"));
        // Hugging Face names of whole Megatron linears read as those linears, written back as Megatron's.
        j = example_json();
        j["layout"]["peft"]["targets"] = {"q_proj", "k_proj", "v_proj", "down_proj"};
        const Project h = project_from_json(j);
        QCOMPARE(h.layout.peft->targets, (std::vector<LoraTarget>{LoraTarget::linear_qkv, LoraTarget::linear_fc2}));
        QCOMPARE(project_to_json(h)["layout"]["peft"]["targets"], json({"linear_qkv", "linear_fc2"}));
        // A typed key: no project.unknown_key.
        QVERIFY(!find_rule(validate(load_example(kExample)), "project.unknown_key"));
        // The LoRA that switching fine-tuning on starts from is one the reader takes as it is
        // (Megatron-Bridge's class LoRA defaults: all four linears, dim 32, alpha 32).
        j = example_json();
        j["layout"]["peft"] = to_json(default_lora());
        const Peft d = *project_from_json(j).layout.peft;
        QVERIFY(d == default_lora());
        QCOMPARE(d.rank, 32);
        QCOMPARE(d.alpha, 32.0);
        QCOMPARE(int(d.targets.size()), 4);
    }

    void bad_values_name_the_field() {
        const std::vector<std::pair<std::string, json>> cases = {
            {"/layout/peft/rank", json{{"method", "lora"}, {"rank", 0}, {"alpha", 16}, {"targets", {"linear_qkv"}}}},
            {"/layout/peft/rank", json{{"method", "lora"}, {"rank", -4}, {"alpha", 16}, {"targets", {"linear_qkv"}}}},
            {"/layout/peft/method", json{{"method", "dora"}, {"rank", 8}, {"alpha", 16}, {"targets", {"linear_qkv"}}}},
            {"/layout/peft/targets/1",
             json{{"method", "lora"}, {"rank", 8}, {"alpha", 16}, {"targets", {"linear_qkv", "wq"}}}},
            {"/layout/peft/targets", json{{"method", "lora"}, {"rank", 8}, {"alpha", 16}, {"targets", json::array()}}},
            {"/layout/peft/targets", json{{"method", "lora"}, {"rank", 8}, {"alpha", 16}, {"targets", {"q_proj"}}}},
            {"/layout/peft/base_dtype",
             json{{"method", "lora"}, {"rank", 8}, {"alpha", 16}, {"targets", {"linear_qkv"}}, {"base_dtype", "int4"}}},
            {"/layout/peft/alpha", json{{"method", "lora"}, {"rank", 8}, {"alpha", 0}, {"targets", {"linear_qkv"}}}},
            {"/layout/peft/dropout",
             json{{"method", "lora"}, {"rank", 8}, {"alpha", 16}, {"targets", {"linear_qkv"}}, {"dropout", 0.1}}},
            {"/layout/peft", json("lora")},
        };
        for (const auto& [ptr, peft] : cases) {
            json j = example_json();
            j["layout"]["peft"] = peft;
            const std::string e = load_error(j);
            std::string what = ptr;
            what += " -> ";
            what += e;
            QVERIFY2(e.rfind(ptr + ':', 0) == 0, what.c_str());
        }
    }

    // Rule peft.framework: what each framework refuses, from its sources (project/framework.cpp).
    void frameworks_that_refuse() {
        const Project base = load_example(kExample);
        QVERIFY(!find_rule(validate(base), "peft.framework"));
        // The rule's diagnostic for the framework, sizes and base dtype (null when it is silent).
        auto fires = [&](const std::string& fw, int tp, int pp, PeftBaseDtype dtype) {
            Project p = base;
            p.layout.framework = fw;
            p.layout.tp = tp;
            p.layout.pp = pp;
            p.layout.sp_mode = tp > 1 ? SpMode::split_gather : SpMode::none;
            p.layout.peft->base_dtype = dtype;
            const auto ds = validate(p);
            const Diagnostic* d = find_rule(ds, "peft.framework");
            if (!d) return false;
            bool fixes_pass = d->severity == Severity::Error;
            // Each fix it offers makes it pass.
            for (const auto& f : d->fixes)
                fixes_pass = fixes_pass && !find_rule(validate(with_fix(p, f)), "peft.framework");
            if (!fixes_pass) qWarning("%s: a fix leaves peft.framework or it is no error", fw.c_str());
            return fixes_pass;
        };
        QVERIFY(fires("torchtitan", 8, 1, PeftBaseDtype::bf16));          // no LoRA in the v0.2 job config
        QVERIFY(fires("colossalai-gemini", 8, 1, PeftBaseDtype::bf16));   // support_lora() False
        QVERIFY(fires("colossalai", 8, 1, PeftBaseDtype::bf16));          // enable_lora asserts tp_size == 1
        QVERIFY(!fires("colossalai", 1, 8, PeftBaseDtype::bf16));
        QVERIFY(!fires("colossalai", 1, 8, PeftBaseDtype::nf4));   // booster.enable_lora(quantize=True)
        QVERIFY(fires("colossalai", 1, 8, PeftBaseDtype::fp8));    // bitsandbytes has no FP8 base
        QVERIFY(fires("megatron", 8, 1, PeftBaseDtype::nf4));      // no 4-bit Megatron-core linears
        QVERIFY(!fires("megatron", 8, 1, PeftBaseDtype::fp8));
        QVERIFY(!fires("deepspeed", 8, 1, PeftBaseDtype::bf16));
    }

    // Done-when of issue 27 item 4: a LoRA run of a 70B model on one 8-GPU node plans, estimates
    // and exports, where full training of the same model on the node fits no layout.
    void seventy_b_on_one_node() {
        const Project lora = load_example(kExample);
        QCOMPARE(lora.world_size(), 8);
        const estimate::Estimate e = estimate::estimate_project(lora);
        QVERIFY(e.memory.fits);
        QVERIFY(e.peft.present);
        QVERIFY(e.time.step_s > 0);
        Project full = lora;
        full.layout.peft.reset();
        const estimate::Estimate f = estimate::estimate_project(full);
        QVERIFY(!f.memory.fits);
        // The adapters: 80 layers of r (in + out) over the four linears (Llama 3.1 70B widths).
        const double per_layer = 16.0 * ((8192 + 10240) + (8192 + 8192) + (8192 + 57344) + (28672 + 8192));
        QCOMPARE(e.peft.trainable_params, 80 * per_layer);
        QCOMPARE(e.peft.adapter_params_per_gpu, 80 * per_layer / 8);
        QCOMPARE(to_json(e)["peft"]["trainable_params"].get<double>(), 80 * per_layer);

        // The planner: layouts fit with LoRA, none without it.
        const search::PlanResult pl = search::plan(plan_request(lora));
        QVERIFY(pl.fitting > 0);
        QVERIFY(!pl.results.empty());
        for (const auto& r : pl.results) QVERIFY(r.layout.peft && r.peak_gib <= 80);
        QCOMPARE(search::to_json(pl.results.front())["layout"]["peft"]["rank"].get<int>(), 16);
        QCOMPARE(search::plan(plan_request(full)).fitting, 0LL);

        // Exports: Megatron-Bridge's LoRA config beside the Megatron-LM script, which has none.
        const ExportResult mg = export_project(lora, "megatron");
        QVERIFY(!mg.refused);
        QVERIFY(mg.files.count("megatron_bridge_lora.py"));
        const std::string& py = mg.files.at("megatron_bridge_lora.py").content;
        QVERIFY(py.find("from megatron.bridge.peft.lora import LoRA") != std::string::npos);
        QVERIFY(py.find("dim=16") != std::string::npos && py.find("alpha=32") != std::string::npos);
        QVERIFY(py.find("\"linear_qkv\", \"linear_proj\", \"linear_fc1\", \"linear_fc2\"") != std::string::npos);
        QVERIFY(find_rule(mg.diagnostics, "export.megatron.peft"));
        // ColossalAI (tp 1, pp 8): peft.LoraConfig with Hugging Face names for booster.enable_lora.
        Project cai = lora;
        cai.layout.framework = "colossalai";
        cai.layout.tp = 1;
        cai.layout.pp = 8;
        cai.layout.sp_mode = SpMode::none;
        cai.layout.num_microbatches = 8;
        cai.layout.peft->base_dtype = PeftBaseDtype::nf4;
        const ExportResult c = export_project(cai, "colossalai");
        QVERIFY2(!c.refused, rule_list(c.diagnostics).c_str());
        const std::string& plugin = c.files.at("plugin.py").content;
        QVERIFY(plugin.find("LoraConfig(r=16, lora_alpha=32, target_modules=[\"q_proj\", \"k_proj\", \"v_proj\", "
                            "\"o_proj\", \"gate_proj\", \"up_proj\", \"down_proj\"])") != std::string::npos);
        QVERIFY(plugin.find("booster.enable_lora(model, lora_config=lora_config, quantize=True)") != std::string::npos);
        // DeepSpeed: no LoRA key in ds_config.json, said plainly.
        ExportOptions forced;
        forced.force = true;
        Project ds = lora;
        ds.layout.framework = "deepspeed";
        ds.layout.sp_mode = SpMode::none;
        const ExportResult d = export_project(ds, "deepspeed", forced);
        QVERIFY(find_rule(d.diagnostics, "export.deepspeed.peft"));
        // torchtitan: refused by the rule.
        Project tt = lora;
        tt.layout.framework = "torchtitan";
        QVERIFY(export_project(tt, "torchtitan").refused);
    }
};

QTEST_APPLESS_MAIN(TestPeft)
#include "tst_peft.moc"
