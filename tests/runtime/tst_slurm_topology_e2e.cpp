// The slurm export's placement option against a real Slurm 22.05 with topology/tree
// (scripts/slurm-up.sh with PARAPLAN_SLURM_TOPOLOGY, a cluster of its own beside the shared one):
// the project's topology.conf, exported with `slurm-topology`, is the cluster's; the exported
// job.sbatch asks --switches=1 for its tp group of two nodes; while one node of the leaf that
// could hold it is taken, Slurm keeps the job pending rather than spread it over two leaves
// (a job without the option starts at once on those two), and once the node is free the job runs
// under one leaf switch. Slurm 22.05's sbatch refuses --segment, which the export writes only
// for a topology/block cluster.
#include "slurm_fixture.h"

#include "export/export.h"
#include "project/project.h"
#include "topofile/slurm_topology_conf.h"

#include <QDir>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

using namespace paraplan;

namespace {

// The loopback cluster's nodes (scripts/slurm-up.sh): n1, n2 and g1-g3, two leaves and a top.
// Partition "mixed" holds n1, g1 and g3: two nodes of it under one leaf are g1 and g3 only.
const char* kTopology = "SwitchName=s0 Nodes=n[1-2]\nSwitchName=s1 Nodes=g[1-3]\nSwitchName=top Switches=s[0-1]\n";

Project tp_over_two_nodes() {
    nlohmann::json j = {{"paraplan", 1},
                        {"name", "topo-e2e"},
                        {"cluster", {{"gpu", "h100-sxm"}, {"nodes", 2}, {"gpus_per_node", 1}}},
                        {"model", {{"preset", "llama3.1-8b"}}},
                        {"training",
                         {{"global_batch_size", 8},
                          {"micro_batch_size", 1},
                          {"seq_len", 2048},
                          {"precision", "bf16"},
                          {"optimizer", "adamw"}}},
                        {"layout", {{"framework", "megatron"}, {"tp", 2}, {"pp", 1}}},
                        {"runtime", {{"slurm", {{"gpus", "none"}}}}}};
    Project p = project_from_json(j);
    p.cluster.network.slurm_topology = topofile::read_slurm_topology_conf(kTopology);
    return p;
}

ExportOptions forced() {
    ExportOptions o;
    o.force = true;
    return o;
}

void write(const QString& path, const std::string& text, bool exec = false) {
    std::ofstream(path.toStdString()) << text;
    if (exec) QFile::setPermissions(path, QFile::permissions(path) | QFile::ExeOwner | QFile::ExeUser);
}

}   // namespace

class TestSlurmTopologyE2E : public QObject {
    Q_OBJECT
    SlurmFixture slurm;
    QTemporaryDir work{QDir::tempPath() + "/pp-slurm-topo-XXXXXX"};
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QStringList started;   // job ids to cancel at the end

    struct Out {
        int code = -1;
        QString out, err;
    };
    Out run(const QString& prog, const QStringList& args) const {
        QProcess p;
        p.setProcessEnvironment(env);
        p.setWorkingDirectory(work.path());
        p.start(prog, args);
        if (!p.waitForFinished(30000)) p.kill();
        return {p.exitCode(), QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }
    QString submit(const QStringList& args) {
        const Out o = run("sbatch", QStringList{"--parsable"} + args);
        if (o.code != 0) return {};
        const QString id = o.out.trimmed().section(';', 0, 0);
        started << id;
        return id;
    }
    QString field(const QString& id, const QString& key) const {
        const QString s = run("scontrol", {"show", "job", id}).out;
        const auto m = QRegularExpression("(?:^|\\s)" + key + "=(\\S*)").match(s);
        return m.hasMatch() ? m.captured(1) : QString();
    }

private slots:
    void initTestCase() {
        QVERIFY(work.isValid());
        const Project p = tp_over_two_nodes();
        ExportOptions o;
        o.force = true;
        const ExportResult topo = export_project(p, "slurm-topology", o);
        QVERIFY(topo.files.count("topology.conf"));
        write(work.filePath("topology.conf"), topo.files.at("topology.conf").content);
        env.insert("PARAPLAN_SLURM_DIR", "/tmp/paraplan-slurm-topo");
        env.insert("PARAPLAN_SLURM_PORT", "16917");
        env.insert("PARAPLAN_SLURM_TOPOLOGY", work.filePath("topology.conf"));
        if (!slurm.start(env)) {
            if (!slurm.installed) QSKIP(qPrintable(slurm.error));
            QFAIL(qPrintable(slurm.error));
        }
        env.insert("SLURM_CONF", slurm.conf);
        // A torchrun that says where it ran, first on the PATH the job inherits (sbatch --export=ALL).
        QDir(work.path()).mkpath("bin");
        write(work.filePath("bin/torchrun"),
              "#!/bin/sh\necho \"torchrun on $SLURMD_NODENAME node_rank=$SLURM_NODEID args: $*\"\n", true);
        env.insert("PATH", work.filePath("bin") + ":" + env.value("PATH"));
    }

    // This cluster is the test's own: stopped at the end (the shared one stays up for the others).
    void cleanupTestCase() {
        for (const QString& id : started) run("scancel", {id});
        if (!slurm.conf.isEmpty()) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start("bash", {QString(PARAPLAN_SOURCE_DIR) + "/scripts/slurm-up.sh", "stop"});
            p.waitForFinished(30000);
        }
    }

