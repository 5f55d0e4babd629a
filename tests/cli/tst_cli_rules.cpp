// paraplan-cli validate / explain-error / advise as processes: exit codes (0 fine,
// 1 findings, 2 unreadable/usage) and their JSON documents.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "clitest.h"

namespace {

QString write(QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write(text);
    return path;
}

// Llama-3.1-8B on 2 x 8 H100 with pp 3: 16 % (2*3) breaks ColossalAI's first rule.
const QByteArray kBad = R"({"paraplan": 1, "cluster": {"gpu": "h100-sxm", "nodes": 2, "gpus_per_node": 8},
  "model": {"preset": "llama3.1-8b"},
  "training": {"global_batch_size": 64, "micro_batch_size": 1, "seq_len": 4096, "precision": "bf16"},
  "layout": {"framework": "colossalai", "tp": 2, "pp": 3, "zero_stage": 1}})";

// Megatron with MXFP8 on H100 (compute capability 9.0): Transformer Engine's check_mxfp8_support needs 10.0.
const QByteArray kMxfp8Hopper = R"({"paraplan": 1, "cluster": {"gpu": "h100-sxm", "nodes": 2, "gpus_per_node": 8},
  "model": {"preset": "llama3.1-8b"},
  "training": {"global_batch_size": 64, "micro_batch_size": 1, "seq_len": 4096, "precision": "bf16"},
  "layout": {"framework": "megatron", "tp": 2, "pp": 2, "fp8": true, "fp8_recipe": "mxfp8"}})";

}   // namespace

