// Launching copies the framework's exported config files to every node that runs a
// process before anything starts (over each node's ssh connection, `cat >`): checked
// end to end over the loopback sshd, with the plan's upload list, a copy that cannot be
// written (the job fails, nothing starts) and the switch that turns copying off.
#include "e2e_common.h"
#include "gpt2_deepspeed.h"
#include "export/export.h"
#include "rules/validate.h"
#include "launch/config_upload.h"
#include "runtime/connection_test.h"
#include "runtime/job.h"
#include "runtime/job_start.h"
#include "launch/launch_plan.h"
#include "util/input_error.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;

class TestConfigUpload : public QObject {
    Q_OBJECT
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-upload-XXXXXX"};
    bool sshd_up = false;

    // GPT-2 on the two loopback nodes (4 GPUs) under DeepSpeed ZeRO-2.
    Project project() const { return gpt2_deepspeed_zero2(loopback_cluster(sshd)); }
    RuntimeConfig rc(const std::string& workdir) const {
        RuntimeConfig r = loopback_runtime(stub_bin(work.path()));
        r.python = "/bin/sh";
        r.script = "-c";
        r.args = {"test -s ds_config.json && echo found-$RANK-$(wc -c < ds_config.json)"};
        r.workdir = workdir;
        return r;
    }

    // Plans the launch with its uploads and runs it to the end.
    std::unique_ptr<Job> run(const Project& p, const RuntimeConfig& r, const std::string& id) const {
        // The start `paraplan-cli launch` and the Run panel share.
        auto job = create_job(p, r, ssh_options_from(r, loopback_profile(sshd)), work.path().toStdString() + "/jobs",
                              id, JobKind::Training);
        job->start();
        job->waitFinished(60000);
        return job;
    }

private slots:
    void initTestCase() {
        QVERIFY(work.isValid());
        sshd_up = sshd.start();
    }

    void planListsEveryFileForEveryNode() {
        const Project p = project();
        QVERIFY(!has_errors(validate(p)));
        RuntimeConfig r;
        r.script = "train.py";
        LaunchPlan plan = plan_launch(p.cluster, r, "job-1");
        add_config_uploads(plan, p, r);
        const ExportResult ex = export_project(p, "deepspeed");
        QVERIFY(!ex.files.empty());
        QCOMPARE(plan.uploads.size(), ex.files.size() * 2);   // both nodes run ranks
        int ds = 0;
        for (const auto& u : plan.uploads)
            if (u.path == "ds_config.json") {
                ++ds;
                QCOMPARE(u.content, ex.files.at("ds_config.json").content);
            }
        QCOMPARE(ds, 2);
        // Into a folder of its own, created first; nothing when copying is off.
        r.upload_dir = "configs";
        r.workdir = "/tmp/x y";
        LaunchPlan in_dir = plan_launch(p.cluster, r, "job-2");
        add_config_uploads(in_dir, p, r);
        QCOMPARE(in_dir.uploads.front().path.rfind("configs/", 0), 0ul);
        const std::string cmd = upload_command(in_dir, in_dir.uploads.front());
        QVERIFY2(cmd.find("mkdir -p") != std::string::npos && cmd.find("cat >") != std::string::npos, cmd.c_str());
        r.upload_configs = false;
        LaunchPlan none = plan_launch(p.cluster, r, "job-3");
        add_config_uploads(none, p, r);
        QVERIFY(none.uploads.empty());
        // The launcher decides the format: `deepspeed` mode gets the DeepSpeed files even for
        // a Megatron layout; a layout the export refuses stops the launch with its field.
        Project meg = p;
        meg.layout.framework = "megatron";
        QCOMPARE(config_export_format(meg, r), std::string("megatron"));
        r.mode = "deepspeed";
        QCOMPARE(config_export_format(meg, r), std::string("deepspeed"));
        Project bad = p;
        bad.layout.tp = 3;
        r = RuntimeConfig{};
        r.script = "train.py";
        LaunchPlan refused = plan_launch(bad.cluster, r, "job-4");
        try {
            add_config_uploads(refused, bad, r);
            QFAIL("a layout the export refuses must stop the launch");
        } catch (const InputError& e) {
            QVERIFY2(std::string(e.what()).find("config files") != std::string::npos, e.what());
        }
    }

    void filesAreOnTheNodesBeforeTheRanksStart() {
        if (!sshd_up) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        const Project p = project();
        const QString wd = work.path() + "/run dir";   // a space: quoted on the remote side
        const RuntimeConfig r = rc(wd.toStdString());
        const auto run_ok = run(p, r, "upload-ok");
        const Job& job = *run_ok;
        QVERIFY(job.done());
        QVERIFY2(job.state() == Job::State::Succeeded, job.error().c_str());
        const std::string want = export_project(p, "deepspeed").files.at("ds_config.json").content;
        QFile f(wd + "/ds_config.json");
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll().toStdString(), want);
        for (int rank = 0; rank < 4; ++rank) {
            QFile log(QString::fromStdString(job.folder()) + QStringLiteral("/rank-%1.log").arg(rank));
            QVERIFY(log.open(QIODevice::ReadOnly));
            QVERIFY2(log.readAll().contains(QStringLiteral("found-%1-%2").arg(rank).arg(want.size()).toUtf8()),
                     qPrintable(log.fileName()));
        }
        QVERIFY(job.to_json().contains("uploads"));
    }

    void aCopyThatFailsStopsTheLaunch() {
        if (!sshd_up) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        const Project p = project();
        RuntimeConfig r = rc(work.path().toStdString() + "/wd2");
        r.upload_dir = "/proc/paraplan-cannot-write-here";
        const auto run_fail = run(p, r, "upload-fail");
        const Job& job = *run_fail;
        QVERIFY(job.done());
        QCOMPARE(job.state(), Job::State::Failed);
        QVERIFY2(job.error().find("cannot copy the config file") != std::string::npos, job.error().c_str());
        for (const auto& proc : job.processes()) QVERIFY(!proc->pgid);   // no rank was started
    }
};

QTEST_GUILESS_MAIN(TestConfigUpload)
#include "tst_config_upload.moc"
