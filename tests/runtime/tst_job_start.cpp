// The one start of a job that `paraplan-cli launch` / `probe` and the Run panel share
// (runtime/job_start.h): settings refused before any folder exists, a folder of its own per
// start, the framework's config uploads for training only, a probe that stops every rank when
// one fails, and the probe's groups as the framework builds them. Nothing here is started.
#include "gpt2_deepspeed.h"
#include "launch/launch_plan.h"
#include "project/project.h"
#include "runtime/job_start.h"
#include "util/input_error.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;

class TestJobStart : public QObject {
    Q_OBJECT
    QTemporaryDir work{QDir::tempPath() + "/pp-jobstart-XXXXXX"};

    // GPT-2 on one node of 4 GPUs under DeepSpeed ZeRO-2: its launch copies ds_config.json.
    static Project project() {
        paraplan::Cluster c = load_example("gpt2-1node").cluster;
        c.nodes.resize(1);
        c.nodes[0].gpus = 4;
        c.nodes[0].host = "127.0.0.2";
        return gpt2_deepspeed_zero2(std::move(c));
    }
    static RuntimeConfig rc() {
        RuntimeConfig r;
        r.python = "/usr/bin/python3";
        r.script = "train.py";
        r.on_failure = "continue";
        return r;
    }
    std::string jobs() const { return work.path().toStdString() + "/jobs"; }

private slots:
    void trainingCarriesTheConfigUploads() {
        const Project p = project();
        const LaunchPlan plan = plan_job(p, rc(), "20261205-000000-a", JobKind::Training);
        QCOMPARE(plan.job_id, std::string("20261205-000000-a"));
        QVERIFY(!plan.uploads.empty());
        bool ds = false;
        for (const auto& u : plan.uploads) ds = ds || u.path.find("ds_config.json") != std::string::npos;
        QVERIFY2(ds, "DeepSpeed's config is copied before the job starts");
        QVERIFY(plan_job(p, rc(), "20261205-000000-a", JobKind::Probe).uploads.empty());
    }

    void eachStartGetsAFolderOfItsOwn() {
        const Project p = project();
        const auto first = create_job(p, rc(), SshOptions{}, jobs(), "20261205-000000-b", JobKind::Training);
        const auto second = create_job(p, rc(), SshOptions{}, jobs(), "20261205-000000-b", JobKind::Training);
        QCOMPARE(first->plan().job_id, std::string("20261205-000000-b"));
        QCOMPARE(second->plan().job_id, std::string("20261205-000000-b-2"));
        QCOMPARE(second->folder(), jobs() + "/20261205-000000-b-2");
        QVERIFY(QDir(QString::fromStdString(second->folder())).exists());
        // The plan is made again for the claimed id: its processes carry it too.
        QVERIFY(!second->plan().uploads.empty());
        QCOMPARE(second->to_json().value("on_failure", std::string()), std::string("continue"));
    }

    void aProbeStopsEveryRankWhenOneFails() {
        const auto job = create_job(project(), rc(), SshOptions{}, jobs(), "20261205-000000-c", JobKind::Probe);
        QCOMPARE(job->to_json().value("on_failure", std::string()), std::string("stop_all"));
        QVERIFY(job->plan().uploads.empty());
    }

    void badSettingsAreRefusedBeforeAnyFolder() {
        Project p = project();
        p.cluster.nodes.push_back(p.cluster.nodes[0]);
        p.cluster.nodes[1].name = "other";
        p.cluster.nodes[1].gpus = 2;   // slurm mode needs the same GPU count on every node
        RuntimeConfig r = rc();
        r.mode = "slurm";
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 create_job(p, r, SshOptions{}, jobs(), "20261205-000000-d", JobKind::Training));
        QVERIFY(!QDir(QString::fromStdString(jobs() + "/20261205-000000-d")).exists());
    }

    void probeGroupsAreTheFrameworksOwn() {
        Project p = project();
        p.layout.framework = "megatron";
        p.layout.zero_stage = 0;
        p.layout.tp = 2;
        const auto g = probe_groups(p);
        QVERIFY(g.errors.empty());
        QCOMPARE(g.layout.value("world_size", 0), 4);
        // Megatron puts tp innermost: ranks 0,1 and 2,3.
        QCOMPARE(g.layout["groups"]["tp"], nlohmann::json::parse("[[0,1],[2,3]]"));

        p.layout.tp = 3;   // does not divide 4 GPUs
        const auto bad = probe_groups(p);
        QVERIFY(bad.layout.is_null());
        QVERIFY(!bad.errors.empty());
    }
};

QTEST_GUILESS_MAIN(TestJobStart)
#include "tst_job_start.moc"
