// Launch plans (direct, torchrun, colossalai, deepspeed, slurm) and the remote wrapper,
// run here through /bin/sh exactly as ssh would hand it to the login shell.
#include "runtime/proc_tag.h"
#include "joblog/job_history.h"
#include "launch/launch_plan.h"
#include "shell/shell_quote.h"
#include "util/input_error.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>

#include <map>
#include <set>
#include <thread>

using namespace paraplan;
using namespace paraplan::runtime;

namespace {

Cluster two_by_two() {
    Cluster c;
    for (int n = 0; n < 2; ++n) {
        Node node;
        node.name = "node" + std::to_string(n);
        node.host = "127.0.0." + std::to_string(n + 2);
        node.gpus = 2;
        c.nodes.push_back(node);
    }
    return c;
}

std::map<std::string, std::string> env_of(const RemoteProcess& p) {
    std::map<std::string, std::string> m;
    for (const auto& [k, v] : p.env) m[k] = v;
    return m;
}

struct Ran {
    int exit_code = -1;
    QString out, err;
};

// Starts the wrapper locally; `feed_eof_after_ms` >= 0 closes stdin then (Stop).
Ran run_wrapper(const LaunchPlan& plan, const RemoteProcess& p, int close_stdin_after_ms = -1, int timeout_ms = 30000) {
    QProcess proc;
    proc.start("/bin/sh", {"-c", QString::fromStdString(remote_launch_command(plan, p))});
    proc.waitForStarted();
    if (close_stdin_after_ms >= 0) {
        QThread::msleep(static_cast<unsigned long>(close_stdin_after_ms));
        proc.closeWriteChannel();
    }
    Ran r;
    if (!proc.waitForFinished(timeout_ms)) proc.kill();
    proc.waitForFinished(2000);
    r.exit_code = proc.exitCode();
    r.out = QString::fromUtf8(proc.readAllStandardOutput());
    r.err = QString::fromUtf8(proc.readAllStandardError());
    return r;
}

}   // namespace

class TestLaunchPlan : public QObject {
    Q_OBJECT
private slots:
    void directModeEnvFollowsThePlacement() {
        Cluster c = two_by_two();
        // Custom canvas order: rank 0 on node1 GPU 1, rank 1 on node0 GPU 0, ...
        c.rank_order = {{1, 1}, {0, 0}, {1, 0}, {0, 1}};
        RuntimeConfig rc;
        rc.script = "train.py";
        rc.args = {"--lr", "0.1"};
        rc.env = {{"NCCL_DEBUG", "INFO"}};
        const auto plan = plan_launch(c, rc, "20260101-000000-t");
        QCOMPARE(plan.processes.size(), std::size_t(4));
        QCOMPARE(plan.master_addr, std::string("127.0.0.3"));   // rank 0's node
        const auto& p0 = plan.processes[0];
        QCOMPARE(p0.node, 1);
        QCOMPARE(p0.label, std::string("rank-0"));
        auto e0 = env_of(p0);
        QCOMPARE(e0["RANK"], std::string("0"));
        QCOMPARE(e0["WORLD_SIZE"], std::string("4"));
        QCOMPARE(e0["CUDA_VISIBLE_DEVICES"], std::string("1"));
        QCOMPARE(e0["LOCAL_RANK"], std::string("0"));   // first of node1's ranks (0 and 2)
        QCOMPARE(e0["LOCAL_WORLD_SIZE"], std::string("2"));
        QCOMPARE(e0["MASTER_PORT"], std::string("29500"));
        QCOMPARE(e0["PYTHONUNBUFFERED"], std::string("1"));
        QCOMPARE(e0["PARAPLAN_JOB"], std::string("20260101-000000-t"));
        QCOMPARE(e0["NCCL_DEBUG"], std::string("INFO"));
        auto e2 = env_of(plan.processes[2]);
        QCOMPARE(plan.processes[2].node, 1);
        QCOMPARE(e2["LOCAL_RANK"], std::string("1"));
        QCOMPARE(e2["CUDA_VISIBLE_DEVICES"], std::string("0"));
        auto e3 = env_of(plan.processes[3]);
        QCOMPARE(plan.processes[3].node, 0);
        QCOMPARE(e3["CUDA_VISIBLE_DEVICES"], std::string("1"));
        QCOMPARE(plan.processes[1].argv, (std::vector<std::string>{"python3", "train.py", "--lr", "0.1"}));
    }

