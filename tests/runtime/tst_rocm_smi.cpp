// AMD GPUs: rocm-smi's JSON parsed into the same samples as nvidia-smi's lines ("N/A" is
// unknown, never 0), the tool chosen by the catalog's vendor, and a live stream over the
// loopback sshd from the stub rocm-smi (tests/runtime/stub/rocm-smi).
#include "e2e_common.h"
#include "runtime/connection_test.h"
#include "runtime/rocm_smi.h"
#include "runtime/telemetry.h"

#include <QFile>
#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;

namespace {
std::string reading() {
    QFile f(QString(PARAPLAN_TEST_DATA) + "/rocm-smi/mi300x-2gpu.json");
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read the rocm-smi reading");
    return f.readAll().toStdString();
}
nlohmann::json card(int i) { return nlohmann::json::parse(reading()).at("card" + std::to_string(i)); }
double bytes(const nlohmann::json& c, const char* key) { return std::stod(c.at(key).get<std::string>()); }
}  // namespace

class TestRocmSmi : public QObject {
    Q_OBJECT
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-rocm-XXXXXX"};

private slots:
    void parsesEveryCard() {
        const RocmSmiParse r = parse_rocm_smi_json(reading());
        QVERIFY(r.errors.empty());
        QCOMPARE(int(r.samples.size()), 2);   // "system" is not a card
        const GpuSample& g0 = r.samples[0];
        QCOMPARE(g0.index, 0);
        QCOMPARE(g0.name, std::string("AMD Instinct MI300X OAM"));
        QCOMPARE(g0.uuid, card(0).at("Unique ID").get<std::string>());
        QCOMPARE(*g0.utilization_gpu, std::stod(card(0).at("GPU use (%)").get<std::string>()));
        QCOMPARE(*g0.memory_used_mib, bytes(card(0), "VRAM Total Used Memory (B)") / (1024.0 * 1024.0));
        QCOMPARE(*g0.memory_total_mib, bytes(card(0), "VRAM Total Memory (B)") / (1024.0 * 1024.0));
        // Edge temperature is "N/A" on MI300X: the junction sensor is read instead.
        QCOMPARE(*g0.temperature_gpu, std::stod(card(0).at("Temperature (Sensor junction) (C)").get<std::string>()));
        QCOMPARE(*g0.power_draw_w, std::stod(card(0).at("Current Socket Graphics Package Power (W)").get<std::string>()));
        // Card 1: utilization and power "N/A" are unknown, not zero; its memory is read.
        const GpuSample& g1 = r.samples[1];
        QCOMPARE(g1.index, 1);
        QVERIFY(!g1.utilization_gpu);
        QVERIFY(!g1.power_draw_w);
        QVERIFY(g1.memory_used_mib && *g1.memory_used_mib > 0);
    }

    void badOutputIsANoteNeverACrash() {
        QVERIFY(!parse_rocm_smi_json("ERROR: GPU[0] : Unable to read").errors.empty());
        QVERIFY(!parse_rocm_smi_json("[1, 2]").errors.empty());
        QVERIFY(!parse_rocm_smi_json("{}").errors.empty());   // no GPU reported
        const RocmSmiParse odd = parse_rocm_smi_json(R"j({"cardX": {}, "card3": {"GPU use (%)": "12"}})j");
        QCOMPARE(int(odd.samples.size()), 1);
        QCOMPARE(odd.samples[0].index, 3);
        QCOMPARE(*odd.samples[0].utilization_gpu, 12.0);
        QVERIFY(!odd.samples[0].memory_used_mib);
        QCOMPARE(int(odd.errors.size()), 1);
    }

    void toolFollowsTheVendorAndStreamsIntoTheStore() {
        Cluster c;
        Node amd;
        amd.name = "mi";
        amd.gpu = "mi300x";
        amd.gpus = 2;
        Node nv = amd;
        nv.name = "h";
        nv.gpu = "h100-sxm";
        c.nodes = {amd, nv};
        QCOMPARE(smi_tool_for(c.nodes[0]), SmiTool::Rocm);
        QCOMPARE(smi_tool_for(c.nodes[1]), SmiTool::Nvidia);
        const std::string loop = telemetry_command(500, {}, false, SmiTool::Rocm);
        QVERIFY(loop.find("rocm-smi") != std::string::npos && loop.find("--json") != std::string::npos);
        QVERIFY(loop.find(kRocmSmiEndMarker) != std::string::npos && loop.find("sleep 0.500") != std::string::npos);
        QVERIFY(telemetry_command(500, {}, true, SmiTool::Rocm).find("while") == std::string::npos);

        // Two readings, split across lines as they arrive, the second one broken.
        TelemetryStore store(c);
        SmiStreamParser parser(SmiTool::Rocm);
        parser.line(store, 0, reading(), 1.0);
        QVERIFY(store.series().empty());   // nothing until the marker
        parser.line(store, 0, "", 1.0);
        parser.line(store, 0, kRocmSmiEndMarker, 1.0);
        QCOMPARE(int(store.series().size()), 2);
        QCOMPARE(store.rank_of(0, 1), 1);
        parser.line(store, 0, "{\"card0\": {", 2.0);
        parser.line(store, 0, kRocmSmiEndMarker, 2.0);
        QCOMPARE(store.find(0, 0)->samples.size(), std::size_t(1));
        QVERIFY(!store.diagnostics().empty());
        QVERIFY(store.diagnostics().back().rfind("mi: ", 0) == 0);
    }

    void liveOverSsh() {
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        Cluster c = loopback_cluster(sshd);
        for (auto& n : c.nodes) n.gpu = "mi300x";
        RuntimeConfig rc = loopback_runtime(sshd, stub_bin(work.path()));
        TelemetryMonitor mon(c, ssh_options_from(rc), 300, rc.path_prepend);
        mon.start();
        QTRY_VERIFY_WITH_TIMEOUT(mon.store().series().size() == 4, 30000);
        const GpuSeries* s = mon.store().find(1, 0);
        QVERIFY(s && !s->samples.empty());
        QCOMPARE(s->rank, 2);
        QCOMPARE(*s->samples.back().second.utilization_gpu, std::stod(card(0).at("GPU use (%)").get<std::string>()));
        QVERIFY(!mon.store().find(1, 1)->samples.back().second.utilization_gpu);
        // The loop keeps reading: a second sample arrives.
        QTRY_VERIFY_WITH_TIMEOUT(mon.store().find(0, 0)->samples.size() >= 2, 30000);
        mon.stop();
    }
};

QTEST_GUILESS_MAIN(TestRocmSmi)
#include "tst_rocm_smi.moc"
