// Project files of every version (tests/data/project-versions, taken from git history) load
// through the migration chain to what they meant, field by field, save as the current version
// and read back the same; a file of a newer version is refused whole, naming both versions.
#include "catalog/catalog.h"
#include "project/migrate.h"
#include "project/project.h"
#include "util/input_error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

using namespace paraplan;
using nlohmann::json;

namespace {

const std::string kDir = PARAPLAN_TEST_DATA "/project-versions/";

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

Node node(const std::string& name, const std::string& host, const std::string& gpu, int gpus) {
    Node n;
    n.name = name;
    n.host = host;
    n.gpu = gpu;
    n.gpus = gpus;
    return n;
}

ModelSpec preset(const std::string& id) {
    const ModelSpec* m = catalog::find_model(id);
    if (!m) throw std::runtime_error("no catalog model " + id);
    return *m;
}

// Saves `p`, checks the file says the current version, and loads it back.
Project save_and_reload(const Project& p) {
    QTemporaryDir dir;
    const std::string path = dir.filePath("saved.paraplan.json").toStdString();
    save_project(p, path);
    const json saved = json::parse(read_text(path));
    if (saved.at("paraplan") != kProjectSchemaVersion) throw std::runtime_error("saved an old version");
    if (project_needs_migration(saved)) throw std::runtime_error("the saved file needs a migration");
    return load_project(path);
}

}   // namespace

class TestProjectMigrate : public QObject {
    Q_OBJECT
private slots:
    void theChainCoversEveryVersion() {
        // Step i takes version i + 1 to i + 2, and the last one reaches the current version.
        const auto& steps = project_migrations();
        QCOMPARE(static_cast<int>(steps.size()) + 1, kProjectSchemaVersion);
        for (std::size_t i = 0; i < steps.size(); ++i) {
            QCOMPARE(steps[i].from, static_cast<int>(i) + 1);
            QVERIFY(steps[i].apply != nullptr);
            QVERIFY(steps[i].what != nullptr && *steps[i].what != '\0');
        }
    }

    void theFolderHoldsAFileOfEveryVersion() {
        std::set<int> versions;
        for (const auto& e : std::filesystem::directory_iterator(kDir)) {
            const std::string name = e.path().filename().string();
            if (name.rfind('v', 0) != 0 || e.path().extension() != ".json") continue;
            const int v = project_file_version(json::parse(read_text(e.path().string())));
            QVERIFY2(name.rfind("v" + std::to_string(v) + "-", 0) == 0, name.c_str());   // named by its version
            versions.insert(v);
            // Every one loads, and its save reads back the same.
            const Project p = load_project(e.path().string());
            QVERIFY2(save_and_reload(p) == p, name.c_str());
        }
        for (int v = 1; v <= kProjectSchemaVersion; ++v)
            QVERIFY2(versions.count(v) == 1, ("no saved file of version " + std::to_string(v)).c_str());
    }

    void firstCommitListedNodes() {
        const Project p = load_project(kDir + "v1-ff10993-gpt2-1node.paraplan.json");
        QCOMPARE(p.name, std::string("GPT-2 small on one 8-GPU node"));
        Cluster c;
        c.nodes = {node("node0", "localhost", "a100-80g", 8)};
        c.network.inter_node_gbps = 200;
        c.network.latency_us = 5;
        QVERIFY(p.cluster == c);
        QCOMPARE(p.world_size(), 8);
        QCOMPARE(p.model_preset, std::string("gpt2"));
        QVERIFY(p.model == preset("gpt2"));
        Training t;
        t.global_batch_size = 64;
        t.micro_batch_size = 4;
        t.seq_len = 1024;
        t.precision = Precision::bf16;
        t.optimizer = Optimizer::adamw;
        QVERIFY(p.training == t);
        Layout l;
        l.framework = "colossalai";
        l.tp = 2;
        l.pp = 2;
        l.zero_stage = 1;
        l.num_microbatches = 8;
        QVERIFY(p.layout == l);
        QCOMPARE(p.layout.sp_mode, SpMode::none);
        QCOMPARE(p.layout.schedule, Schedule::one_f_one_b);
        QVERIFY(p.runtime.empty() && p.extra.empty());
        QVERIFY(save_and_reload(p) == p);
    }

    void firstCommitShortForm() {
        const Project p = load_project(kDir + "v1-ff10993-mixtral-short-form.paraplan.json");
        QCOMPARE(p.name, std::string("Mixtral-8x7B on 2 nodes with expert parallelism"));
        Cluster c;
        c.nodes = {node("node0", "", "h100-sxm", 8), node("node1", "", "h100-sxm", 8)};
        c.network.inter_node_gbps = 400;
        c.network.latency_us = 5;
        c.short_form = true;
        QVERIFY(p.cluster == c);
        QVERIFY(p.model == preset("mixtral-8x7b"));
        QCOMPARE(p.training.global_batch_size, 128);
        QCOMPARE(p.training.seq_len, 4096);
        Layout l;
        l.framework = "colossalai-moe";
        l.pp = 2;
        l.ep = 8;
        l.zero_stage = 1;
        l.num_microbatches = 16;
        l.recompute = Recompute::full;
        QVERIFY(p.layout == l);
        const Project back = save_and_reload(p);
        QVERIFY(back == p);
        QVERIFY(back.cluster.short_form);   // saved in the short form it was written in
    }

