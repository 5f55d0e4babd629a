// paraplan-cli export / import as a process: outputs, exit codes, refusal and --force,
// and a round trip through files on disk.
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "clitest.h"

namespace {

QJsonObject object(const QByteArray& text) {
    const auto doc = QJsonDocument::fromJson(text);
    return doc.isObject() ? doc.object() : QJsonObject{};
}

QByteArray read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

}   // namespace

class TestCliExport : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    QString invalidProject() {
        QJsonObject p = object(read(example("gpt2-1node")));
        QJsonObject layout = p["layout"].toObject();
        layout["tp"] = 3;   // 8 GPUs are not divisible by tp × pp = 6
        p["layout"] = layout;
        const QString path = tmp_.filePath("invalid.paraplan.json");
        QFile f(path);
        f.open(QIODevice::WriteOnly);
        f.write(QJsonDocument(p).toJson());
        return path;
    }

private slots:
    void singleFileToStdout() {
        const Run r = cli({"export", example("llama3.1-70b-4nodes"), "--format", "megatron"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("#!/usr/bin/env bash\n"));
        QVERIFY(r.out.contains("--tensor-model-parallel-size 8\n"));
        QVERIFY(r.out.contains("export CUDA_DEVICE_MAX_CONNECTIONS=1\n"));
        QVERIFY(!r.out.contains("virtual-pipeline-model-parallel-size"));
        // -o FILE writes the file instead.
        const QString out = tmp_.filePath("train.sh");
        const Run w = cli({"export", example("llama3.1-70b-4nodes"), "--format", "megatron", "-o", out});
        QCOMPARE(w.code, 0);
        QVERIFY(w.out.isEmpty());
        QCOMPARE(read(out), r.out);
        QVERIFY(QFileInfo(out).isExecutable());
    }

    void multiFileToFolder() {
        const QString dir = tmp_.filePath("cai");
        const Run r = cli({"export", example("llama3.1-70b-4nodes"), "--format", "colossalai", "-o", dir});
        QCOMPARE(r.code, 0);
        for (const char* f : {"plugin.py", "hostfile", "run.sh"}) QVERIFY2(QFileInfo::exists(dir + "/" + f), f);
        QCOMPARE(read(dir + "/hostfile"), QByteArray("gpu-a\ngpu-b\ngpu-c\ngpu-d\n"));
        QVERIFY(read(dir + "/plugin.py").contains("tp_size=8,"));
        // Without -o: a folder named after the project and format, in the working directory.
        const Run d = cli({"export", example("gpt2-1node"), "--format", "deepspeed"}, {}, tmp_.path());
        QCOMPARE(d.code, 0);
        QVERIFY(QFileInfo::exists(tmp_.filePath("gpt2-1node-deepspeed/ds_config.json")));
        QVERIFY(d.err.contains("gpt2-1node-deepspeed"));
    }

    void jsonOutput() {
        const Run r = cli({"export", example("mixtral-8x7b-2nodes-ep"), "--format", "k8s", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = object(r.out);
        QCOMPARE(o["format"].toString(), QString("k8s"));
        QCOMPARE(o["refused"].toBool(), false);
        QVERIFY(o["files"].toObject()["pytorchjob.yaml"].toString().contains("kind: PyTorchJob"));
        QVERIFY(o["diagnostics"].isArray());
    }

    void refusedUnlessForced() {
        const QString bad = invalidProject();
        const Run r = cli({"export", bad, "--format", "colossalai", "-o", tmp_.filePath("bad")});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("colossalai.world_divisible"));
        QVERIFY(r.err.contains("--force"));
        QVERIFY(!QFileInfo::exists(tmp_.filePath("bad/plugin.py")));
        const Run j = cli({"export", bad, "--format", "torchrun", "--json"});
        QCOMPARE(j.code, 1);
        QCOMPARE(object(j.out)["refused"].toBool(), true);
        const Run f = cli({"export", bad, "--format", "colossalai", "-o", tmp_.filePath("bad"), "--force"});
        QCOMPARE(f.code, 0);
        QVERIFY(read(tmp_.filePath("bad/plugin.py")).startsWith("# PARAPLAN WARNING"));
        QVERIFY(QFileInfo::exists(tmp_.filePath("bad/PARAPLAN_WARNINGS.txt")));
        const Run s = cli({"export", bad, "--format", "megatron", "--force"});
        QCOMPARE(s.code, 0);
        QVERIFY(s.out.startsWith("#!/usr/bin/env bash\n# PARAPLAN WARNING"));
    }

    // DeepSpeed refuses sequence parallelism only where the layout runs it (project/sequence_parallel.h).
    void deepspeedSequenceParallelInUse() {
        // The 70B example keeps sp = 1 but runs split_gather inside tp = 8 (Megatron-style SP): refused,
        // and the message says it is the sp_mode over tp, not the sp size.
        const Run r = cli({"export", example("llama3.1-70b-4nodes"), "--format", "deepspeed", "--json"});
        QCOMPARE(r.code, 1);
        const QJsonObject o = object(r.out);
        QCOMPARE(o["refused"].toBool(), true);
        QString msg;
        for (const auto& d : o["diagnostics"].toArray())
            if (d.toObject()["rule"].toString() == "export.deepspeed.unsupported")
                msg += d.toObject()["message"].toString();
        QVERIFY2(msg.contains("cannot express sequence parallelism"), qPrintable(msg));
        QVERIFY2(msg.contains("split_gather") && msg.contains("tp = 8"), qPrintable(msg));
        // The same layout without the mode exports.
        const QString off = write_variant(tmp_, "llama3.1-70b-4nodes", {{"sp_mode", "none"}}, "ds-off.json");
        const Run ok = cli({"export", off, "--format", "deepspeed", "-o", tmp_.filePath("ds-off")});
        QVERIFY2(ok.code == 0, qPrintable(ok.err));
        QVERIFY(QFileInfo::exists(tmp_.filePath("ds-off/ds_config.json")));
        // split_gather with tp = 1 and sp = 1 splits nothing: nothing to express, it exports.
        const QString idle = write_variant(tmp_, "llama3.1-70b-4nodes", {{"tp", 1}}, "ds-idle.json");
        const Run i = cli({"export", idle, "--format", "deepspeed", "--json"});
        QVERIFY2(i.code == 0, qPrintable(i.out + i.err));
        QCOMPARE(object(i.out)["refused"].toBool(), false);
        // An sp axis is refused whatever the mode.
        const QString axis = write_variant(tmp_, "llama3.1-70b-4nodes", {{"sp_mode", "none"}, {"sp", 2}},
                                           "ds-sp2.json");
        const Run a = cli({"export", axis, "--format", "deepspeed", "--json"});
        QCOMPARE(a.code, 1);
        QVERIFY(QJsonDocument(object(a.out)).toJson().contains("cannot express sequence parallelism (sp = 2)"));
    }

    void usageErrors() {
        QCOMPARE(cli({"export", example("gpt2-1node")}).code, 2);
        const Run u = cli({"export", example("gpt2-1node"), "--format", "nonsense"});
        QCOMPARE(u.code, 2);
        QVERIFY(u.err.contains("colossalai|megatron"));
        QCOMPARE(cli({"export", tmp_.filePath("missing.json"), "--format", "megatron"}).code, 2);
        QCOMPARE(cli({"import", tmp_.filePath("missing.json"), "-o", tmp_.filePath("x.json")}).code, 2);
        const Run h = cli({"help", "export"});
        QVERIFY(h.out.contains("layout-json"));
    }

    void importRoundTrip_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("file");
        QTest::newRow("deepspeed") << "deepspeed"
                                   << "ds_config.json";
        QTest::newRow("megatron") << "megatron"
                                  << "train_megatron.sh";
        QTest::newRow("torchtitan") << "torchtitan"
                                    << "job.toml";
        QTest::newRow("colossalai") << "colossalai"
                                    << "plugin.py";
    }
    void importRoundTrip() {
        QFETCH(QString, format);
        QFETCH(QString, file);
        const QString base = example("llama3.1-70b-4nodes");
        const QString dir = tmp_.filePath("rt-" + format);
        QDir().mkpath(dir);
        QCOMPARE(
            cli({"export", base, "--format", format, "-o", format == "megatron" ? dir + "/" + file : dir, "--force"})
                .code,
            0);
        const QString project = tmp_.filePath("rt-" + format + ".paraplan.json");
        const Run r = cli({"import", dir + "/" + file, "--project", base, "-o", project});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject p = object(read(project));
        const QJsonObject l = p["layout"].toObject();
        QCOMPARE(l["framework"].toString(), format == "colossalai" ? QString("colossalai") : format);
        QCOMPARE(l["tp"].toInt(1), 8);
        QCOMPARE(l["pp"].toInt(1), 4);
        QCOMPARE(p["training"].toObject()["global_batch_size"].toInt(), 256);
        // The imported project is a project: validate reads it.
        const Run v = cli({"validate", project});
        QVERIFY2(v.code == 0 || v.code == 1, v.err.constData());
    }

    void importDefaultsAndJson() {
        const QString cfg = tmp_.filePath("ds.json");
        QFile f(cfg);
        f.open(QIODevice::WriteOnly);
        f.write(R"({"train_batch_size": 128, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
                    "zero_optimization": {"stage": 3, "overlap_comm": true}, "bf16": {"enabled": true}})");
        f.close();
        const Run r = cli({"import", cfg, "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = object(r.out);
        QCOMPARE(o["format"].toString(), QString("deepspeed"));
        QCOMPARE(o["project"].toObject()["layout"].toObject()["zero_stage"].toInt(), 3);
        bool named = false;
        for (const auto w : o["warnings"].toArray()) named = named || w.toString().contains("overlap_comm");
        QVERIFY(named);
        bool said = false;
        for (const auto n : o["notes"].toArray()) said = said || n.toString().contains("no base project given");
        QVERIFY(said);
        // 128 / (2 × 4) = 16 GPUs: the default cluster is sized to the config.
        const QJsonObject cluster = o["project"].toObject()["cluster"].toObject();
        QCOMPARE(cluster["nodes"].toInt() * cluster["gpus_per_node"].toInt(), 16);
        // A file of unknown kind needs --format.
        const QString txt = tmp_.filePath("notes.txt");
        QFile t(txt);
        t.open(QIODevice::WriteOnly);
        t.write("hello\n");
        t.close();
        const Run u = cli({"import", txt, "-o", tmp_.filePath("n.json")});
        QCOMPARE(u.code, 2);
        QVERIFY(u.err.contains("--format"));
    }
};

QTEST_GUILESS_MAIN(TestCliExport)
#include "tst_cli_export.moc"
