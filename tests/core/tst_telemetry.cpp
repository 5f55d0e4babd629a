// The telemetry store against recorded nvidia-smi outputs (tests/data/nvidia-smi); the line
// parsing itself is tested in tests/core/tst_gpu_smi.cpp.
#include "telemetry/telemetry_store.h"

#include <QFile>
#include <QtTest>

#include "telemetry_test_data.h"

using namespace paraplan;
using namespace paraplan::runtime;

class TestTelemetry : public QObject {
    Q_OBJECT
private slots:
    void garbageGivesDiagnostics() {
        TelemetryStore store(one_node(2));
        for (const auto& l : lines_of("garbage.csv")) store.ingest(0, l.toStdString(), 1.0);
        // NVML error, version line, short line, "55%", bad index: five diagnostics, one sample.
        QCOMPARE(store.diagnostics().size(), std::size_t(5));
        QVERIFY(store.diagnostics()[0].rfind("node0: expected 8 comma-separated fields", 0) == 0);
        QVERIFY(store.diagnostics()[3].find("utilization.gpu is not a number: \"55%\"") != std::string::npos);
        QCOMPARE(store.series().size(), std::size_t(1));
        const GpuSeries* s = store.find(0, 1);
        QVERIFY(s);
        QCOMPARE(s->rank, 1);
        // GPU 0 of the plan never reported a valid line.
        const auto flags = store.flags(std::nullopt);
        QCOMPARE(flags.size(), std::size_t(1));
        QCOMPARE(flags[0].kind, std::string("gpu_missing"));
        QCOMPARE(flags[0].gpu, 0);
    }

    void recordedH100SeriesRanksAndFlags() {
        Cluster c = one_node(8);
        // Canvas order: rank r on GPU 7 - r.
        for (int r = 0; r < 8; ++r) c.rank_order.push_back({0, 7 - r});
        TelemetryStore store(c, /*capacity=*/2);
        double t = 0;
        for (const auto& l : lines_of("h100-8gpu.csv")) {
            if (l.trimmed().isEmpty()) t += 1;
            store.ingest(0, l.toStdString(), t);
        }
        QVERIFY(store.diagnostics().empty());
        QCOMPARE(store.series().size(), std::size_t(8));
        const GpuSeries* g4 = store.find(0, 4);
        QCOMPARE(g4->rank, 3);
        QCOMPARE(g4->samples.size(), std::size_t(2));   // bounded: the oldest sample was dropped
        QCOMPARE(g4->samples.front().first, 1.0);
        QCOMPARE(*store.find(0, 0)->samples.back().second.memory_used_mib, 71301.0);
        // TP groups of 4 ranks: {0..3} holds the idle GPU 4 (rank 3).
        std::map<std::string, std::vector<std::vector<int>>> groups{{"tp", {{0, 1, 2, 3}, {4, 5, 6, 7}}}};
        const auto mean = store.group_utilization({0, 1, 2, 3});
        QVERIFY(mean);
        QCOMPARE(*mean, (97.0 + 98.0 + 97.0 + 0.0) / 4);   // GPUs 7, 6, 5, 4 at the last sample
        const auto flags = store.flags(70000.0, groups, 5, 30, 2);
        int mem = 0, idle = 0;
        for (const auto& f : flags) {
            if (f.kind == "memory_above_expected") ++mem;
            if (f.kind == "idle_while_group_works") {
                ++idle;
                QCOMPARE(f.rank, 3);
                QCOMPARE(f.gpu, 4);
            }
        }
        QCOMPARE(mem, 7);   // every GPU but the idle one is above 70000 MiB
        QCOMPARE(idle, 1);
    }
};

QTEST_GUILESS_MAIN(TestTelemetry)
#include "tst_telemetry.moc"