    void torchrunStaticRendezvous() {
        RuntimeConfig rc;
        rc.mode = "torchrun";
        rc.script = "train.py";
        const auto plan = plan_launch(two_by_two(), rc, "j");
        QCOMPARE(plan.processes.size(), std::size_t(2));
        const auto& a = plan.processes[1].argv;
        QCOMPARE(a[0], std::string("torchrun"));
        QVERIFY(std::find(a.begin(), a.end(), "--node_rank=1") != a.end());
        QVERIFY(std::find(a.begin(), a.end(), "--nnodes=2") != a.end());
        QVERIFY(std::find(a.begin(), a.end(), "--nproc_per_node=2") != a.end());
        QVERIFY(std::find(a.begin(), a.end(), "--rdzv_backend=static") != a.end());
        QVERIFY(std::find(a.begin(), a.end(), "--master_addr=127.0.0.2") != a.end());
        QCOMPARE(a.back(), std::string("train.py"));
        QCOMPARE(env_of(plan.processes[1])["CUDA_VISIBLE_DEVICES"], std::string("0,1"));
    }

    void torchrunRefusesInterleavedPlacement() {
        Cluster c = two_by_two();
        c.rank_order = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
        RuntimeConfig rc;
        rc.mode = "torchrun";
        rc.script = "train.py";
        try {
            plan_launch(c, rc, "j");
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/runtime/mode"));
            QVERIFY(e.message().find("direct") != std::string::npos);
        }
    }

    void launcherModes() {
        RuntimeConfig rc;
        rc.script = "train.py";
        rc.mode = "colossalai";
        auto plan = plan_launch(two_by_two(), rc, "j");
        QCOMPARE(plan.processes.size(), std::size_t(1));
        QCOMPARE(sh_join(plan.processes[0].argv),
                 std::string("colossalai run --nproc_per_node 2 --host 127.0.0.2,127.0.0.3 --master_addr 127.0.0.2 "
                             "--master_port 29500 train.py"));
        rc.mode = "deepspeed";
        plan = plan_launch(two_by_two(), rc, "j");
        QCOMPARE(plan.processes.size(), std::size_t(2));
        QVERIFY(sh_join(plan.processes[1].argv).find("--no_ssh --node_rank=1") != std::string::npos);
    }

    void slurmBatchScript() {
        RuntimeConfig rc;
        rc.mode = "slurm";
        rc.script = "train.py";
        rc.slurm.partition = "gpu";
        rc.slurm.time = "00:10:00";
        rc.env = {{"X", "a b"}};
        const auto plan = plan_launch(two_by_two(), rc, "job1");
        const std::string& s = plan.sbatch_script;
        QVERIFY(s.find("#SBATCH --nodes=2\n") != std::string::npos);
        QVERIFY(s.find("#SBATCH --ntasks-per-node=2\n") != std::string::npos);
        QVERIFY(s.find("#SBATCH --partition=gpu\n") != std::string::npos);
        QVERIFY(s.find("X='a b'; export X") != std::string::npos);
        QVERIFY(s.find("RANK=$SLURM_PROCID") != std::string::npos);
        // Task-labelled output (srun --label) in the file the job's output is followed from.
        QVERIFY(s.find("srun --kill-on-bad-exit=1 --label /bin/sh -c ") != std::string::npos);
        QVERIFY(s.find("#SBATCH --output=paraplan-job1-%j.out\n") != std::string::npos);
        QCOMPARE(plan.processes.size(), std::size_t(1));
        QCOMPARE(plan.processes[0].stdin_text, s);
        // gpus "auto": no #SBATCH gres line; the job backend reads sinfo before sbatch and
        // adds what choose_slurm_gpus decides (tst_slurm_gpus) for 2 nodes of 2 GPUs.
        QVERIFY(s.find("--gpus-per-node") == std::string::npos);
        QCOMPARE(plan.slurm_nodes, 2);
        QCOMPARE(plan.slurm_gpus_per_node, 2);
        QCOMPARE(plan.slurm_partition, std::string("gpu"));
        QVERIFY(remote_launch_command(plan, plan.processes[0]).find("sinfo") == std::string::npos);
        rc.slurm.gpus = "gres";
        auto gres = plan_launch(two_by_two(), rc, "job1");
        QVERIFY(gres.sbatch_script.find("#SBATCH --gpus-per-node=2\n") != std::string::npos);
        QVERIFY(remote_launch_command(gres, gres.processes[0]).find("sinfo") == std::string::npos);
        rc.slurm.gpus = "none";
        gres = plan_launch(two_by_two(), rc, "job1");
        QVERIFY(gres.sbatch_script.find("--gpus-per-node") == std::string::npos);
        QVERIFY(remote_launch_command(gres, gres.processes[0]).find("sinfo") == std::string::npos);
        // A backslash in the working dir: no pattern in --output, the script writes the file.
        rc.workdir = "/w/a\\b";
        gres = plan_launch(two_by_two(), rc, "job1");
        QVERIFY(gres.sbatch_script.find("#SBATCH --output=/dev/null\n") != std::string::npos);
        QVERIFY(gres.sbatch_script.find("exec >paraplan-job1-\"$SLURM_JOB_ID\".out 2>&1\n") != std::string::npos);
        // The script is valid sh.
        QProcess sh;
        sh.start("/bin/sh", {"-n"});
        sh.write(s.data(), static_cast<qint64>(s.size()));
        sh.closeWriteChannel();
        QVERIFY(sh.waitForFinished(5000));
        QCOMPARE(sh.exitCode(), 0);
    }

