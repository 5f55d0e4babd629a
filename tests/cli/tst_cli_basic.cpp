// paraplan-cli as a process: help, version, exit codes, JSON on stdout only.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "clitest.h"

#include <utility>

namespace {}   // namespace

class TestCliBasic : public QObject {
    Q_OBJECT
private slots:
    void helpAndVersion() {
        auto r = cli({QStringLiteral("--version")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.startsWith("paraplan-cli "));
        r = cli({QStringLiteral("--help")});
        QCOMPARE(r.code, 0);
        for (const char* c : {"validate", "catalog", "import-hf"}) QVERIFY2(r.out.contains(c), c);
        r = cli({});
        QCOMPARE(r.code, 2);
        r = cli({QStringLiteral("frobnicate")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("unknown command 'frobnicate'"));
        r = cli({QStringLiteral("validate"), QStringLiteral("--help")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("Usage: paraplan-cli validate"));
    }

    void validateExamples_data() {
        QTest::addColumn<QString>("file");
        for (const char* n : {"gpt2-1node", "llama3.1-70b-4nodes", "mixtral-8x7b-2nodes-ep", "llama3.1-405b-128nodes"})
            QTest::newRow(n) << example(n);
    }
    void validateExamples() {
        QFETCH(QString, file);
        const auto r = cli({QStringLiteral("validate"), file, QStringLiteral("--json")});
        const auto o = parseObject(r.out);
        QVERIFY2(r.code == 0, r.out + r.err);
        QCOMPARE(o.value(QStringLiteral("valid")).toBool(), true);
        QVERIFY(o.value(QStringLiteral("diagnostics")).isArray());
    }

    void validateFindingsExitOne() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bad.paraplan.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        // 8 GPUs cannot hold tp=3.
        f.write(R"({"paraplan": 1, "cluster": {"gpu": "a100-80g", "nodes": 1, "gpus_per_node": 8},
                  "model": {"preset": "gpt2"}, "layout": {"framework": "colossalai", "tp": 3}})");
        f.close();
        const auto r = cli({QStringLiteral("validate"), path, QStringLiteral("--json")});
        QCOMPARE(r.code, 1);
        const auto o = parseObject(r.out);
        QCOMPARE(o.value(QStringLiteral("valid")).toBool(), false);
        const auto diags = o.value(QStringLiteral("diagnostics")).toArray();
        QVERIFY(!diags.isEmpty());
        const auto d = diags.first().toObject();
        for (const char* key : {"severity", "rule", "message", "framework_error", "fields", "fixes"})
            QVERIFY2(d.contains(QLatin1String(key)), key);
        QCOMPARE(d.value(QStringLiteral("severity")).toString(), QStringLiteral("error"));
    }

    void unreadableInputExitTwo() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("broken.paraplan.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\n  \"paraplan\": 1,\n  \"layout\": {\"tp\": \"two\"}\n  oops\n}");
        f.close();
        auto r = cli({QStringLiteral("validate"), path, QStringLiteral("--json")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains((path + QStringLiteral(": line 4, column 3")).toUtf8()), r.err);   // which file, where

        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(R"({"paraplan": 1, "cluster": {"gpu": "a100-80g", "nodes": 1, "gpus_per_node": 8},
                  "model": {"preset": "gpt2"}, "layout": {"tp": "two"}})");
        f.close();
        r = cli({QStringLiteral("validate"), path});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("/layout/tp: expected a positive integer, got \"two\""), r.err);

