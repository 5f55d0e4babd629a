// The probe job's JSON result: a recorded gloo run (2 TP x 2 PP) and malformed inputs, read
// directly and out of rank 0's log (core/probe/probe_launch.h).
#include "probe/probe_launch.h"
#include "probe/probe_result.h"
#include "util/input_error.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;

class TestProbeResult : public QObject {
    Q_OBJECT
private slots:
    void recordedGlooRun() {
        QFile f(QString(PARAPLAN_TEST_DATA) + "/probe/gloo-4ranks-tp2-pp2.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto r = probe_result_from_text(f.readAll().toStdString());
        QVERIFY(r.ok);
        QCOMPARE(r.backend, std::string("gloo"));
        QCOMPARE(r.world_size, 4);
        QCOMPARE(r.groups.size(), std::size_t(8));   // 2 tp + 2 pp + 4 dp
        QCOMPARE(r.failed_groups(), 0);
        const auto& tp1 = r.groups[1];
        QCOMPARE(tp1.kind, std::string("tp"));
        QCOMPARE(tp1.ranks, (std::vector<int>{2, 3}));
        QCOMPARE(tp1.allreduce_sum, 5.0);
        QCOMPARE(tp1.bandwidth.size(), std::size_t(6));   // 3 sizes x 2 ops
        for (const auto& b : tp1.bandwidth) {
            // nccl-tests: all-reduce busbw = algbw * 2(n-1)/n, all-gather = algbw * (n-1)/n (n = 2).
            const double factor = b.op == "all_reduce" ? 1.0 : 0.5;
            QVERIFY(qAbs(b.busbw_gbps - b.algbw_gbps * factor) < 1e-12);
            QVERIFY(qAbs(b.algbw_gbps - b.bytes / (b.time_ms / 1e3) / 1e9) < 1e-9);
        }
        QCOMPARE(r.p2p.size(), std::size_t(2));
        QCOMPARE(r.p2p[0].src, 0);
        QCOMPARE(r.p2p[0].dst, 2);
    }

    void realNcclRunOnH200() {
        // Recorded by scripts/gpu-check.sh on an H200 (torch 2.11, NCCL 2.28.9): one rank,
        // every planned group formed over NCCL; groups of one rank measure no bandwidth.
        QFile f(QString(PARAPLAN_TEST_DATA) + "/probe/h200-nccl-world1.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto r = probe_result_from_text(f.readAll().toStdString());
        QVERIFY(r.ok);
        QCOMPARE(r.backend, std::string("nccl"));
        QCOMPARE(r.world_size, 1);
        QCOMPARE(r.groups.size(), std::size_t(3));
        QCOMPARE(r.failed_groups(), 0);
        for (const auto& g : r.groups) {
            QVERIFY(g.membership_ok);
            QCOMPARE(g.ranks, std::vector<int>{0});
            QVERIFY(g.bandwidth.empty());
        }
        QVERIFY(r.errors.empty());
    }

    void markerLine() {
        QCOMPARE(find_probe_result_line("__PARAPLAN_PROBE_RESULT__ {\"a\":1}"), std::string("{\"a\":1}"));
        QCOMPARE(find_probe_result_line("training step 3"), std::string());
    }

    void malformed_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("not a probe") << R"({"ok": true})"
                                     << "/paraplan_probe";
        QTest::newRow("world") << R"({"paraplan_probe": 1, "backend": "gloo", "world_size": "4"})"
                               << "/world_size";
        QTest::newRow("group kind")
            << R"({"paraplan_probe": 1, "backend": "gloo", "world_size": 4, "groups": [{"ranks": [0]}]})"
            << "/groups/0/kind";
        QTest::newRow("bw op") << R"({"paraplan_probe": 1, "backend": "gloo", "world_size": 4, "groups": [{"kind": "tp",
            "bandwidth": [{"op": "broadcast", "time_ms": 1, "algbw_gbps": 1, "busbw_gbps": 1}]}]})"
                               << "/groups/0/bandwidth/0/op";
        QTest::newRow("p2p")
            << R"({"paraplan_probe": 1, "backend": "gloo", "world_size": 4, "p2p": [{"time_ms": "x"}]})"
            << "/p2p/0/time_ms";
    }
    void malformed() {
        QFETCH(QString, text);
        QFETCH(QString, pointer);
        try {
            probe_result_from_text(text.toStdString());
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.pointer()), pointer);
        }
    }

    // Rank 0's log: torch's own output, then the marker line (the recorded gloo result on one
    // line); the result is found wherever the marker sits and whatever precedes it.
    void resultFromLog() {
        QFile f(QString(PARAPLAN_TEST_DATA) + "/probe/gloo-4ranks-tp2-pp2.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const std::string doc = nlohmann::json::parse(f.readAll().toStdString()).dump();
        const std::string log =
            "[W socket.cpp:464] [c10d] The server socket has failed to bind.\n\xff\xfe binary\r\n"
            "[rank0] " +
            std::string(kProbeResultMarker) + doc + "\ntrailing line\n";
        const auto r = probe_result_from_log_text(log);
        QVERIFY(r.has_value());
        QCOMPARE(r->world_size, 4);
        QCOMPARE(r->groups.size(), std::size_t(8));
        // The same from a file; a missing file (not written yet) is no result.
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString path = tmp.filePath("rank-0.log");
        QFile out(path);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(log.data(), static_cast<qint64>(log.size()));
        out.close();
        const auto fr = probe_result_from_log(path.toStdString());
        QVERIFY(fr.has_value());
        QCOMPARE(fr->backend, std::string("gloo"));
        QVERIFY(!probe_result_from_log(tmp.filePath("absent.log").toStdString()));
        // No marker, or a marker with nothing after it: no result.
        QVERIFY(!probe_result_from_log_text("step 1\nstep 2"));
        QVERIFY(!probe_result_from_log_text(""));
        QVERIFY(!probe_result_from_log_text(std::string(kProbeResultMarker) + "\n"));
    }

    void malformedResultInLog_data() {
        QTest::addColumn<QString>("payload");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("truncated") << "{\"paraplan_probe\": 1, \"backend\": \"gloo\", \"world_s"
                                   << "";
        QTest::newRow("world_size text") << R"({"paraplan_probe": 1, "backend": "gloo", "world_size": "4"})"
                                         << "/world_size";
        QTest::newRow("world_size huge") << R"({"paraplan_probe": 1, "backend": "gloo", "world_size": 1e300})"
                                         << "/world_size";
        QTest::newRow("bytes huge")
            << R"({"paraplan_probe": 1, "backend": "gloo", "world_size": 2, "p2p": [{"bytes": 1e300}]})"
            << "/p2p/0/bytes";
        QTest::newRow("groups object") << R"({"paraplan_probe": 1, "backend": "gloo", "world_size": 2, "groups": {}})"
                                       << "/groups";
    }
    // A malformed line after the marker is an InputError naming the field, not "no result".
    void malformedResultInLog() {
        QFETCH(QString, payload);
        QFETCH(QString, pointer);
        const std::string log = "noise\n" + std::string(kProbeResultMarker) + payload.toStdString() + "\n";
        try {
            probe_result_from_log_text(log);
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.pointer()), pointer);
        }
    }

    // The version field is read as an int: 1e10 (an integer in JSON) used to be cast to int
    // unchecked (undefined behaviour; on x86 it happened to read as "not a probe result").
    void versionOutOfIntRange() {
        try {
            probe_result_from_text(R"({"paraplan_probe": 10000000000, "backend": "gloo", "world_size": 1})");
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/paraplan_probe"));
            QVERIFY2(std::string(e.what()).find("an integer from -2147483648 to 2147483647") != std::string::npos,
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestProbeResult)
#include "tst_probe_result.moc"
