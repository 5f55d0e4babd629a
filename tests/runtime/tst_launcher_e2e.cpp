// The deepspeed and colossalai launcher modes executed over the loopback sshd: the stub
// launchers of tests/runtime/stub (on the remote PATH) record the argv and environment
// they were started with and start the ranks the way the real launchers do; Stop ends
// each launcher's whole process tree (checked by the job's PARAPLAN_JOB tag).
#include "e2e_common.h"
#include "launcher_stub_script.h"
#include "proc_tag.h"
#include "runtime/connection_test.h"
#include "runtime/job.h"
#include "launch/launch_plan.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;

class TestLauncherE2E : public QObject {
    Q_OBJECT
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-launcher-XXXXXX"};
    QString stub, script;

    RuntimeConfig rc(const std::string& mode, std::vector<std::string> args) const {
        RuntimeConfig r = loopback_runtime(stub);
        r.mode = mode;
        r.script = script.toStdString();
        r.args = std::move(args);
        r.workdir = work.path().toStdString();
        r.master_port = 29100;
        return r;
    }

    std::unique_ptr<Job> make_job(const Cluster& c, const RuntimeConfig& r, const std::string& name) {
        static int n = 0;
        const std::string id = make_job_id(name, QDateTime::currentSecsSinceEpoch()) + "-" + std::to_string(++n);
        return std::make_unique<Job>(c, plan_launch(c, r, id), ssh_options_from(r, loopback_profile(sshd)),
                                     (work.path() + "/jobs/").toStdString() + id, nlohmann::json::object(),
                                     r.on_failure);
    }

    // The argv lines and the env/pwd lines a stub launcher recorded.
    static std::pair<QStringList, QStringList> recorded(const QString& file) {
        const QStringList lines = SshdFixture::read(file).split('\n', Qt::SkipEmptyParts);
        const int sep = static_cast<int>(lines.indexOf("--- env"));
        return {lines.mid(0, sep), lines.mid(sep + 1)};
    }
    static QStringList qt(const std::vector<std::string>& v) {
        QStringList out;
        for (const auto& s : v) out << QString::fromStdString(s);
        return out;
    }

private slots:
    void initTestCase() {
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        stub = stub_bin(work.path());
        script = write_train_stub(work.path());
        QVERIFY(!script.isEmpty());
    }

    void deepspeedRunsOneLauncherPerNode() {
        const Cluster c = loopback_cluster(sshd);
        const RuntimeConfig r = rc("deepspeed", {"--steps", "2"});
        auto job = make_job(c, r, "deepspeed");
        const std::string id = job->plan().job_id;
        QCOMPARE(job->plan().processes.size(), std::size_t(2));
        job->start();
        QVERIFY(job->waitFinished(60000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        for (int k = 0; k < 2; ++k) {
            // The launcher got exactly the planned command line, in the working dir, tagged.
            const auto [argv, env] = recorded(stub + "/launcher-calls/deepspeed-node" + QString::number(k) + ".txt");
            QCOMPARE(argv, qt(job->plan().processes[static_cast<std::size_t>(k)].argv).mid(1));
            QVERIFY(argv.contains("--node_rank=" + QString::number(k)));
            QVERIFY(env.contains("PARAPLAN_JOB=" + QString::fromStdString(id)));
            QVERIFY(env.contains("CUDA_VISIBLE_DEVICES=0,1"));
            QVERIFY(env.contains("pwd=" + work.path()));
            // Its ranks ran with the world deepspeed's launch.py gives them.
            const QString log = SshdFixture::read(QString::fromStdString(job->folder()) + "/node-" +
                                                  QString::number(k) + ".log");
            for (int i = 0; i < 2; ++i) {
                const int rank = k * 2 + i;
                QVERIFY2(
                    log.contains(QString("rank %1 local %2 world 4 master 127.0.0.2:29100 host - args --local_rank=%2 "
                                         "--steps 2")
                                     .arg(rank)
                                     .arg(i)),
                    qPrintable(log));
                QVERIFY(log.contains(QString("step %1 1").arg(rank)));
            }
        }
        QVERIFY(wait_no_tagged(id, 10000).isEmpty());
    }

    void colossalaiRunsOneLauncherOnTheFirstNode() {
        const Cluster c = loopback_cluster(sshd);
        const RuntimeConfig r = rc("colossalai", {"--steps", "2"});
        auto job = make_job(c, r, "colossalai");
        QCOMPARE(job->plan().processes.size(), std::size_t(1));
        job->start();
        QVERIFY(job->waitFinished(60000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        const auto [argv, env] = recorded(stub + "/launcher-calls/colossalai.txt");
        QCOMPARE(argv, qt(job->plan().processes[0].argv).mid(1));
        QCOMPARE(argv.mid(0, 7), (QStringList{"run", "--nproc_per_node", "2", "--host", "127.0.0.2,127.0.0.3",
                                              "--master_addr", "127.0.0.2"}));
        QVERIFY(env.contains("PARAPLAN_JOB=" + QString::fromStdString(job->plan().job_id)));
        const QString log = SshdFixture::read(QString::fromStdString(job->folder()) + "/launcher.log");
        for (int rank = 0; rank < 4; ++rank)
            QVERIFY2(
                log.contains(QString("rank %1 local %2 world 4 master 127.0.0.2:29100 host 127.0.0.%3 args --steps 2")
                                 .arg(rank)
                                 .arg(rank % 2)
                                 .arg(2 + rank / 2)),
                qPrintable(log));
    }

    void stopEndsEveryLauncherTree_data() {
        QTest::addColumn<QString>("mode");
        QTest::addColumn<int>("ranks_plus_launchers");
        QTest::newRow("deepspeed") << "deepspeed" << 4 + 2;
        QTest::newRow("colossalai") << "colossalai" << 4 + 1;
    }

    void stopEndsEveryLauncherTree() {
        QFETCH(QString, mode);
        QFETCH(int, ranks_plus_launchers);
        const Cluster c = loopback_cluster(sshd);
        auto job = make_job(c, rc(mode.toStdString(), {"--steps", "0"}), "stop " + mode.toStdString());
        const std::string id = job->plan().job_id;
        job->start();
        const QString log = QString::fromStdString(job->folder()) +
                            (mode == "deepspeed" ? "/node-1.log" : "/launcher.log");
        QTRY_VERIFY_WITH_TIMEOUT(SshdFixture::read(log).contains("step 3 2"), 30000);
        // Launchers and ranks all carry the job's tag.
        QVERIFY(processes_with_tag(id).size() >= ranks_plus_launchers);
        job->stop();
        QVERIFY(job->waitFinished(30000));
        QCOMPARE(Job::to_string(job->state()), std::string("stopped"));
        const QStringList left = wait_no_tagged(id, 10000);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
        QVERIFY(pgrep_f(id).isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestLauncherE2E)
#include "tst_launcher_e2e.moc"
