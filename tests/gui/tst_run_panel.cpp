// RunPanel and GpuMonitor widgets (offscreen) driving a real job and a real telemetry
// stream over the loopback sshd (tests/runtime/sshd_fixture.h, stub nvidia-smi).
#include "run/gpu_monitor.h"
#include "run/log_view.h"
#include "guitest.h"
#include "mainwindow.h"
#include "run/run_panel.h"
#include "runtime/e2e_common.h"
#include "runtime/connection_test.h"
#include "runtime/job_start.h"
#include "launch/launch_settings.h"

#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QtTest>

using namespace paraplan;

class TestRunPanel : public QObject {
    Q_OBJECT
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-gui-XXXXXX"};

    Project project(const nlohmann::json& extra_runtime) {
        Project p;
        p.name = "gui run";
        p.cluster = loopback_cluster(sshd);
        const auto rc = loopback_runtime(stub_bin(work.path()));
        nlohmann::json rt = extra_runtime;
        rt["path_prepend"] = rc.path_prepend;
        rt["workdir"] = (work.path() + "/run").toStdString();   // where the config files are copied
        rt["stop_grace_s"] = 2;
        p.runtime = rt;
        return p;
    }

private slots:
    void initTestCase() {
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        use_local_profile(work.path(), loopback_profile(sshd));   // the user's ssh profile, not the project's
    }

    void stripAnsi() { QCOMPARE(widgets::strip_ansi("\x1b[1;31merror\x1b[0m: x"), QString("error: x")); }

    void launchShowsLogsThenStop() {
        widgets::RunPanel panel;
        panel.setProject(project({{"python", "/bin/sh"},
                                  {"script", "-c"},
                                  // The colour codes come from printf: a raw ESC in a project value is refused
                                  // (control characters never reach a command line).
                                  {"args", {"printf '\\033[32mhello\\033[0m from %s\\n' \"$RANK\"; sleep 60"}}}),
                         work.path() + "/jobs");
        QCOMPARE(panel.pastJobCount(), 0);
        panel.launch();
        QVERIFY(panel.job());
        QTRY_VERIFY_WITH_TIMEOUT(panel.logText().contains("[rank-3] hello from 3"), 30000);
        QVERIFY(!panel.logText().contains("\x1b"));
        // The log shows one rank's lines when asked (the lines keep their rank).
        QVERIFY(panel.logView()->setFilter("rank 2"));
        QTRY_VERIFY_WITH_TIMEOUT(panel.logText().contains("[rank-2] hello from 2"), 30000);   // as lines arrive
        QVERIFY(!panel.logText().contains("hello from 3"));
        QVERIFY(panel.logView()->setFilter("All"));
        panel.stop();
        QTRY_VERIFY_WITH_TIMEOUT(panel.job()->done(), 30000);
        QCOMPARE(runtime::Job::to_string(panel.job()->state()), std::string("stopped"));
        QCOMPARE(panel.pastJobCount(), 1);
    }

    // A job the panel did not start (as `paraplan-cli launch` runs one, through the same
    // runtime::create_job): listed as running in Past jobs, and Stop Listed Job ends it on every
    // node as `paraplan-cli stop` would, without waiting on ssh on the GUI thread.
    void stopsAJobLaunchedElsewhere() {
        const Project p = project({{"python", "/bin/sh"}, {"script", "-c"}, {"args", {"echo up $RANK; sleep 60"}}});
        const QString dir = work.path() + "/jobs-elsewhere";
        const auto ls = runtime::launch_settings(p, runtime::load_ssh_profiles());
        auto other = runtime::create_job(p, ls.rc, ls.ssh, dir.toStdString(), "20261205-010000-cli",
                                         runtime::JobKind::Training);
        int up = 0;
        connect(other.get(), &runtime::Job::line, this, [&up](int, const QString& text, bool) {
            if (text.startsWith("up ")) ++up;
        });
        other->start();
        QTRY_COMPARE_WITH_TIMEOUT(up, 4, 30000);

        widgets::RunPanel panel;
        panel.setProject(p, dir);
        auto* stopListed = panel.findChild<QPushButton*>(QStringLiteral("stopListedJob"));
        QVERIFY(stopListed);
        QCOMPARE(panel.pastJobCount(), 1);
        QVERIFY(!stopListed->isEnabled());   // nothing selected yet
        panel.pastJobs()->setCurrentRow(0);
        QVERIFY2(panel.pastJobs()->item(0)->text().contains("running"), qPrintable(panel.pastJobs()->item(0)->text()));
        QVERIFY(stopListed->isEnabled());
        stopListed->click();
        QVERIFY(!stopListed->isEnabled());   // under way, off the GUI thread
        QTRY_VERIFY_WITH_TIMEOUT(other->done(), 30000);
        QVERIFY2(other->state() != runtime::Job::State::Succeeded,
                 runtime::Job::to_string(other->state()).c_str());   // ended by the stop, not by itself
        QTRY_VERIFY_WITH_TIMEOUT(panel.logText().count(QStringLiteral(": stopped")) == 4, 30000);
        QVERIFY2(panel.logText().contains("[stop] rank-0 on 127.0.0.2: stopped"), qPrintable(panel.logText()));
    }