    void reservedEnvAndMissingScript() {
        RuntimeConfig rc;
        try {
            plan_launch(two_by_two(), rc, "j");
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/runtime/script"));
        }
        rc.script = "x.py";
        rc.env = {{"RANK", "3"}};
        try {
            plan_launch(two_by_two(), rc, "j");
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/runtime/env/RANK"));
        }
        Cluster bad = two_by_two();
        bad.nodes[1].host = "-oProxyCommand=touch /tmp/x";
        rc.env.clear();
        try {
            plan_launch(bad, rc, "j");
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/cluster/nodes/1/host"));
        }
    }

    void jobIds() {
        QCOMPARE(make_job_id("GPT-2 small; rm -rf /", 1767225600), std::string("20260101-000000-gpt-2-small-rm-rf"));
        QCOMPARE(make_job_id("", 0), std::string("19700101-000000-job"));
    }

    // Launches in the same second never share a folder: each claims its own, atomically
    // (mkdir), also when two processes race for it.
    void jobFoldersAreUnique() {
        QTemporaryDir dir;
        const std::string jobs = (dir.path() + "/jobs").toStdString();
        const std::string base = make_job_id("same second", 1767225600);
        const std::string a = claim_job_folder(jobs, base);
        const std::string b = claim_job_folder(jobs, base);
        const std::string c = claim_job_folder(jobs, base);
        QCOMPARE(a, base);
        QCOMPARE(b, base + "-2");
        QCOMPARE(c, base + "-3");
        for (const auto& id : {a, b, c}) QVERIFY(QDir(QString::fromStdString(jobs + "/" + id)).exists());
        // Racing claims (two threads, 50 each, one base id) all get distinct folders.
        const std::string base2 = make_job_id("race", 1767225601);
        std::vector<std::string> got[2];
        std::thread t0([&] {
            for (int i = 0; i < 50; ++i) got[0].push_back(claim_job_folder(jobs, base2));
        });
        std::thread t1([&] {
            for (int i = 0; i < 50; ++i) got[1].push_back(claim_job_folder(jobs, base2));
        });
        t0.join();
        t1.join();
        std::set<std::string> all(got[0].begin(), got[0].end());
        all.insert(got[1].begin(), got[1].end());
        QCOMPARE(all.size(), std::size_t(100));
    }

