// cluster.gpu_specs: GPUs a project defines itself. Checked like catalog entries (errors name the
// JSON pointer), used like catalog ids in cluster.gpu and nodes[].gpu, saved and loaded again
// unchanged, and estimated exactly like the catalog GPU whose figures they copy.
#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "project/project.h"
#include "project/project_gpu.h"
#include "util/input_error.h"

#include <QtTest>

#include <string>

using namespace paraplan;
using nlohmann::json;

namespace {

// A catalog entry as a project GPU under another id (the id is the key, so it is left out).
json spec_like(const std::string& catalog_id) {
    json g = to_json(*catalog::find_gpu(catalog_id));
    g.erase("id");
    return g;
}

json project_with(const json& specs, const std::string& gpu) {
    return json::parse(R"({"paraplan": 1, "name": "own GPU",
      "cluster": {"gpu": "x", "nodes": 2, "gpus_per_node": 8, "network": {"inter_node_gbps": 400, "latency_us": 5}},
      "model": {"preset": "llama3.1-8b"},
      "training": {"global_batch_size": 64, "micro_batch_size": 1, "seq_len": 4096},
      "layout": {"framework": "megatron", "tp": 2, "pp": 2, "distributed_optimizer": true}})")
        .patch(json::array({{{"op", "add"}, {"path", "/cluster/gpu_specs"}, {"value", specs}},
                            {{"op", "replace"}, {"path", "/cluster/gpu"}, {"value", gpu}}}));
}

