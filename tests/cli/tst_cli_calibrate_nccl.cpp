// paraplan-cli calibrate --nccl-tests, as a user runs it: published nccl-tests logs fit the
// profile's link multipliers, the profile is saved with the fit recorded, and what cannot be
// fitted or read is refused with the file, the line or the tier named.
#include "clitest.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kDir = QStringLiteral(PARAPLAN_TEST_DATA "/nccl-tests/");

QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

}   // namespace

class TestCliCalibrateNccl : public QObject {
    Q_OBJECT
private slots:
    void fitsScaleUpAndSaves() {
        QTemporaryDir dir;
        const QString out = dir.filePath("mi300x.json");
        const Run r = cli({"calibrate", "--nccl-tests", kDir + "mi300x-8gpu-allreduce.txt", "--system", "mi300x-8",
                           "--out", out, "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = parseObject(r.out);
        QVERIFY(j.value("ok").toBool());
        QCOMPARE(j.value("system").toString(), QStringLiteral("mi300x-8"));
        QCOMPARE(j.value("saved").toString(), out);
        const QJsonObject nv = j.value("nccl_tests").toObject().value("nvlink").toObject();
        QVERIFY(nv.value("fitted").toBool());
        const double v = nv.value("value").toDouble();
        QVERIFY(v > 0.5 && v < 1);
        QVERIFY(nv.value("mean_abs_error_after").toDouble() < nv.value("mean_abs_error_before").toDouble());
        const QJsonArray held = nv.value("held_out").toArray();
        QCOMPARE(held.size(), 1);
        QCOMPARE(held[0].toObject().value("split").toString(), QStringLiteral("message_size"));
        QVERIFY(held[0].toObject().value("check_rows").toInt() > 0);
        QVERIFY(held[0].toObject().contains("mean_abs_error_after"));
        const QJsonObject net = j.value("nccl_tests").toObject().value("network").toObject();
        QVERIFY(!net.value("attempted").toBool());
        QVERIFY(net.value("refusal").toString().contains("no run crosses"));
        // every row is reported, the small ones not fitted
        const QJsonArray rows = j.value("rows").toArray();
        QCOMPARE(rows.size(), 31);
        QVERIFY(!rows.first().toObject().value("fitted").toBool());
        QVERIFY(rows.last().toObject().value("fitted").toBool());
        QCOMPARE(rows.last().toObject().value("measured_busbw_gbs").toDouble(), 316.55);

        // the saved profile: nvlink fitted, network untouched, the fit recorded
        const QJsonObject p = readJson(out);
        QCOMPARE(p.value("nvlink").toDouble(), v);
        QCOMPARE(p.value("network").toDouble(), 1.0);
        QVERIFY(p.value("fit")
                    .toObject()
                    .value("nccl_tests")
                    .toObject()
                    .value("nvlink")
                    .toObject()
                    .value("fitted")
                    .toBool());

        // --from keeps the other multipliers of a profile and refits the link
        const Run again = cli({"calibrate", "--nccl-tests", kDir + "mi300x-8gpu-allreduce.txt", "--system", "mi300x-8",
                               "--from", out, "--json"});
        QCOMPARE(again.code, 0);
        QCOMPARE(
            parseObject(again.out).value("nccl_tests").toObject().value("nvlink").toObject().value("start").toDouble(),
            v);
    }

    void fitsNetworkAcrossGpuCounts() {
        const Run r = cli({"calibrate", "--nccl-tests",
                           kDir + "h100-16gpu-allreduce.txt," + kDir + "h100-32gpu-allreduce.txt," + kDir +
                               "h100-64gpu-allreduce.txt",
                           "--system", "dgx-h100"});
        QCOMPARE(r.code, 0);
        const QString out = QString::fromUtf8(r.out);
        QVERIFY(out.contains("16 GPUs on 2 hosts"));
        QVERIFY(out.contains("64 GPUs on 8 hosts"));
        QVERIFY(out.contains("held out (gpu_count): fitted on 16 GPUs"));
        QVERIFY(out.contains("checked on 32, 64 GPUs"));
        QVERIFY(out.contains("held out (message_size)"));
        QVERIFY(out.contains("nvlink: no run lies inside one scale-up domain"));
        QVERIFY(out.contains("not saved"));
    }

    void refusals() {
        const QString log = kDir + "h100-16gpu-allreduce.txt";
        // usage
        Run r = cli({"calibrate", "--nccl-tests", log});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--system ID or --project FILE"));
        r = cli({"calibrate", "--nccl-tests", log, "--system", "no-such"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("unknown system 'no-such'"));
        r = cli({"calibrate", "--system", "dgx-h100"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("--system goes with --nccl-tests"));
        r = cli({"calibrate", "--nccl-tests", log, "--system", "dgx-h100", "--fit", "gemm"});
        QCOMPARE(r.code, 2);
        // unreadable or garbage files name the file (and the line)
        QTemporaryDir dir;
        const QString bad = dir.filePath("bad.txt");
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(
                "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n"
                "1024 256 float sum -1 1.0 0.5\n");
        }
        r = cli({"calibrate", "--nccl-tests", bad, "--system", "dgx-h100"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("bad.txt") && r.err.contains("2") && r.err.contains("columns"), r.err.constData());
        r = cli({"calibrate", "--nccl-tests", dir.filePath("missing.txt"), "--system", "dgx-h100"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("missing.txt"));
        // a collective of two GPUs with no banner cannot be told (all-reduce and broadcast print the
        // same factor there): skipped, named, and with nothing left the command fails
        r = cli({"calibrate", "--nccl-tests",
                 QStringLiteral(PARAPLAN_TEST_DATA "/fuzz/nccl-tests/per-iteration-timestamp.txt"), "--system",
                 "dgx-h100"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("Collective test starting"));
        // both tiers refused: exit 1, nothing written
        const QString out = dir.filePath("p.json");
        r = cli({"calibrate", "--nccl-tests", log, "--system", "l40s-8", "--out", out});
        QCOMPARE(r.code, 1);
        QVERIFY(r.out.contains("ends at its upper bound"));
        QVERIFY(r.err.contains("refused"));
        QVERIFY(!QFile::exists(out));
    }

    // --project: the system of a project's cluster
    void projectSystem() {
        const Run r = cli({"calibrate", "--nccl-tests", kDir + "h100-32gpu-allreduce.txt", "--project",
                           example("llama3.1-70b-4nodes"), "--json"});
        QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
        const QJsonObject j = parseObject(r.out);
        QVERIFY(!j.value("system").toString().isEmpty());
        QVERIFY(j.value("nccl_tests").toObject().value("network").toObject().value("attempted").toBool());
    }
};

QTEST_GUILESS_MAIN(TestCliCalibrateNccl)
#include "tst_cli_calibrate_nccl.moc"
