// Live heatmaps and probe results on the cluster canvas and the rank grid: recorded
// nvidia-smi samples (tests/data/nvidia-smi, one GPU left out) and recorded probe
// results (tests/data/probe) drawn per rank; a missing sample is hatched and says
// "no sample", never drawn as 0. The main window's wiring runs a real job over the
// loopback sshd with the stub nvidia-smi.
#include "canvas/clustercanvas.h"
#include "run/gpu_monitor.h"
#include "guitest.h"
#include "../heat_cluster.h"
#include "live_overlay.h"
#include "mainwindow.h"
#include "canvas/nodeitem.h"
#include "projectdocument.h"
#include "views/rankgrid.h"
#include "run/run_panel.h"
#include "runtime/e2e_common.h"

#include <QComboBox>
#include <QFile>
#include <QSignalSpy>
#include <QFileInfo>
#include <QRegularExpression>
#include <QtTest>

using namespace paraplan;

namespace {
// Megatron tp=2 pp=2 dp=2 on one node of 8 H100s: stage 0 = ranks 0-3, rank r on GPU r.
Project one_node_project() {
    Project p;
    p.name = "heat";
    Node n;
    n.name = "node0";
    n.gpu = "h100-sxm";
    n.gpus = 8;
    p.cluster.nodes.push_back(n);
    p.layout.framework = "megatron";
    p.layout.tp = 2;
    p.layout.pp = 2;
    return p;
}

// The h100-8gpu recording (t = 0, 1, 2) without GPU 6.
runtime::TelemetryStore recorded_store(const Cluster& c) {
    runtime::TelemetryStore store(c);
    QFile f(QString(PARAPLAN_TEST_DATA) + "/nvidia-smi/h100-8gpu.csv");
    if (!f.open(QIODevice::ReadOnly)) qFatal("no recording");
    double t = 0;
    for (const auto& l : f.readAll().split('\n')) {
        if (l.trimmed().isEmpty()) t += 1;
        else if (!l.startsWith("6,")) store.ingest(0, l.toStdString(), t);
    }
    return store;
}

QColor pixel(QWidget* w, const QPoint& at) { return w->grab().toImage().pixelColor(at); }
QWidget* canvasOf(RankGrid* g) { return g->findChild<QWidget*>(QStringLiteral("rankGridCanvas")); }
bool grey(const QColor& c) { return c.red() == c.green() && c.green() == c.blue(); }
}   // namespace

class TestHeatmap : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    SshdFixture sshd_;
    int sshdState_ = 0;   // 0 not tried, 1 up, -1 failed
    bool sshdUp() {
        if (sshdState_ == 0) {
            sshdState_ = sshd_.start() ? 1 : -1;
            // The launches read the user's ssh profile (local values never come from a project).
            if (sshdState_ == 1) use_local_profile(tmp_.path(), loopback_profile(sshd_));
        }
        return sshdState_ == 1;
    }

