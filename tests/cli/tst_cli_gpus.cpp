// The GPUs added for today's runs (GB200, GB300, B300, MI350X, MI355X, H800, A800) in
// `catalog gpus --json` with their datasheet figures, and every one of them, like a GPU the
// project defines itself (cluster.gpu_specs), through validate, estimate, plan, export, groups,
// advise and compare.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "clitest.h"

namespace {

const char* const kNewGpus[] = {"gb200", "gb300", "b300", "mi350x", "mi355x", "h800", "a800"};

// Llama 3.1 8B, Megatron tp 2 x dp 4 on one 8-GPU node of `gpu`, optionally with gpu_specs.
QString write_project(QTemporaryDir& dir, const QString& gpu, const QJsonObject& specs = {}) {
    QJsonObject cluster{{"gpu", gpu}, {"nodes", 1}, {"gpus_per_node", 8}};
    if (!specs.isEmpty()) cluster["gpu_specs"] = specs;
    const QJsonObject p{
        {"paraplan", 1},
        {"name", "8B on " + gpu},
        {"cluster", cluster},
        {"model", QJsonObject{{"preset", "llama3.1-8b"}}},
        {"training", QJsonObject{{"global_batch_size", 16}, {"micro_batch_size", 1}, {"seq_len", 2048}}},
        {"layout", QJsonObject{{"framework", "megatron"}, {"tp", 2}, {"distributed_optimizer", true}}}};
    const QString path = dir.filePath(gpu + ".paraplan.json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(QJsonDocument(p).toJson());
    return path;
}

QJsonObject catalog_gpu(const QString& id) {
    const Run r = cli({"catalog", "gpus", "--json"});
    for (const auto& v : QJsonDocument::fromJson(r.out).object()["gpus"].toArray())
        if (v.toObject()["id"].toString() == id) return v.toObject();
    return {};
}

// Every command that reads the project's GPU, on `file`; `capacity` is the GPU's memory.
void every_command(const QString& file, double capacity) {
    Run r = cli({"validate", file});
    QVERIFY2(r.code == 0, (r.out + r.err).constData());
    r = cli({"estimate", file, "--json"});
    QVERIFY2(r.code == 0, r.err.constData());
    const QJsonObject e = parseObject(r.out);
    QCOMPARE(e["memory"].toObject()["capacity_gib"].toDouble(), capacity);
    QVERIFY(e["time"].toObject()["step_s"].toDouble() > 0);
    QVERIFY(e["mfu"].toDouble() > 0.05 && e["mfu"].toDouble() < 0.9);
    r = cli({"plan", "--project", file, "--json", "--top", "1", "--fix", "tp=2,pp=1"});
    QVERIFY2(r.code == 0, r.err.constData());
    QVERIFY(parseObject(r.out)["results"].toArray().size() == 1);
    for (const char* fmt : {"megatron", "torchrun", "slurm"}) {
        r = cli({"export", file, "--format", fmt, "--json"});
        QVERIFY2(r.code == 0, (QByteArray(fmt) + ": " + r.err).constData());
        QVERIFY(!parseObject(r.out)["files"].toObject().isEmpty());
    }
    r = cli({"groups", "--project", file, "--json"});
    QVERIFY2(r.code == 0, r.err.constData());
    r = cli({"advise", "--project", file, "--json"});
    QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
    r = cli({"compare", file, example("llama3.1-8b-pp4-1node"), "--json"});
    QVERIFY2(r.code == 0, r.err.constData());
}

}   // namespace

class TestCliGpus : public QObject {
    Q_OBJECT
private slots:
    // Datasheet figures (dense peaks, TFLOP/s; HBM GiB and GB/s; per-GPU one-way link GB/s).
    void catalogFigures() {
        struct Want {
            const char* id;
            double bf16, fp8, fp4, memory, hbm, link, tdp;
        };
        const Want wants[] = {
            {"gb200", 2500, 5000, 10000, 186, 8000, 900, 1200},
            {"gb300", 2500, 5000, 15000, 288, 8000, 900, 1400},
            {"b300", 2250, 4500, 13500, 288, 8000, 900, 0},
            {"mi350x", 2306.9, 4613.7, 9227.5, 288, 8000, 537.6, 1000},
            {"mi355x", 2516.6, 5033.2, 10066.3, 288, 8000, 537.6, 1400},
            {"h800", 989.4, 1978.9, 0, 80, 3350, 200, 700},
            {"a800", 312, 0, 0, 80, 2039, 200, 400},
        };
        for (const Want& w : wants) {
            const QJsonObject g = catalog_gpu(QString::fromLatin1(w.id));
            QVERIFY2(!g.isEmpty(), w.id);
            QCOMPARE(g["tflops_bf16"].toDouble(), w.bf16);
            QCOMPARE(g["tflops_fp8"].toDouble(), w.fp8);
            QCOMPARE(g["tflops_fp4"].toDouble(), w.fp4);
            QCOMPARE(g["memory_gib"].toDouble(), w.memory);
            QCOMPARE(g["hbm_gbps"].toDouble(), w.hbm);
            QCOMPARE(g["intra_node_gbps"].toDouble(), w.link);
            QCOMPARE(g["tdp_w"].toDouble(), w.tdp);
            QVERIFY2(g["source"].toString().size() > 40, w.id);
        }
        // H800 and A800 are H100 and A100 with NVLink cut to 400 GB/s in total.
        QCOMPARE(catalog_gpu("h800")["tflops_bf16"], catalog_gpu("h100-sxm")["tflops_bf16"]);
        QCOMPARE(catalog_gpu("h100-sxm")["intra_node_gbps"].toDouble(), 450.0);
        QCOMPARE(catalog_gpu("a800")["tflops_bf16"], catalog_gpu("a100-80g")["tflops_bf16"]);
        QCOMPARE(catalog_gpu("a100-80g")["intra_node_gbps"].toDouble(), 300.0);
        QVERIFY(catalog_gpu("b300")["source"].toString().contains("not published"));
        QCOMPARE(catalog_gpu("mi355x")["arch"].toString(), QString("cdna4"));
    }

