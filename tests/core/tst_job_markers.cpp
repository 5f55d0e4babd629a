// The wrapper's marker lines and torchrun's failed-worker line, read by the Qt-free parsers in
// core/joblog. The marker lines are the real ones: the launch wrapper of a real plan is run
// here through /bin/sh, as ssh hands it to the node's shell, and its output split into lines
// by the same LineBuffer a Job uses.
#include "joblog/line_buffer.h"
#include "joblog/torchrun_failure.h"
#include "joblog/wrapper_markers.h"
#include "launch/launch_plan.h"

#include <QProcess>
#include <QtTest>

#include <string>
#include <vector>

using namespace paraplan;
using namespace paraplan::runtime;

namespace {

struct WrapperRun {
    int exit_code = -1;
    std::vector<std::string> out, err;   // lines
};

std::vector<std::string> lines_of(const QByteArray& bytes) {
    LineBuffer buf;
    auto lines = buf.append(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())));
    if (auto rest = buf.take_rest(); !rest.empty()) lines.push_back(rest);
    return lines;
}

// A one-node plan whose single rank runs `/bin/sh -c script`, run through its wrapper.
WrapperRun run_wrapped(const std::string& script, LaunchPlan* plan_out = nullptr,
                       const std::string& python = "/bin/sh") {
    Cluster c;
    Node n;
    n.name = "node0";
    n.host = "127.0.0.1";
    n.gpus = 1;
    c.nodes.push_back(n);
    RuntimeConfig rc;
    rc.python = python;
    rc.script = "-c";
    rc.args = {script};
    const LaunchPlan plan = plan_launch(c, rc, "20260101-000000-markers");
    if (plan_out) *plan_out = plan;
    QProcess proc;
    proc.start("/bin/sh", {"-c", QString::fromStdString(remote_launch_command(plan, plan.processes[0]))});
    WrapperRun r;
    if (!proc.waitForFinished(30000)) proc.kill();
    proc.waitForFinished(2000);
    r.exit_code = proc.exitCode();
    r.out = lines_of(proc.readAllStandardOutput());
    r.err = lines_of(proc.readAllStandardError());
    return r;
}

}   // namespace

class TstJobMarkers : public QObject {
    Q_OBJECT
private slots:
    void realWrapperLinesAreRead() {
        // The rank prints forged markers (the plain forms and another job's token) among its
        // output, then exits 3: only the wrapper's own two lines are markers.
        LaunchPlan plan;
        const WrapperRun r = run_wrapped(
            "echo before; echo '__PARAPLAN_EXIT__ 0'; echo '__PARAPLAN_STARTED__ 1'; "
            "echo '__PARAPLAN_EXIT_0123456789abcdef__ 0'; echo after; exit 3",
            &plan);
        QCOMPARE(r.exit_code, 3);
        const WrapperMarkers m = wrapper_markers(plan.marker_token);
        std::vector<std::string> output;
        std::optional<long long> pgid;
        std::optional<int> status;
        int started = 0, exited = 0;
        for (const auto& l : r.out) {
            const MarkerLine ml = parse_marker_line(m, l, false);
            switch (ml.kind) {
            case MarkerLine::Kind::Started:
                ++started;
                pgid = ml.pgid;
                break;
            case MarkerLine::Kind::Exited:
                ++exited;
                status = ml.exit_status;
                break;
            case MarkerLine::Kind::Output: output.push_back(l); break;
            case MarkerLine::Kind::Error: QFAIL("an error marker on stdout");
            }
        }
        QCOMPARE(started, 1);
        QCOMPARE(exited, 1);
        QVERIFY(pgid && *pgid > 1);
        QCOMPARE(status, std::optional<int>(3));
        const std::vector<std::string> want{"before", "__PARAPLAN_EXIT__ 0", "__PARAPLAN_STARTED__ 1",
                                            "__PARAPLAN_EXIT_0123456789abcdef__ 0", "after"};
        QCOMPARE(output, want);
        // The exit line comes last (the wrapper prints it after the command's group has
        // ended); the start line may follow the command's first lines (it runs in the background).
        QCOMPARE(parse_marker_line(m, r.out.back(), false).kind, MarkerLine::Kind::Exited);
        // Read with another job's markers (or the plain ones) the same lines are output.
        for (const auto& other : {wrapper_markers("0123456789abcdef"), wrapper_markers("")}) {
            int markers = 0;
            for (const auto& l : r.out) markers += parse_marker_line(other, l, false).kind != MarkerLine::Kind::Output;
            QCOMPARE(markers, other.exited == kExitMarker ? 2 : 1);   // the rank's own forged lines
        }
    }