        r = cli({QStringLiteral("validate"), dir.filePath(QStringLiteral("missing.json"))});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("No such file or directory"));

        r = cli({QStringLiteral("validate")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("missing project FILE"));
    }

    // An unknown command names the one it most likely meant.
    void unknownCommandSuggests() {
        for (const auto& [typed, meant] : {std::pair{"check", "validate"}, std::pair{"vaildate", "validate"},
                                           std::pair{"estimat", "estimate"}, std::pair{"exports", "export"}}) {
            const auto r = cli({QString::fromLatin1(typed), example("gpt2-1node")});
            QCOMPARE(r.code, 2);
            QVERIFY2(r.err.contains(QByteArray("did you mean '") + meant + "'"), r.err);
        }
        const auto r = cli({QStringLiteral("frobnicate")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("unknown command 'frobnicate'") && !r.err.contains("did you mean"), r.err);
    }

    // An option the command does not take is refused, never ignored: a typo such as --gpuz
    // used to plan with the default instead of the value meant.
    void unknownOptionRefused() {
        const auto r = cli(
            {"plan", "--model", "gpt2", "--gpuz", "h100-sxm", "--nodes", "1", "--global-batch", "8", "--seq", "1024"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("unknown option --gpuz; did you mean --gpu?"), r.err);
        const auto e = cli({"estimate", example("gpt2-1node"), "--jsn"});
        QCOMPARE(e.code, 2);
        QVERIFY2(e.err.contains("unknown option --jsn; did you mean --json?"), e.err);
        QVERIFY(e.out.isEmpty());
        const auto far = cli({"validate", example("gpt2-1node"), "--frobnicate"});
        QCOMPARE(far.code, 2);
        QVERIFY2(far.err.contains("unknown option --frobnicate") && !far.err.contains("did you mean"), far.err);
        // Every documented option is taken: --optimizer reached plan's search, and now its usage.
        const auto ok = cli({"plan", "--model", "gpt2", "--gpu", "h100-sxm", "--nodes", "1", "--global-batch", "8",
                             "--seq", "1024", "--optimizer", "sgd", "--top", "1", "--json"});
        QVERIFY2(ok.code == 0, ok.err);
        // --precision is read by its table: an unknown one is a usage error (it was priced as bf16).
        const auto prec = cli({"plan", "--model", "gpt2", "--gpu", "h100-sxm", "--nodes", "1", "--global-batch", "8",
                               "--seq", "1024", "--precision", "int8", "--top", "1", "--json"});
        QCOMPARE(prec.code, 2);
        QVERIFY2(prec.err.contains("--precision: expected one of \"fp32\", \"tf32\", \"fp16\", \"bf16\", \"fp8\", "
                                   "got 'int8'"),
                 prec.err);
    }

    void catalogJson() {
        auto r = cli({QStringLiteral("catalog"), QStringLiteral("gpus"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const auto gpus = parseObject(r.out).value(QStringLiteral("gpus")).toArray();
        QStringList ids;
        for (const auto& g : gpus) ids << g.toObject().value(QStringLiteral("id")).toString();
        for (const char* id : {"v100-32g", "a100-40g", "a100-80g", "h100-sxm", "h100-pcie", "h200", "b200", "mi250x",
                               "mi300x", "l40s", "rtx4090"})
            QVERIFY2(ids.contains(QLatin1String(id)), id);

        r = cli({QStringLiteral("catalog"), QStringLiteral("models"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const auto models = parseObject(r.out).value(QStringLiteral("models")).toArray();
        QVERIFY(models.size() >= 16);
        bool found = false;
        for (const auto& m : models) {
            const auto o = m.toObject();
            if (o.value(QStringLiteral("id")).toString() == QStringLiteral("llama2-7b")) {
                found = true;
                const double b = o.value(QStringLiteral("parameters")).toDouble() / 1e9;
                QVERIFY2(std::abs(b - 6.74) / 6.74 < 0.02, qPrintable(QString::number(b)));
            }
        }
        QVERIFY(found);

        r = cli({QStringLiteral("catalog"), QStringLiteral("cats")});
        QCOMPARE(r.code, 2);
    }

    void importHf() {
        const QString cfg = QStringLiteral(PARAPLAN_TEST_DATA "/hf/llama.json");
        QVERIFY2(QFile::exists(cfg), "tests/data/hf/llama.json");
        auto r = cli({QStringLiteral("import-hf"), cfg, QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const auto o = parseObject(r.out);
        QCOMPARE(o.value(QStringLiteral("model")).toObject().value(QStringLiteral("family")).toString(),
                 QStringLiteral("llama"));
        QVERIFY(o.value(QStringLiteral("parameters")).toDouble() > 1e9);

        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("config.json"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"model_type": "llama", "num_hidden_layers": 32, "hidden_size": "big", "num_attention_heads": 32,
                  "intermediate_size": 11008, "vocab_size": 32000})");
        f.close();
        r = cli({QStringLiteral("import-hf"), bad, QStringLiteral("--json")});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QVERIFY2(r.err.contains("/hidden_size"), r.err);
    }
};

QTEST_GUILESS_MAIN(TestCliBasic)
#include "tst_cli_basic.moc"
