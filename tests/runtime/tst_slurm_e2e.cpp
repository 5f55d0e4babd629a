// Slurm mode end to end against a real Slurm (scripts/slurm-up.sh: Debian's slurmctld,
// two slurmd per partition, munge, accounting off) reached over the loopback sshd: the
// job is submitted with sbatch, followed with squeue and scontrol, its output file is
// streamed back into rank-<N>.log while it runs, and Stop, `paraplan-cli stop` (stop_job)
// and an outside scancel end it. The Slurm states: sbatch's own error, PartitionTimeLimit,
// requeue, slurmctld down (restarted with its saved state, `slurmctld -i` without -c).
// Every test counts the job's processes left behind.
// (The stub Slurm of tests/runtime/stub remains only for what this cluster cannot do:
// sacct with accounting on, in tst_ssh_e2e.)
#include "e2e_common.h"
#include "proc_tag.h"
#include "slurm_fixture.h"
#include "runtime/connection_test.h"
#include "runtime/job.h"
#include "runtime/job_control.h"
#include "joblog/job_history.h"
#include "launch/launch_plan.h"
#include "slurm/slurm.h"

#include <QFileInfo>
#include <QScopeGuard>
#include <QStandardPaths>
#include <QtTest>

#include <csignal>

using namespace paraplan;
using namespace paraplan::runtime;

class TestSlurmE2E : public QObject {
    Q_OBJECT
    SlurmFixture slurm;
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-slurm-XXXXXX"};

    RuntimeConfig rc(const std::string& script, const std::string& workdir = "run") const {
        RuntimeConfig r = loopback_runtime(QString());
        r.path_prepend.clear();   // the real sbatch, squeue, scontrol, scancel
        r.mode = "slurm";
        r.python = "/bin/sh";
        r.script = "-c";
        r.args = {script};
        r.workdir = (work.path() + "/" + QString::fromStdString(workdir)).toStdString();
        r.slurm.login_node = "node1";
        return r;
    }

    // A Slurm call's bound where a test makes calls hang or fail (the default, kSlurmCallTimeoutS, is
    // 30 s): time for a loopback squeue to answer, short enough that three misses take seconds.
    static constexpr int kHungCallS = 4;

    std::unique_ptr<Job> make_job(const RuntimeConfig& r, const std::string& name, int nodes = 2, int gpus = 2) {
        static int n = 0;
        const Cluster c = loopback_cluster(sshd, nodes, gpus);
        const std::string id = make_job_id(name, QDateTime::currentSecsSinceEpoch()) + "-" + std::to_string(++n);
        auto job = std::make_unique<Job>(c, plan_launch(c, r, id), ssh_options_from(r, loopback_profile(sshd)),
                                         (work.path() + "/jobs/").toStdString() + id, nlohmann::json::object());
        job->setSlurmPollInterval(300);
        return job;
    }

    QString log(const Job& j, const QString& name) const {
        return SshdFixture::read(QString::fromStdString(j.folder()) + "/" + name + ".log");
    }

    // Processes of the job left on this machine (the nodes are here): tagged ones and
    // any command line naming the job id (tail -F of its output, its wrappers).
    static QStringList left_behind(const std::string& id) {
        QStringList left = wait_no_tagged(id, 15000);
        for (int i = 0; i < 100 && !pgrep_f(id).isEmpty(); ++i) QThread::msleep(100);
        return left + pgrep_f(id);
    }

