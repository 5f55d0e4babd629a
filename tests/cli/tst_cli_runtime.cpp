// paraplan-cli launch / monitor / probe / stop as a user runs them, against the loopback
// sshd (tests/runtime/sshd_fixture.h) with the stub nvidia-smi.
#include "runtime/e2e_common.h"

#include <nlohmann/json.hpp>

#include <QProcess>
#include <QtTest>

#include <map>

class TestCliRuntime : public QObject {
    Q_OBJECT
    SshdFixture sshd;
    QTemporaryDir work{QDir::tempPath() + "/pp-cli-XXXXXX"};
    QString project;

    struct Out {
        int code = -1;
        QString out, err;
    };
    Out cli(const QStringList& args, int timeout_ms = 120000) {
        QProcess p;
        p.setWorkingDirectory(work.path());
        p.start(PARAPLAN_CLI, args);
        Out o;
        if (!p.waitForFinished(timeout_ms)) p.kill();
        p.waitForFinished(2000);
        o.code = p.exitCode();
        o.out = QString::fromUtf8(p.readAllStandardOutput());
        o.err = QString::fromUtf8(p.readAllStandardError());
        return o;
    }

    // The processes whose command line holds `pattern`, once they have had up to 5 s to end.
    static QStringList still_running(const QString& pattern) {
        QStringList left;
        for (int i = 0; i < 50; ++i) {
            QProcess pg;
            pg.start("pgrep", {"-f", pattern});
            pg.waitForFinished(5000);
            left = QString::fromUtf8(pg.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
            if (left.isEmpty()) break;
            QThread::msleep(100);
        }
        return left;
    }

    QString write_project(const nlohmann::json& runtime, const QString& name = "p.paraplan.json") {
        nlohmann::json nodes = nlohmann::json::array();
        for (int n = 0; n < 2; ++n)
            nodes.push_back({{"name", "node" + std::to_string(n)},
                             {"host", "127.0.0." + std::to_string(n + 2)},
                             {"port", sshd.port},
                             {"user", "root"},
                             {"gpu", "a100-80g"},
                             {"gpus", 2}});
        nlohmann::json rt = runtime;
        rt["path_prepend"] = {stub_bin(work.path()).toStdString()};
        if (!rt.contains("workdir")) rt["workdir"] = (work.path() + "/run").toStdString();   // the config files go here
        const nlohmann::json p = {{"paraplan", 1},
                                  {"name", "cli; test"},
                                  {"cluster", {{"nodes", nodes}}},
                                  {"model", {{"preset", "gpt2"}}},
                                  {"layout", {{"framework", "colossalai"}, {"tp", 2}, {"pp", 2}}},
                                  {"runtime", rt}};
        const QString path = work.path() + "/" + name;
        SshdFixture::write(path, QString::fromStdString(p.dump(2)));
        return path;
    }

private slots:
    void initTestCase() {
        if (!sshd.start()) QSKIP(qPrintable("the loopback sshd cannot start here: " + sshd.error));
        // The key, config and known_hosts come from the user's ssh profile, never the project.
        use_local_profile(work.path(), loopback_profile(sshd));
        project = write_project({{"python", "/bin/sh"},
                                 {"script", "-c"},
                                 {"args", {"echo \"rank $RANK/$WORLD_SIZE X=$X\"; [ \"$RANK\" != 9 ]"}},
                                 {"env", {{"X", "a b; $(touch /tmp/pp-pwned)"}}}});
    }

    void dryRunPrintsEveryCommand() {
        const Out o = cli({"launch", project, "--dry-run"});
        QCOMPARE(o.code, 0);
        // One command per rank, plus one per config file copied to each node first.
        const int copies = int(o.out.count("\n# copy "));
        QVERIFY2(copies >= 2 && copies % 2 == 0, qPrintable(o.out));
        QVERIFY(o.out.contains("# copy plugin.py"));
        QCOMPARE(o.out.count("\nssh "), 4 + copies);
        QVERIFY(o.out.contains("-o StrictHostKeyChecking=yes"));
        QVERIFY(o.out.contains("-- 127.0.0.3 "));
        const Out j = cli({"launch", project, "--dry-run", "--json", "--mode", "torchrun"});
        QCOMPARE(j.code, 0);
        const auto doc = nlohmann::json::parse(j.out.toStdString());
        QCOMPARE(doc["mode"].get<std::string>(), std::string("torchrun"));
        QCOMPARE(doc["processes"].size(), std::size_t(2));
        QCOMPARE(doc["processes"][1]["argv"][0].get<std::string>(), std::string("torchrun"));
        QCOMPARE(int(doc["uploads"].size()), copies);
        for (const auto& u : doc["uploads"]) {
            QVERIFY(u["bytes"].get<int>() > 0);
            QVERIFY(u["remote_command"].get<std::string>().find("cat >") != std::string::npos);
        }
        const Out s = cli({"launch", project, "--dry-run", "--mode", "slurm"});
        QCOMPARE(s.code, 0);
        QVERIFY(s.out.contains("#SBATCH --nodes=2"));
        QVERIFY(s.out.contains("sbatch --parsable"));
        const Out bad = cli({"launch", project, "--dry-run", "--mode", "mpirun"});
        QCOMPARE(bad.code, 2);
    }

    void checkReportsEachNode() {
        const Out o = cli({"launch", project, "--check", "--json"});
        const auto doc = nlohmann::json::parse(o.out.toStdString());
        QCOMPARE(doc["nodes"].size(), std::size_t(2));
        for (const auto& n : doc["nodes"]) {
            QVERIFY(n["reachable"].get<bool>());
            QCOMPARE(n["gpus"].size(), std::size_t(2));
        }
    }

    void launchRunsAndRecords() {
        QFile::remove("/tmp/pp-pwned");
        const Out o = cli({"launch", project, "--job-dir", work.path() + "/jobs"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        for (int r = 0; r < 4; ++r)
            QVERIFY(o.out.contains(QString("[rank-%1] rank %1/4 X=a b; $(touch /tmp/pp-pwned)").arg(r)));
        QVERIFY(!QFile::exists("/tmp/pp-pwned"));
        const auto dirs = QDir(work.path() + "/jobs").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        QCOMPARE(dirs.size(), 1);
        const auto job = nlohmann::json::parse(
            SshdFixture::read(work.path() + "/jobs/" + dirs[0] + "/job.json").toStdString());
        QCOMPARE(job["state"].get<std::string>(), std::string("succeeded"));
        QCOMPARE(job["project"]["name"].get<std::string>(), std::string("cli; test"));
        // Stopping a finished job is fine; an unknown job is a usage error.
        const Out st = cli({"stop", dirs[0], "--job-dir", work.path() + "/jobs"});
        QCOMPARE(st.code, 0);
        QVERIFY(st.out.contains("already finished"));
        QCOMPARE(cli({"stop", "no-such-job", "--job-dir", work.path() + "/jobs"}).code, 2);

        // `jobs` lists it, `status` shows every process with its exit code and log.
        const Out js = cli({"jobs", "--job-dir", work.path() + "/jobs", "--json"});
        QCOMPARE(js.code, 0);
        const auto list = nlohmann::json::parse(js.out.toStdString());
        QCOMPARE(list["jobs"].size(), std::size_t(1));
        QCOMPARE(list["jobs"][0]["id"].get<std::string>(), dirs[0].toStdString());
        QCOMPARE(list["jobs"][0]["state"].get<std::string>(), std::string("succeeded"));
        QCOMPARE(list["jobs"][0]["exit_code"].get<int>(), 0);
        QCOMPARE(list["jobs"][0]["hosts"], nlohmann::json({"127.0.0.2", "127.0.0.3"}));
        const Out stj = cli({"status", dirs[0], "--job-dir", work.path() + "/jobs", "--json"});
        QCOMPARE(stj.code, 0);
        const auto status = nlohmann::json::parse(stj.out.toStdString());
        QCOMPARE(status["processes"].size(), std::size_t(4));
        for (const auto& p : status["processes"]) {
            QCOMPARE(p["exit_code"].get<int>(), 0);
            QVERIFY(QFile::exists(QString::fromStdString(p["log"].get<std::string>())));
        }
        QCOMPARE(cli({"status", "no-such-job", "--job-dir", work.path() + "/jobs"}).code, 2);
    }

    // Without --job-dir a launch keeps its record in Paraplan's own state folder
    // ($XDG_STATE_HOME/paraplan/jobs), private to the user, where `jobs` finds it.
    void defaultJobFolderIsPrivate() {
        // Under a umask that lets the group write (Ubuntu's default for users), the records are
        // still the user's alone, so `jobs` and `status` read them back.
        QProcess sh;
        sh.setWorkingDirectory(work.path());
        sh.start("bash", {"-c", "umask 002; exec \"$0\" launch \"$1\"", PARAPLAN_CLI, project});
        QVERIFY(sh.waitForFinished(120000));
        const Out o{sh.exitCode(), QString::fromUtf8(sh.readAllStandardOutput()),
                    QString::fromUtf8(sh.readAllStandardError())};
        QVERIFY2(o.code == 0, qPrintable(o.err));
        const QString jobs = qEnvironmentVariable("XDG_STATE_HOME") + "/paraplan/jobs";
        QVERIFY2(o.err.contains("logs in " + jobs + "/"), qPrintable(o.err));
        QCOMPARE(QFileInfo(jobs).permissions() & (QFile::WriteGroup | QFile::WriteOther | QFile::ReadOther),
                 QFileDevice::Permissions());
        const Out js = cli({"jobs", "--json"});
        const auto list = nlohmann::json::parse(js.out.toStdString());
        QCOMPARE(list["job_dir"].get<std::string>(), jobs.toStdString());
        QVERIFY(!list["jobs"].empty());
        QCOMPARE(list["jobs"][0]["state"].get<std::string>(), std::string("succeeded"));
        const QString folder = QString::fromStdString(list["jobs"][0]["folder"].get<std::string>());
        for (const QString& f : {folder, folder + "/job.json", folder + "/rank-0.log"})
            QCOMPARE(QFileInfo(f).permissions() & (QFile::WriteGroup | QFile::WriteOther), QFileDevice::Permissions());
        QCOMPARE(cli({"status", list["jobs"][0]["id"].get<std::string>().c_str()}).code, 0);
    }

    void monitorOnceHungNode() {
        // nvidia-smi hangs on node1 (127.0.0.3): --once still answers within its timeout,
        // with node0's reading, node1 reported, and no nvidia-smi left on node1.
        const QString hang = work.path() + "/hang-bin";
        QDir().mkpath(hang);
        const QString stub = stub_bin(work.path());
        SshdFixture::write(
            hang + "/nvidia-smi",
            "#!/bin/sh\ncase \"$SSH_CONNECTION\" in *' 127.0.0.3 '*) while :; do sleep 0.2; done ;; esac\n"
            "exec " +
                stub + "/nvidia-smi \"$@\"\n");
        QFile::setPermissions(hang + "/nvidia-smi", QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        auto doc = nlohmann::json::parse(SshdFixture::read(project).toStdString());
        doc["runtime"]["path_prepend"] = {hang.toStdString()};
        const QString file = work.path() + "/hang.paraplan.json";
        SshdFixture::write(file, QString::fromStdString(doc.dump(2)));
        // The hung nvidia-smi never ends: an answer at all (exit 1 with the JSON, not the harness's kill)
        // is the --timeout at work.
        const Out o = cli({"monitor", file, "--once", "--json", "--timeout", "3"});
        QCOMPARE(o.code, 1);
        const auto j = nlohmann::json::parse(o.out.toStdString());
        QVERIFY(j["nodes"][0]["ok"].get<bool>());
        QCOMPARE(j["nodes"][0]["gpus"].size(), std::size_t(2));
        QVERIFY(!j["nodes"][1]["ok"].get<bool>());
        QVERIFY2(j["nodes"][1]["error"].get<std::string>().find("nvidia-smi hung on node1: no reading within 3 s") !=
                     std::string::npos,
                 j["nodes"][1]["error"].get<std::string>().c_str());
        // The hung reader on the node is gone (its process group was ended over the channel).
        QStringList left = still_running(hang + "/nvidia-smi");
        QVERIFY2(left.isEmpty(), qPrintable("left: " + left.join(' ')));

        // `launch --check` reports the same hang as a hang on node1, not as "0 GPUs", stops it
        // there, and node0 stays fine.
        const Out chk = cli({"launch", file, "--check", "--json"});
        QCOMPARE(chk.code, 1);
        const auto cj = nlohmann::json::parse(chk.out.toStdString());
        QVERIFY2(cj["nodes"][0]["problems"].dump().find("nvidia-smi") == std::string::npos,
                 cj["nodes"][0]["problems"].dump().c_str());
        QCOMPARE(cj["nodes"][0]["gpus"].size(), std::size_t(2));
        const std::string problems = cj["nodes"][1]["problems"].dump();
        QVERIFY2(problems.find("nvidia-smi hung on node1") != std::string::npos, problems.c_str());
        QVERIFY2(problems.find("lists 0 GPU") == std::string::npos, problems.c_str());
        left = still_running(hang + "/nvidia-smi");
        QVERIFY2(left.isEmpty(), qPrintable("left after --check: " + left.join(' ')));
    }

    // One exit code per kind of outcome, the same in every command: a node nobody listens on
    // is "unreachable" (4) for --check, launch, monitor and probe.
    void unreachableClusterExitCode() {
        auto doc = nlohmann::json::parse(SshdFixture::read(project).toStdString());
        for (auto& n : doc["cluster"]["nodes"]) n["port"] = 1;
        const QString file = work.path() + "/nobody.paraplan.json";
        SshdFixture::write(file, QString::fromStdString(doc.dump(2)));
        for (const QStringList& args : {QStringList{"launch", file, "--check"}, QStringList{"launch", file},
                                        QStringList{"monitor", file, "--once"}, QStringList{"probe", file}}) {
            const Out o = cli(args);
            QVERIFY2(o.code == 4, qPrintable(args.join(' ') + " -> " + QString::number(o.code) + "\n" + o.err));
        }
    }

    void monitorOnce() {
        const Out o = cli({"monitor", project, "--once", "--json"});
        QVERIFY2(o.code == 0, qPrintable(o.err));
        const auto doc = nlohmann::json::parse(o.out.toStdString());
        QCOMPARE(doc["nodes"].size(), std::size_t(2));
        const auto& g = doc["nodes"][1]["gpus"][1];
        QCOMPARE(g["index"].get<int>(), 1);
        QCOMPARE(g["rank"].get<int>(), 3);
        QCOMPARE(g["memory.total"].get<double>(), 81559.0);
        // Per pipeline stage: the mean over the stage's ranks, from the per-GPU figures above.
        std::map<int, std::pair<double, double>> by_rank;   // rank -> (util, memory)
        for (const auto& n : doc["nodes"])
            for (const auto& gpu : n["gpus"])
                by_rank[gpu["rank"].get<int>()] = {gpu["utilization.gpu"].get<double>(),
                                                   gpu["memory.used"].get<double>()};
        QCOMPARE(doc["stages"].size(), std::size_t(2));   // pp = 2
        bool over = false;
        for (const auto& st : doc["stages"]) {
            double u = 0, m = 0;
            for (const auto& r : st["ranks"]) {
                u += by_rank.at(r.get<int>()).first;
                m += by_rank.at(r.get<int>()).second;
            }
            const double n = static_cast<double>(st["ranks"].size());
            QCOMPARE(st["utilization.gpu"].get<double>(), u / n);
            QCOMPARE(st["memory.used"].get<double>(), m / n);
            QCOMPARE(st["ranks_without_sample"].get<int>(), 0);
            // GPT-2 needs far less than the recorded 70 GB: the stage is above its estimate.
            QVERIFY(st["expected_memory_mib"].is_number());
            over = over || m / n > st["expected_memory_mib"].get<double>() + 1536;
        }
        QVERIFY(over);
        int memory_flags = 0;
        for (const auto& f : doc["flags"]) memory_flags += f["kind"] == "memory_above_estimate";
        QCOMPARE(memory_flags, 4);
        const Out t = cli({"monitor", project, "--once"});
        QVERIFY(t.out.contains("NVIDIA H100 80GB HBM3"));
    }

    void probeTheProjectLayout() {
        // tp=2 x pp=2 from the project's layout (topology), gloo over the loopback sshd.
        QProcess torch;
        torch.start("/usr/bin/python3", {"-c", "import torch.distributed"});
        torch.waitForFinished(120000);
        if (torch.exitCode() != 0) QSKIP("Debian's python3-torch is not installed");
        const QString probe_project = write_project(
            {{"python", "/usr/bin/python3"}, {"master_port", 30000 + QDateTime::currentSecsSinceEpoch() % 5000}},
            "probe.paraplan.json");
        const Out o = cli({"probe", probe_project, "--json", "--sizes", "4096", "--iters", "1"}, 240000);
        QVERIFY2(o.code == 0, qPrintable(o.err));
        const auto doc = nlohmann::json::parse(o.out.toStdString());
        QVERIFY(doc["ok"].get<bool>());
        QCOMPARE(doc["world_size"].get<int>(), 4);
        QCOMPARE(doc["failed_groups"].get<int>(), 0);
        bool tp = false;
        for (const auto& g : doc["groups"]) tp = tp || (g["kind"] == "tp" && g["ranks"].size() == 2);
        QVERIFY(tp);
        QCOMPARE(cli({"probe", probe_project, "--layout", work.path() + "/missing.json"}).code, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliRuntime)
#include "tst_cli_runtime.moc"
