// End to end over a real OpenSSH server on loopback: test connection, host-key and key
// failures, hostile hosts and arguments, a failing rank, Stop, paraplan-cli stop,
// telemetry through the stub nvidia-smi, and the job history.
#include "e2e_common.h"
#include "proc_tag.h"
#include "runtime/connection_test.h"
#include "runtime/job.h"
#include "runtime/job_control.h"
#include "joblog/job_history.h"
#include "launch/launch_plan.h"
#include "runtime/telemetry.h"

#include <QtTest>

#include <csignal>

using namespace paraplan;
using namespace paraplan::runtime;

class TestSshE2E : public QObject {
    Q_OBJECT
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-e2e-XXXXXX"};
    QString stub;
    std::string job_dir;

    RuntimeConfig rc() const { return loopback_runtime(stub); }

    std::unique_ptr<Job> make_job(const Cluster& c, const RuntimeConfig& r, const std::string& name) {
        static int n = 0;
        const std::string id = make_job_id(name, QDateTime::currentSecsSinceEpoch()) + "-" + std::to_string(++n);
        auto plan = plan_launch(c, r, id);
        return std::make_unique<Job>(c, plan, ssh_options_from(r, loopback_profile(sshd)), job_dir + "/" + id,
                                     nlohmann::json{{"name", name}}, r.on_failure);
    }

    static bool all_started(const Job& j) {
        for (const auto& p : j.processes())
            if (!p->pgid) return false;
        return true;
    }

private slots:
    void initTestCase() {
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        QVERIFY(work.isValid());
        stub = stub_bin(work.path());
        job_dir = (work.path() + "/jobs").toStdString();
    }

    void testConnectionBothNodes() {
        RuntimeConfig r = rc();
        const auto checks = test_connections(loopback_cluster(sshd), r, ssh_options_from(r, loopback_profile(sshd)),
                                             30000);
        QCOMPARE(checks.size(), std::size_t(2));
        for (const auto& c : checks) {
            QVERIFY2(c.reachable, c.error.message.c_str());
            QVERIFY2(c.ok(), (c.problems.empty() ? std::string() : c.problems.front()).c_str());
            QCOMPARE(c.gpus.size(), std::size_t(2));
            QVERIFY(c.gpus[0].find("NVIDIA H100 80GB HBM3") != std::string::npos);
            QVERIFY(c.python.rfind("Python 3", 0) == 0);
            QCOMPARE(c.launcher_path, std::string("/usr/bin/python3"));
        }
        // Without the stub on the PATH: reachable, but no GPUs seen.
        r.path_prepend.clear();
        const auto bare = test_connections(loopback_cluster(sshd, 1), r, ssh_options_from(r, loopback_profile(sshd)),
                                           30000);
        QVERIFY(bare[0].reachable);
        QVERIFY(!bare[0].ok());
        QVERIFY(!bare[0].nvidia_smi);
        // torchrun mode needs torchrun: reported missing (not on this PATH).
        r.mode = "torchrun";
        r.launcher = "no-such-launcher";
        const auto nol = test_connections(loopback_cluster(sshd, 1), r, ssh_options_from(r, loopback_profile(sshd)),
                                          30000);
        QVERIFY(nol[0].launcher_path.empty());
        QVERIFY(nlohmann::json(to_json(nol[0])).dump().find("no-such-launcher") != std::string::npos);
    }

