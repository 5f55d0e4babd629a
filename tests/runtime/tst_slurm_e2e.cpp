// Slurm mode end to end over the loopback sshd with the stub Slurm commands of
// tests/runtime/stub in "execute" mode (sbatch really runs the batch script; srun starts
// the tasks with --label): the job is submitted, followed with squeue/sacct, its output
// file is streamed back into rank-<N>.log while it runs, and Stop cancels it.
#include "e2e_common.h"
#include "proc_tag.h"
#include "runtime/connection_test.h"
#include "runtime/job.h"
#include "runtime/launch_plan.h"
#include "runtime/slurm.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;

class TestSlurmE2E : public QObject {
    Q_OBJECT
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-slurm-XXXXXX"};
    QString stub, state;

    RuntimeConfig rc(const std::string& script) const {
        RuntimeConfig r = loopback_runtime(sshd, stub);
        r.mode = "slurm";
        r.python = "/bin/sh";
        r.script = "-c";
        r.args = {script};
        r.workdir = (work.path() + "/run").toStdString();
        r.slurm.login_node = "node1";
        return r;
    }

    std::unique_ptr<Job> make_job(const RuntimeConfig& r, const std::string& name) {
        static int n = 0;
        const Cluster c = loopback_cluster(sshd);
        const std::string id = make_job_id(name, QDateTime::currentSecsSinceEpoch()) + "-" + std::to_string(++n);
        auto job = std::make_unique<Job>(c, plan_launch(c, r, id), ssh_options_from(r),
                                         (work.path() + "/jobs/").toStdString() + id, nlohmann::json::object());
        job->setSlurmPollInterval(200);
        return job;
    }

    QString log(const Job& j, const QString& name) const {
        return SshdFixture::read(QString::fromStdString(j.folder()) + "/" + name + ".log");
    }

private slots:
    void initTestCase() {
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        stub = stub_bin(work.path());
        state = stub + "/slurm-state";
        QDir().mkpath(state);
        QDir().mkpath(work.path() + "/run");
        SshdFixture::write(state + "/execute", "1\n");
    }

    void labels() {
        QCOMPARE(parse_srun_label("3: hello: world")->task, 3);
        QCOMPARE(parse_srun_label("3: hello: world")->text, std::string("hello: world"));
        QCOMPARE(parse_srun_label(" 7: x")->task, 7);   // right-aligned ids
        QCOMPARE(parse_srun_label("12: ")->text, std::string());
        QVERIFY(!parse_srun_label("srun: error: task 1 failed"));
        QVERIFY(!parse_srun_label("hello"));
        QCOMPARE(slurm_output_file("20260101-000000-x", 4242), std::string("paraplan-20260101-000000-x-4242.out"));
    }

    void outputStreamsIntoRankLogs() {
        auto job = make_job(rc("echo \"hello from $RANK of $WORLD_SIZE local $LOCAL_RANK\"; sleep 1; echo \"bye $RANK\""),
                            "slurm stream");
        const std::string id = job->plan().job_id;
        QStringList lines;
        connect(job.get(), &Job::line, this, [&lines](int, const QString& l, bool) { lines << l; });
        job->start();
        // While the job runs, its ranks' first lines are already in their logs.
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-3").contains("hello from 3 of 4"), 30000);
        QVERIFY(!job->done());
        QVERIFY(job->waitFinished(60000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        for (int r = 0; r < 4; ++r) {
            const QString l = log(*job, QString("rank-%1").arg(r));
            QCOMPARE(l, QString("hello from %1 of 4 local %2\nbye %1\n").arg(r).arg(r % 2));
        }
        QVERIFY(lines.contains("rank 2: bye 2"));
        QVERIFY(lines.contains("paraplan: Slurm job 4242 ended COMPLETED (exit 0)"));
        // The output file is where sbatch put it (the working dir), labelled by srun.
        const QString out = work.path() + "/run/" + QString::fromStdString(slurm_output_file(id, 4242));
        QVERIFY(SshdFixture::read(out).contains("1: hello from 1 of 4"));
        QVERIFY(log(*job, "sbatch").contains("following " + QString::fromStdString(slurm_output_file(id, 4242))));
        const auto j = job->to_json();
        QCOMPARE(j["slurm_output"].get<std::string>(), slurm_output_file(id, 4242));
        // Nothing left on the login node: no tail, no task.
        QTRY_VERIFY_WITH_TIMEOUT(pgrep_f(id).isEmpty(), 10000);
        QVERIFY(wait_no_tagged(id, 10000).isEmpty());
    }

    void failingTaskFailsTheJob() {
        auto job = make_job(rc("echo \"x $RANK\"; if [ \"$RANK\" = 1 ]; then echo boom >&2; exit 3; fi"), "slurm fail");
        job->start();
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(job->error().find("FAILED (exit 3)") != std::string::npos, job->error().c_str());
        QCOMPARE(log(*job, "rank-1"), QString("x 1\nboom\n"));
        QCOMPARE(log(*job, "rank-0"), QString("x 0\n"));
    }

    void stopCancelsAndEndsTheTasks() {
        auto job = make_job(rc("trap '' HUP; i=0; while :; do echo \"tick $RANK $i\"; i=$((i+1)); sleep 0.3; done"),
                            "slurm cancel");
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-3").contains("tick 3 2"), 30000);
        QVERIFY(processes_with_tag(id).size() >= 4);
        job->stop();
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("stopped"));
        QVERIFY(log(*job, "sbatch").contains("Slurm job 4242 ended CANCELLED"));
        const QStringList left = wait_no_tagged(id, 10000);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
        QTRY_VERIFY_WITH_TIMEOUT(pgrep_f(id).isEmpty(), 10000);
    }
};

QTEST_GUILESS_MAIN(TestSlurmE2E)
#include "tst_slurm_e2e.moc"
