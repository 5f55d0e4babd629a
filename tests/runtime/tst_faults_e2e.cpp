// Faults that must end a job everywhere, fast, and leave nothing behind, over real
// OpenSSH on loopback (two sshd: one per node where a node's link must fail alone):
// one node unreachable, one node that accepts TCP and never speaks, a hung link (the
// node's sshd stopped with SIGSTOP), a rank printing the wrapper's exit marker, and the
// launching paraplan-cli killed with SIGKILL. Each test counts what is left: the job's
// tagged processes, ssh clients started from here and sshd sessions.
#include "e2e_common.h"
#include "proc_tag.h"
#include "runtime/connection_test.h"
#include "runtime/job.h"
#include "runtime/job_control.h"
#include "joblog/job_history.h"
#include "launch/launch_plan.h"

#include <QtTest>

#include <algorithm>
#include <csignal>
#include <sys/socket.h>

using namespace paraplan;
using namespace paraplan::runtime;

namespace {

struct ProcInfo {
    qint64 pid = 0, ppid = 0;
    QString comm;
};

QList<ProcInfo> all_processes() {
    QList<ProcInfo> out;
    for (const QString& e : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        bool ok = false;
        const qint64 pid = e.toLongLong(&ok);
        if (!ok) continue;
        QFile f("/proc/" + e + "/stat");
        if (!f.open(QIODevice::ReadOnly)) continue;
        const QByteArray s = f.readAll();
        const int open = s.indexOf('('), close = s.lastIndexOf(')');
        if (open < 0 || close < 0) continue;
        const QList<QByteArray> rest = s.mid(close + 2).split(' ');
        if (rest.size() < 2) continue;
        out.push_back({pid, rest[1].toLongLong(), QString::fromUtf8(s.mid(open + 1, close - open - 1))});
    }
    return out;
}

// Every descendant of `root` (not root itself).
QList<ProcInfo> descendants(qint64 root) {
    const auto all = all_processes();
    QList<ProcInfo> out;
    QList<qint64> frontier{root};
    while (!frontier.isEmpty()) {
        const qint64 p = frontier.takeFirst();
        for (const auto& pi : all)
            if (pi.ppid == p) {
                out.push_back(pi);
                frontier.push_back(pi.pid);
            }
    }
    return out;
}

// ssh clients whose command line names `needle` (the fixture's key path: only this test's).
QStringList ssh_clients_naming(const QString& needle) {
    QStringList out;
    for (const auto& pi : all_processes()) {
        if (pi.comm != "ssh") continue;
        QFile f(QString("/proc/%1/cmdline").arg(pi.pid));
        if (f.open(QIODevice::ReadOnly) && f.readAll().contains(needle.toUtf8())) out << QString::number(pi.pid);
    }
    return out;
}

void signal_sshd(qint64 listener, int sig) {
    ::kill(static_cast<pid_t>(listener), sig);
    for (const auto& pi : descendants(listener))
        if (pi.comm == "sshd") ::kill(static_cast<pid_t>(pi.pid), sig);
}

}   // namespace

class TestFaultsE2E : public QObject {
    Q_OBJECT
    SshdFixture sshd, sshd2;
    QTemporaryDir work{QDir::tempPath() + "/pp-faults-XXXXXX"};
    QString known_hosts;

    RuntimeConfig rc(const std::string& script) const {
        RuntimeConfig r = loopback_runtime(QString());
        r.path_prepend.clear();
        r.python = "/bin/sh";
        r.script = "-c";
        r.args = {script};
        r.mode = "direct";
        return r;
    }

    // The user's profile: the first sshd's key (the second accepts it too) and both host keys.
    SshProfile profile() const {
        SshProfile p = loopback_profile(sshd);
        p.known_hosts_file = known_hosts.toStdString();
        return p;
    }

    // Node 1 on the second sshd (its own port).
    Cluster split_cluster() const {
        Cluster c = loopback_cluster(sshd);
        c.nodes[1].port = sshd2.port;
        return c;
    }