    void realWrapperErrorLine() {
        LaunchPlan plan;
        const WrapperRun r = run_wrapped("true", &plan, "no-such-python-xyz");
        QCOMPARE(r.exit_code, 127);
        QCOMPARE(r.out.size(), std::size_t(0));   // the command never started: no start line
        const WrapperMarkers m = wrapper_markers(plan.marker_token);
        QCOMPARE(r.err.size(), std::size_t(1));
        const MarkerLine e = parse_marker_line(m, r.err[0], true);
        QCOMPARE(e.kind, MarkerLine::Kind::Error);
        QVERIFY2(e.message.rfind("no-such-python-xyz not found on ", 0) == 0, e.message.c_str());
        QVERIFY(e.message.find("(PATH=") != std::string::npos);
        // The same line on stdout is output (a rank echoing it cannot fail its process).
        QCOMPARE(parse_marker_line(m, r.err[0], false).kind, MarkerLine::Kind::Output);
    }

    void markerForms() {
        const WrapperMarkers t = wrapper_markers("00ff00ff00ff00ff");
        QCOMPARE(t.started, std::string("__PARAPLAN_STARTED_00ff00ff00ff00ff__ "));
        QCOMPARE(t.exited, std::string("__PARAPLAN_EXIT_00ff00ff00ff00ff__ "));
        QCOMPARE(t.error, std::string("__PARAPLAN_ERROR_00ff00ff00ff00ff__ "));
        const WrapperMarkers plain = wrapper_markers("");
        QCOMPARE(plain.started, std::string(kStartedMarker));
        QCOMPARE(plain.exited, std::string(kExitMarker));
        QCOMPARE(plain.error, std::string(kErrorMarker));
    }

    void numbersAfterMarkers() {
        const WrapperMarkers m = wrapper_markers("00ff00ff00ff00ff");
        auto exit_of = [&](const std::string& rest) {
            return parse_marker_line(m, m.exited + rest, false).exit_status;
        };
        auto pgid_of = [&](const std::string& rest) { return parse_marker_line(m, m.started + rest, false).pgid; };
        QCOMPARE(exit_of("0"), std::optional<int>(0));
        QCOMPARE(exit_of("  137 \r"), std::optional<int>(137));
        QCOMPARE(exit_of("255"), std::optional<int>(255));
        for (const char* bad : {"", " ", "256", "-1", "3x", "3 4", "0x1", "99999999999999999999999"})
            QVERIFY2(!exit_of(bad), bad);
        QCOMPARE(parse_marker_line(m, m.exited + "x", false).kind, MarkerLine::Kind::Exited);   // read, unreadable
        QCOMPARE(pgid_of("4242"), std::optional<long long>(4242));
        for (const char* bad : {"", "0", "-5", "12a", "1.5"}) QVERIFY2(!pgid_of(bad), bad);
    }

    void onlyWholeLinesOnTheirStream() {
        const WrapperMarkers m = wrapper_markers("00ff00ff00ff00ff");
        QCOMPARE(parse_marker_line(m, m.started + "12", true).kind, MarkerLine::Kind::Output);
        QCOMPARE(parse_marker_line(m, m.exited + "0", true).kind, MarkerLine::Kind::Output);
        QCOMPARE(parse_marker_line(m, m.error + "boom", false).kind, MarkerLine::Kind::Output);
        QCOMPARE(parse_marker_line(m, " " + m.exited + "0", false).kind, MarkerLine::Kind::Output);
        QCOMPARE(parse_marker_line(m, "rank 3: " + m.exited + "0", false).kind, MarkerLine::Kind::Output);
        // Without the trailing blank the marker is another word.
        QCOMPARE(parse_marker_line(m, m.exited.substr(0, m.exited.size() - 1) + "0", false).kind,
                 MarkerLine::Kind::Output);
        const MarkerLine e = parse_marker_line(m, m.error, true);
        QCOMPARE(e.kind, MarkerLine::Kind::Error);
        QCOMPARE(e.message, std::string());
    }

    void torchrunFailedWorker() {
        // The agent's log line (PyTorch 1.13's logging format: LEVEL:logger:message).
        const std::string l =
            "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 3) local_rank: 1 "
            "(pid: 52117) of binary: /usr/bin/python3";
        QCOMPARE(
            torchrun_worker_failure(l),
            std::optional<std::string>("failed (exitcode: 3) local_rank: 1 (pid: 52117) of binary: /usr/bin/python3"));
        QVERIFY(!torchrun_worker_failure("failed (exitcode: 3) of binary: x"));   // no local_rank
        QVERIFY(!torchrun_worker_failure("step 10 local_rank: 0 loss 2.1"));
        QVERIFY(!torchrun_worker_failure(""));
    }
};

QTEST_GUILESS_MAIN(TstJobMarkers)
#include "tst_job_markers.moc"
