// AMD GPUs: the tool chosen by the catalog's vendor, rocm-smi's JSON streamed into the store,
// and a live stream over the loopback sshd from the stub rocm-smi (tests/runtime/stub/rocm-smi).
// The JSON parsing itself is tested in tests/core/tst_gpu_smi.cpp.
#include "e2e_common.h"
#include "runtime/connection_test.h"
#include "runtime/telemetry.h"
#include "telemetry/rocm_smi.h"

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
}   // namespace

class TestRocmSmi : public QObject {
    Q_OBJECT
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-rocm-XXXXXX"};

private slots:
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
        RuntimeConfig rc = loopback_runtime(stub_bin(work.path()));
        TelemetryMonitor mon(c, ssh_options_from(rc, loopback_profile(sshd)), 300, rc.path_prepend);
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
