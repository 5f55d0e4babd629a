// paraplan-cli comm and catalog systems as processes: the JSON contract, nccl-tests' busbw,
// --project's two-tier default, and usage errors.
#include "clitest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

namespace {

// A Megatron mixture-of-experts project: tp 8, ep 8, dp 8 on 64 GPUs of `nodes` nodes of `gpus`
// `gpu`s, on catalog system `system` ("" = none). Expert groups take every 8th rank.
QString write_moe(QTemporaryDir& dir, const char* name, const char* gpu, int nodes, int gpus, const char* system) {
    QJsonObject cluster{{"gpu", gpu}, {"nodes", nodes}, {"gpus_per_node", gpus}};
    if (*system) cluster["system"] = system;
    const QJsonObject p{{"paraplan", 1},
                        {"name", name},
                        {"cluster", cluster},
                        {"model", QJsonObject{{"preset", "mixtral-8x7b"}}},
                        {"layout", QJsonObject{{"framework", "megatron"}, {"tp", 8}, {"ep", 8}, {"pp", 1}}}};
    const QString path = dir.filePath(QLatin1String(name));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly)) return {};
    out.write(QJsonDocument(p).toJson());
    return path;
}

}   // namespace

class TestCliComm : public QObject {
    Q_OBJECT
private slots:
    void jsonContract() {
        const Run r = cli(
            {"comm", "--system", "dgx-h100", "--gpus", "8", "--op", "all_reduce", "--bytes", "32K,1G", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = parseObject(r.out);
        QCOMPARE(o["system"].toString(), QStringLiteral("dgx-h100"));
        QCOMPARE(o["gpus"].toInt(), 8);
        QCOMPARE(o["op"].toString(), QStringLiteral("all_reduce"));
        const QJsonArray res = o["results"].toArray();
        QCOMPARE(res.size(), 2);
        const QJsonObject big = res[1].toObject();
        QCOMPARE(big["bytes"].toDouble(), 1073741824.0);
        const double t = big["time_s"].toDouble(), algbw = big["algbw_gbs"].toDouble();
        QVERIFY(std::abs(algbw - 1073741824.0 / t / 1e9) < 1e-6 * algbw);
        QVERIFY(std::abs(big["busbw_gbs"].toDouble() - algbw * 2 * 7 / 8) < 1e-6 * algbw);
        QCOMPARE(big["algorithm"].toString(), QStringLiteral("nvls"));
        QCOMPARE(big["protocol"].toString(), QStringLiteral("Simple"));
        QCOMPARE(big["bound_tier"].toString(), QStringLiteral("nvlink"));
    }

    void forcedAlgorithmAndText() {
        const Run r = cli({"comm", "--system", "dgx-a100", "--gpus", "16", "--op", "all_gather", "--bytes", "64M",
                           "--algorithm", "ring"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("ring"));
        QVERIFY(r.out.contains("infiniband"));
    }

    void projectCluster() {
        const Run r = cli({"comm", "--project", example("llama3.1-70b-4nodes"), "--gpus", "16", "--op", "all_to_all",
                           "--bytes", "256M", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = parseObject(r.out);
        QCOMPARE(o["system"].toString(), QStringLiteral("project"));
        QCOMPARE(o["results"].toArray()[0].toObject()["bound_tier"].toString(), QStringLiteral("inter_node"));
    }

    // --group prices the layout's own groups where they are placed: tp 8 inside a node, the
    // expert groups (every 8th rank) across eight DGX H100 nodes, but inside one NVL72 rack.
    void projectGroups() {
        QTemporaryDir dir;
        const QString h100 = write_moe(dir, "h100.json", "h100-sxm", 8, 8, "dgx-h100");
        const QString nvl = write_moe(dir, "nvl.json", "gb200", 16, 4, "gb200-nvl72");
        const QString plain = write_moe(dir, "plain.json", "h100-sxm", 8, 8, "");
        auto run = [](const QString& project, const char* group, const char* op) {
            const Run r = cli({"comm", "--project", project, "--group", group, "--op", op, "--bytes", "64M", "--json"});
            if (r.code != 0) qWarning("%s", r.err.constData());
            return parseObject(r.out);
        };
        const QJsonObject tp = run(h100, "tp", "all_reduce");
        QCOMPARE(tp["system"].toString(), QStringLiteral("dgx-h100"));
        QCOMPARE(tp["group"].toString(), QStringLiteral("tp"));
        QCOMPARE(tp["num_groups"].toInt(), 8);
        QCOMPARE(tp["gpus"].toInt(), 8);
        QCOMPARE(tp["domains"].toInt(), 1);
        QCOMPARE(tp["results"].toArray()[0].toObject()["bound_tier"].toString(), QStringLiteral("nvlink"));

        const QJsonObject ep_h100 = run(h100, "ep", "all_to_all");
        QCOMPARE(ep_h100["gpus"].toInt(), 8);
        QCOMPARE(ep_h100["domains"].toInt(), 8);
        QCOMPARE(ep_h100["gpus_per_domain"].toInt(), 1);
        const QJsonObject a = ep_h100["results"].toArray()[0].toObject();
        QCOMPARE(a["bound_tier"].toString(), QStringLiteral("infiniband"));

        const QJsonObject ep_nvl = run(nvl, "ep", "all_to_all");
        QCOMPARE(ep_nvl["system"].toString(), QStringLiteral("gb200-nvl72"));
        QCOMPARE(ep_nvl["domains"].toInt(), 1);
        QCOMPARE(ep_nvl["gpus_per_domain"].toInt(), 8);
        const QJsonObject b = ep_nvl["results"].toArray()[0].toObject();
        QCOMPARE(b["bound_tier"].toString(), QStringLiteral("nvlink"));
        // 64 MiB all-to-all: 1.30 ms on one 400 Gb/s NIC per GPU, 93 us inside the NVL72 domain.
        QVERIFY2(std::abs(a["time_s"].toDouble() - 1.30379e-3) < 1e-7,
                 qPrintable(QString::number(a["time_s"].toDouble())));
        QVERIFY2(std::abs(b["time_s"].toDouble() - 9.315e-5) < 1e-8,
                 qPrintable(QString::number(b["time_s"].toDouble())));

        // Without cluster.system the two-tier default: the node's 400 Gb/s shared by its 8 GPUs.
        const QJsonObject ep_plain = run(plain, "ep", "all_to_all");
        QCOMPARE(ep_plain["system"].toString(), QStringLiteral("project"));
        QCOMPARE(ep_plain["results"].toArray()[0].toObject()["bound_tier"].toString(), QStringLiteral("inter_node"));
        QVERIFY(ep_plain["results"].toArray()[0].toObject()["time_s"].toDouble() > a["time_s"].toDouble());

        const Run text = cli({"comm", "--project", h100, "--group", "dp", "--op", "all_reduce", "--bytes", "1G"});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("dp group"));
        QVERIFY(text.out.contains("infiniband"));
    }

    void groupErrors() {
        QTemporaryDir dir;
        const QString h100 = write_moe(dir, "h100.json", "h100-sxm", 8, 8, "dgx-h100");
        const Run unknown = cli({"comm", "--project", h100, "--group", "zz", "--op", "all_reduce", "--bytes", "1M"});
        QCOMPARE(unknown.code, 2);
        QVERIFY2(unknown.err.contains("no 'zz' groups") && unknown.err.contains("tp"), unknown.err.constData());
        QCOMPARE(cli({"comm", "--system", "dgx-h100", "--group", "tp", "--op", "all_reduce", "--bytes", "1M"}).code, 2);
        QCOMPARE(cli({"comm", "--project", h100, "--group", "tp", "--gpus", "8", "--op", "all_reduce", "--bytes", "1M"})
                     .code,
                 2);
        QCOMPARE(cli({"comm", "--project", h100, "--group", "pp", "--op", "all_reduce", "--bytes", "1M"}).code, 2);
        // A system whose GPU is not the nodes' is not priced (the project loads; validate reports
        // cluster.system_gpus): the error names the field.
        const QString wrong = write_moe(dir, "wrong.json", "h100-sxm", 8, 8, "gb200-nvl72");
        const Run bad = cli({"comm", "--project", wrong, "--group", "tp", "--op", "all_reduce", "--bytes", "1M"});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("/cluster/system"), bad.err.constData());
    }

    void usageErrors() {
        QCOMPARE(cli({"comm", "--gpus", "8", "--op", "all_reduce", "--bytes", "1M"}).code, 2);
        QCOMPARE(cli({"comm", "--system", "nope", "--gpus", "8", "--op", "all_reduce", "--bytes", "1M"}).code, 2);
        QCOMPARE(cli({"comm", "--system", "dgx-h100", "--gpus", "8", "--op", "gather", "--bytes", "1M"}).code, 2);
        QCOMPARE(cli({"comm", "--system", "dgx-h100", "--gpus", "8", "--op", "all_reduce", "--bytes", "1Q"}).code, 2);
        QCOMPARE(cli({"comm", "--system", "dgx-a100", "--gpus", "8", "--op", "all_reduce", "--bytes", "1M",
                      "--algorithm", "nvls"})
                     .code,
                 2);
    }

    void catalogSystems() {
        const Run r = cli({"catalog", "systems", "--json"});
        QCOMPARE(r.code, 0);
        QStringList ids;
        for (const auto& s : parseObject(r.out)["systems"].toArray()) ids << s.toObject()["id"].toString();
        for (const char* id :
             {"dgx-a100", "dgx-h100", "hgx-h200", "dgx-b200", "gb200-nvl72", "gb300-nvl72", "mi300x-8", "l40s-8"})
            QVERIFY2(ids.contains(QLatin1String(id)), id);
        QVERIFY(cli({"catalog", "systems"}).out.contains("gb200-nvl72"));
    }
};

QTEST_GUILESS_MAIN(TestCliComm)
#include "tst_cli_comm.moc"