class TestCliRules : public QObject {
    Q_OBJECT
private slots:
    void validateReportsRuleAndFix() {
        QTemporaryDir dir;
        const QString bad = write(dir, QStringLiteral("bad.paraplan.json"), kBad);
        auto r = cli({QStringLiteral("validate"), bad, QStringLiteral("--json")});
        QCOMPARE(r.code, 1);
        const auto o = parseObject(r.out);
        QCOMPARE(o.value(QStringLiteral("valid")).toBool(), false);
        const auto d = o.value(QStringLiteral("diagnostics")).toArray().first().toObject();
        QCOMPARE(d.value(QStringLiteral("rule")).toString(), QStringLiteral("colossalai.world_divisible"));
        QVERIFY(d.value(QStringLiteral("framework_error"))
                    .toString()
                    .contains(QStringLiteral("World size 16 is not divisible by tp_size 2 * pp_size 3")));
        const auto fix = d.value(QStringLiteral("fixes")).toArray().first().toObject();
        // The Fix contract: {"label", "changes": {pointer: value}}; the nearest is pp 4 (16 % (2*4) == 0).
        const auto changes = fix.value(QStringLiteral("changes")).toObject();
        QCOMPARE(changes.value(QStringLiteral("/layout/pp")).toInt(), 4);
        // Text output names the rule and the fix's changes.
        r = cli({QStringLiteral("validate"), bad});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.out.contains("[colossalai.world_divisible]") && r.out.contains("/layout/pp = "), r.out);
    }

    void validateReportsFp8RecipeGpu() {
        QTemporaryDir dir;
        const QString bad = write(dir, QStringLiteral("mx.paraplan.json"), kMxfp8Hopper);
        auto r = cli({QStringLiteral("validate"), bad, QStringLiteral("--json")});
        QCOMPARE(r.code, 1);
        const auto o = parseObject(r.out);
        QJsonObject d;
        for (const auto v : o.value(QStringLiteral("diagnostics")).toArray())
            if (v.toObject().value(QStringLiteral("rule")).toString() == QStringLiteral("kernel.fp8_recipe_gpu"))
                d = v.toObject();
        QVERIFY2(!d.isEmpty(), r.out);
        QCOMPARE(d.value(QStringLiteral("severity")).toString(), QStringLiteral("error"));
        QCOMPARE(d.value(QStringLiteral("fields")).toArray().first().toString(), QStringLiteral("/layout/fp8_recipe"));
        QVERIFY(d.value(QStringLiteral("framework_error"))
                    .toString()
                    .contains(QStringLiteral("Device compute capability 10.0 or higher required for MXFP8")));
        // The first fix keeps FP8 with the tensorwise recipe, which Megatron accepts and Hopper runs.
        const auto changes =
            d.value(QStringLiteral("fixes")).toArray().first().toObject().value(QStringLiteral("changes")).toObject();
        QCOMPARE(changes.value(QStringLiteral("/layout/fp8_recipe")).toString(), QStringLiteral("tensorwise"));
        // Text output names the rule too.
        r = cli({QStringLiteral("validate"), bad});
        QVERIFY2(r.out.contains("[kernel.fp8_recipe_gpu]"), r.out);
    }

    void explainError() {
        // Matched, without project.
        auto r = cli({QStringLiteral("explain-error"),
                      QStringLiteral("AssertionError: World size 16 is not divisible by tp_size 2 * pp_size 3"),
                      QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        auto o = parseObject(r.out);
        QCOMPARE(o.value(QStringLiteral("matched")).toBool(), true);
        QCOMPARE(o.value(QStringLiteral("rule")).toString(), QStringLiteral("colossalai.world_divisible"));
        QCOMPARE(o.value(QStringLiteral("framework")).toString(), QStringLiteral("colossalai"));
        for (const char* k : {"explanation", "fixes", "diagnostics"}) QVERIFY2(o.contains(QLatin1String(k)), k);

        // With the project: the fixes for it.
        QTemporaryDir dir;
        const QString bad = write(dir, QStringLiteral("bad.paraplan.json"), kBad);
        r = cli({QStringLiteral("explain-error"),
                 QStringLiteral("World size 16 is not divisible by tp_size 2 * pp_size 3"), QStringLiteral("--project"),
                 bad, QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        o = parseObject(r.out);
        QVERIFY(!o.value(QStringLiteral("fixes")).toArray().isEmpty());
        QCOMPARE(o.value(QStringLiteral("diagnostics"))
                     .toArray()
                     .first()
                     .toObject()
                     .value(QStringLiteral("rule"))
                     .toString(),
                 QStringLiteral("colossalai.world_divisible"));

        // NCCL from stdin, text output.
        r = cli(
            {QStringLiteral("explain-error"), QStringLiteral("-")},
            "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error, NCCL version 2.18.1\n");
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("nccl.unhandled_system_error"), r.out);

        // Not matched: exit 1, JSON still one document.
        r = cli({QStringLiteral("explain-error"), QStringLiteral("KeyError: 'foo'"), QStringLiteral("--json")});
        QCOMPARE(r.code, 1);
        QCOMPARE(parseObject(r.out).value(QStringLiteral("matched")).toBool(), false);

        // Usage errors: no text; an unreadable project.
        QCOMPARE(cli({QStringLiteral("explain-error")}).code, 2);
        QCOMPARE(cli({QStringLiteral("explain-error"), QStringLiteral("x"), QStringLiteral("--project"),
                      dir.filePath(QStringLiteral("none.json"))})
                     .code,
                 2);
    }

    void advise() {
        // 8 GPUs, tp <= 2, GPT-2 (12 heads): brute force of HybridParallelPlugin's rules.
        auto r = cli({QStringLiteral("advise"), QStringLiteral("--world"), QStringLiteral("8"),
                      QStringLiteral("--heads"), QStringLiteral("12"), QStringLiteral("--layers"), QStringLiteral("12"),
                      QStringLiteral("--max-tp"), QStringLiteral("2"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        auto o = parseObject(r.out);
        QCOMPARE(o.value(QStringLiteral("world_size")).toInt(), 8);
        QCOMPARE(o.value(QStringLiteral("framework")).toString(), QStringLiteral("colossalai"));
        const auto splits = o.value(QStringLiteral("splits")).toArray();
        int expected = 0;
        for (int tp = 1; tp <= 2; ++tp)
            for (int pp = 1; pp <= 8; ++pp)
                for (int sp = 1; sp <= 8; ++sp)
                    if (8 % (tp * pp * sp) == 0 && 12 % sp == 0 && (12 / sp) % tp == 0) ++expected;
        QCOMPARE(splits.size(), expected);
        for (const auto& s : splits) {
            const auto x = s.toObject();
            for (const char* k : {"tp", "pp", "sp", "cp", "ep", "dp"}) QVERIFY2(x.contains(QLatin1String(k)), k);
            QCOMPARE(x.value(QStringLiteral("tp")).toInt() * x.value(QStringLiteral("pp")).toInt() *
                         x.value(QStringLiteral("sp")).toInt() * x.value(QStringLiteral("dp")).toInt(),
                     8);
        }

        // A catalog model and a fixed axis.
        r = cli({QStringLiteral("advise"), QStringLiteral("--world"), QStringLiteral("16"),
                 QStringLiteral("--framework"), QStringLiteral("megatron"), QStringLiteral("--model"),
                 QStringLiteral("llama3.1-8b"), QStringLiteral("--tp"), QStringLiteral("4"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        for (const auto& s : parseObject(r.out).value(QStringLiteral("splits")).toArray())
            QCOMPARE(s.toObject().value(QStringLiteral("tp")).toInt(), 4);

        // Nearest valid layouts of an invalid project.
        QTemporaryDir dir;
        const QString bad = write(dir, QStringLiteral("bad.paraplan.json"), kBad);
        r = cli({QStringLiteral("advise"), QStringLiteral("--project"), bad, QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        o = parseObject(r.out);
        const auto nearest = o.value(QStringLiteral("nearest")).toArray();
        QVERIFY(!nearest.isEmpty());
        const auto first = nearest.first().toObject();
        QCOMPARE(first.value(QStringLiteral("tp")).toInt(), 2);
        QVERIFY(first.value(QStringLiteral("pp")).toInt() == 2 || first.value(QStringLiteral("pp")).toInt() == 4);

        // No valid split: exit 1. Usage: exit 2.
        r = cli({QStringLiteral("advise"), QStringLiteral("--world"), QStringLiteral("8"), QStringLiteral("--tp"),
                 QStringLiteral("3"), QStringLiteral("--json")});
        QCOMPARE(r.code, 1);
        QCOMPARE(parseObject(r.out).value(QStringLiteral("splits")).toArray().size(), 0);
        QCOMPARE(cli({QStringLiteral("advise")}).code, 2);
        QCOMPARE(cli({QStringLiteral("advise"), QStringLiteral("--world"), QStringLiteral("8"),
                      QStringLiteral("--framework"), QStringLiteral("jax")})
                     .code,
                 2);
        QCOMPARE(cli({QStringLiteral("advise"), QStringLiteral("--world"), QStringLiteral("8"),
                      QStringLiteral("--model"), QStringLiteral("nope")})
                     .code,
                 2);
        QCOMPARE(cli({QStringLiteral("advise"), QStringLiteral("--world"), QStringLiteral("8"),
                      QStringLiteral("--bogus"), QStringLiteral("1")})
                     .code,
                 2);
    }
};

QTEST_GUILESS_MAIN(TestCliRules)
#include "tst_cli_rules.moc"
