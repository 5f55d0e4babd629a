// paraplan-cli timeline as a process: the --json contract, findings (exit 1), usage
// errors (exit 2), the ASCII view, and the --trace / --csv / --import-csv files.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "clitest.h"

namespace {

// paraplan-cli timeline ARGS
Run timeline_cli(const QStringList& args) { return cli(QStringList{QStringLiteral("timeline")} + args); }

QStringList args(const char* schedule, int pp, int m) {
    return {QStringLiteral("--schedule"), QString::fromLatin1(schedule),    QStringLiteral("--pp"),
            QString::number(pp),          QStringLiteral("--microbatches"), QString::number(m)};
}

}   // namespace

class TestCliTimeline : public QObject {
    Q_OBJECT
private slots:
    void json_contract() {
        // The example of the issue: 1F1B, pp 4, 8 microbatches, F = B = W = 1.
        auto r = timeline_cli(args("1f1b", 4, 8) + QStringList{QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const auto o = parseObject(r.out);
        QCOMPARE(o["schedule"].toString(), QStringLiteral("1f1b"));
        QCOMPARE(o["pp"].toInt(), 4);
        QCOMPARE(o["microbatches"].toInt(), 8);
        QCOMPARE(o["chunks"].toInt(), 1);
        QCOMPARE(o["makespan"].toDouble(), 33.0);
        QVERIFY(qAbs(o["bubble_fraction"].toDouble() - 0.2727) < 1e-4);
        const auto stages = o["stages"].toArray();
        QCOMPARE(stages.size(), 4);
        const auto s0 = stages[0].toObject();
        QCOMPARE(s0["stage"].toInt(), 0);
        QCOMPARE(s0["busy"].toDouble(), 24.0);
        QCOMPARE(s0["peak_inflight"].toInt(), 4);
        const auto ops = s0["ops"].toArray();
        QCOMPARE(ops.size(), 16);
        const auto f0 = ops[0].toObject();
        QCOMPARE(f0["kind"].toString(), QStringLiteral("F"));
        QCOMPARE(f0["microbatch"].toInt(), 0);
        QCOMPARE(f0["chunk"].toInt(), 0);
        QCOMPARE(f0["start"].toDouble(), 0.0);
        QCOMPARE(f0["end"].toDouble(), 1.0);
        // Ops in execution order: stage 0 runs F0 F1 F2 F3 B0 F4 ...
        QStringList seq;
        for (const auto& op : ops)
            seq << op.toObject()["kind"].toString() + QString::number(op.toObject()["microbatch"].toInt());
        QCOMPARE(seq.mid(0, 6).join(' '), QStringLiteral("F0 F1 F2 F3 B0 F4"));
        QCOMPARE(stages[3].toObject()["peak_inflight"].toInt(), 1);
    }
    void json_costsAndChunks() {
        auto r = timeline_cli(args("zbh1", 4, 8) + QStringList{"--f", "1", "--b", "1.5", "--w", "0.5", "--json"});
        QCOMPARE(r.code, 0);
        auto o = parseObject(r.out);
        QCOMPARE(o["makespan"].toDouble(), 30.0);   // 8 * 3 + (4 - 1)(1 + 1.5 - 0.5)
        bool sawW = false;
        for (const auto& op : o["stages"].toArray()[0].toObject()["ops"].toArray())
            sawW = sawW || op.toObject()["kind"] == "W";
        QVERIFY(sawW);
        r = timeline_cli(args("interleaved-megatron", 4, 8) + QStringList{"--chunks", "2", "--json"});
        QCOMPARE(r.code, 0);
        o = parseObject(r.out);
        QCOMPARE(o["chunks"].toInt(), 2);
        QCOMPARE(o["makespan"].toDouble(), 8 * 2 * 3.0 + 3 * 3.0);
        // Latency between stages: one microbatch crosses 2 (pp - 1) links.
        r = timeline_cli(args("1f1b", 3, 1) + QStringList{"--comm", "0.5", "--json"});
        QCOMPARE(parseObject(r.out)["makespan"].toDouble(), 3 * 3.0 + 2 * 2 * 0.5);
    }
    void impossibleRequest_exit1() {
        auto r = timeline_cli(args("dualpipev", 4, 6) + QStringList{QStringLiteral("--json")});
        QCOMPARE(r.code, 1);
        const auto o = parseObject(r.out);
        QCOMPARE(o["valid"].toBool(true), false);
        const auto d = o["diagnostics"].toArray()[0].toObject();
        QCOMPARE(d["rule"].toString(), QStringLiteral("schedule.dualpipev.microbatches_vs_stages"));
        QVERIFY(d["framework_error"].toString().contains("DualPipeV requires at least as many microbatches as stages"));
        r = timeline_cli(args("zbv", 4, 8) + QStringList{"--chunks", "3", "--json"});
        QCOMPARE(r.code, 1);
        QCOMPARE(parseObject(r.out)["diagnostics"].toArray()[0].toObject()["framework_error"].toString(),
                 QStringLiteral("ZBV requires exactly 2 stages per rank, but got 3."));
        // Without --json the findings go to stderr.
        r = timeline_cli(args("interleaved", 4, 6));
        QCOMPARE(r.code, 1);
        QVERIFY(r.err.contains("integer multiple of number of pipeline parallel devices"));
    }
    void usageErrors_exit2() {
        QCOMPARE(timeline_cli({"--pp", "4", "--microbatches", "8"}).code, 2);                       // no schedule
        QCOMPARE(timeline_cli(args("1f1b", 4, 8) + QStringList{"--f", "abc"}).code, 2);             // not a number
        QCOMPARE(timeline_cli(args("1f1b", 4, 8) + QStringList{"--stage-scale", "1:1"}).code, 2);   // not F:B:W
        QCOMPARE(timeline_cli({"--import-csv", "/nonexistent/file.csv"}).code, 2);
        // Unknown schedule names are findings about the request.
        const auto r = timeline_cli(args("pipedream", 4, 8) + QStringList{"--json"});
        QCOMPARE(r.code, 1);
        QVERIFY(parseObject(r.out)["diagnostics"].toArray()[0].toObject()["message"].toString().contains("zbv"));
    }
    void asciiSummary() {
        const auto r = timeline_cli(args("1f1b", 4, 8));
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("makespan 33, bubble fraction 0.2727"));
        QVERIFY(r.out.contains("stage  0 FFFF......BBFBBFBBFBBFBB.BB.BB.BB"));
        QVERIFY(r.out.contains("stage  3 ...FBBFBBFBBFBBFBBFBBFBBFBB......"));
    }
    void files_traceAndCsvRoundTrip() {
        QTemporaryDir dir;
        const QString trace = dir.filePath("t.json"), csv = dir.filePath("s.csv");
        auto r = timeline_cli(args("zbv", 2, 4) + QStringList{"--trace", trace, "--csv", csv, "--json"});
        QCOMPARE(r.code, 0);
        const double makespan = parseObject(r.out)["makespan"].toDouble();
        QFile tf(trace);
        QVERIFY(tf.open(QIODevice::ReadOnly));
        const auto t = parseObject(tf.readAll());
        int x = 0;
        for (const auto& e : t["traceEvents"].toArray()) x += e.toObject()["ph"].toString() == "X";
        QCOMPARE(x, 2 * 4 * 2 * 3);
        QFile cf(csv);
        QVERIFY(cf.open(QIODevice::ReadOnly));
        const QByteArray text = cf.readAll();
        QVERIFY(text.startsWith("0F0,0F1,0F2,3F0,3I0,3W0"));
        // Reading the CSV back gives the same timeline.
        r = timeline_cli({"--import-csv", csv, "--json"});
        QCOMPARE(r.code, 0);
        const auto o = parseObject(r.out);
        QCOMPARE(o["makespan"].toDouble(), makespan);
        QCOMPARE(o["chunks"].toInt(), 2);
        // A broken CSV is a finding with its row and column.
        QFile bad(dir.filePath("bad.csv"));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("0F0,0Q1\n");
        bad.close();
        r = timeline_cli({"--import-csv", bad.fileName(), "--json"});
        QCOMPARE(r.code, 1);
        QVERIFY(parseObject(r.out)["diagnostics"].toArray()[0].toObject()["message"].toString().contains(
            "row 1, column 2"));
    }
};

QTEST_GUILESS_MAIN(TestCliTimeline)
#include "tst_cli_timeline.moc"
