// paraplan-cli catalog shardformer: the checklist per model family, and that it agrees
// with what `validate` reports for a layout using the feature.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "clitest.h"

namespace {

QJsonObject family(const QJsonObject& j, const QString& name) {
    for (const auto& f : j["families"].toArray())
        if (f.toObject()["family"].toString() == name) return f.toObject();
    return {};
}

QString support(const QJsonObject& fam, const char* feature) {
    return fam["features"].toObject()[QLatin1String(feature)].toObject()["support"].toString();
}

}   // namespace

class TestCliShardformer : public QObject {
    Q_OBJECT
private slots:
    void jsonChecklist() {
        const Run r = cli({"catalog", "shardformer", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = parseObject(r.out);
        const QJsonArray feats = j["features"].toArray();
        QCOMPARE(feats.size(), 10);
        QCOMPARE(feats.first().toString(), QStringLiteral("tp"));
        QVERIFY(j["source"].toString().contains("auto_policy.py"));

        const QJsonObject llama = family(j, "llama");
        QCOMPARE(llama["name"].toString(), QStringLiteral("Llama"));
        QCOMPARE(llama["policy"].toBool(), true);
        QCOMPARE(llama["policy_file"].toString(), QStringLiteral("colossalai/shardformer/policies/llama.py"));
        QCOMPARE(llama["release"].toString(), QStringLiteral("v0.5.1"));
        for (const char* f : {"tp", "pp", "sp_split_gather", "sp_ring", "sp_all_to_all", "sp_ring_attn",
                              "flash_attention", "fused_norm", "fp8"})
            QCOMPARE(support(llama, f), QStringLiteral("yes"));
        QCOMPARE(support(llama, "jit_fused"), QStringLiteral("no_effect"));

        const QJsonObject gpt2 = family(j, "gpt2");
        QCOMPARE(support(gpt2, "sp_all_to_all"), QStringLiteral("error"));
        QCOMPARE(gpt2["features"].toObject()["sp_all_to_all"].toObject()["framework"].toString(),
                 QStringLiteral("all_to_all sequence parallelism is not supported for GPT2"));
        QCOMPARE(support(gpt2, "sp_ring"), QStringLiteral("converted"));

        const QJsonObject mistral = family(j, "mistral");
        for (const char* f : {"sp_split_gather", "sp_ring", "sp_all_to_all", "sp_ring_attn"})
            QCOMPARE(support(mistral, f), QStringLiteral("ignored"));

        const QJsonObject mixtral = family(j, "mixtral");
        QCOMPARE(mixtral["sp_excludes_pp"].toBool(), true);
        QCOMPARE(support(mixtral, "sp_ring_attn"), QStringLiteral("error"));
        QCOMPARE(support(mixtral, "flash_attention"), QStringLiteral("ignored"));

        const QJsonObject v3 = family(j, "deepseek_v3");
        QCOMPARE(support(v3, "tp"), QStringLiteral("error"));

        // The catalog's families without a policy are listed as such.
        for (const char* f : {"gpt_neox", "qwen2_moe"}) {
            const QJsonObject none = family(j, QLatin1String(f));
            QVERIFY2(!none.isEmpty(), f);
            QCOMPARE(none["policy"].toBool(), false);
            QVERIFY(none["framework"].toString().contains("Auto policy"));
        }
    }

    // The checklist's "error" for GPT-2 all_to_all is the error `validate` reports for that layout.
    void checklistMatchesValidate() {
        QTemporaryDir dir;
        QFile in(example("gpt2-1node"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QJsonObject p = QJsonDocument::fromJson(in.readAll()).object();
        QJsonObject l = p["layout"].toObject();
        l["framework"] = "colossalai";
        l["sp_mode"] = "all_to_all";
        l["sp"] = 2;
        l["tp"] = 1;
        l["pp"] = 1;
        p["layout"] = l;
        const QString path = dir.filePath("a2a.paraplan.json");
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(QJsonDocument(p).toJson());
        out.close();
        const Run v = cli({"validate", path, "--json"});
        QVERIFY2(v.out.contains("colossalai.model_sp_support"), v.out.constData());
        QVERIFY(v.out.contains("all_to_all sequence parallelism is not supported for GPT2"));
    }

    void textTable() {
        const Run r = cli({"catalog", "shardformer"});
        QCOMPARE(r.code, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY(out.contains("sp_all_to_all"));
        QVERIFY(out.contains(QRegularExpression(QStringLiteral("\\ngpt2 +GPT2 "))));
        QVERIFY(out.contains(QRegularExpression(QStringLiteral("\\ngpt_neox +none +no ShardFormer policy"))));
        QCOMPARE(cli({"catalog", "nothing"}).code, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliShardformer)
#include "tst_cli_shardformer.moc"
