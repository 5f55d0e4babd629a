// The live heat per rank, pipeline stage and group (runtime/telemetry_heat.h) from the
// recorded nvidia-smi outputs in tests/data/nvidia-smi: missing samples stay missing.
#include "telemetry/telemetry_heat.h"
#include "topology/build_rank_map.h"

#include <QFile>
#include <QtTest>

#include "telemetry_test_data.h"

#include <cmath>

using namespace paraplan;
using namespace paraplan::runtime;

namespace {

// Megatron tp=2 pp=2 dp=2 on one 8-GPU node: tp inner, pp outer, so stage 0 holds
// ranks 0-3 and stage 1 ranks 4-7; rank r runs on GPU r.
topology::RankMap megatron_map(const Cluster& c) {
    topology::MeshRequest req;
    req.framework = "megatron";
    req.world = 8;
    req.gpus_per_node = 8;
    req.tp = 2;
    req.pp = 2;
    auto m = topology::build_rank_map(req, &c);
    if (!m.valid()) qFatal("rank map invalid");
    return m;
}

// Feeds the h100-8gpu recording (three samples at t = 0, 1, 2), leaving out GPU `drop`.
TelemetryStore h100_store(const Cluster& c, int drop) {
    TelemetryStore store(c);
    double t = 0;
    for (const auto& l : lines_of("h100-8gpu.csv")) {
        if (l.trimmed().isEmpty()) {
            t += 1;
            continue;
        }
        if (l.startsWith(QByteArray::number(drop) + ",")) continue;
        store.ingest(0, l.toStdString(), t);
    }
    return store;
}
}   // namespace

class TestTelemetryHeat : public QObject {
    Q_OBJECT
private slots:
    void utilizationPerRankStageAndGroup() {
        const Cluster c = one_node(8);
        const auto map = megatron_map(c);
        QCOMPARE(map.coord(5, "pp"), 1);
        QCOMPARE(map.coord(3, "pp"), 0);
        const TelemetryStore store = h100_store(c, /*drop=*/6);
        HeatOptions o;
        o.now_s = 2.5;
        const HeatMap h = telemetry_heat(store, map, HeatMetric::Utilization, o);
        QCOMPARE(h.ranks.size(), std::size_t(8));
        // GPU 4 reports 0 %: a value, not missing. GPU 6 never reported: missing, not 0.
        QVERIFY(h.ranks[4].value);
        QCOMPARE(*h.ranks[4].value, 0.0);
        QCOMPARE(*h.ranks[4].fraction, 0.0);
        QVERIFY(!h.ranks[6].value);
        QVERIFY(!h.ranks[6].fraction);
        QCOMPARE(h.ranks[6].missing, std::string("no sample"));
        QCOMPARE(h.missing, 1);
        QCOMPARE(*h.ranks[2].value, 99.0);   // the last sample
        QCOMPARE(h.ranks[2].age_s, 0.5);
        // Stages: mean over the ranks with a value; stage 1 leaves rank 6 out.
        QCOMPARE(h.stages.size(), std::size_t(2));
        QCOMPARE(h.stages[0].ranks, (std::vector<int>{0, 1, 2, 3}));
        QCOMPARE(*h.stages[0].mean, (98.0 + 97 + 99 + 96) / 4);
        QCOMPARE(h.stages[0].missing, 0);
        QCOMPARE(*h.stages[1].mean, (0.0 + 97 + 97) / 3);
        QCOMPARE(h.stages[1].missing, 1);
        // Groups: rank 4's tp group {4, 5}.
        const GroupHeat* tp = h.group_of("tp", 4);
        QVERIFY(tp);
        QCOMPARE(tp->ranks, (std::vector<int>{4, 5}));
        QCOMPARE(*tp->mean, 48.5);
        const GroupHeat* tp3 = h.group_of("tp", 6);
        QCOMPARE(tp3->ranks, (std::vector<int>{6, 7}));
        QCOMPARE(*tp3->mean, 97.0);
        QCOMPARE(tp3->missing, 1);
        // Flags: rank 4 idle while its groups work; GPU 6 missing from the node.
        int idle = 0, missing = 0;
        for (const auto& f : h.flags) {
            if (f.kind == "idle_while_group_works") {
                ++idle;
                QCOMPARE(f.rank, 4);
                QCOMPARE(f.gpu, 4);
            }
            if (f.kind == "gpu_missing") {
                ++missing;
                QCOMPARE(f.rank, 6);
            }
        }
        QCOMPARE(idle, 1);
        QCOMPARE(missing, 1);
        QCOMPARE(h.ranks[4].flags.size(), std::size_t(1));
        QVERIFY(h.ranks[0].flags.empty());
    }

