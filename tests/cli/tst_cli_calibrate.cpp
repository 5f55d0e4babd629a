// paraplan-cli calibrate and --profile, as a user runs them: fit a profile from a recorded
// torchtitan log, save it by name, and have estimate and plan use it.
#include "clitest.h"

#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kData = QStringLiteral(PARAPLAN_TEST_DATA "/calibrate/torchtitan-h100-500w/");
const QString k405 = QStringLiteral(PARAPLAN_TEST_DATA "/calibrate/torchtitan-405b-h100/");

}   // namespace

class TestCliCalibrate : public QObject {
    Q_OBJECT
private slots:
    void fit_save_and_use() {
        QTemporaryDir cfg;
        qputenv("XDG_CONFIG_HOME", cfg.path().toUtf8());
        const Run fit = cli({QStringLiteral("calibrate"), kData + "runs-fit.csv", QStringLiteral("--check"),
                             kData + "runs-check.csv", QStringLiteral("--name"), QStringLiteral("titan"),
                             QStringLiteral("--json")});
        QCOMPARE(fit.code, 0);
        const QJsonObject j = parseObject(fit.out);
        QVERIFY(j.value("ok").toBool());
        QVERIFY(j.value("mean_abs_error_after").toDouble() < j.value("mean_abs_error_before").toDouble());
        const QJsonObject check = j.value("check").toObject();
        QVERIFY(check.value("mean_abs_error_after").toDouble() < check.value("mean_abs_error_before").toDouble());
        const QString saved = cfg.path() + "/paraplan/profiles/titan.json";
        QCOMPARE(j.value("saved").toString(), saved);
        QVERIFY(QFile::exists(saved));
        const double gemm = j.value("profile").toObject().value("gemm").toDouble();
        QVERIFY(gemm > 0 && gemm < 1);

        // estimate --profile NAME uses it: the 128-GPU run comes out slower, nearer its measurement.
        const QString proj = kData + "llama3.1-8b-fsdp-128gpu.paraplan.json";
        const QJsonObject plain = parseObject(cli({QStringLiteral("estimate"), proj, QStringLiteral("--json")}).out);
        const QJsonObject prof = parseObject(cli({QStringLiteral("estimate"), proj, QStringLiteral("--profile"),
                                                  QStringLiteral("titan"), QStringLiteral("--json")})
                                                 .out);
        QCOMPARE(prof.value("profile").toString(), QStringLiteral("titan"));
        const double a = plain.value("time").toObject().value("step_s").toDouble();
        const double b = prof.value("time").toObject().value("step_s").toDouble();
        QVERIFY2(b > 1.05 * a, qPrintable(QString("%1 vs %2").arg(b).arg(a)));

        // plan --profile: the same profile slows every candidate.
        const QStringList planArgs = {
            QStringLiteral("plan"),  QStringLiteral("--project"),       proj,
            QStringLiteral("--fix"), QStringLiteral("tp=1,pp=1,mbs=2"), QStringLiteral("--json")};
        const QJsonObject p0 = parseObject(cli(planArgs).out);
        const QJsonObject p1 = parseObject(cli(planArgs + QStringList{QStringLiteral("--profile"), saved}).out);
        const double s0 = p0.value("results").toArray().first().toObject().value("step_s").toDouble();
        const double s1 = p1.value("results").toArray().first().toObject().value("step_s").toDouble();
        QVERIFY2(s0 > 0 && s1 > 1.05 * s0, qPrintable(QString("%1 vs %2").arg(s1).arg(s0)));
    }