    void sshFailuresAreClassified_data() {
        QTest::addColumn<QString>("what");
        QTest::addColumn<QString>("kind");
        QTest::newRow("unknown host key") << "unknown"
                                          << "unknown_host_key";
        QTest::newRow("changed host key") << "changed"
                                          << "changed_host_key";
        QTest::newRow("wrong key") << "wrongkey"
                                   << "auth_failed";
        QTest::newRow("nothing listening") << "refused"
                                           << "connection_refused";
    }
    void sshFailuresAreClassified() {
        QFETCH(QString, what);
        QFETCH(QString, kind);
        Cluster c = loopback_cluster(sshd, 1);
        RuntimeConfig r = rc();
        SshProfile profile = loopback_profile(sshd);
        if (what == "unknown") {
            const QString empty = work.path() + "/empty_known_hosts";
            SshdFixture::write(empty, "");
            profile.known_hosts_file = empty.toStdString();
        } else if (what == "changed") {
            const QString other = work.path() + "/changed_known_hosts";
            const QString key = SshdFixture::read(sshd.wrong_key + ".pub").section(' ', 0, 1);
            SshdFixture::write(other, QString("[127.0.0.2]:%1 %2\n").arg(sshd.port).arg(key));
            profile.known_hosts_file = other.toStdString();
        } else if (what == "wrongkey") {
            profile.identity_file = sshd.wrong_key.toStdString();
        } else if (what == "refused") {
            c.nodes[0].port = sshd.port == 65000 ? 65001 : 65000;
        }
        // The check ends on the failure itself: its kind is the failure's, not the 20 s bound's ("timeout").
        const auto checks = test_connections(c, r, ssh_options_from(r, profile), 20000);
        QVERIFY(!checks[0].reachable);
        QCOMPARE(QString::fromStdString(to_string(checks[0].error.kind)), kind);
        QVERIFY(!checks[0].error.fix.empty());
        // Never accepted silently: the known_hosts file is unchanged for the key cases.
        if (what == "unknown") QCOMPARE(SshdFixture::read(QString::fromStdString(profile.known_hosts_file)), QString());
        // The fix commands name the sshd's port and the profile's known_hosts file.
        const std::string& fix = checks[0].error.fix;
        const std::string port = std::to_string(sshd.port);
        if (what == "unknown")
            QVERIFY2(fix.find("ssh-keyscan -H -p " + port + " 127.0.0.2 >> " + profile.known_hosts_file) !=
                         std::string::npos,
                     fix.c_str());
        if (what == "changed")
            QVERIFY2(fix.find("ssh-keygen -R '[127.0.0.2]:" + port + "' -f " + profile.known_hosts_file) !=
                         std::string::npos,
                     fix.c_str());
    }

    void hostileHostNamesNeverRun() {
        QFile::remove("/tmp/pp-pwned");
        for (const char* host : {"127.0.0.2;touch /tmp/pp-pwned", "$(touch /tmp/pp-pwned)",
                                 "-oProxyCommand=touch /tmp/pp-pwned", "`touch /tmp/pp-pwned`"}) {
            Cluster c = loopback_cluster(sshd, 1);
            c.nodes[0].host = host;
            RuntimeConfig r = rc();
            const auto checks = test_connections(c, r, ssh_options_from(r, loopback_profile(sshd)), 10000);
            QVERIFY2(!checks[0].reachable, host);
            QVERIFY(!checks[0].error.message.empty());
        }
        QVERIFY(!QFile::exists("/tmp/pp-pwned"));
    }