    void clusterReadsTheExportedTopology() {
        const QString topo = run("scontrol", {"show", "topology"}).out;
        QVERIFY2(topo.contains("SwitchName=s1 Level=0") && topo.contains("Nodes=g[1-3]"), qPrintable(topo));
        QVERIFY2(topo.contains("SwitchName=top Level=1"), qPrintable(topo));
    }

    void switchesKeepTheGroupUnderOneLeaf() {
        const ExportResult r = export_project(tp_over_two_nodes(), "slurm", forced());
        const std::string script = r.files.at("job.sbatch").content;
        QVERIFY2(script.find("\n#SBATCH --switches=1\n") != std::string::npos, script.c_str());
        write(work.filePath("job.sbatch"), script, true);

        // Take g1: of "mixed" (n1, g1, g3) only n1 and g3, under two leaves, stay free.
        const QString holder = submit(
            {"-p", "mixed", "-w", "g1", "--exclusive", "-o", "/dev/null", "--wrap", "sleep 300"});
        QVERIFY(!holder.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(field(holder, "JobState"), QStringLiteral("RUNNING"), 30000);

        // Without the option a two-node job starts at once, across the leaves.
        const QString spread = submit({"-p", "mixed", "-N", "2", "-o", "/dev/null", "--wrap", "true"});
        QVERIFY(!spread.isEmpty());
        QTRY_COMPARE_WITH_TIMEOUT(field(spread, "JobState"), QStringLiteral("COMPLETED"), 30000);
        QCOMPARE(field(spread, "NodeList"), QStringLiteral("g3,n1"));

        // The exported script waits for one leaf.
        const QString job = submit({"-p", "mixed", "-o", work.filePath("out-%j.txt"), work.filePath("job.sbatch")});
        QVERIFY(!job.isEmpty());
        QVERIFY2(field(job, "Switches").startsWith("1@"), qPrintable(field(job, "Switches")));
        // The scheduler has looked at it (Reason is set) and left it waiting, with n1 and g3 free.
        QTRY_COMPARE_WITH_TIMEOUT(field(job, "Reason"), QStringLiteral("Resources"), 20000);
        QCOMPARE(field(job, "JobState"), QStringLiteral("PENDING"));
        QCOMPARE(field(job, "NodeList"), QString());

        run("scancel", {holder});
        QTRY_COMPARE_WITH_TIMEOUT(field(job, "JobState"), QStringLiteral("COMPLETED"), 60000);
        QCOMPARE(field(job, "NodeList"), QStringLiteral("g[1,3]"));
        QFile out(work.filePath("out-" + job + ".txt"));
        QVERIFY(out.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(out.readAll());
        QVERIFY2(text.contains("torchrun on g1 node_rank=0 args: --nnodes 2 --node_rank 0"), qPrintable(text));
        QVERIFY2(text.contains("torchrun on g3 node_rank=1 args: --nnodes 2 --node_rank 1"), qPrintable(text));
    }

    // Slurm 22.05 has no --segment (sbatch(1) of 22.05; topology/block came in 23.11, --segment in
    // 24.05): the export writes it only for a block topology.conf, which this Slurm cannot load.
    void segmentIsNotIn2205() {
        const Out o = run("sbatch", {"--segment=2", "--wrap", "true"});
        QVERIFY(o.code != 0);
        QVERIFY2(o.err.contains("unrecognized option '--segment=2'"), qPrintable(o.err));
        const std::string script =
            export_project(tp_over_two_nodes(), "slurm", forced()).files.at("job.sbatch").content;
        QVERIFY(script.find("--segment") == std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSlurmTopologyE2E)
#include "tst_slurm_topology_e2e.moc"