    void wrapperPassesHostileValuesAndExitStatus() {
        QTemporaryDir dir(QDir::tempPath() + "/pp wd '$x'-XXXXXX");
        RuntimeConfig rc;
        rc.python = "/bin/sh";
        rc.script = "-c";
        rc.args = {"printf '%s|%s|%s\\n' \"$1\" \"$HOSTILE\" \"$PWD\"; exit 3", "arg0", "$(id) `id` ; a'b\"c"};
        rc.env = {{"HOSTILE", "v; $(touch /tmp/paraplan-pwned) 'q' \"d\" `x`"}};
        rc.workdir = dir.path().toStdString();
        QFile::remove("/tmp/paraplan-pwned");
        Cluster c = two_by_two();
        c.nodes.resize(1);
        c.nodes[0].gpus = 1;
        const auto plan = plan_launch(c, rc, "20260101-000000-wrap");
        const Ran r = run_wrapper(plan, plan.processes[0]);
        QCOMPARE(r.exit_code, 3);
        QVERIFY2(
            r.out.contains("$(id) `id` ; a'b\"c|v; $(touch /tmp/paraplan-pwned) 'q' \"d\" `x`|" + dir.path() + "\n"),
            qPrintable(r.out + r.err));
        // The markers carry the plan's random token, never the plain forms a job could print.
        QCOMPARE(plan.marker_token.size(), std::size_t(16));
        QVERIFY(r.out.contains(QString::fromStdString(started_marker(plan))));
        QVERIFY(r.out.contains(QString::fromStdString(exit_marker(plan)) + "3"));
        QVERIFY(!r.out.contains(QString(kExitMarker)));
        QVERIFY(plan_launch(c, rc, "20260101-000000-wrap").marker_token != plan.marker_token);
        QVERIFY(!QFile::exists("/tmp/paraplan-pwned"));
    }

    void wrapperReportsMissingCommandAndWorkdir() {
        RuntimeConfig rc;
        rc.python = "no-such-python-xyz";
        rc.script = "x.py";
        Cluster c = two_by_two();
        c.nodes.resize(1);
        c.nodes[0].gpus = 1;
        auto plan = plan_launch(c, rc, "j-missing");
        Ran r = run_wrapper(plan, plan.processes[0]);
        QCOMPARE(r.exit_code, 127);
        QVERIFY(r.err.contains(QString::fromStdString(error_marker(plan))));
        QVERIFY(r.err.contains("no-such-python-xyz"));
        rc.python = "/bin/true";
        rc.workdir = "/no/such/dir";
        plan = plan_launch(c, rc, "j-missing");
        r = run_wrapper(plan, plan.processes[0]);
        QCOMPARE(r.exit_code, 126);
        QVERIFY(r.err.contains("/no/such/dir"));
    }

    void stdinEofKillsTheWholeGroup() {
        // A job with children that ignore nothing: sh + two sleeps; closing stdin (Stop)
        // must leave no process of the job.
        RuntimeConfig rc;
        rc.python = "/bin/sh";
        rc.script = "-c";
        rc.args = {"sleep 60 & sleep 61 & echo ready; wait"};
        rc.stop_grace_s = 2;
        Cluster c = two_by_two();
        c.nodes.resize(1);
        c.nodes[0].gpus = 1;
        const std::string id = "20260101-000000-stopme";
        const auto plan = plan_launch(c, rc, id);
        QProcess proc;
        proc.start("/bin/sh", {"-c", QString::fromStdString(remote_launch_command(plan, plan.processes[0]))});
        QVERIFY(proc.waitForReadyRead(10000));
        QTRY_VERIFY_WITH_TIMEOUT(processes_with_tag(id).size() >= 3, 10000);
        proc.closeWriteChannel();
        QVERIFY(proc.waitForFinished(15000));
        QCOMPARE(proc.exitCode(), 143);   // the job's shell died of SIGTERM
        const QStringList left = wait_no_tagged(id, 5000);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }

    void leftoverChildrenAreCleanedWhenTheJobEnds() {
        // The leader exits 0 but leaves a TERM-ignoring child: the wrapper kills it (after grace).
        RuntimeConfig rc;
        rc.python = "/bin/sh";
        rc.script = "-c";
        rc.args = {"(trap '' TERM; sleep 60) & exit 0"};
        rc.stop_grace_s = 1;
        Cluster c = two_by_two();
        c.nodes.resize(1);
        c.nodes[0].gpus = 1;
        const std::string id = "20260101-000000-leftover";
        const auto plan = plan_launch(c, rc, id);
        const Ran r = run_wrapper(plan, plan.processes[0]);
        QCOMPARE(r.exit_code, 0);
        const QStringList left = wait_no_tagged(id, 5000);
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));
    }
};

QTEST_GUILESS_MAIN(TestLaunchPlan)
#include "tst_launch_plan.moc"
