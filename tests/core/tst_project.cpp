// Project file: round trips of every example, the short cluster form, unknown keys,
// atomic saves, and malformed input with the exact message each must give.
#include "catalog/catalog.h"
#include "project/project.h"
#include "rules/validate.h"
#include "util/input_error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <utility>
#include <vector>

using namespace paraplan;

namespace {

const char* kIssueExample = R"({"paraplan": 1, "name": "llama-70b on 4 nodes",
 "cluster": {"nodes": [{"name": "node0", "host": "gpu-a", "gpu": "h100-sxm", "gpus": 8}],
             "network": {"inter_node_gbps": 400, "latency_us": 5}},
 "model": {"preset": "llama3.1-70b"},
 "training": {"global_batch_size": 1024, "micro_batch_size": 1, "seq_len": 4096, "precision": "bf16", "optimizer": "adamw"},
 "layout": {"framework": "colossalai", "tp": 8, "pp": 4, "sp": 1, "sp_mode": "none", "cp": 1, "ep": 1,
            "zero_stage": 1, "schedule": "1f1b", "chunks": 1, "num_microbatches": 8, "recompute": "none", "offload": "none"}})";

// A valid project with one field replaced (a JSON patch of the base document).
std::string with(const std::string& pointer, const nlohmann::json& value) {
    nlohmann::json j = nlohmann::json::parse(kIssueExample);
    j[nlohmann::json::json_pointer(pointer)] = value;
    return j.dump();
}

std::string without(const std::string& pointer) {
    nlohmann::json j = nlohmann::json::parse(kIssueExample);
    nlohmann::json::json_pointer p(pointer);
    j[p.parent_pointer()].erase(p.back());
    return j.dump();
}

}   // namespace

class TestProject : public QObject {
    Q_OBJECT
private slots:
    void issueExampleLoads() {
        const Project p = project_from_text(kIssueExample);
        QCOMPARE(p.name, std::string("llama-70b on 4 nodes"));
        QCOMPARE(p.world_size(), 8);
        QCOMPARE(p.cluster.nodes.at(0).host, std::string("gpu-a"));
        QCOMPARE(p.cluster.network.inter_node_gbps, 400.0);
        QCOMPARE(p.model_preset, std::string("llama3.1-70b"));
        QCOMPARE(p.model.layers, 80);
        QCOMPARE(p.model.hidden, 8192);
        QCOMPARE(p.training.global_batch_size, 1024);
        QCOMPARE(p.training.seq_len, 4096);
        QCOMPARE(p.layout.tp, 8);
        QCOMPARE(p.layout.pp, 4);
        QCOMPARE(p.layout.zero_stage, 1);
        QCOMPARE(p.layout.num_microbatches, 8);
    }