    std::unique_ptr<Job> make_job(const Cluster& c, const RuntimeConfig& r, const std::string& name,
                                  const std::function<void(LaunchPlan&)>& tweak = {}) {
        static int n = 0;
        const std::string id = make_job_id(name, QDateTime::currentSecsSinceEpoch()) + "-" + std::to_string(++n);
        LaunchPlan plan = plan_launch(c, r, id);
        if (tweak) tweak(plan);
        return std::make_unique<Job>(c, plan, ssh_options_from(r, profile()),
                                     (work.path() + "/jobs/").toStdString() + id, nlohmann::json::object());
    }

    QStringList left_behind(const std::string& id) const {
        QStringList left = wait_no_tagged(id, 20000);
        for (int i = 0; i < 100; ++i) {
            if (ssh_clients_naming(sshd.dir).isEmpty() && ssh_clients_naming(sshd2.dir).isEmpty() &&
                descendants(sshd.pid()).isEmpty() && descendants(sshd2.pid()).isEmpty())
                break;
            QThread::msleep(100);
        }
        for (const auto& s : ssh_clients_naming(sshd.dir) + ssh_clients_naming(sshd2.dir)) left << "ssh:" + s;
        for (const auto& pi : descendants(sshd.pid()) + descendants(sshd2.pid()))
            left << QString("%1:%2").arg(pi.comm).arg(pi.pid);
        return left;
    }

private slots:
    void initTestCase() {
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        if (!sshd2.start()) QSKIP(qPrintable("a second loopback sshd cannot start here: " + sshd2.error));
        known_hosts = work.path() + "/known_hosts";
        SshdFixture::write(known_hosts, SshdFixture::read(sshd.known_hosts) + SshdFixture::read(sshd2.known_hosts));
        // One identity per launch (the user's profile): the second sshd authorises the first's key.
        SshdFixture::write(sshd2.dir + "/authorized_keys", SshdFixture::read(sshd2.dir + "/authorized_keys") +
                                                               SshdFixture::read(sshd.user_key + ".pub"));
        use_local_profile(work.path(), profile());
    }

