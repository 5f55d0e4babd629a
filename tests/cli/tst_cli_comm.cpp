// paraplan-cli comm and catalog systems as processes: the JSON contract, nccl-tests' busbw,
// --project's two-tier default, and usage errors.
#include "clitest.h"

#include <QJsonArray>
#include <QtTest>

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