    void examplesRoundTrip_data() {
        QTest::addColumn<QString>("name");
        const auto names = example_names();
        QVERIFY(names.size() >= 4);
        for (const auto& n : names) QTest::newRow(n.c_str()) << QString::fromStdString(n);
    }
    void examplesRoundTrip() {
        QFETCH(QString, name);
        const Project p = load_example(name.toStdString());
        QVERIFY(p.world_size() > 0);
        const std::string text = project_to_text(p);
        const Project q = project_from_text(text);
        QCOMPARE(project_to_json(q), project_to_json(p));
        QCOMPARE(project_to_text(q), text);
        // And through a real file, saved atomically.
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("p.paraplan.json")).toStdString();
        save_project(p, path);
        QCOMPARE(project_to_json(load_project(path)), project_to_json(p));
        // No temporary files are left beside the target.
        int files = 0;
        for (const auto& e : std::filesystem::directory_iterator(dir.path().toStdString())) {
            Q_UNUSED(e);
            ++files;
        }
        QCOMPARE(files, 1);
    }

    void requiredExamplesPresent() {
        const auto names = example_names();
        for (const char* n : {"gpt2-1node", "llama3.1-70b-4nodes", "mixtral-8x7b-2nodes-ep", "llama3.1-405b-128nodes"})
            QVERIFY2(std::find(names.begin(), names.end(), n) != names.end(), n);
        QCOMPARE(load_example("llama3.1-405b-128nodes").world_size(), 1024);
        QCOMPARE(load_example("mixtral-8x7b-2nodes-ep").layout.ep, 8);
        QVERIFY(load_example("mixtral-8x7b-2nodes-ep").model.is_moe());
    }

    void shortClusterForm() {
        const Project p = project_from_text(
            R"({"paraplan": 1, "cluster": {"gpu": "a100-80g", "nodes": 4, "gpus_per_node": 8,
                 "network": {"inter_node_gbps": 200, "latency_us": 3}}, "model": {"preset": "gpt2"}})");
        QCOMPARE(p.cluster.nodes.size(), std::size_t(4));
        QCOMPARE(p.world_size(), 32);
        QCOMPARE(p.cluster.nodes[3].name, std::string("node3"));
        QCOMPARE(p.cluster.network.latency_us, 3.0);
        QVERIFY(p.cluster.uniform());
        const auto j = project_to_json(p);
        QCOMPARE(j["cluster"]["nodes"], nlohmann::json(4));
        QCOMPARE(j["cluster"]["gpus_per_node"], nlohmann::json(8));
        // Once a node is edited the long form is written.
        Project q = p;
        q.cluster.nodes[1].host = "gpu-b";
        QVERIFY(project_to_json(q)["cluster"]["nodes"].is_array());
        QCOMPARE(project_from_json(project_to_json(q)).cluster.nodes[1].host, std::string("gpu-b"));
    }

    // cluster.system and cluster.network.tiers load, save and load again unchanged; a project
    // without them saves neither.
    void systemAndTiersRoundTrip() {
        const std::string text = with("/cluster/system", "dgx-h100");
        nlohmann::json j = nlohmann::json::parse(text);
        j["cluster"]["network"]["tiers"] = nlohmann::json::parse(R"([
            {"name": "nvlink", "kind": "nvlink", "generation": "nvlink4", "domain_gpus": 8, "links_per_gpu": 18,
             "link_gbps": 25, "latency_us": 0.6, "reduction": "nvls"},
            {"name": "roce", "kind": "scale_out", "nics_per_gpu": 1, "nic_gbit": 400, "rails": 8, "latency_us": 1.5},
            {"name": "leaf", "kind": "switch", "gpus": 64, "oversubscription": 2, "latency_us": 0.3}])");
        const Project p = project_from_json(j);
        QCOMPARE(p.cluster.system, std::string("dgx-h100"));
        QCOMPARE(p.cluster.network.tiers.size(), std::size_t(3));
        QCOMPARE(p.cluster.network.tiers[1].name, std::string("roce"));
        QCOMPARE(p.cluster.network.tiers[1].nic_gbit, 400.0);
        QCOMPARE(p.cluster.network.tiers[2].oversubscription, 2.0);
        const std::string saved = project_to_text(p);
        const Project q = project_from_text(saved);
        QVERIFY(q.cluster == p.cluster);
        QCOMPARE(project_to_text(q), saved);
        const auto out = project_to_json(q);
        QCOMPARE(out["cluster"]["system"], nlohmann::json("dgx-h100"));
        QCOMPARE(out["cluster"]["network"]["tiers"], j["cluster"]["network"]["tiers"]);
        const auto plain = project_to_json(project_from_text(kIssueExample));
        QVERIFY(!plain["cluster"].contains("system"));
        QVERIFY(!plain["cluster"]["network"].contains("tiers"));
    }

    void inlineModelAndPresetOverrides() {
        const Project p = project_from_text(
            R"({"paraplan": 1, "cluster": {"gpu": "a100-80g", "nodes": 1, "gpus_per_node": 8},
                "model": {"family": "gpt2", "layers": 96, "hidden": 12288, "heads": 96, "kv_heads": 96,
                          "ffn_hidden": 49152, "vocab": 51200, "max_seq": 2048, "activation": "gelu",
                          "tied_embeddings": true}})");
        QVERIFY(p.model_preset.empty());
        QCOMPARE(p.model.layers, 96);
        QCOMPARE(p.model.hidden, 12288);
        const double billions = static_cast<double>(count_params(p.model).total) / 1e9;
        QVERIFY2(billions > 170 && billions < 180, qPrintable(QString::number(billions)));

        const Project q = project_from_text(
            R"({"paraplan": 1, "cluster": {"gpu": "h100-sxm", "nodes": 1, "gpus_per_node": 8},
                "model": {"preset": "llama3.1-8b", "layers": 16}})");
        QCOMPARE(q.model_preset, std::string("llama3.1-8b"));
        QCOMPARE(q.model.layers, 16);
        QCOMPARE(q.model.hidden, catalog::find_model("llama3.1-8b")->hidden);
        // Only the override is written back next to the preset.
        const auto m = project_to_json(q)["model"];
        QCOMPARE(m["preset"], nlohmann::json("llama3.1-8b"));
        QCOMPARE(m["layers"], nlohmann::json(16));
        QVERIFY(!m.contains("hidden"));
        QCOMPARE(project_from_json(project_to_json(q)).model.layers, 16);
    }

    void unknownKeysKept() {
        nlohmann::json j = nlohmann::json::parse(kIssueExample);
        j["notes"] = "keep me";
        j["layout"]["future_knob"] = {1, 2, 3};
        j["cluster"]["nodes"][0]["rack"] = "r12";
        j["training"]["seed"] = 42;
        j["runtime"] = {{"script", "train.py"}};
        const Project p = project_from_json(j);
        const auto out = project_to_json(p);
        QCOMPARE(out["notes"], nlohmann::json("keep me"));
        QCOMPARE(out["layout"]["future_knob"], nlohmann::json({1, 2, 3}));
        QCOMPARE(out["cluster"]["nodes"][0]["rack"], nlohmann::json("r12"));
        QCOMPARE(out["training"]["seed"], nlohmann::json(42));
        QCOMPARE(out["runtime"]["script"], nlohmann::json("train.py"));
    }

    // The TP overlap switches are layout fields under the frameworks' own names, written only when on.
    void tpCommOverlapFieldsRoundTrip() {
        nlohmann::json j = nlohmann::json::parse(kIssueExample);
        const Project off = project_from_json(j);
        QVERIFY(!off.layout.tp_comm_overlap && !off.layout.enable_async_tensor_parallel);
        QVERIFY(!project_to_json(off)["layout"].contains("tp_comm_overlap"));
        j["layout"]["tp_comm_overlap"] = true;
        j["layout"]["enable_async_tensor_parallel"] = true;
        const Project on = project_from_json(j);
        QVERIFY(on.layout.tp_comm_overlap && on.layout.enable_async_tensor_parallel);
        QVERIFY(!on.layout.extra.contains("tp_comm_overlap"));   // a known key, not kept as unknown
        const auto out = project_to_json(on);
        QCOMPARE(out["layout"]["tp_comm_overlap"], nlohmann::json(true));
        QCOMPARE(out["layout"]["enable_async_tensor_parallel"], nlohmann::json(true));
        // NeMo's per-GEMM userbuffers settings, kept as written; a method TE does not have is refused.
        j["layout"]["tp_comm_overlap_cfg"] = {{"proj_fprop", {{"method", "ring_exchange"}, {"num_sm", 1}}}};
        QCOMPARE(project_to_json(project_from_json(j))["layout"]["tp_comm_overlap_cfg"],
                 j["layout"]["tp_comm_overlap_cfg"]);
        j["layout"]["tp_comm_overlap_cfg"] = {{"proj_fprop", {{"method", "ring"}}}};
        QVERIFY_THROWS_EXCEPTION(InputError, project_from_json(j));
        j["layout"]["tp_comm_overlap_cfg"] = {{"attn_fprop", {{"method", "bulk"}}}};
        QVERIFY_THROWS_EXCEPTION(InputError, project_from_json(j));
    }

    // layout.fp8_params is issue 27's name for layout.fp8_all_gather: read either way, and both
    // given must agree (a file naming the switch twice with two values is refused where it says so).
    void fp8ParamsIsTheFp8AllGatherSwitch() {
        nlohmann::json j = nlohmann::json::parse(kIssueExample);
        j["layout"]["fp8"] = true;
        j["layout"]["fp8_params"] = true;
        const Project p = project_from_json(j);
        QVERIFY(p.layout.fp8_all_gather);
        QVERIFY(!p.layout.extra.contains("fp8_params"));
        QCOMPARE(project_to_json(p)["layout"]["fp8_all_gather"], nlohmann::json(true));
        j["layout"]["fp8_all_gather"] = true;
        QVERIFY(project_from_json(j).layout.fp8_all_gather);
        j["layout"]["fp8_params"] = false;
        j["layout"]["fp8_all_gather"] = false;
        QVERIFY(!project_from_json(j).layout.fp8_all_gather);
        j["layout"]["fp8_all_gather"] = true;
        try {
            project_from_json(j);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).starts_with("/layout/fp8_params: expected the value of fp8_all_gather"),
                     e.what());
        }
        j["layout"]["fp8_params"] = "yes";
        QVERIFY_THROWS_EXCEPTION(InputError, project_from_json(j));
    }

    // A Mamba size on a model without a hybrid_override_pattern has no Mamba layer to size: it is
    // kept as written (not dropped on save) and validation warns, naming the key and why.
    void mambaKeysWithoutPatternWarn() {
        nlohmann::json j = nlohmann::json::parse(kIssueExample);
        j["model"]["mamba_state_dim"] = 64;
        j["model"]["mamba_num_heads"] = 128;
        const Project p = project_from_json(j);
        QVERIFY(!p.model.is_hybrid());
        QCOMPARE(p.model.mamba_state_dim, 64);
        QCOMPARE(p.model.mamba_head_dim, 0);   // not given: no default without a pattern
        const auto out = project_to_json(p)["model"];
        QCOMPARE(out["mamba_state_dim"], nlohmann::json(64));
        QCOMPARE(out["mamba_num_heads"], nlohmann::json(128));
        QVERIFY(!out.contains("mamba_head_dim") && !out.contains("hybrid_override_pattern"));
        QCOMPARE(project_from_json(project_to_json(p)).model, p.model);

        std::vector<std::string> named;
        for (const Diagnostic& d : validate(p)) {
            if (d.rule != "model.mamba_without_pattern") continue;
            QCOMPARE(d.severity, Severity::Warning);
            QVERIFY2(d.message.find("no hybrid_override_pattern") != std::string::npos, d.message.c_str());
            QVERIFY2(d.message.find("changes nothing") != std::string::npos, d.message.c_str());
            QCOMPARE(d.fields.front(), "/model/" + d.message.substr(0, d.message.find(' ')));
            named.push_back(d.fields.front());
        }
        QCOMPARE(named, (std::vector<std::string>{"/model/mamba_state_dim", "/model/mamba_num_heads"}));
        // Not a number a Mamba layer could have: refused where it is, as with a pattern.
        j["model"]["mamba_state_dim"] = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, project_from_json(j));

        // A hybrid model sizes its Mamba layers with them: no warning.
        const Project h = project_from_text(
            R"({"paraplan": 1, "cluster": {"gpu": "h100-sxm", "nodes": 1, "gpus_per_node": 8},
                "model": {"preset": "nemotron-h-8b"}, "layout": {"framework": "megatron"}})");
        for (const Diagnostic& d : validate(h)) QVERIFY2(d.rule != "model.mamba_without_pattern", d.message.c_str());
    }

    void rankOrder() {
        nlohmann::json j = nlohmann::json::parse(kIssueExample);
        j["cluster"]["nodes"].push_back({{"name", "node1"}, {"gpu", "h100-sxm"}, {"gpus", 2}});
        j["cluster"]["rank_order"] = nlohmann::json::array();
        for (int g = 0; g < 2; ++g) j["cluster"]["rank_order"].push_back({1, g});
        for (int g = 7; g >= 0; --g) j["cluster"]["rank_order"].push_back({0, g});
        const Project p = project_from_json(j);
        const auto pl = p.cluster.placement();
        QCOMPARE(pl.size(), std::size_t(10));
        QCOMPARE(pl[0].node, 1);
        QCOMPARE(pl[2].node, 0);
        QCOMPARE(pl[2].local_rank, 7);
        QCOMPARE(project_to_json(project_from_json(project_to_json(p))), project_to_json(p));
    }

    void malformed_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        auto row = [](const char* name, const std::string& text, const char* msg) {
            QTest::newRow(name) << QString::fromStdString(text) << QString::fromUtf8(msg);
        };
        row("empty", "",
            "line 1, column 1: JSON syntax error while parsing value - unexpected end of input; expected '[', '{', or "
            "a literal");
        row("syntax-line-col", "{\n  \"paraplan\": 1,\n  \"name\": \"x\"\n  \"cluster\": {}\n}",
            "line 4, column 11: JSON syntax error while parsing object - unexpected string literal; expected '}'");
        row("trailing-comma", "{\"paraplan\": 1,}",
            "line 1, column 16: JSON syntax error while parsing object key - unexpected '}'; expected string literal");
        row("not-object", "[1, 2]", "/: expected an object, got an array");
        row("no-version", without("/paraplan"),
            "/paraplan: required field is missing: not a Paraplan project (expected \"paraplan\": 1)");
        row("version-string", with("/paraplan", "1"), "/paraplan: expected the schema version 1, got \"1\"");
        row("newer-version", with("/paraplan", 2),
            "/paraplan: this project was written by a newer Paraplan (schema version 2); this version reads version 1. "
            "Update Paraplan to open it.");
        row("tp-string", with("/layout/tp", "two"), "/layout/tp: expected a positive integer, got \"two\"");
        row("tp-zero", with("/layout/tp", 0), "/layout/tp: expected a positive integer, got 0");
        row("pp-negative", with("/layout/pp", -4), "/layout/pp: expected a positive integer, got -4");
        row("pp-fraction", with("/layout/pp", 2.5), "/layout/pp: expected a positive integer, got 2.5");
        row("sp-mode", with("/layout/sp_mode", "ulysses"),
            "/layout/sp_mode: expected one of \"none\", \"split_gather\", \"ring\", \"all_to_all\", \"ring_attn\", got "
            "\"ulysses\"");
        row("framework", with("/layout/framework", "jax"),
            "/layout/framework: expected one of \"colossalai\", \"colossalai-moe\", \"colossalai-gemini\", "
            "\"colossalai-zero\", \"megatron\", \"torchtitan\", \"deepspeed\", \"devicemesh\", got \"jax\"");
        row("zero-stage", with("/layout/zero_stage", 4), "/layout/zero_stage: expected 0, 1, 2 or 3, got 4");
        row("recompute", with("/layout/recompute", true),
            "/layout/recompute: expected one of \"none\", \"selective\", \"full\", got true");
        row("flash-bool", with("/layout/flash_attention", "yes"),
            "/layout/flash_attention: expected true or false, got \"yes\"");
        row("layout-array", with("/layout", nlohmann::json::array()), "/layout: expected an object, got an array");
        row("no-cluster", without("/cluster"), "/cluster: required field is missing (expected an object)");
        row("no-nodes", without("/cluster/nodes"),
            "/cluster/nodes: required field is missing (expected an array of nodes or a node count)");
        row("empty-nodes", with("/cluster/nodes", nlohmann::json::array()),
            "/cluster/nodes: a cluster needs at least one node");
        row("unknown-gpu", with("/cluster/nodes/0/gpu", "h900"), "/cluster/nodes/0/gpu: unknown GPU \"h900\" (known: ");
        row("node-gpus", with("/cluster/nodes/0/gpus", "8"),
            "/cluster/nodes/0/gpus: expected a positive integer, got \"8\"");
        row("node-name", without("/cluster/nodes/0/name"),
            "/cluster/nodes/0/name: required field is missing (expected a string)");
        row("node-port", with("/cluster/nodes/0/port", 70000),
            "/cluster/nodes/0/port: expected a port number (1-65535), got 70000");
        row("network-bw", with("/cluster/network/inter_node_gbps", -1),
            "/cluster/network/inter_node_gbps: expected a positive number, got -1");
        row("no-model", without("/model"),
            "/model: required field is missing (expected {\"preset\": ID} or a model spec)");
        row("unknown-preset", with("/model/preset", "llama9"),
            "/model/preset: unknown model preset \"llama9\" (known: ");
        row("model-string", with("/model", "llama3.1-70b"), "/model: expected an object, got \"llama3.1-70b\"");
        row("batch-string", with("/training/global_batch_size", "1k"),
            "/training/global_batch_size: expected a positive integer, got \"1k\"");
        row("precision", with("/training/precision", "int4"),
            "/training/precision: expected one of \"fp32\", \"tf32\", \"fp16\", \"bf16\", \"fp8\", got \"int4\"");
        row("layers-per-stage", with("/layout/num_layers_per_stage", nlohmann::json({20, "x"})),
            "/layout/num_layers_per_stage/1: expected an integer, got \"x\"");
        row("dp-shard-zero", with("/layout/dp_shard", 0),
            "/layout/dp_shard: expected a positive integer or -1 (infer), got 0");
        row("rank-order-shape", with("/cluster/rank_order", nlohmann::json({{0}})),
            "/cluster/rank_order/0: expected a [node, gpu] pair of integers, got an array");
        row("rank-order-count", with("/cluster/rank_order", nlohmann::json({{0, 0}})),
            "/cluster/rank_order: lists 1 ranks but the cluster has 8 GPUs");
        row("rank-order-range", with("/cluster/rank_order", nlohmann::json({{0, 9}})),
            "/cluster/rank_order/0: GPU index 9 is out of range (node node0 has 8 GPUs)");
        row("unknown-system", with("/cluster/system", "dgx-z9"),
            "/cluster/system: unknown system \"dgx-z9\" (known: dgx-a100, ");
        row("tiers-not-array", with("/cluster/network/tiers", 5),
            "/cluster/network/tiers: expected an array of tiers, got 5");
        row("tier-field", with("/cluster/network/tiers", nlohmann::json::parse(R"([{"name": "nvlink", "kind": "nvlink",
            "generation": "nvlink4", "domain_gpus": 8, "links_per_gpu": 18, "link_gbps": -25}])")),
            "/cluster/network/tiers/0/link_gbps: expected a positive number, got -25");
        row("tiers-scale-up-first", with("/cluster/network/tiers", nlohmann::json::parse(R"([{"name": "ib",
            "kind": "scale_out", "nics_per_gpu": 1, "nic_gbit": 400, "rails": 8}])")),
            "/cluster/network/tiers: the first tier must be the scale-up domain (nvlink, xgmi or pcie)");
        row("number-overflow", "{\"paraplan\": 1e400}", "invalid JSON: number overflow parsing '1e400'");
        row("huge-cluster",
            R"({"paraplan":1,"cluster":{"gpu":"h100-sxm","nodes":100000,"gpus_per_node":100},"model":{"preset":"gpt2"}})",
            "/cluster/nodes: the cluster has 10000000 GPUs; Paraplan plans up to 4194304 GPUs");
    }
    void malformed() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        try {
            project_from_text(text.toStdString());
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.startsWith(message), qPrintable(QStringLiteral("got: ") + what));
        }
    }

    // A file's syntax and schema errors say which file, then where in it and why.
    void malformedFileIsNamed() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("bad.paraplan.json")).toStdString();
        for (const auto& [text, expected] : std::vector<std::pair<std::string, std::string>>{
                 {"{\n  \"paraplan\": 1,\n  \"name\": oops\n}\n", ": line 3, column "},
                 {R"({"paraplan": 1, "cluster": {"gpu": "h100-sxm", "nodes": 1, "gpus_per_node": 8},
                      "model": {"preset": "gpt2"}, "layout": {"tp": "two"}})",
                  ": /layout/tp: expected a positive integer"}}) {
            {
                std::ofstream out(path, std::ios::binary | std::ios::trunc);
                out << text;
            }
            try {
                load_project(path);
                QFAIL("expected an InputError");
            } catch (const InputError& e) {
                const QString what = QString::fromUtf8(e.what());
                QVERIFY2(what.startsWith(QString::fromStdString(path + expected)), qPrintable(what));
                QCOMPARE(e.file(), path);
                QVERIFY(!e.message().empty());
            }
        }
    }

    void unreadableFile() {
        try {
            load_project("/nonexistent/dir/x.paraplan.json");
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.message()),
                     QStringLiteral("cannot read project: No such file or directory"));
            QCOMPARE(e.file(), std::string("/nonexistent/dir/x.paraplan.json"));
        }
    }

    // A watched load (the app's, off its GUI thread) reads the same project, says how far the
    // parse is in bytes up to the file's size, keeps a syntax error's line and column, and
    // stops with Cancelled once asked.
    void watchedLoad() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("big.paraplan.json")).toStdString();
        nlohmann::json j = nlohmann::json::parse(kIssueExample);
        for (int i = 0; i < 4000; ++i) j["x_notes"].push_back(std::string(1000, char('a' + i % 26)));
        const std::string text = j.dump(1);
        {
            std::ofstream out(path, std::ios::binary | std::ios::trunc);
            out << text;
        }
        const long long size = static_cast<long long>(text.size());
        QVERIFY(size > 3 << 20);

        std::vector<std::pair<long long, long long>> seen;
        Progress watch;
        watch.on_progress = [&seen](long long done, long long total) { seen.emplace_back(done, total); };
        QCOMPARE(project_to_json(load_project(path, watch)), project_to_json(load_project(path)));
        QVERIFY(seen.size() >= 4);   // the start, each MiB, the end
        QCOMPARE(seen.front(), std::make_pair(0LL, size));
        QCOMPARE(seen.back(), std::make_pair(size, size));
        for (std::size_t i = 1; i < seen.size(); ++i) {
            QVERIFY(seen[i].first >= seen[i - 1].first);
            QCOMPARE(seen[i].second, size);
        }

        // Asked to stop after the first MiB: Cancelled, before the parse reaches the end.
        std::atomic<bool> stop{false};
        long long last = 0;
        Progress stopping{&stop, [&stop, &last](long long done, long long) {
                              last = done;
                              if (done > 0) stop = true;
                          }};
        QVERIFY_THROWS_EXCEPTION(Cancelled, load_project(path, stopping));
        QVERIFY2(last > 0 && last < size, qPrintable(QString::number(last)));

        // Errors name the file, line and column as the plain load's do.
        {
            std::ofstream out(path, std::ios::binary | std::ios::trunc);
            out << "{\n  \"paraplan\": 1,\n  \"name\": oops\n}\n";
        }
        try {
            load_project(path, watch);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.line(), 3);
            QCOMPARE(e.file(), path);
        }
    }

    void failedSaveKeepsOriginal() {
        QTemporaryDir dir;
        const std::string path = dir.filePath(QStringLiteral("keep.paraplan.json")).toStdString();
        const Project p = load_example("gpt2-1node");
        save_project(p, path);
        // Saving into a folder that does not exist fails without touching the original.
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 save_project(p, dir.filePath(QStringLiteral("missing/x.json")).toStdString()));
        QCOMPARE(project_to_json(load_project(path)), project_to_json(p));
    }
};

QTEST_APPLESS_MAIN(TestProject)
#include "tst_project.moc"