    void oneNodeUnreachable() {
        // Node 1's port has no listener (connection refused) while node 0 connects.
        Cluster c = split_cluster();
        const int closed = sshd2.port;
        c.nodes[1].port = closed + 1 == sshd.port ? closed + 2 : closed + 1;
        // The ranks would sleep ten minutes: only the unreachable node can end the job within the wait.
        auto job = make_job(c, rc("sleep 600"), "fault unreachable");
        job->start();
        QVERIFY(job->waitFinished(120000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(job->error().find("127.0.0.3") != std::string::npos, job->error().c_str());
        // Nothing started anywhere; node 0's ranks say why.
        for (const auto& p : job->processes()) {
            QVERIFY(p->finished);
            QVERIFY(!p->proc);
        }
        QVERIFY(job->processes()[0]->error.find("not started") != std::string::npos);
        const QStringList left = left_behind(job->plan().job_id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void oneNodeSilent() {
        // Node 1 accepts TCP and never sends a banner (a listening socket nobody serves).
        const int s = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        inet_pton(AF_INET, "127.0.0.3", &a.sin_addr);
        a.sin_port = 0;
        QVERIFY(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        QVERIFY(::listen(s, 16) == 0);
        socklen_t len = sizeof a;
        ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
        Cluster c = split_cluster();
        c.nodes[1].port = ntohs(a.sin_port);
        RuntimeConfig r = rc("sleep 600");   // only the silent node can end the job within the wait
        r.connect_timeout_s = 2;
        auto job = make_job(c, r, "fault silent");
        job->start();
        QVERIFY(job->waitFinished(120000));
        ::close(s);
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(job->error().find("127.0.0.3") != std::string::npos, job->error().c_str());
        const QStringList left = left_behind(job->plan().job_id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void hungLinkEndsTheRanksOnThatNode() {
        // Node 1's sshd (listener and sessions) is stopped while the ranks run: the ssh
        // keepalive reports the link lost here, node 0 is stopped, and node 1's watchdogs,
        // without heartbeats, end their ranks themselves.
        RuntimeConfig r = rc("while :; do sleep 0.2; done");
        r.server_alive_interval_s = 1;
        r.stop_grace_s = 1;
        auto job = make_job(split_cluster(), r, "fault hung link", [](LaunchPlan& p) {
            p.heartbeat_s = 1;
            p.lost_after_s = 4;
        });
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(processes_with_tag(id).size() >= 8, 20000);   // 4 wrappers' groups
        QTRY_VERIFY_WITH_TIMEOUT(job->processes()[3]->pgid.has_value(), 20000);
        signal_sshd(sshd2.pid(), SIGSTOP);
        // The ranks loop forever: the job ends only through the lost link. Ranks on the stopped node go
        // (lost_after_s + grace) with their sshd still stopped.
        const bool ended = job->waitFinished(120000);
        QStringList left = wait_no_tagged(id, 15000);
        signal_sshd(sshd2.pid(), SIGCONT);
        QVERIFY(ended);
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(job->error().find("127.0.0.3") != std::string::npos, job->error().c_str());
        QVERIFY2(left.isEmpty(), qPrintable("ranks left: " + left.join(' ')));
        // `stop` still reaches the node whose link was lost (no "already finished").
        const auto rec = find_job((work.path() + "/jobs").toStdString(), id);
        QVERIFY(rec);
        for (const auto& o : stop_job(*rec, SshOptions{}, {{"default", profile()}}, 20000)) {
            if (o.host != "127.0.0.3") continue;
            QVERIFY2(o.result.find("already finished") == std::string::npos, o.result.c_str());
            QVERIFY2(o.ok, o.result.c_str());
        }
        left = left_behind(id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void forgedExitMarkerIsJustOutput() {
        Cluster one = split_cluster();
        one.nodes.resize(1);
        one.nodes[0].gpus = 1;
        auto job = make_job(one, rc("echo '__PARAPLAN_EXIT__ 0'; echo '__PARAPLAN_STARTED__ 1'; sleep 1; exit 3"),
                            "fault forged marker");
        job->start();
        QVERIFY(job->waitFinished(30000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QCOMPARE(*job->processes()[0]->exit_code, 3);
        QVERIFY(job->processes()[0]->pgid.value_or(1) != 1);
        const QString log = SshdFixture::read(QString::fromStdString(job->folder()) + "/rank-0.log");
        QVERIFY2(log.startsWith("__PARAPLAN_EXIT__ 0\n__PARAPLAN_STARTED__ 1\n"), qPrintable(log));
        const QStringList left = left_behind(job->plan().job_id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void torchrunFirstWorkerFailure() {
        // Real torchrun (Debian's python3-torch) on both nodes; rank 2's worker exits 3 at
        // once while the others sleep and share no collective, so node 1's agent sits in
        // its exit barrier. With fail_fast the job fails at that first worker's report;
        // without, the job says why it goes on, and Stop ends it.
        if (!QFile::exists("/usr/bin/torchrun")) QSKIP("torchrun is not installed (apt-get install python3-torch)");
        // Debian 12's torchrun cannot start on Python 3.11; the launcher is the same torchrun
        // with that one bug fixed (tests/runtime/stub/torchrun-py311 says how).
        const std::string launcher = std::string(PARAPLAN_SOURCE_DIR) + "/tests/runtime/stub/torchrun-py311";
        const QString script = work.path() + "/worker.py";
        SshdFixture::write(script,
                           "import os, sys, time\nif os.environ['RANK'] == '2':\n    sys.exit(3)\ntime.sleep(120)\n");
        // torch 1.13 spells the flags with underscores only; the tweak leaves a plan that
        // already does so unchanged.
        auto underscores = [](LaunchPlan& p) {
            for (auto& proc : p.processes)
                for (auto& a : proc.argv)
                    for (const char* f :
                         {"--nproc-per-node", "--node-rank", "--rdzv-backend", "--master-addr", "--master-port"})
                        if (a.rfind(f, 0) == 0) {
                            std::string u = f;
                            std::replace(u.begin() + 2, u.end(), '-', '_');
                            a = u + a.substr(std::string(f).size());
                        }
        };
        for (bool fast : {true, false}) {
            RuntimeConfig r = rc("");
            r.mode = "torchrun";
            r.launcher = launcher;
            r.script = script.toStdString();
            r.args.clear();
            r.master_port = SshdFixture::free_port();   // free now: tests run side by side
            r.fail_fast = fast;
            r.stop_grace_s = 2;
            auto job = make_job(loopback_cluster(sshd), r, fast ? "torch fail fast" : "torch barrier", underscores);
            QStringList lines;
            connect(job.get(), &Job::line, this, [&lines](int, const QString& l, bool) { lines << l; });
            job->start();
            if (fast) {
                QVERIFY(job->waitFinished(90000));
                QCOMPARE(Job::to_string(job->state()), std::string("failed"));
                const QString logs = SshdFixture::read(QString::fromStdString(job->folder()) + "/node-0.log") +
                                     SshdFixture::read(QString::fromStdString(job->folder()) + "/node-1.log");
                QVERIFY2(job->error().find("a torchrun worker failed on node-1") != std::string::npos,
                         qPrintable(QString::fromStdString(job->error()) + "\n" + logs));
                QVERIFY2(job->error().find("fail_fast") != std::string::npos, job->error().c_str());
            } else {
                QTRY_VERIFY_WITH_TIMEOUT(lines.filter("exit barrier").size() == 1, 90000);
                QVERIFY(!job->done());
                job->stop();
                QVERIFY(job->waitFinished(60000));
            }
            const QStringList left = left_behind(job->plan().job_id);
            QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
        }
    }

    void killedCliLeavesNothing() {
        nlohmann::json nodes = nlohmann::json::array();
        const Cluster c = split_cluster();
        for (const auto& n : c.nodes)
            nodes.push_back({{"name", n.name},
                             {"host", n.host},
                             {"port", n.port},
                             {"user", n.user},
                             {"gpu", "a100-80g"},
                             {"gpus", n.gpus}});
        const nlohmann::json project = {{"paraplan", 1},
                                        {"name", "killed cli"},
                                        {"cluster", {{"nodes", nodes}}},
                                        {"model", {{"preset", "gpt2"}}},
                                        {"layout", {{"framework", "colossalai"}, {"tp", 2}, {"pp", 2}}},
                                        {"runtime",
                                         {{"mode", "direct"},
                                          {"python", "/bin/sh"},
                                          {"script", "-c"},
                                          {"args", {"while :; do sleep 0.2; done"}},
                                          {"upload_configs", false},
                                          {"stop_grace_s", 1}}}};
        const QString file = work.path() + "/killed.paraplan.json";
        SshdFixture::write(file, QString::fromStdString(project.dump(2)));
        QProcess cli;
        cli.start(PARAPLAN_CLI, {"launch", file, "--job-dir", work.path() + "/cli-jobs"});
        QVERIFY(cli.waitForStarted());
        QString id;
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                const auto d = QDir(work.path() + "/cli-jobs").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
                if (d.isEmpty()) return false;
                id = d[0];
                return processes_with_tag(id.toStdString()).size() >= 8;
            }(),
            30000);
        QVERIFY(!ssh_clients_naming(sshd.dir).isEmpty());
        ::kill(static_cast<pid_t>(cli.processId()), SIGKILL);
        cli.waitForFinished(5000);
        const QStringList left = left_behind(id.toStdString());
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }
};

QTEST_GUILESS_MAIN(TestFaultsE2E)
#include "tst_faults_e2e.moc"
