// The probe job's JSON result: a recorded gloo run (2 TP x 2 PP) and malformed inputs.
#include "probe/probe_result.h"
#include "util/input_error.h"

#include <QFile>
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
