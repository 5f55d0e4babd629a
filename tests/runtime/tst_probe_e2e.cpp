// The probe job end to end: 2 nodes x 2 ranks over the loopback sshd, Debian's
// python3-torch on gloo (direct mode), the script and layout uploaded over ssh, every
// planned group created and checked, and the result parsed from rank 0's log.
#include "e2e_common.h"
#include "proc_tag.h"
#include "runtime/connection_test.h"
#include "runtime/job.h"
#include "launch/launch_plan.h"
#include "runtime/probe_job.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;

class TestProbeE2E : public QObject {
    Q_OBJECT
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-probe-XXXXXX"};

private slots:
    void initTestCase() {
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        QProcess torch;
        torch.start("/usr/bin/python3", {"-c", "import torch.distributed"});
        torch.waitForFinished(120000);
        if (torch.exitCode() != 0) QSKIP("Debian's python3-torch is not installed (apt-get install -y python3-torch)");
    }

    void probeTwoNodesTwoRanks() {
        const Cluster c = loopback_cluster(sshd);
        RuntimeConfig base = loopback_runtime(stub_bin(work.path()));
        base.master_addr = "127.0.0.2";
        base.master_port = SshdFixture::free_port();   // free now: tests run side by side
        // tp=2 inside a node, pp=2 across the nodes (rank = pp * 2 + tp).
        const std::string layout = R"({"framework":"colossalai","world_size":4,"axes":["pp","tp"],
            "ranks":[{"rank":0,"coords":{"pp":0,"tp":0},"node":0,"local_rank":0},
                     {"rank":1,"coords":{"pp":0,"tp":1},"node":0,"local_rank":1},
                     {"rank":2,"coords":{"pp":1,"tp":0},"node":1,"local_rank":0},
                     {"rank":3,"coords":{"pp":1,"tp":1},"node":1,"local_rank":1}],
            "groups":{"tp":[[0,1],[2,3]],"pp":[[0,2],[1,3]],"dp":[[0],[1],[2],[3]]}})";
        const std::string id = make_job_id("probe", QDateTime::currentSecsSinceEpoch());
        const auto ssh = ssh_options_from(base, loopback_profile(sshd));
        const ProbeFolder folder = prepare_probe(c, ssh, layout, 20000);
        QVERIFY2(folder.error.empty(), folder.error.c_str());
        const std::string& dir = folder.dir;
        // A fresh private folder with a random name, the same path on both nodes (one /tmp here).
        QVERIFY2(QString::fromStdString(dir).contains(QRegularExpression("^/tmp/paraplan-probe\\.[A-Za-z0-9]{10}$")),
                 dir.c_str());
        const auto others = QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ExeGroup |
                            QFileDevice::ReadOther | QFileDevice::WriteOther | QFileDevice::ExeOther;
        QCOMPARE(QFileInfo(QString::fromStdString(dir)).permissions() & others, QFileDevice::Permissions());
        const RuntimeConfig rc = probe_runtime(base, dir,
                                               {"--sizes", "4096,65536", "--iters", "2", "--timeout-s", "120"});
        const auto plan = plan_launch(c, rc, id);
        Job job(c, plan, ssh_options_from(rc, loopback_profile(sshd)),
                (work.path() + "/jobs/" + QString::fromStdString(id)).toStdString(), nlohmann::json::object());
        job.start();
        QVERIFY(job.waitFinished(240000));
        const QString log0 = SshdFixture::read(QString::fromStdString(job.folder()) + "/rank-0.log");
        QVERIFY2(Job::to_string(job.state()) == "succeeded",
                 qPrintable(QString::fromStdString(job.error()) + "\n" + log0));
        const auto result = probe_result_from_log(job.folder() + "/rank-0.log");
        QVERIFY2(result, qPrintable(log0));
        QVERIFY(result->ok);
        QCOMPARE(result->backend, std::string("gloo"));
        QCOMPARE(result->world_size, 4);
        QCOMPARE(result->groups.size(), std::size_t(8));
        QCOMPARE(result->failed_groups(), 0);
        for (const auto& g : result->groups) {
            double sum = 0;
            for (int r : g.ranks) sum += r;
            QCOMPARE(g.expected_sum, sum);
            QCOMPARE(g.allreduce_sum, sum);
            if (g.kind == "tp") {
                QCOMPARE(g.bandwidth.size(), std::size_t(4));   // 2 sizes x {all_reduce, all_gather}
                for (const auto& b : g.bandwidth) QVERIFY(b.busbw_gbps > 0);
            }
        }
        QCOMPARE(result->p2p.size(), std::size_t(2));
        QCOMPARE(result->p2p[0].src, 0);
        QCOMPARE(result->p2p[0].dst, 2);
        QVERIFY(result->p2p[0].gbps > 0);
        QVERIFY(wait_no_tagged(id, 10000).isEmpty());
        remove_probe_folder(c, ssh, dir);
        QVERIFY(!QFileInfo::exists(QString::fromStdString(dir)));
    }

    // Another local user's planted folder or link at the probe's path is never written through:
    // a node whose folder of that name is not the user's own private one refuses, and the run
    // stops there (the link's target stays untouched).
    void plantedFolderIsRefused() {
        const Cluster c = loopback_cluster(sshd);
        const auto ssh = ssh_options_from(loopback_runtime(stub_bin(work.path())), loopback_profile(sshd));
        SshNode n(ssh_target(c.nodes[1]), ssh);
        QVERIFY(n.waitConnected(20000));
        const QString victim = work.path() + "/victim";
        SshdFixture::write(victim, "keep\n");
        const std::string planted = std::string(kProbeDirPrefix) + "PlAnTeD0001";
        QFile::remove(QString::fromStdString(planted));
        QVERIFY(QFile::link(work.path(), QString::fromStdString(planted)));   // a link to a folder
        auto r = n.run(probe_claim_command(planted), 20000);
        QCOMPARE(r.exit_code, 3);
        QVERIFY2(r.err.find("not a private folder") != std::string::npos, r.err.c_str());
        QVERIFY(!upload_probe(n, planted, "{}").empty());   // refuses to write through the link
        QCOMPARE(SshdFixture::read(victim), QString("keep\n"));
        QVERIFY(!QFileInfo::exists(work.path() + "/layout.json"));
        QFile::remove(QString::fromStdString(planted));
        // A real folder open to others (0777) is refused too.
        QVERIFY(QDir().mkpath(QString::fromStdString(planted)));
        QFile::setPermissions(QString::fromStdString(planted), QFileDevice::Permissions(0x7777));
        r = n.run(probe_claim_command(planted), 20000);
        QCOMPARE(r.exit_code, 3);
        QDir(QString::fromStdString(planted)).removeRecursively();
    }
};

QTEST_GUILESS_MAIN(TestProbeE2E)
#include "tst_probe_e2e.moc"