    void everyCommand_data() {
        QTest::addColumn<QString>("id");
        for (const char* id : kNewGpus) QTest::newRow(id) << QString::fromLatin1(id);
    }
    void everyCommand() {
        QFETCH(QString, id);
        QTemporaryDir dir;
        every_command(write_project(dir, id), catalog_gpu(id)["memory_gib"].toDouble());
    }

    // A GPU of the project's own: every command takes it, and with a catalog GPU's figures
    // its estimate is the catalog GPU's, number for number.
    void projectGpu() {
        QTemporaryDir dir;
        QJsonObject spec = catalog_gpu("mi355x");
        spec.remove("id");
        spec["name"] = "MI355X as our cloud runs it";
        const QString own = write_project(dir, "cloud-mi355x", QJsonObject{{"cloud-mi355x", spec}});
        every_command(own, 288);
        const Run a = cli({"estimate", own, "--json"}), b = cli({"estimate", write_project(dir, "mi355x"), "--json"});
        const QJsonObject ea = parseObject(a.out), eb = parseObject(b.out);
        QCOMPARE(ea["time"].toObject()["step_s"].toDouble(), eb["time"].toObject()["step_s"].toDouble());
        QCOMPARE(ea["memory"].toObject()["peak_gib"].toDouble(), eb["memory"].toObject()["peak_gib"].toDouble());
        QCOMPARE(ea["mfu"].toDouble(), eb["mfu"].toDouble());

        // A bad field is refused with its pointer (exit 2), as in any project.
        QJsonObject bad = spec;
        bad["hbm_gbps"] = -1;
        const Run r = cli({"validate", write_project(dir, "bad-gpu", QJsonObject{{"bad-gpu", bad}})});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("/cluster/gpu_specs/bad-gpu/hbm_gbps: expected a positive number, got -1"),
                 r.err.constData());
    }
};

QTEST_APPLESS_MAIN(TestCliGpus)
#include "tst_cli_gpus.moc"