    void staleSamplesAreMissing() {
        const Cluster c = one_node(8);
        const auto map = megatron_map(c);
        const TelemetryStore store = h100_store(c, -1);
        HeatOptions o;
        o.now_s = 12;   // the last sample is 10 s old
        const HeatMap h = telemetry_heat(store, map, HeatMetric::Utilization, o);
        QCOMPARE(h.missing, 8);
        QCOMPARE(h.ranks[0].missing, std::string("no sample for 10 s"));
        QVERIFY(!h.stages[0].mean);
        QCOMPARE(h.stages[0].missing, 4);
        for (const auto& f : h.flags) QVERIFY(f.kind != "idle_while_group_works");   // no fresh data, no verdict
    }

    void memoryAgainstTheEstimatePerStage() {
        const Cluster c = one_node(8);
        const auto map = megatron_map(c);
        const TelemetryStore store = h100_store(c, -1);
        HeatOptions o;
        o.now_s = 2;
        const double mib = 1024.0 * 1024.0;
        o.expected_mib = expected_mib_by_stage(map, {70000 * mib, 60000 * mib});
        QCOMPARE(*o.expected_mib[3], 70000.0);
        QCOMPARE(*o.expected_mib[4], 60000.0);
        const HeatMap h = telemetry_heat(store, map, HeatMetric::Memory, o);
        QCOMPARE(*h.ranks[0].value, 71301.0);
        QCOMPARE(*h.ranks[0].fraction, 71301.0 / 81559.0);
        QCOMPARE(*h.ranks[4].value, 1.0);
        // Stage 0: 71297-71304 MiB is within the 1536 MiB context headroom of 70000.
        // Stage 1 expects 60000: ranks 5, 6, 7 are above it, idle rank 4 is not.
        std::vector<int> flagged;
        for (const auto& f : h.flags)
            if (f.kind == "memory_above_estimate") flagged.push_back(f.rank);
        QCOMPARE(flagged, (std::vector<int>{5, 6, 7}));
        QVERIFY(h.ranks[5].flags.front().find("71306 MiB, more than the 60000 MiB estimated") != std::string::npos);
        QCOMPARE(*h.stages[1].mean, (1.0 + 71306 + 71300 + 71298) / 4);
    }

    void naFieldsAreMissingNotZero() {
        const Cluster c = one_node(4);
        topology::MeshRequest req;
        req.framework = "megatron";
        req.world = 4;
        req.gpus_per_node = 4;
        req.tp = 2;
        const auto map = topology::build_rank_map(req, &c);
        QVERIFY(map.valid());
        TelemetryStore store(c);
        for (const auto& l : lines_of("a100-na.csv")) store.ingest(0, l.toStdString(), 1.0);
        HeatOptions o;
        o.now_s = 1;
        const HeatMap util = telemetry_heat(store, map, HeatMetric::Utilization, o);
        QVERIFY(!util.ranks[0].value);
        QCOMPARE(util.ranks[0].missing, std::string("utilization.gpu not reported"));
        QCOMPARE(*util.ranks[2].value, 12.0);
        QCOMPARE(*util.ranks[3].value, 0.0);
        QVERIFY(!util.group_of("tp", 0)->mean);   // both of tp group 0 are [N/A]
        QCOMPARE(util.group_of("tp", 0)->missing, 2);
        QCOMPARE(*util.group_of("tp", 2)->mean, 6.0);
        QVERIFY(util.stages.empty() || util.stages.size() == 1);
        const HeatMap mem = telemetry_heat(store, map, HeatMetric::Memory, o);
        QCOMPARE(mem.missing, 0);
        QCOMPARE(*mem.ranks[1].value, 45120.0);
        QCOMPARE(*mem.ranks[2].fraction, 3011.0 / 40960.0);
    }

    void invalidMapGivesNothing() {
        const Cluster c = one_node(8);
        topology::RankMap bad;
        bad.diagnostics.push_back(Diagnostic{Severity::Error, "x", "broken", {}, {}, {}});
        const HeatMap h = telemetry_heat(h100_store(c, -1), bad, HeatMetric::Utilization);
        QVERIFY(h.ranks.empty());
        QVERIFY(h.stages.empty());
    }
};

QTEST_GUILESS_MAIN(TestTelemetryHeat)
#include "tst_telemetry_heat.moc"