std::string error_of(const json& j) {
    try {
        project_from_json(j);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

}   // namespace

class TestProjectGpuSpecs : public QObject {
    Q_OBJECT
private slots:
    void lookupAndRoundTrip() {
        json spec = spec_like("h100-sxm");
        spec["name"] = "Our H100 at a lower clock";
        spec["tflops_bf16"] = 800;
        spec["tflops_fp4"] = 0;
        spec["notes"] = "kept";   // an unknown key survives a save
        const Project p = project_from_json(project_with({{"lab-h100", spec}}, "lab-h100"));
        QCOMPARE(p.cluster.gpu_specs.size(), std::size_t(1));
        const GpuSpec* g = find_gpu(p.cluster, "lab-h100");
        QVERIFY(g);
        QCOMPARE(g->id, std::string("lab-h100"));
        QCOMPARE(g->tflops_bf16, 800.0);
        QCOMPARE(g->memory_gib, 80.0);
        QCOMPARE(g->source, catalog::find_gpu("h100-sxm")->source);
        QCOMPARE(g->extra["notes"], json("kept"));
        QVERIFY(find_gpu(p.cluster, "h100-sxm") == catalog::find_gpu("h100-sxm"));   // the catalog still answers
        QVERIFY(find_gpu(p.cluster, "nope") == nullptr);
        QVERIFY(catalog::find_gpu("lab-h100") == nullptr);   // nothing leaks into the catalog

        // load -> save -> load: the same project, and the same text again.
        const json saved = project_to_json(p);
        QCOMPARE(saved["cluster"]["gpu"], json("lab-h100"));
        QCOMPARE(saved["cluster"]["gpu_specs"]["lab-h100"]["tflops_bf16"], json(800.0));
        QCOMPARE(saved["cluster"]["gpu_specs"]["lab-h100"]["notes"], json("kept"));
        const Project again = project_from_json(saved);
        QVERIFY(again == p);
        QCOMPARE(project_to_json(again).dump(), saved.dump());

        // Defaults: name = id, source says where it came from.
        json minimal = spec_like("mi300x");
        minimal.erase("name");
        minimal.erase("source");
        const Project m = project_from_json(project_with({{"mi300x-lab", minimal}}, "mi300x-lab"));
        QCOMPARE(m.cluster.gpu_specs[0].name, std::string("mi300x-lab"));
        QCOMPARE(m.cluster.gpu_specs[0].source, std::string("defined in the project"));
        QVERIFY(project_from_json(project_to_json(m)) == m);
    }

    void longFormNodes() {
        json j = project_with({{"lab-b200", spec_like("b200")}}, "h100-sxm");
        j["cluster"].erase("gpu");
        j["cluster"].erase("gpus_per_node");
        j["cluster"]["nodes"] = json::array(
            {{{"name", "a"}, {"gpu", "lab-b200"}, {"gpus", 8}}, {{"name", "b"}, {"gpu", "lab-b200"}, {"gpus", 8}}});
        const Project p = project_from_json(j);
        QCOMPARE(p.cluster.nodes[1].gpu, std::string("lab-b200"));
        QCOMPARE(find_gpu(p.cluster, p.cluster.nodes[1].gpu)->tflops_fp4, 9000.0);
        QVERIFY(project_from_json(project_to_json(p)) == p);
    }

    void malformed_data() {
        QTest::addColumn<QString>("got");
        QTest::addColumn<QString>("message");
        auto row = [](const char* name, const json& specs, const std::string& gpu, const char* msg) {
            QTest::newRow(name) << QString::fromStdString(error_of(project_with(specs, gpu))) << QString::fromUtf8(msg);
        };
        json bad = spec_like("h100-sxm");
        bad["tflops_bf16"] = "fast";
        row("field", {{"g1", bad}}, "g1",
            "/cluster/gpu_specs/g1/tflops_bf16: expected a non-negative number, got \"fast\"");
        bad = spec_like("h100-sxm");
        bad["memory_gib"] = 0;
        row("memory", {{"g1", bad}}, "g1", "/cluster/gpu_specs/g1/memory_gib: expected a positive number, got 0");
        bad = spec_like("h100-sxm");
        bad.erase("hbm_gbps");
        row("missing", {{"g1", bad}}, "g1", "/cluster/gpu_specs/g1/hbm_gbps: required field is missing");
        bad = spec_like("h100-sxm");
        bad["vendor"] = "intel";
        row("vendor", {{"g1", bad}}, "g1", "/cluster/gpu_specs/g1/vendor: expected one of \"nvidia\", \"amd\"");
        bad = spec_like("h100-sxm");
        bad["arch"] = "cdna3";
        row("arch", {{"g1", bad}}, "g1", "/cluster/gpu_specs/g1/arch: expected an NVIDIA architecture");
        bad = spec_like("h100-sxm");
        bad["id"] = "other";
        row("id-mismatch", {{"g1", bad}}, "g1",
            "/cluster/gpu_specs/g1/id: expected the entry's key \"g1\" (or no id), got \"other\"");
        bad = spec_like("h100-sxm");
        bad["name"] = "two\nlines";
        row("control", {{"g1", bad}}, "g1", "/cluster/gpu_specs/g1/name: contains a newline");
        row("shadow", {{"h100-sxm", spec_like("h200")}}, "h100-sxm",
            "/cluster/gpu_specs/h100-sxm: \"h100-sxm\" is a catalog GPU; give the project's GPU an id of its own");
        row("bad-id", {{"a/b", spec_like("h200")}}, "h200",
            "/cluster/gpu_specs/a~1b: a GPU id is 1-64 letters, digits, '.', '_' or '-'");
        row("not-object", {{"g1", 3}}, "g1", "/cluster/gpu_specs/g1: expected an object, got 3");
        row("specs-array", json::array(), "h200", "/cluster/gpu_specs: expected an object, got an array");
        row("unknown-id", {{"g1", spec_like("h200")}}, "g2", "/cluster/gpu: unknown GPU \"g2\" (known: g1, v100-32g");
    }
    void malformed() {
        QFETCH(QString, got);
        QFETCH(QString, message);
        QVERIFY2(got.startsWith(message), qPrintable(QStringLiteral("got: ") + got));
    }

    // The contract: a project GPU with a catalog GPU's figures estimates exactly like it.
    void estimatesLikeTheCatalogGpu_data() {
        QTest::addColumn<QString>("id");
        for (const char* id : {"h100-sxm", "h100-96g-500w", "b300", "gb300", "mi355x", "h800", "a800"})
            QTest::newRow(id) << QString::fromLatin1(id);
    }
    void estimatesLikeTheCatalogGpu() {
        QFETCH(QString, id);
        const std::string cat = id.toStdString();
        const Project own = project_from_json(project_with({{"own", spec_like(cat)}}, "own"));
        json j = project_with(json::object(), cat);
        j["cluster"].erase("gpu_specs");
        const Project ref = project_from_json(j);
        const estimate::Estimate a = estimate::estimate_project(own), b = estimate::estimate_project(ref);
        QVERIFY(b.time.step_s > 0);
        QCOMPARE(a.time.step_s, b.time.step_s);
        QCOMPARE(a.time.mfu, b.time.mfu);
        QCOMPARE(a.memory.peak_bytes, b.memory.peak_bytes);
        QCOMPARE(a.memory.reserved_peak_bytes, b.memory.reserved_peak_bytes);
        QCOMPARE(a.memory.capacity_bytes, b.memory.capacity_bytes);
        QCOMPARE(a.memory.fits, b.memory.fits);
    }
};

QTEST_APPLESS_MAIN(TestProjectGpuSpecs)
#include "tst_project_gpu_specs.moc"