    void hostileArgumentsArriveIntact() {
        Cluster c = loopback_cluster(sshd, 1, 1);
        RuntimeConfig r = rc();
        r.python = "/bin/sh";
        r.script = "-c";
        const std::string hostile = "$(touch /tmp/pp-pwned) `id` ; it's \"q\" $HOME \\ *";
        r.args = {
            "printf 'arg=%s\\n' \"$1\"; printf 'env=%s\\n' \"$HOSTILE\"; printf 'rank=%s ws=%s\\n' \"$RANK\" "
            "\"$WORLD_SIZE\"",
            "sh", hostile};
        r.env = {{"HOSTILE", hostile}};
        QFile::remove("/tmp/pp-pwned");
        auto job = make_job(c, r, "hostile args");
        QStringList lines;
        connect(job.get(), &Job::line, this, [&lines](int, const QString& l, bool) { lines << l; });
        job->start();
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("succeeded"));
        QCOMPARE(lines, (QStringList{"arg=" + QString::fromStdString(hostile), "env=" + QString::fromStdString(hostile),
                                     "rank=0 ws=1"}));
        QVERIFY(!QFile::exists("/tmp/pp-pwned"));
        // The log holds the same lines, job.json the exit code.
        const QString log = SshdFixture::read(QString::fromStdString(job->folder()) + "/rank-0.log");
        QCOMPARE(log, lines.join('\n') + "\n");
        const auto rec = find_job(job_dir, job->plan().job_id);
        QVERIFY(rec);
        QCOMPARE(rec->state, std::string("succeeded"));
        QCOMPARE(rec->json["processes"][0]["exit_code"].get<int>(), 0);
    }

    void failingRankStopsTheOthers() {
        Cluster c = loopback_cluster(sshd);
        RuntimeConfig r = rc();
        r.python = "/bin/sh";
        r.script = "-c";
        r.args = {
            "echo \"rank $RANK on $(hostname) CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES\"; "
            "if [ \"$RANK\" = 1 ]; then sleep 2; echo failing >&2; exit 1; fi; sleep 600 & sleep 601; wait"};
        auto job = make_job(c, r, "one rank fails");
        const std::string id = job->plan().job_id;
        job->start();
        // The other ranks sleep for ten minutes: only rank 1's failure can end the job within the wait.
        QVERIFY(job->waitFinished(120000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(job->error().find("rank-1") != std::string::npos, job->error().c_str());
        const auto& procs = job->processes();
        QCOMPARE(*procs[1]->exit_code, 1);
        for (int i : {0, 2, 3}) QCOMPARE(*procs[static_cast<std::size_t>(i)]->exit_code, 143);
        const QStringList left = wait_no_tagged(id, 10000);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
        QVERIFY(pgrep_f(id).isEmpty());
        QVERIFY(SshdFixture::read(QString::fromStdString(job->folder()) + "/rank-1.log").contains("failing"));
        QVERIFY(SshdFixture::read(QString::fromStdString(job->folder()) + "/rank-2.log")
                    .contains("rank 2 on " + QSysInfo::machineHostName() + " CUDA_VISIBLE_DEVICES=0"));
    }

    void stopMidRun() {
        Cluster c = loopback_cluster(sshd);
        RuntimeConfig r = rc();
        r.python = "/bin/sh";
        r.script = "-c";
        r.args = {"trap '' HUP; i=0; while :; do echo \"tick $RANK $i\"; i=$((i+1)); sleep 0.3; done"};
        auto job = make_job(c, r, "stop me");
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(all_started(*job), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(
            SshdFixture::read(QString::fromStdString(job->folder()) + "/rank-3.log").contains("tick 3 2"), 15000);
        QVERIFY(processes_with_tag(id).size() >= 4);
        job->stop();
        QVERIFY(job->waitFinished(30000));
        QCOMPARE(Job::to_string(job->state()), std::string("stopped"));
        const QStringList left = wait_no_tagged(id, 10000);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
        QVERIFY(pgrep_f(id).isEmpty());
        const auto rec = find_job(job_dir, id);
        QVERIFY(rec);
        QCOMPARE(rec->state, std::string("stopped"));
        QVERIFY(!rec->ended.empty());
        QCOMPARE(rec->json["processes"].size(), std::size_t(4));
        QVERIFY(rec->json["processes"][2]["command"].get<std::string>().find("ControlPath=") != std::string::npos);
    }

    void droppedConnectionFailsTheJob() {
        // The node's shared connection dies (here: its master ssh is killed): the ranks on
        // that node lose their channel, the job fails, the others are stopped, and the remote
        // watchdogs end every process group.
        Cluster c = loopback_cluster(sshd);
        RuntimeConfig r = rc();
        r.python = "/bin/sh";
        r.script = "-c";
        r.args = {"echo up $RANK; sleep 120 & sleep 121; wait"};
        auto job = make_job(c, r, "dropped");
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(all_started(*job), 30000);
        const qint64 master = job->node(1)->masterPid();
        QVERIFY(master > 0);
        QCOMPARE(::kill(static_cast<pid_t>(master), SIGKILL), 0);
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        bool lost = false;
        for (const auto& p : job->processes()) lost = lost || p->error_kind == "connection_lost";
        QVERIFY2(lost, job->error().c_str());
        // Said as a lost connection, not as the status of a remote command (QProcess reports
        // the killed master as exit code 9).
        QVERIFY2(job->error().find("status 9") == std::string::npos, job->error().c_str());
        const QStringList left = wait_no_tagged(id, 15000);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void stopFromAnotherProcessViaJobJson() {
        // What `paraplan-cli stop JOB` does: only job.json is known.
        Cluster c = loopback_cluster(sshd, 2, 1);
        RuntimeConfig r = rc();
        r.python = "/bin/sh";
        r.script = "-c";
        r.args = {"sleep 120 & sleep 121; wait"};
        auto job = make_job(c, r, "external stop");
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(all_started(*job), 30000);
        const auto rec = find_job(job_dir, id);
        QVERIFY(rec);
        // The local ssh values come from the user's profile the record names, never the record.
        const SshProfiles mine{{"default", loopback_profile(sshd)}};
        QCOMPARE(rec->json.value("ssh_profile", ""), std::string("default"));
        QVERIFY(!rec->json.contains("known_hosts_file") && !rec->json.contains("ssh_config_file"));
        const auto outcomes = stop_job(*rec, SshOptions{}, mine, 30000);
        QCOMPARE(outcomes.size(), std::size_t(2));
        for (const auto& o : outcomes) QVERIFY2(o.ok && o.result == "stopped", o.result.c_str());
        QVERIFY(job->waitFinished(30000));
        // The launch records a job stopped from outside as stopped, not failed by the signal.
        QCOMPARE(Job::to_string(job->state()), std::string("stopped"));
        const QStringList left = wait_no_tagged(id, 10000);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
        // A second stop finds nothing to do.
        const auto again = stop_job(*find_job(job_dir, id), SshOptions{}, mine, 30000);
        for (const auto& o : again) QVERIFY(o.ok);
        // A mistyped record (a pgid written as text) stops nothing and says where; it used to
        // escape as nlohmann's type_error out of `paraplan-cli stop`.
        JobRecord bad = *rec;
        bad.json["processes"][1]["pgid"] = "123";
        const auto refused = stop_job(bad, SshOptions{}, mine, 30000);
        QCOMPARE(refused.size(), std::size_t(1));
        QVERIFY(!refused[0].ok);
        QCOMPARE(refused[0].label, std::string("job.json"));
        QVERIFY2(refused[0].result.find("/processes/1/pgid: expected a process group id") != std::string::npos,
                 refused[0].result.c_str());
    }

    void telemetryThroughStub() {
        Cluster c = loopback_cluster(sshd);
        c.rank_order = {{1, 0}, {1, 1}, {0, 0}, {0, 1}};
        RuntimeConfig r = rc();
        TelemetryMonitor mon(c, ssh_options_from(r, loopback_profile(sshd)), 250, r.path_prepend);
        mon.start();
        QTRY_VERIFY_WITH_TIMEOUT(mon.store().series().size() == 4, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(mon.store().find(1, 1)->samples.size() >= 3, 15000);
        QVERIFY(mon.store().diagnostics().empty());
        QCOMPARE(mon.store().find(1, 0)->rank, 0);
        QCOMPARE(mon.store().find(0, 1)->rank, 3);
        QCOMPARE(*mon.store().find(0, 0)->samples.front().second.memory_total_mib, 81559.0);
        QCOMPARE(static_cast<int>(mon.status()[0].state), static_cast<int>(TelemetryMonitor::NodeState::Streaming));
        mon.stop();
    }

    void slurmSubmitFollowAndCancel() {
        Cluster c = loopback_cluster(sshd);
        RuntimeConfig r = rc();
        r.mode = "slurm";
        r.script = "train.py";
        r.slurm.login_node = "node1";
        const QString state = stub + "/slurm-state";
        QDir().mkpath(state);
        SshdFixture::write(state + "/polls", "2\n");
        SshdFixture::write(state + "/exit", "0\n");
        {
            auto job = make_job(c, r, "slurm ok");
            job->setSlurmPollInterval(200);
            QStringList lines;
            connect(job.get(), &Job::line, this, [&lines](int, const QString& l, bool) { lines << l; });
            job->start();
            QVERIFY(job->waitFinished(60000));
            QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
            QCOMPARE(*job->slurmJobId(), 4242LL);
            QVERIFY(lines.contains("paraplan: Slurm job 4242 RUNNING"));
            QVERIFY(lines.contains("paraplan: Slurm job 4242 ended COMPLETED (exit 0)"));
            // The script that reached sbatch is the planned one.
            QCOMPARE(SshdFixture::read(state + "/job.sh"), QString::fromStdString(job->plan().sbatch_script));
        }
        SshdFixture::write(state + "/exit", "3\n");
        {
            auto job = make_job(c, r, "slurm fails");
            job->setSlurmPollInterval(200);
            job->start();
            QVERIFY(job->waitFinished(60000));
            QCOMPARE(Job::to_string(job->state()), std::string("failed"));
            QVERIFY2(job->error().find("FAILED (exit 3)") != std::string::npos, job->error().c_str());
        }
        SshdFixture::write(state + "/polls", "1000\n");
        {
            auto job = make_job(c, r, "slurm cancelled");
            job->setSlurmPollInterval(200);
            job->start();
            QTRY_VERIFY_WITH_TIMEOUT(job->slurmJobId().has_value(), 30000);
            job->stop();
            QVERIFY(job->waitFinished(60000));
            QCOMPARE(Job::to_string(job->state()), std::string("stopped"));
        }
    }

    void jobHistoryListsPastJobs() {
        const auto jobs = list_jobs(job_dir);
        QVERIFY(jobs.size() >= 4);
        QStringList states;
        for (const auto& j : jobs) states << QString::fromStdString(j.state);
        QVERIFY(states.contains("failed"));
        QVERIFY(states.contains("stopped"));
        QVERIFY(states.contains("succeeded"));
        for (std::size_t i = 1; i < jobs.size(); ++i) QVERIFY(jobs[i - 1].id >= jobs[i].id);
    }
};

QTEST_GUILESS_MAIN(TestSshE2E)
#include "tst_ssh_e2e.moc"