    void legacyFp8PrecisionMigrates() {
        const std::string path = kDir + "v1-30ca49c-llama-precision-fp8.paraplan.json";
        // As JSON: the one field rewritten, the switch set, nothing else touched.
        const json before = json::parse(read_text(path));
        QVERIFY(project_needs_migration(before));
        json after = before;
        migrate_project(after);
        QCOMPARE(after["training"]["precision"].get<std::string>(), std::string("bf16"));
        QCOMPARE(after["layout"]["fp8"].get<bool>(), true);
        json undo = after;
        undo["training"]["precision"] = "fp8";
        undo["layout"].erase("fp8");
        QVERIFY(undo == before);
        QVERIFY(!project_needs_migration(after));
        // As a project: bf16 compute with FP8 linear GEMMs at the default (tensorwise) recipe.
        const Project p = load_project(path);
        QCOMPARE(p.training.precision, Precision::bf16);
        QVERIFY(p.layout.fp8);
        QCOMPARE(p.layout.fp8_recipe, Fp8Recipe::tensorwise);
        QVERIFY(!p.layout.fp8_all_gather);
        Layout l;
        l.tp = 2;
        l.pp = 4;
        l.num_microbatches = 8;
        l.fp8 = true;
        QVERIFY(p.layout == l);
        QVERIFY(p.model == preset("llama3.1-8b"));
        QVERIFY(p == project_from_json(before));   // the text and the JSON entries agree
        const Project back = save_and_reload(p);
        QVERIFY(back == p);
        QCOMPARE(project_to_json(back)["training"]["precision"].get<std::string>(), std::string("bf16"));
    }

    void legacyFp8EdgeCases() {
        json j = json::parse(read_text(kDir + "v1-30ca49c-llama-precision-fp8.paraplan.json"));
        // No layout: the defaults with the switch on.
        json no_layout = j;
        no_layout.erase("layout");
        Layout want;
        want.fp8 = true;
        QVERIFY(project_from_json(no_layout).layout == want);
        // An explicit false is the old meaning overridden by the precision, as before.
        json off = j;
        off["layout"]["fp8"] = false;
        QVERIFY(project_from_json(off).layout.fp8);
        // A wrong type is still refused where it is.
        json bad = j;
        bad["layout"]["fp8"] = "yes";
        try {
            project_from_json(bad);
            QFAIL("a string fp8 was accepted");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/layout/fp8"));
        }
    }

    void newerVersionIsRefusedWhole() {
        const std::string path = kDir + "newer-v2-refused.paraplan.json";
        const json newer = json::parse(read_text(path));
        QCOMPARE(newer["paraplan"].get<int>(), kProjectSchemaVersion + 1);
        try {
            load_project(path);
            QFAIL("a newer file was loaded");
        } catch (const InputError& e) {
            // The version, not the fields version 1 would refuse (cluster, training): nothing
            // after the version was read.
            const std::string what = e.what();
            QCOMPARE(e.pointer(), std::string("/paraplan"));
            QVERIFY2(what.find("newer Paraplan (schema version 2)") != std::string::npos, what.c_str());
            QVERIFY2(what.find("reads version 1") != std::string::npos, what.c_str());
            QVERIFY2(what.find("newer-v2-refused.paraplan.json") != std::string::npos, what.c_str());
        }
        json j = newer;
        QVERIFY_THROWS_EXCEPTION(InputError, migrate_project(j));
        QVERIFY(j == newer);   // refused before any change
        QVERIFY_THROWS_EXCEPTION(InputError, project_from_json(newer));
    }

    void badVersionsKeepTheirMessages() {
        json j = json::parse(read_text(kDir + "v1-ff10993-gpt2-1node.paraplan.json"));
        j.erase("paraplan");
        try {
            project_from_json(j);
            QFAIL("a file without a version loaded");
        } catch (const InputError& e) {
            QCOMPARE(
                std::string(e.what()),
                std::string("/paraplan: required field is missing: not a Paraplan project (expected \"paraplan\": 1)"));
        }
        j["paraplan"] = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, project_file_version(j));
        j["paraplan"] = 1.5;
        QVERIFY_THROWS_EXCEPTION(InputError, project_file_version(j));
        QVERIFY_THROWS_EXCEPTION(InputError, project_file_version(json::array()));
    }
};

QTEST_GUILESS_MAIN(TestProjectMigrate)
#include "tst_project_migrate.moc"
