// Exports of a schedule: Perfetto / chrome://tracing JSON, PyTorch's pipeline CSV (and
// reading it back), and the timeline JSON contract of `paraplan-cli timeline --json`.
#include "core/schedule_test_util.h"
#include "schedule/pytorch_csv.h"
#include "schedule/simulate.h"
#include "schedule/timeline_json.h"
#include "schedule/trace_export.h"

#include <QtTest>

#include <map>

using namespace paraplan::schedule;
using schedule_test::make;

namespace {

Timeline run(const Schedule& s, OpCost c = {1, 1, 1}) {
    SimConfig cfg;
    cfg.cost = c;
    return simulate(s, cfg).timeline;
}

}   // namespace

class TestScheduleExport : public QObject {
    Q_OBJECT
private slots:
    void chromeTrace_structure() {
        const auto tl = run(make("dualpipev", 2, 4), {1, 1.5, 0.5});
        const auto j = to_chrome_trace(tl, 1000.0);
        QVERIFY(j.contains("traceEvents"));
        std::size_t x = 0;
        std::map<std::pair<int, int>, std::vector<std::pair<double, double>>> lanes;
        std::map<int, int> process_names, thread_names;
        for (const auto& e : j["traceEvents"]) {
            QVERIFY(e.contains("name") && e.contains("ph") && e.contains("pid") && e.contains("tid"));
            if (e["ph"] == "M") {
                if (e["name"] == "process_name") ++process_names[e["pid"].get<int>()];
                if (e["name"] == "thread_name") ++thread_names[e["pid"].get<int>()];
                continue;
            }
            QCOMPARE(e["ph"].get<std::string>(), std::string("X"));
            QVERIFY(e.contains("ts") && e.contains("dur") && e["dur"].get<double>() > 0);
            QVERIFY(e["args"].contains("microbatch"));
            lanes[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(
                {e["ts"].get<double>(), e["dur"].get<double>()});
            ++x;
        }
        QCOMPARE(x, tl.ops.size());
        QCOMPARE(process_names.size(), std::size_t(2));
        for (const auto& [pid, n] : thread_names) QCOMPARE(n, 2);   // a thread per chunk
        // Perfetto needs the slices on one thread to nest; ours must not overlap at all.
        for (auto& [lane, slices] : lanes) {
            std::sort(slices.begin(), slices.end());
            for (std::size_t i = 1; i < slices.size(); ++i)
                QVERIFY(slices[i].first >= slices[i - 1].first + slices[i - 1].second - 1e-6);
        }
        // Real durations in microseconds: the first F of stage 0 lasts 1 unit = 1000 us.
        bool found = false;
        for (const auto& e : j["traceEvents"])
            if (e["ph"] == "X" && e["pid"] == 0 && e["ts"].get<double>() == 0.0) {
                QCOMPARE(e["dur"].get<double>(), 1000.0);
                QCOMPARE(e["name"].get<std::string>(), std::string("F0 c0"));
                found = true;
            }
        QVERIFY(found);
    }
    void pytorchCsv_format() {
        // PyTorch _dump_csv(format="compute_only"): a row per rank, global stage index first.
        QCOMPARE(to_pytorch_csv(make("1f1b", 2, 2)), std::string("0F0,0F1,0B0,0B1\r\n1F0,1B0,1F1,1B1\r\n"));
        // Interleaved: rank 1's chunk 1 is stage 3 (loop placement); ZB splits B into I and W.
        const std::string zb = to_pytorch_csv(make("interleaved-zb", 2, 2, 2));
        QVERIFY(zb.find("3F0") != std::string::npos && zb.find("3I0") != std::string::npos &&
                zb.find("3W0") != std::string::npos);
        // V placement: rank 0 holds stages 0 and 3; DualPipeV writes overlapped pairs.
        const std::string dp = to_pytorch_csv(make("dualpipev", 2, 4));
        QVERIFY(dp.find(")OVERLAP_F_B") != std::string::npos);
        QCOMPARE(dp.substr(0, dp.find(',')), std::string("0F0"));
        QVERIFY(dp.substr(0, dp.find('\n')).find("3F0") != std::string::npos);
    }
    void pytorchCsv_roundTrip() {
        for (const auto& name : schedule_names()) {
            const auto s = make(name, 4, 8, name == "zbv" || name == "dualpipev" ? 2 : 0);
            QVERIFY2(!s.stages.empty(), name.c_str());
            const auto back = from_pytorch_csv(to_pytorch_csv(s));
            QVERIFY2(back.schedule, name.c_str());
            QCOMPARE(back.schedule->pp, s.pp);
            QCOMPARE(back.schedule->chunks, s.chunks);
            QCOMPARE(back.schedule->microbatches, s.microbatches);
            QCOMPARE(back.schedule->placement, s.placement);
            QVERIFY2(back.schedule->stages == s.stages, name.c_str());
            // Same order, same times.
            QCOMPARE(run(*back.schedule).makespan, run(s).makespan);
        }
    }
    void pytorchCsv_readsPyTorchFiles() {
        // Empty cells are idle steps; spaces and comm actions are skipped; \n line ends work.
        const std::string text = "0F0,,0F1,0SEND_F1, 0B0 ,0B1\n1RECV_F0,1F0,1B0,1F1,1B1,\n";
        const auto r = from_pytorch_csv(text);
        QVERIFY(r.schedule);
        QCOMPARE(r.schedule->pp, 2);
        QCOMPARE(r.schedule->microbatches, 2);
        QCOMPARE(schedule_test::order(*r.schedule, 0), std::string("F0 F1 B0 B1"));
        QCOMPARE(schedule_test::order(*r.schedule, 1), std::string("F0 B0 F1 B1"));
    }
    void pytorchCsv_errors() {
        auto r = from_pytorch_csv("0F0,0X1\n1F0,1B0\n");
        QVERIFY(!r.schedule);
        QVERIFY(r.diagnostics.front().message.find("row 1, column 2") != std::string::npos);
        QVERIFY(!from_pytorch_csv("").schedule);
        // Three stage indices over two ranks.
        r = from_pytorch_csv("0F0,2F0\n1F0\n");
        QVERIFY(!r.schedule);
        // A stage index that neither the loop nor the V mapping puts on that row.
        r = from_pytorch_csv("1F0,2F0\n0F0,3F0\n");
        QVERIFY(!r.schedule);
        QVERIFY(!from_pytorch_csv("(0F0;3B0\n").schedule);
    }
    void timelineJson_contract() {
        const auto j = to_json(run(make("1f1b", 4, 8)));
        QCOMPARE(j["schedule"].get<std::string>(), std::string("1f1b"));
        QCOMPARE(j["pp"].get<int>(), 4);
        QCOMPARE(j["microbatches"].get<int>(), 8);
        QCOMPARE(j["chunks"].get<int>(), 1);
        QCOMPARE(j["makespan"].get<double>(), 33.0);
        QVERIFY(std::fabs(j["bubble_fraction"].get<double>() - 3.0 / 11.0) < 1e-12);
        QCOMPARE(j["stages"].size(), std::size_t(4));
        const auto& s0 = j["stages"][0];
        QCOMPARE(s0["stage"].get<int>(), 0);
        QCOMPARE(s0["busy"].get<double>(), 24.0);
        QCOMPARE(s0["peak_inflight"].get<int>(), 4);
        QCOMPARE(s0["ops"].size(), std::size_t(16));
        const auto& op = s0["ops"][0];
        QCOMPARE(op["kind"].get<std::string>(), std::string("F"));
        QCOMPARE(op["microbatch"].get<int>(), 0);
        QCOMPARE(op["chunk"].get<int>(), 0);
        QCOMPARE(op["start"].get<double>(), 0.0);
        QCOMPARE(op["end"].get<double>(), 1.0);
        // A full backward is kind B lasting B + W.
        const auto& b = s0["ops"][4];
        QCOMPARE(b["kind"].get<std::string>(), std::string("B"));
        QCOMPARE(b["end"].get<double>() - b["start"].get<double>(), 2.0);
        QVERIFY(b["full_backward"].get<bool>());
    }
};

QTEST_APPLESS_MAIN(TestScheduleExport)
#include "tst_schedule_export.moc"
