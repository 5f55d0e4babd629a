// paraplan-cli calibrate and --profile, as a user runs them: fit a profile from a recorded
// torchtitan log, save it by name, and have estimate and plan use it.
#include "clitest.h"

#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QtTest>

namespace {

const QString kData = QStringLiteral(PARAPLAN_TEST_DATA "/calibrate/torchtitan-h100-500w/");

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