    // The pid of this cluster's slurmd for one node: its command line names the node
    // (`slurmd -f CONF -N NAME`, scripts/slurm-up.sh) and this cluster's slurm.conf, so
    // another Slurm on the machine with the same node names is never touched.
    static QString slurmd_pid(const QString& node, const QString& conf) {
        for (const QString& pid : QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (pid.toLongLong() <= 0) continue;
            QFile f("/proc/" + pid + "/cmdline");
            if (!f.open(QIODevice::ReadOnly)) continue;
            const QList<QByteArray> argv = f.readAll().split('\0');
            if (argv.isEmpty() || !argv[0].endsWith("slurmd")) continue;
            const qsizetype n = argv.indexOf("-N"), c = argv.indexOf("-f");
            if (n >= 0 && n + 1 < argv.size() && argv[n + 1] == node.toUtf8() && c >= 0 && c + 1 < argv.size() &&
                argv[c + 1] == conf.toUtf8())
                return pid;
        }
        return {};
    }

private slots:
    void initTestCase() {
        if (!slurm.start()) {
            if (!slurm.installed) QSKIP(qPrintable(slurm.error));
            QFAIL(qPrintable(slurm.error));
        }
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        QDir().mkpath(work.path() + "/run");
        use_local_profile(work.path(), loopback_profile(sshd));   // for the paraplan-cli runs
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
        auto job = make_job(rc("echo \"hello from $RANK of $WORLD_SIZE local $LOCAL_RANK on $SLURMD_NODENAME\"; "
                               "sleep 2; echo \"bye $RANK\""),
                            "slurm stream");
        const std::string id = job->plan().job_id;
        QStringList lines;
        connect(job.get(), &Job::line, this, [&lines](int, const QString& l, bool) { lines << l; });
        job->start();
        // While the job runs, its ranks' first lines are already in their logs.
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-3").contains("hello from 3 of 4 local 1 on n2"), 60000);
        QVERIFY(!job->done());
        QVERIFY(job->waitFinished(90000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        const long long sid = *job->slurmJobId();
        for (int r = 0; r < 4; ++r) {
            const QString l = log(*job, QString("rank-%1").arg(r));
            QCOMPARE(l, QString("hello from %1 of 4 local %2 on n%3\nbye %1\n").arg(r).arg(r % 2).arg(r / 2 + 1));
        }
        QVERIFY(lines.contains("rank 2: bye 2"));
        // Accounting is off here: the final state comes from the controller.
        QVERIFY2(lines.contains(QString("paraplan: Slurm job %1 ended COMPLETED (exit 0)").arg(sid)),
                 qPrintable(lines.join('\n')));
        // The cluster's default partition has no gpu gres: no GPU request (it would be refused).
        QVERIFY(log(*job, "sbatch")
                    .contains("the default partition has no gpu gres (sinfo -N -o '%N %P %G'): not asking "
                              "for GPUs"));
        // The output file is where sbatch put it (the working dir), labelled by srun.
        const QString out = work.path() + "/run/" + QString::fromStdString(slurm_output_file(id, sid));
        QVERIFY(SshdFixture::read(out).contains("1: hello from 1 of 4"));
        QCOMPARE(job->to_json()["slurm_output"].get<std::string>(), slurm_output_file(id, sid));
        const QStringList left = left_behind(id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void gpuGresAskedOnlyWhereDefined() {
        // Partition "gpu" defines gpu:2 per node: auto asks, and Slurm allocates them.
        RuntimeConfig r = rc("echo \"gres $SLURM_GPUS_ON_NODE\"");
        r.slurm.partition = "gpu";
        auto job = make_job(r, "slurm gres");
        job->start();
        QVERIFY(job->waitFinished(90000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        QVERIFY2(log(*job, "sbatch")
                     .contains("partition gpu has gpu:2 on g1, g2; 2 node(s) with 2 GPUs each fit untyped "
                               "gpu (g1, g2): asking --gpus-per-node=2"),
                 qPrintable(log(*job, "sbatch")));
        QCOMPARE(log(*job, "rank-0"), QString("gres 2\n"));
        // "gres" asks on a partition without them: sbatch refuses, and the job says why.
        r = rc("true");
        r.slurm.partition = "cpu";
        r.slurm.gpus = "gres";
        job = make_job(r, "slurm gres refused");
        job->start();
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(log(*job, "sbatch").contains("sbatch: error:"), qPrintable(log(*job, "sbatch")));
        QVERIFY(job->plan().sbatch_script.find("#SBATCH --gpus-per-node=2\n") != std::string::npos);
        // "none" never asks, even where gres exist.
        r = rc("echo \"gres ${SLURM_GPUS_ON_NODE:-none}\"");
        r.slurm.partition = "gpu";
        r.slurm.gpus = "none";
        job = make_job(r, "slurm no gres");
        job->start();
        QVERIFY(job->waitFinished(90000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        QCOMPARE(log(*job, "rank-0"), QString("gres none\n"));
        const QStringList left = left_behind(job->plan().job_id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void mixedPartitionGetsOneNodeKind() {
        // Partition "mixed" (scripts/slurm-up.sh) holds three kinds of node: n1 without gres,
        // g1 with gpu:2 and g3 with gpu:big:4. gpus "auto" reads every node's gres (sinfo -N)
        // and asks for the kind the plan fits; Slurm then places the job there.
        RuntimeConfig r = rc("echo \"on $SLURMD_NODENAME gpus $SLURM_GPUS_ON_NODE\"");
        r.slurm.partition = "mixed";
        r.slurm.login_node = "node0";   // one-node clusters here
        auto job = make_job(r, "slurm mixed 1x4", 1, 4);
        job->start();
        QVERIFY(job->waitFinished(90000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        QVERIFY2(log(*job, "sbatch").contains("fit gpu type big (g3): asking --gpus-per-node=big:4"),
                 qPrintable(log(*job, "sbatch")));
        for (int rank = 0; rank < 4; ++rank)
            QCOMPARE(log(*job, QString("rank-%1").arg(rank)), QString("on g3 gpus 4\n"));
        // Two per node on one node: g1 and g3 both fit; the smaller g1 is chosen and g3 kept out.
        job = make_job(r, "slurm mixed 1x2", 1, 2);
        job->start();
        QVERIFY(job->waitFinished(90000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        QVERIFY2(log(*job, "sbatch").contains("asking --gpus-per-node=2 --exclude=g3"),
                 qPrintable(log(*job, "sbatch")));
        QCOMPARE(log(*job, "rank-1"), QString("on g1 gpus 2\n"));
        QVERIFY(left_behind(job->plan().job_id).isEmpty());
        // Two nodes with four GPUs each: only g3 has four; refused before anything is queued.
        job = make_job(r, "slurm mixed 2x4", 2, 4);
        job->start();
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(job->error().find("cannot place the job's GPUs: partition mixed has no GPU type with 4 or more GPUs "
                                   "on 2 nodes (gpu type big: g3") != std::string::npos,
                 job->error().c_str());
        QVERIFY(!job->slurmJobId());
        // Two nodes with two: g1 and g3 together, but of two GPU types: refused, naming "gres"
        // as the way to let Slurm mix them.
        job = make_job(r, "slurm mixed 2x2", 2, 2);
        job->start();
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(job->error().find("untyped gpu: g1; gpu type big: g3") != std::string::npos, job->error().c_str());
        QVERIFY2(job->error().find("set runtime.slurm.gpus to \"gres\"") != std::string::npos, job->error().c_str());
        QVERIFY(!job->slurmJobId());
        QVERIFY(log(*job, "sbatch").contains("nothing was submitted"));
    }

    void hungSqueueIsUnknownThenFollowed() {
        // Fault injector: a `squeue` in front of the real one on the job's PATH
        // (runtime.path_prepend) that hangs (sleep) while the file `hang` exists, noting its
        // pid. The bounded call (timeout; kHungCallS here, kSlurmCallTimeoutS by default) ends each hung
        // one; after kUnknownAfter of them the job is UNKNOWN, not ended, and followed again once squeue answers.
        const QString fault = work.path() + "/fault-injector-hung-squeue";
        QDir().mkpath(fault);
        const QString real = QStandardPaths::findExecutable("squeue");
        QVERIFY(!real.isEmpty());
        SshdFixture::write(fault + "/squeue", "#!/bin/sh\nif [ -e '" + fault + "/hang' ]; then echo $$ >>'" + fault +
                                                  "/pids'; exec sleep 600; fi\nexec '" + real + "' \"$@\"\n");
        QFile::setPermissions(fault + "/squeue", QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        const QString go = work.path() + "/hung-squeue-go";
        RuntimeConfig r = rc("echo \"up $RANK\"; while [ ! -e '" + go.toStdString() +
                             "' ]; do sleep 0.3; done; echo \"down $RANK\"");
        r.path_prepend = {fault.toStdString()};
        auto job = make_job(r, "slurm hung squeue");
        job->setSlurmCallTimeout(kHungCallS);
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-0").contains("up 0"), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "sbatch").contains("RUNNING"), 30000);
        SshdFixture::write(fault + "/hang", "");
        const QString sid = QString::number(*job->slurmJobId());
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "sbatch")
                                     .contains("Slurm job " + sid + " UNKNOWN (squeue gave no answer in " +
                                               QString::number(kHungCallS) + " s)"),
                                 150000);
        // That line comes only after three calls in a row each ended by timeout (exit 124): none hung
        // forever, and none ended the job.
        QVERIFY(SshdFixture::read(fault + "/pids").split('\n', Qt::SkipEmptyParts).size() >= 3);
        QVERIFY(!job->done());
        QVERIFY(!log(*job, "sbatch").contains("left the queue"));
        QCOMPARE(job->to_json()["slurm_state"].get<std::string>(), std::string("UNKNOWN"));
        QFile::remove(fault + "/hang");
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "sbatch").contains("Slurm job " + sid + ": squeue answers again"), 60000);
        QFile(go).open(QIODevice::WriteOnly);
        QVERIFY(job->waitFinished(90000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        QCOMPARE(log(*job, "rank-1"), QString("up 1\ndown 1\n"));
        // Every hung squeue was ended (timeout's TERM, then KILL).
        const QStringList hung = SshdFixture::read(fault + "/pids").split('\n', Qt::SkipEmptyParts);
        QVERIFY(hung.size() >= 3);
        for (const QString& pid : hung)
            QVERIFY2(!QFile::exists("/proc/" + pid), qPrintable("hung squeue left: " + pid));
        const QStringList left = left_behind(job->plan().job_id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void ctrlCInTheCliCancels() {
        // paraplan-cli launch on a Slurm project, interrupted like Ctrl-C (SIGINT): scancel,
        // and the job is reported stopped and cancelled, not failed.
        nlohmann::json nodes = nlohmann::json::array();
        for (const auto& n : loopback_cluster(sshd).nodes)
            nodes.push_back({{"name", n.name},
                             {"host", n.host},
                             {"port", n.port},
                             {"user", n.user},
                             {"gpu", "a100-80g"},
                             {"gpus", n.gpus}});
        const nlohmann::json project = {{"paraplan", 1},
                                        {"name", "slurm ctrl c"},
                                        {"cluster", {{"nodes", nodes}}},
                                        {"model", {{"preset", "gpt2"}}},
                                        {"layout", {{"framework", "colossalai"}, {"tp", 2}, {"pp", 2}}},
                                        {"runtime",
                                         {{"mode", "slurm"},
                                          {"python", "/bin/sh"},
                                          {"script", "-c"},
                                          {"args", {"while :; do echo \"tick $RANK\"; sleep 0.3; done"}},
                                          {"upload_configs", false},
                                          {"workdir", (work.path() + "/run").toStdString()},
                                          {"slurm", {{"login_node", "node1"}}}}}};
        const QString file = work.path() + "/ctrlc.paraplan.json";
        SshdFixture::write(file, QString::fromStdString(project.dump(2)));
        QProcess cli;
        cli.start(PARAPLAN_CLI, {"launch", file, "--job-dir", work.path() + "/cli-jobs"});
        QVERIFY(cli.waitForStarted());
        QString out;
        QTRY_VERIFY_WITH_TIMEOUT((out += QString::fromUtf8(cli.readAllStandardOutput())).contains("tick 3"), 60000);
        ::kill(static_cast<pid_t>(cli.processId()), SIGINT);
        QVERIFY(cli.waitForFinished(60000));
        const QString err = QString::fromUtf8(cli.readAllStandardError());
        QCOMPARE(cli.exitCode(), 3);   // the run did not succeed: stopped (command.h exit codes)
        QVERIFY2(err.contains(QRegularExpression("job \\S+ stopped\n")), qPrintable(err));
        QVERIFY2(err.contains(QRegularExpression("paraplan: Slurm job \\d+ was cancelled")), qPrintable(err));
        QVERIFY2(!err.contains(" failed"), qPrintable(err));
        const auto dirs = QDir(work.path() + "/cli-jobs").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(dirs.size(), 1);
        const QStringList left = left_behind(dirs[0].toStdString());
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void failingTaskFailsTheJob() {
        auto job = make_job(rc("echo \"x $RANK\"; if [ \"$RANK\" = 1 ]; then echo boom >&2; exit 3; fi"), "slurm fail");
        job->start();
        QVERIFY(job->waitFinished(90000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(job->error().find("ended FAILED (exit 3)") != std::string::npos, job->error().c_str());
        // A task's stdout and stderr reach the output file through separate pipes
        // (slurmstepd), so the two lines may come in either order.
        QStringList rank1 = log(*job, "rank-1").split('\n');
        rank1.sort();
        QCOMPARE(rank1, QStringList({"", "boom", "x 1"}));
        QCOMPARE(log(*job, "rank-0"), QString("x 0\n"));
        const QStringList left = left_behind(job->plan().job_id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void stopCancelsAndEndsTheTasks() {
        auto job = make_job(rc("i=0; while :; do echo \"tick $RANK $i\"; i=$((i+1)); sleep 0.3; done"), "slurm cancel");
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-3").contains("tick 3 2"), 60000);
        QVERIFY(processes_with_tag(id).size() >= 4);
        job->stop();
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("stopped"));
        QVERIFY(log(*job, "sbatch").contains(QString("Slurm job %1 ended CANCELLED").arg(*job->slurmJobId())));
        QVERIFY2(job->error().find("was cancelled") != std::string::npos, job->error().c_str());
        const QStringList left = left_behind(id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void stopEndsTasksThatIgnoreTerm() {
        // Tasks that ignore SIGTERM (trap '' TERM). scancel makes the job CANCELLED at once;
        // slurmd sends the tasks SIGTERM and, KillWait seconds later (2 here, slurm.conf(5)),
        // SIGKILL. The job stays COMPLETING until they are gone, and only then is it reported
        // stopped; none of its processes is left. (A later `scancel --signal=KILL` cannot
        // hurry this: scancel refuses a job that is already cancelled, see docs/runtime.md.)
        auto job = make_job(rc("trap '' TERM; while :; do echo \"tick $RANK\"; sleep 0.3; done"), "slurm ignores term");
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-3").contains("tick 3"), 60000);
        QVERIFY(processes_with_tag(id).size() >= 4);
        job->stop();
        QVERIFY(job->waitFinished(90000));
        QCOMPARE(Job::to_string(job->state()), std::string("stopped"));
        const QString sid = QString::number(*job->slurmJobId());
        QVERIFY(log(*job, "sbatch").contains("Slurm job " + sid + " ended CANCELLED"));
        // Still there while Slurm's KILL was pending: followed, not taken as ended.
        QVERIFY2(log(*job, "sbatch").contains("Slurm job " + sid + " COMPLETING"), qPrintable(log(*job, "sbatch")));
        // The job ended only once its tasks were gone: nothing of it is left right away.
        QVERIFY2(processes_with_tag(id).isEmpty(), qPrintable(processes_with_tag(id).join(' ')));
        const QStringList left = left_behind(id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void stopCommandRunsScancel() {
        // `paraplan-cli stop JOB` from another process: scancel on the login node; the
        // launch that follows the job reports it cancelled (stopped), not failed.
        auto job = make_job(rc("while :; do echo \"tick $RANK\"; sleep 0.3; done"), "slurm stop cmd");
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-0").contains("tick 0"), 60000);
        const auto rec = find_job((work.path() + "/jobs").toStdString(), id);
        QVERIFY(rec);
        const auto outcomes = stop_job(*rec, SshOptions{}, {{"default", loopback_profile(sshd)}}, 30000);
        QCOMPARE(outcomes.size(), std::size_t(1));
        QVERIFY2(outcomes[0].ok, outcomes[0].result.c_str());
        QCOMPARE(outcomes[0].result, "cancelled Slurm job " + std::to_string(*job->slurmJobId()) + " (scancel)");
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("stopped"));
        QVERIFY(log(*job, "sbatch").contains("was cancelled outside this launch"));
        const QStringList left = left_behind(id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
        // Once over, stop says so and runs nothing.
        const auto again = stop_job(*find_job((work.path() + "/jobs").toStdString(), id), SshOptions{},
                                    {{"default", loopback_profile(sshd)}}, 30000);
        QVERIFY(again[0].ok);
        QVERIFY2(again[0].result.find("already finished") != std::string::npos, again[0].result.c_str());
    }

    void invalidPartitionIsSbatchsError() {
        // sbatch exits 1 with its own "sbatch: error: ..." (not ssh's 255, not a lost link).
        RuntimeConfig r = rc("echo never");
        r.slurm.partition = "nosuch";
        auto job = make_job(r, "slurm bad partition");
        job->start();
        QVERIFY(job->waitFinished(60000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        QVERIFY2(job->error().find("sbatch refused the job: sbatch: error:") != std::string::npos,
                 job->error().c_str());
        QVERIFY2(job->error().find("lost") == std::string::npos, job->error().c_str());
        QVERIFY(!job->slurmJobId());
    }

    void timeOverPartitionMaxTimeIsReportedAndCancelled() {
        // A partition MaxTime below runtime.slurm.time: Slurm keeps the job PENDING with
        // reason PartitionTimeLimit forever (EnforcePartLimits=NO, slurm.conf(5)). The launch
        // shows the reason and what to change, then cancels it and fails (kBlockedPolls).
        SlurmFixture::run("scontrol", {"update", "PartitionName=cpu", "MaxTime=1"});
        const auto restore = qScopeGuard([] {
            SlurmFixture::run("scontrol", {"update", "PartitionName=cpu", "MaxTime=INFINITE"});
        });
        RuntimeConfig r = rc("echo never");
        r.slurm.time = "00:10:00";
        auto job = make_job(r, "slurm maxtime");
        job->start();
        QVERIFY(job->waitFinished(120000));
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        const std::string sid = std::to_string(*job->slurmJobId());
        QVERIFY2(
            job->error().find("Slurm job " + sid +
                              " could not start (PartitionTimeLimit: runtime.slurm.time exceeds") != std::string::npos,
            job->error().c_str());
        const QString sb = log(*job, "sbatch");
        QVERIFY2(sb.contains(
                     QString::fromStdString("Slurm job " + sid + " PENDING (PartitionTimeLimit: runtime.slurm.time")),
                 qPrintable(sb));
        QVERIFY(!QFile::exists(QString::fromStdString(job->folder()) + "/rank-0.log"));   // it never ran
        QCOMPARE(job->to_json()["slurm_reason"].get<std::string>(), std::string("PartitionTimeLimit"));
    }

    void controllerDownIsUnknownNotEnded() {
        // slurmctld stopped while the job runs (its slurmd keep running it): squeue cannot
        // reach the controller, so the job's state is UNKNOWN, not "left the queue". The
        // controller comes back with its saved state (no -c) and the job is followed to its end.
        const QString go = work.path() + "/ctld-go";
        auto job = make_job(
            rc("echo \"up $RANK\"; while [ ! -e '" + go.toStdString() + "' ]; do sleep 0.3; done; echo \"down $RANK\""),
            "slurm ctld down");
        job->setSlurmCallTimeout(kHungCallS);
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-0").contains("up 0"), 60000);
        const QString conf = qEnvironmentVariable("SLURM_CONF");
        const QString pidfile = QFileInfo(conf).absolutePath() + "/slurmctld.pid";
        const QString pid = SshdFixture::read(pidfile).trimmed();
        QVERIFY(!pid.isEmpty());
        QProcess::execute("kill", {pid});
        const auto restart = qScopeGuard([conf] {
            if (SlurmFixture::run("scontrol", {"ping"}).contains("UP")) return;
            QProcess::execute("/usr/sbin/slurmctld", {"-f", conf, "-i"});
        });
        QTRY_VERIFY_WITH_TIMEOUT(
            log(*job, "sbatch").contains(QString("Slurm job %1 UNKNOWN (").arg(*job->slurmJobId())), 120000);
        QVERIFY(!job->done());
        QVERIFY(!log(*job, "sbatch").contains("left the queue"));
        QProcess::execute("/usr/sbin/slurmctld", {"-f", conf, "-i"});
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "sbatch").contains("squeue answers again"), 120000);
        QFile(go).open(QIODevice::WriteOnly);
        QVERIFY(job->waitFinished(180000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        QCOMPARE(log(*job, "rank-2"), QString("up 2\ndown 2\n"));
        const QStringList left = left_behind(job->plan().job_id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void stopWhileTheControllerIsDown() {
        // Stop with slurmctld down: scancel fails, the launch says so and tries again; once
        // the controller is back the job is cancelled and ends stopped, its tasks gone.
        auto job = make_job(rc("while :; do echo \"tick $RANK\"; sleep 0.3; done"), "slurm stop ctld down");
        job->setSlurmCallTimeout(kHungCallS);
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-0").contains("tick 0"), 60000);
        const QString conf = qEnvironmentVariable("SLURM_CONF");
        const QString pid = SshdFixture::read(QFileInfo(conf).absolutePath() + "/slurmctld.pid").trimmed();
        QVERIFY(!pid.isEmpty());
        QProcess::execute("kill", {pid});
        const auto restart = qScopeGuard([conf] {
            if (SlurmFixture::run("scontrol", {"ping"}).contains("UP")) return;
            QProcess::execute("/usr/sbin/slurmctld", {"-f", conf, "-i"});
        });
        QTRY_VERIFY_WITH_TIMEOUT(!SlurmFixture::run("scontrol", {"ping"}).contains("UP"), 30000);
        job->stop();
        const QString sid = QString::number(*job->slurmJobId());
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "sbatch").contains("scancel " + sid + " failed"), 120000);
        QVERIFY(!job->done());
        QProcess::execute("/usr/sbin/slurmctld", {"-f", conf, "-i"});
        QVERIFY(job->waitFinished(240000));
        QCOMPARE(Job::to_string(job->state()), std::string("stopped"));
        const QStringList left = left_behind(id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void killedSlurmdIsNodeFail() {
        // A node's slurmd killed (SIGKILL) while the job runs there. Slurm 22.05, tried on this
        // cluster: the tasks keep running under slurmstepd; after SlurmdTimeout (30 s here,
        // slurm.conf(5)) slurmctld sets the node DOWN ("Not responding") and ends the job
        // NODE_FAIL, Reason=NodeDown, ExitCode 0:15, its tasks on the other node killed
        // (src/slurmctld/node_mgr.c, job_mgr.c kill_running_job_by_node_name, slurm-22-05).
        // The dead node's tasks run on until its slurmd registers again, which kills them
        // ("Registered JobId=N StepId=N.0 in state NODE_FAIL"). A batch job is requeued
        // instead unless --no-requeue (JobRequeue defaults to 1, slurm.conf(5)); this one
        // asks for --no-requeue to reach NODE_FAIL (the requeue: docs/runtime.md "Faults tried").
        RuntimeConfig r = rc("i=0; while :; do echo \"tick $RANK $SLURMD_NODENAME $i\"; i=$((i+1)); sleep 0.3; done");
        r.slurm.sbatch_args = {"--no-requeue"};
        auto job = make_job(r, "slurm slurmd killed");
        const std::string id = job->plan().job_id;
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-3").contains("tick 3 n2"), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "sbatch").contains(QString("Slurm job %1 RUNNING").arg(*job->slurmJobId())),
                                 30000);
        const QString conf = qEnvironmentVariable("SLURM_CONF");
        const QString pid = slurmd_pid("n2", conf);
        QVERIFY2(!pid.isEmpty(), "no slurmd -N n2 of this cluster");
        auto n2_state = [] { return SlurmFixture::run("sinfo", {"-h", "-N", "-n", "n2", "-o", "%t"}).trimmed(); };
        // n2 back however the test ends: ReturnToService=2 makes it idle once slurmd registers.
        const auto restart = qScopeGuard([conf] {
            if (slurmd_pid("n2", conf).isEmpty()) QProcess::execute("/usr/sbin/slurmd", {"-f", conf, "-N", "n2"});
        });
        QCOMPARE(::kill(static_cast<pid_t>(pid.toLongLong()), SIGKILL), 0);
        QVERIFY(job->waitFinished(120000));
        // Not taken as ended before Slurm gave up on the node (SlurmdTimeout): the end is Slurm's
        // NODE_FAIL, with the node's reason.
        QCOMPARE(Job::to_string(job->state()), std::string("failed"));
        const std::string sid = std::to_string(*job->slurmJobId());
        QVERIFY2(job->error() == "Slurm job " + sid +
                                     " ended NODE_FAIL (signal 15): ended because a node failed (reason NodeDown; "
                                     "down: n2 (Not responding))",
                 job->error().c_str());
        QCOMPARE(job->to_json()["slurm_state"].get<std::string>(), std::string("NODE_FAIL"));
        QCOMPARE(job->to_json()["slurm_reason"].get<std::string>(), std::string("NodeDown"));
        QVERIFY(log(*job, "sbatch").contains("tasks there may still run until it is back"));
        QVERIFY2(n2_state().startsWith("down"), qPrintable(n2_state()));
        // n2's tasks outlive its slurmd (slurmstepd); n1's were ended by Slurm.
        QVERIFY2(!processes_with_tag(id).isEmpty(), "n2's tasks were expected to run on under slurmstepd");
        QVERIFY(QProcess::execute("/usr/sbin/slurmd", {"-f", conf, "-N", "n2"}) == 0);
        QTRY_COMPARE_WITH_TIMEOUT(n2_state(), QString("idle"), 60000);
        const QStringList left = left_behind(id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void requeueIsFollowedToTheEnd() {
        // `scontrol requeue` (what Slurm does when a node dies under a requeueable job): the
        // job goes back to the queue and runs again; the launch follows it there and to its
        // end instead of taking the first run's end as the job's.
        const QString go = work.path() + "/requeue-go";
        auto job = make_job(rc("echo \"run $RANK restart ${SLURM_RESTART_COUNT:-0}\"; while [ ! -e '" +
                               go.toStdString() + "' ]; do sleep 0.3; done; echo \"done $RANK\""),
                            "slurm requeue");
        job->start();
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "sbatch").contains(QString("Slurm job %1 RUNNING").arg(*job->slurmJobId())),
                                 60000);
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-0").contains("run 0 restart 0"), 60000);
        const QString sid = QString::number(*job->slurmJobId());
        QProcess::execute("scontrol", {"requeue", sid});
        QTRY_VERIFY_WITH_TIMEOUT(log(*job, "rank-0").contains("run 0 restart 1"), 300000);
        QFile(go).open(QIODevice::WriteOnly);
        QVERIFY(job->waitFinished(120000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        // The notes show it leave RUNNING for the queue and come back.
        const QString sb = log(*job, "sbatch");
        const auto first_run = sb.indexOf("Slurm job " + sid + " RUNNING");
        const auto queued = sb.indexOf(QRegularExpression("Slurm job " + sid + " (REQUEUED|PENDING)"), first_run);
        QVERIFY2(first_run >= 0 && queued > first_run, qPrintable(sb));
        QVERIFY2(sb.indexOf("Slurm job " + sid + " RUNNING", queued) > queued, qPrintable(sb));
        QVERIFY(log(*job, "rank-0").contains("done 0"));
        const QStringList left = left_behind(job->plan().job_id);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void backslashInTheWorkingDir() {
        // Slurm drops backslashes from --output paths and stops expanding %j there.
        QDir().mkpath(work.path() + "/back\\slash dir");
        auto job = make_job(rc("echo \"in $(pwd) rank $RANK\"", "back\\slash dir"), "slurm backslash");
        job->start();
        QVERIFY(job->waitFinished(90000));
        QVERIFY2(Job::to_string(job->state()) == "succeeded", job->error().c_str());
        const QString dir = work.path() + "/back\\slash dir";
        for (int r = 0; r < 4; ++r)
            QCOMPARE(log(*job, QString("rank-%1").arg(r)), QString("in %1 rank %2\n").arg(dir).arg(r));
        QVERIFY(QFile::exists(dir + "/" +
                              QString::fromStdString(slurm_output_file(job->plan().job_id, *job->slurmJobId()))));
    }
};

QTEST_GUILESS_MAIN(TestSlurmE2E)
#include "tst_slurm_e2e.moc"