    // The allocator reserve from torchtitan's published 405B logs: fitted on two runs, checked
    // on four, saved in the profile, and used by estimate --profile.
    void fit_memory_reserve() {
        QTemporaryDir cfg;
        qputenv("XDG_CONFIG_HOME", cfg.path().toUtf8());
        const QString out = cfg.path() + "/titan405.json";
        const Run fit = cli({QStringLiteral("calibrate"), k405 + "runs-fit.csv", QStringLiteral("--check"),
                             k405 + "runs-check.csv", QStringLiteral("--fit"), QStringLiteral("memory_reserve"),
                             QStringLiteral("--out"), out, QStringLiteral("--json")});
        QCOMPARE(fit.code, 0);
        const QJsonObject j = parseObject(fit.out);
        QVERIFY(j.value("ok").toBool());
        const QJsonObject m = j.value("memory_reserve").toObject();
        QVERIFY(m.value("fitted").toBool());
        QCOMPARE(m.value("runs").toInt(), 2);
        const double reserve = m.value("value").toDouble();
        QVERIFY(reserve > 0.1 && reserve < 0.6);
        QCOMPARE(j.value("profile").toObject().value("memory_reserve").toDouble(), reserve);
        QVERIFY(j.value("memory_mean_abs_error_after").toDouble() < j.value("memory_mean_abs_error_before").toDouble());
        const QJsonObject row = j.value("runs").toArray().first().toObject();
        QCOMPARE(row.value("memory_kind").toString(), QStringLiteral("reserved"));
        QCOMPARE(row.value("measured_gib").toDouble(), 82.5);
        QVERIFY(row.contains("memory_error_before") && row.contains("memory_error_after"));
        const QJsonObject check = j.value("check").toObject();
        QCOMPARE(check.value("runs").toArray().size(), 4);
        QVERIFY(check.value("memory_mean_abs_error_after").toDouble() <
                check.value("memory_mean_abs_error_before").toDouble() / 2);
        QVERIFY(QFile::exists(out));

        // The text report prints the memory error beside the step error.
        const Run text = cli({QStringLiteral("calibrate"), k405 + "runs-fit.csv", QStringLiteral("--fit"),
                              QStringLiteral("memory_reserve")});
        QCOMPARE(text.code, 0);
        QVERIFY2(
            text.out.contains("memory: before") && text.out.contains("memory_reserve") && text.out.contains("reserved"),
            text.out.constData());

        // estimate --profile FILE: the reserved peak is (1 + reserve) x the allocated peak.
        const QString proj = k405 + "3d-interleaved.paraplan.json";
        const QJsonObject plain = parseObject(cli({QStringLiteral("estimate"), proj, QStringLiteral("--json")}).out);
        const QJsonObject prof = parseObject(
            cli({QStringLiteral("estimate"), proj, QStringLiteral("--profile"), out, QStringLiteral("--json")}).out);
        const double a0 = plain.value("memory").toObject().value("reserved_peak_gib").toDouble();
        const double a1 = prof.value("memory").toObject().value("reserved_peak_gib").toDouble();
        const double alloc = prof.value("memory").toObject().value("allocated_peak_gib").toDouble();
        QVERIFY2(alloc > 0 && a1 > a0, qPrintable(QString("%1 vs %2 (allocated %3)").arg(a1).arg(a0).arg(alloc)));
        QVERIFY(std::abs(a1 / alloc - (1 + reserve)) < 1e-3);

        // plan --profile: a 0.6 reserve (the bound) raises every candidate's peak, and the
        // Planner's memory filter drops those that no longer fit the 96 GB part.
        const QString roomy = cfg.path() + "/roomy.json";
        {
            QFile f(roomy);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(R"({"paraplan_profile": 1, "name": "roomy", "memory_reserve": 0.6})");
        }
        const QStringList planArgs = {QStringLiteral("plan"),
                                      QStringLiteral("--project"),
                                      k405 + "3d-1f1b.paraplan.json",
                                      QStringLiteral("--fix"),
                                      QStringLiteral("tp=8,pp=8,cp=1,mbs=4"),
                                      QStringLiteral("--json")};
        const QJsonObject p0 = parseObject(cli(planArgs).out);
        const QJsonObject p1 = parseObject(cli(planArgs + QStringList{QStringLiteral("--profile"), roomy}).out);
        const int n0 = p0.value("fitting").toInt(), n1 = p1.value("fitting").toInt();
        QVERIFY2(n1 > 0 && n1 < n0, qPrintable(QString("%1 vs %2").arg(n1).arg(n0)));
        for (const auto& r : p1.value("results").toArray()) QVERIFY(r.toObject().value("peak_gib").toDouble() <= 96);

        // One run with a reserved peak cannot fit it: refused when asked for, left out otherwise.
        const Run r = cli({QStringLiteral("calibrate"), k405 + "runs-one.csv", QStringLiteral("--fit"),
                           QStringLiteral("memory_reserve"), QStringLiteral("--out"), cfg.path() + "/x.json"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("refused") && r.err.contains("at least 2 runs"), r.err.constData());
        QVERIFY(!QFile::exists(cfg.path() + "/x.json"));
    }

    void refusals_and_bad_input() {
        QTemporaryDir cfg;
        qputenv("XDG_CONFIG_HOME", cfg.path().toUtf8());
        // One run cannot fit two parameters: exit 1, nothing written.
        const Run r = cli({QStringLiteral("calibrate"), kData + "runs-fit.csv", QStringLiteral("--fit"),
                           QStringLiteral("gemm,network"), QStringLiteral("--name"), QStringLiteral("x")});
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("refused"));
        QVERIFY(!QFile::exists(cfg.path() + "/paraplan/profiles/x.json"));
        QCOMPARE(cli({QStringLiteral("calibrate")}).code, 2);
        QCOMPARE(
            cli({QStringLiteral("calibrate"), kData + "runs-fit.csv", QStringLiteral("--fit"), QStringLiteral("speed")})
                .code,
            2);
        // An unknown profile names itself.
        const Run e = cli({QStringLiteral("estimate"), kData + "llama3.1-8b-fsdp-8gpu.paraplan.json",
                           QStringLiteral("--profile"), QStringLiteral("missing")});
        QVERIFY(e.code != 0);
        QVERIFY2(e.err.contains("missing"), e.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliCalibrate)
#include "tst_cli_calibrate.moc"