private slots:
    void initTestCase() { isolateSettings(tmp_); }

    void colourScale() {
        QCOMPARE(heat::colour(0), QColor(0x44, 0x01, 0x54));   // viridis ends
        QCOMPARE(heat::colour(1), QColor(0xfd, 0xe7, 0x25));
        QCOMPARE(heat::colour(-3), heat::colour(0));
        QVERIFY(heat::colour(0.5) != heat::colour(0.25));
    }

    void liveOverlayOnTheCanvas() {
        ProjectDocument doc;
        doc.reset(one_node_project(), QString());
        QVERIFY(doc.rankMap().valid());
        ClusterCanvas canvas(&doc);
        canvas.resize(900, 600);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        canvas.zoomToFit();
        const QString layoutAxis = canvas.colourAxis();
        QVERIFY(!canvas.tileHeat(0, 0));   // layout colours: no heat

        runtime::HeatOptions o;
        o.now_s = 2.5;
        const LiveOverlay live = LiveOverlayFeeder::overlay(recorded_store(doc.project().cluster), doc.rankMap(), o);
        canvas.setLiveOverlay(live);
        QCOMPARE(canvas.colourAxis(), heat::kUtilization);
        QVERIFY(canvas.legend()->isVisibleTo(&canvas));
        // GPU 4 reports 0 %: a value on the scale, flagged idle while its groups work.
        const auto idle = canvas.tileHeat(0, 4);
        QVERIFY(idle && idle->has);
        QCOMPARE(idle->fraction, 0.0);
        QCOMPARE(idle->text, QString("0 %"));
        QVERIFY(idle->flagged);
        // GPU 6 never reported: missing, not 0.
        const auto none = canvas.tileHeat(0, 6);
        QVERIFY(none && !none->has);
        QVERIFY(canvas.tileToolTip(0, 6).contains("GPU utilization</b>: no sample"));
        QVERIFY(!canvas.tileToolTip(0, 4).contains("no sample"));
        QVERIFY(canvas.tileToolTip(0, 4).contains("near 0 % utilization"));
        QVERIFY(canvas.tileToolTip(0, 2).contains("99 %"));
        QVERIFY(canvas.tileToolTip(0, 2).contains("pipeline stage 0: mean 98 %"));
        // Drawn: the scale's 0 for GPU 4, a grey hatch for GPU 6 (bottom-right, clear of text).
        NodeItem* item = canvas.nodeItems().at(0);
        auto at = [&](int g) {
            const QRectF r = item->tileRect(g);
            return canvas.view()->mapFromScene(item->mapToScene(r.bottomRight() - QPointF(8, 8)));
        };
        QWidget* vp = canvas.view()->viewport();
        QCOMPARE(pixel(vp, at(4)).name(), heat::colour(0).name());
        const QColor missing = pixel(vp, at(6));
        QVERIFY2(grey(missing), qPrintable(missing.name()));
        QVERIFY(missing.name() != heat::colour(0).name());
        QCOMPARE(pixel(vp, at(2)).name(), heat::colour(0.99).name());
        // Toggle to memory.
        canvas.setColourAxis(heat::kMemory);
        const auto mem = canvas.tileHeat(0, 0);
        QVERIFY(mem && mem->has);
        QCOMPARE(mem->fraction, 71301.0 / 81559.0);
        QVERIFY(mem->text.startsWith("69.6 GiB"));
        QVERIFY(!canvas.tileHeat(0, 6)->has);
        // Back to the layout when the job ends.
        canvas.clearLiveOverlay();
        QCOMPARE(canvas.colourAxis(), layoutAxis);
        QVERIFY(!canvas.tileHeat(0, 4));
        QVERIFY(!canvas.legend()->isVisibleTo(&canvas));
    }

    void liveOverlayOnTheRankGrid() {
        ProjectDocument doc;
        doc.reset(one_node_project(), QString());
        RankGrid grid(&doc);
        grid.resize(700, 600);
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&grid));
        const QString layoutAxis = grid.colourCombo()->currentData().toString();
        runtime::HeatOptions o;
        o.now_s = 2.5;
        grid.setLiveOverlay(LiveOverlayFeeder::overlay(recorded_store(doc.project().cluster), doc.rankMap(), o));
        QCOMPARE(grid.colourCombo()->currentData().toString(), heat::kUtilization);
        QVERIFY(grid.colourCombo()->findData(heat::kMemory) >= 0);
        QVERIFY(grid.cellHeat(4)->has);
        QCOMPARE(grid.cellHeat(4)->fraction, 0.0);
        QVERIFY(grid.cellHeat(4)->flagged);
        QVERIFY(!grid.cellHeat(6)->has);
        QVERIFY(grid.cellHeat(6)->flagged);   // the plan has a rank there, the node reports no such GPU
        QVERIFY(grid.rankToolTip(6).contains("GPU utilization</b>: no sample"));
        QVERIFY(grid.rankToolTip(6).contains("node0 reports no GPU 6 but the plan puts rank 6 there"));
        QVERIFY(!grid.cellHeat(5)->flagged);
        QVERIFY(grid.rankToolTip(7).contains("tp group 3: mean 97 % (1 without a sample)"));
        // Per stage in the info line: stage 1 averages the three ranks that reported.
        QVERIFY(grid.infoText().contains("stage 0: 98 %"));
        QVERIFY(grid.infoText().contains("stage 1: 65 % (1 without a sample)"));
        QVERIFY(grid.infoText().contains("2 flagged"));
        // Pixels: rank 4 at the scale's 0, rank 6 hatched grey; flagged rank 4 outlined.
        auto inside = [&](int r) { return grid.cellRect(r).bottomRight() - QPoint(6, 6); };
        QCOMPARE(pixel(canvasOf(&grid), inside(4)).name(), heat::colour(0).name());
        const QColor missing = pixel(canvasOf(&grid), inside(6));
        QVERIFY2(grey(missing) && missing.name() != heat::colour(0).name(), qPrintable(missing.name()));
        QCOMPARE(pixel(canvasOf(&grid), grid.cellRect(4).topLeft() + QPoint(1, 8)).name(), heat::flagColour().name());
        QVERIFY(pixel(canvasOf(&grid), grid.cellRect(5).topLeft() + QPoint(1, 8)).name() != heat::flagColour().name());
        // Memory, then back to the layout.
        grid.setColourAxis(heat::kMemory);
        QVERIFY(grid.cellHeat(0)->text.startsWith("69.6 GiB"));
        grid.clearLiveOverlay();
        QCOMPARE(grid.colourCombo()->currentData().toString(), layoutAxis);
        QVERIFY(!grid.cellHeat(4));
        QCOMPARE(grid.colourCombo()->findData(heat::kUtilization), -1);
    }

    void probeResultOnTheRankGrid() {
        // The recorded gloo run: 4 ranks, tp {0,1} {2,3} inside a node, pp {0,2} {1,3} across.
        Project p;
        p.name = "probe";
        for (int i = 0; i < 2; ++i) {
            Node n;
            n.name = "node" + std::to_string(i);
            n.gpu = "h100-sxm";
            n.gpus = 2;
            p.cluster.nodes.push_back(n);
        }
        p.layout.framework = "megatron";
        p.layout.tp = 2;
        p.layout.pp = 2;
        MainWindow w(nullptr, tmp_.filePath("rec-probe"));
        w.setProject(p, QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* panel = w.runPanel();
        RankGrid* grid = w.rankGrid();
        QSignalSpy spy(panel, &widgets::RunPanel::probeChecked);
        QVERIFY(panel->loadProbeResult(QString(PARAPLAN_TEST_DATA) + "/probe/gloo-4ranks-tp2-pp2.json"));
        QCOMPARE(spy.count(), 1);
        QCOMPARE(panel->probeChecks().size(), std::size_t(8));
        QVERIFY(panel->logText().contains("[probe] tp group 0:"));
        // The main window hands it to the rank grid, which colours the tp groups.
        QCOMPARE(grid->colourCombo()->currentData().toString(), heat::kProbe);
        grid->setGroupKind("tp");
        const auto& tp0 = panel->probeChecks()[0];
        QCOMPARE(tp0.kind, std::string("tp"));
        QVERIFY(tp0.slow);   // gloo over loopback vs NVLink
        for (int r : {0, 1}) {
            const HeatCell* c = grid->cellHeat(r);
            QVERIFY(c && c->has && c->flagged && !c->failed);
            QCOMPARE(c->fraction, *tp0.measured_gbps / tp0.assumed_gbps);
        }
        QVERIFY(grid->rankToolTip(1).contains("measured (all_reduce busbw"));
        QVERIFY(grid->rankToolTip(1).contains("slow"));
        QVERIFY(grid->infoText().contains("2 tp groups · 2 slow · 0 failed"));
        QCOMPARE(pixel(canvasOf(grid), grid->cellRect(0).topLeft() + QPoint(1, 8)).name(), heat::flagColour().name());
        // pp groups have no collective measured: no sample, not 0.
        grid->setGroupKind("pp");
        QVERIFY(!grid->cellHeat(0)->has);
        QVERIFY(grid->rankToolTip(0).contains("no sample"));

        // A failed membership check is red, from a probe job's rank-0.log.
        QFile in(QString(PARAPLAN_TEST_DATA) + "/probe/gloo-4ranks-tp2-pp2.json");
        QVERIFY(in.open(QIODevice::ReadOnly));
        auto j = nlohmann::json::parse(in.readAll().toStdString());
        j["groups"][1]["membership_ok"] = false;
        j["groups"][1]["allreduce_sum"] = 3.0;
        j["ok"] = false;
        const QString log = tmp_.filePath("rank-0.log");
        {
            QFile out(log);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write("probe: 4 ranks\n");
            out.write((std::string(runtime::kProbeResultMarker) + j.dump() + "\n").c_str());
        }
        QVERIFY(panel->loadProbeResult(log));
        grid->setGroupKind("tp");
        QVERIFY(grid->cellHeat(2)->failed);
        QVERIFY(grid->cellHeat(3)->failed);
        QVERIFY(!grid->cellHeat(0)->failed);
        QVERIFY(grid->rankToolTip(2).contains("membership check failed"));
        QCOMPARE(pixel(canvasOf(grid), grid->cellRect(2).bottomRight() - QPoint(6, 6)).name(),
                 heat::failedColour().name());
        QVERIFY(grid->infoText().contains("1 failed the membership check"));
        // Bad input: a message, no crash, the grid keeps the last result.
        const QString bad = tmp_.filePath("bad.json");
        {
            QFile out(bad);
            QVERIFY(out.open(QIODevice::WriteOnly));
            out.write("{\"paraplan_probe\": 1, \"ok\": true}");
        }
        QVERIFY(!panel->loadProbeResult(bad));
        QVERIFY(panel->logText().contains("bad.json"));
        QVERIFY(grid->cellHeat(2)->failed);
        // Editing the project drops the result (its groups may no longer be the plan's).
        Project edited = w.project();
        edited.layout.pp = 1;
        w.setProject(edited, QString());
        QVERIFY(grid->probeChecks().empty());
        QVERIFY(!grid->cellHeat(0));
        QCOMPARE(grid->colourCombo()->findData(heat::kProbe), -1);
    }

    void mainWindowColoursARunningJob() {
        if (!sshdUp()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd_.error));
        Project p;
        p.name = "live job";
        p.cluster = loopback_cluster(sshd_);
        p.layout.framework = "megatron";
        p.layout.tp = 2;
        const auto rc = loopback_runtime(stub_bin(tmp_.path()));
        p.runtime = {{"python", "/bin/sh"},
                     {"script", "-c"},
                     {"args", {"sleep 60"}},
                     {"path_prepend", rc.path_prepend},
                     {"stop_grace_s", 2},
                     {"telemetry", {{"interval_ms", 250}}},
                     {"workdir", tmp_.filePath("run-live").toStdString()}};
        MainWindow w(nullptr, tmp_.filePath("rec-live"));
        w.setProject(p, QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.runPanel()->launch();
        QVERIFY(w.runPanel()->monitor());
        // The stub replays h100-2gpu.csv on both nodes: every tile gets a utilization.
        auto lit = [&w] {
            for (int n = 0; n < 2; ++n)
                for (int g = 0; g < 2; ++g)
                    if (!w.canvas()->tileHeat(n, g) || !w.canvas()->tileHeat(n, g)->has) return false;
            return true;
        };
        QTRY_VERIFY_WITH_TIMEOUT(lit(), 30000);
        QCOMPARE(w.canvas()->colourAxis(), heat::kUtilization);
        QVERIFY2(w.canvas()->tileHeat(0, 0)->text.endsWith(" %"), qPrintable(w.canvas()->tileHeat(0, 0)->text));
        QVERIFY(w.rankGrid()->cellHeat(3) && w.rankGrid()->cellHeat(3)->has);
        QTRY_COMPARE_WITH_TIMEOUT(w.gpuMonitor()->rowCount(), 4, 10000);
        w.runPanel()->stop();
        QTRY_VERIFY_WITH_TIMEOUT(w.runPanel()->job()->done(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.canvas()->tileHeat(0, 0), 5000);
        QVERIFY(w.canvas()->colourAxis() != heat::kUtilization);
        QVERIFY(!w.rankGrid()->cellHeat(3));
    }

    void heatOnALargeCluster() {
        // 512 nodes x 8 GPUs, Megatron tp=8 pp=8: one tick (heat of both metrics, both views).
        const Project p = heat_cluster(512);
        ProjectDocument doc;
        doc.reset(p, QString());
        QVERIFY(doc.rankMap().valid());
        const runtime::TelemetryStore store = heat_store(p.cluster);
        ClusterCanvas canvas(&doc);
        RankGrid grid(&doc);
        canvas.resize(1200, 800);
        grid.resize(800, 800);
        canvas.show();
        grid.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        runtime::HeatOptions o;
        o.now_s = 2;
        // What a tick costs is measured by tests/benchmarks/bench_gui_heat (docs/benchmarks.md);
        // here that every GPU of the large cluster is coloured right in both views.
        canvas.setLiveOverlay(LiveOverlayFeeder::overlay(store, doc.rankMap(), o));
        grid.setLiveOverlay(canvas.liveOverlay());
        QCoreApplication::processEvents();
        const auto& live = canvas.liveOverlay().utilization;
        QCOMPARE(live.cells.size(), std::size_t(4096));
        QCOMPARE(live.stageFraction.size(), std::size_t(8));
        QCOMPARE(canvas.tileHeat(511, 7)->text, QString("%1 %").arg(4095 % 101));
        QCOMPARE(grid.cellHeat(4095)->fraction, (4095 % 101) / 100.0);
    }

    void probeRunFromThePanel() {
        if (!sshdUp()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd_.error));
        QProcess torch;
        torch.start("/usr/bin/python3", {"-c", "import torch.distributed"});
        torch.waitForFinished(120000);
        if (torch.exitCode() != 0) QSKIP("Debian's python3-torch is not installed (apt-get install -y python3-torch)");
        // 2 nodes x 2 ranks, megatron tp=2 (inside a node) x pp=2 (across): the probe runs the
        // project's own groups on gloo and the grid shows them against the plan.
        Project p;
        p.name = "probe run";
        p.cluster = loopback_cluster(sshd_);
        for (auto& n : p.cluster.nodes) n.gpu = "h100-sxm";
        p.layout.framework = "megatron";
        p.layout.tp = 2;
        p.layout.pp = 2;
        const auto rc = loopback_runtime(stub_bin(tmp_.path()));
        p.runtime = {{"python", "/usr/bin/python3"},
                     {"master_port", SshdFixture::free_port()},   // free now: tests run side by side
                     {"path_prepend", rc.path_prepend},
                     {"stop_grace_s", 2}};
        MainWindow w(nullptr, tmp_.filePath("rec-probe-run"));
        w.setProject(p, QString());
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        auto* panel = w.runPanel();
        panel->runProbe({"--sizes", "4096,65536", "--iters", "2", "--timeout-s", "120"});
        QTRY_VERIFY2_WITH_TIMEOUT((panel->job() && panel->job()->done()) || panel->logText().contains("cannot probe"),
                                  qPrintable(panel->logText()), 180000);
        QVERIFY2(panel->job() && !panel->probeChecks().empty(), qPrintable(panel->logText()));
        // The run's private folder on the nodes goes once the job is over.
        static const QRegularExpression folderLine("files in (/tmp/paraplan-probe\\.[A-Za-z0-9]{10})");
        const auto m = folderLine.match(panel->logText());
        QVERIFY2(m.hasMatch(), qPrintable(panel->logText()));
        QTRY_VERIFY_WITH_TIMEOUT(!QFileInfo::exists(m.captured(1)), 30000);
        int tp = 0;
        for (const auto& c : panel->probeChecks()) {
            QVERIFY2(c.membership_ok, c.message.c_str());
            if (c.kind == "tp") {
                ++tp;
                QVERIFY(c.measured_gbps && *c.measured_gbps > 0);
                QCOMPARE(c.nodes_spanned, 1);
            }
        }
        QCOMPARE(tp, 2);
        RankGrid* grid = w.rankGrid();
        QCOMPARE(grid->colourCombo()->currentData().toString(), heat::kProbe);
        grid->setGroupKind("tp");
        for (int r = 0; r < 4; ++r) QVERIFY(grid->cellHeat(r)->has && !grid->cellHeat(r)->failed);
        QVERIFY(grid->infoText().contains("2 tp groups"));
        QVERIFY(grid->infoText().contains("0 failed the membership check"));
    }
};

QTEST_MAIN(TestHeatmap)
#include "tst_heatmap.moc"