    // A project naming local ssh files: Dry run lists each as ignored, and the commands carry the
    // user's profile values instead (the fixture's key), never the project's.
    void dryRunReportsIgnoredSettings() {
        widgets::RunPanel panel;
        Project p = project({{"python", "/bin/sh"}, {"script", "-c"}, {"args", {"true"}}});
        p.runtime["ssh"] = {{"known_hosts_file", "/tmp/theirs"}, {"options", {"ProxyCommand=touch /tmp/pp-x"}}};
        p.cluster.nodes[1].identity = "/tmp/their-key";
        panel.setProject(p, work.path() + "/jobs-dry");
        panel.dryRun();
        const QString log = panel.logText();
        QVERIFY2(log.contains("warning: /runtime/ssh/known_hosts_file: ignored"), qPrintable(log));
        QVERIFY2(log.contains("warning: /runtime/ssh/options/0: ignored: ProxyCommand is refused"), qPrintable(log));
        QVERIFY2(log.contains("warning: /cluster/nodes/1/identity: ignored"), qPrintable(log));
        QVERIFY(log.contains("-i " + sshd.user_key));
        QVERIFY(!log.contains("/tmp/theirs") && !log.contains("touch /tmp/pp-x") && !log.contains("/tmp/their-key"));
    }

    // A job that prints Megatron-LM's training_log line (megatron/training/training.py): the
    // panel shows the measured step time (median after the first line) as the job runs.
    void showsMeasuredStepTime() {
        widgets::RunPanel panel;
        Project p = project(
            {{"python", "/bin/sh"},
             {"script", "-c"},
             {"args",
              {"for ms in 9000.0 1500.0 1500.0 1700.0; do echo \" iteration       10/     100 | consumed samples:"
               "          640 | elapsed time per iteration (ms): $ms | global batch size:    64 |\"; done; sleep "
               "60"}}});
        p.model = load_example("llama3.1-8b-pp4-1node").model;
        for (auto& n : p.cluster.nodes) n.gpu = "h100-sxm";
        panel.setProject(p, work.path() + "/jobs-step");
        QVERIFY(panel.stepTimeText().isEmpty());
        panel.launch();
        QVERIFY(panel.job());
        QTRY_VERIFY2_WITH_TIMEOUT(panel.stepTimeText().contains("measured 1.500 s"),
                                  qPrintable(panel.stepTimeText() + " | log: " + panel.logText().left(600)), 30000);
        QVERIFY(panel.stepTimeText().contains("megatron"));
        // Beside the estimate of the same project.
        QVERIFY2(panel.stepTimeText().contains(" · estimate "), qPrintable(panel.stepTimeText()));
        qInfo("%s", qPrintable(panel.stepTimeText()));
        panel.stop();
        QTRY_VERIFY_WITH_TIMEOUT(panel.job()->done(), 30000);
    }

    // Closing the app while a job runs asks first: Cancel keeps both; "Stop the Job and Quit"
    // stops the job on every node, then closes.
    void closingAsksBeforeStoppingAJob() {
        QTemporaryDir settings;
        isolateSettings(settings);
        use_local_profile(settings.path(), loopback_profile(sshd));   // the new settings folder has none yet
        MainWindow w(nullptr, settings.filePath(QStringLiteral("rec")));
        w.setProject(project({{"python", "/bin/sh"}, {"script", "-c"}, {"args", {"echo up $RANK; sleep 60"}}}),
                     QString());
        w.runPanel()->setProject(w.project(), work.path() + "/jobs-close");
        w.runPanel()->launch();
        QVERIFY(w.runPanel()->job());
        QTRY_VERIFY_WITH_TIMEOUT(w.runPanel()->logText().contains("up 3"), 30000);
        w.show();
        auto answer = [&w](const QString& button) {
            QTRY_VERIFY(w.findChild<QMessageBox*>(QStringLiteral("runningJobBox")));
            auto* box = w.findChild<QMessageBox*>(QStringLiteral("runningJobBox"));
            for (QAbstractButton* b : box->buttons())
                if (b->text() == button || (box->standardButton(b) == QMessageBox::Cancel && button == "Cancel")) {
                    b->click();
                    return;
                }
            QFAIL(qPrintable(QStringLiteral("no button ") + button));
        };
        // The question is window-modal: close() returns at once, the answer decides.
        QVERIFY(!w.close());
        answer(QStringLiteral("Cancel"));
        QTRY_VERIFY(!w.findChild<QMessageBox*>(QStringLiteral("runningJobBox")));
        QVERIFY(w.isVisible());
        QVERIFY(!w.runPanel()->job()->done());
        QVERIFY(!w.close());
        answer(QStringLiteral("Stop the Job and Quit"));
        QTRY_VERIFY_WITH_TIMEOUT(!w.isVisible(), 60000);   // closed once the job has ended
        QVERIFY(w.runPanel()->job()->done());
        QCOMPARE(runtime::Job::to_string(w.runPanel()->job()->state()), std::string("stopped"));
    }

    void gpuMonitorShowsEveryGpu() {
        const Project p = project(nlohmann::json::object());
        const auto rc = runtime::runtime_config_from_json(p.runtime);
        runtime::TelemetryMonitor mon(p.cluster, runtime::ssh_options_from(rc, loopback_profile(sshd)), 250,
                                      rc.path_prepend);
        widgets::GpuMonitor view;
        view.resize(800, 600);
        view.setMonitor(&mon, p.cluster);
        mon.start();
        QTRY_VERIFY_WITH_TIMEOUT(view.rowCount() == 4, 30000);
        QCOMPARE(view.graphCount(), 4);
        view.setMonitor(nullptr, p.cluster);
        QCOMPARE(view.rowCount(), 0);
        mon.stop();
    }
};

QTEST_MAIN(TestRunPanel)
#include "tst_run_panel.moc"
