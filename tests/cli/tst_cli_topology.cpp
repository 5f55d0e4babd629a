// paraplan-cli topology import as a process: the recorded H200 dump and Slurm's documented
// topology.conf examples read into tiers, the format guessed or forced, the sbatch placement, and
// errors that name the file and line with exit code 2.
#include "clitest.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QString topo(const char* rel) { return QStringLiteral(PARAPLAN_TEST_DATA "/topology/%1").arg(QLatin1String(rel)); }

}   // namespace

class TestCliTopology : public QObject {
    Q_OBJECT
private slots:
    void ncclDumpJson() {
        const Run r = cli({"topology", "import", topo("h200-1gpu-vm/nccl-topo.xml"), "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = parseObject(r.out);
        QCOMPARE(o["format"].toString(), QStringLiteral("nccl-xml"));
        const QJsonObject node = o["imported"].toObject()["nodes"].toArray()[0].toObject();
        QCOMPARE(node["gpus"].toInt(), 1);
        QCOMPARE(node["gpu_arch"].toString(), QStringLiteral("sm90"));
        QCOMPARE(node["gpu_catalog"].toString(), QStringLiteral("h200"));
        const QJsonArray tiers = o["tiers"].toArray();
        QCOMPARE(tiers.size(), 2);
        QCOMPARE(tiers[0].toObject()["kind"].toString(), QStringLiteral("pcie"));
        QCOMPARE(tiers[1].toObject()["kind"].toString(), QStringLiteral("scale_out"));
        QCOMPARE(tiers[1].toObject()["nic_gbit"].toDouble(), 10.0);
    }

    void smiMatrixText() {
        const Run r = cli({"topology", "import", topo("constructed/dgx-h100-topo-m.txt")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("smi-topo"));
        QVERIFY(r.out.contains("8 GPU"));
        QVERIFY(r.out.contains("18 link(s)"));
    }

    void slurmTreeTiersAndSwitches() {
        const Run r = cli({"topology", "import", topo("slurm-docs/man5-tree.conf"), "--gpus-per-node", "8",
                           "--job-nodes", "6", "--group-nodes", "6", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = parseObject(r.out);
        QCOMPARE(o["imported"].toObject()["slurm"].toObject()["plugin"].toString(), QStringLiteral("tree"));
        const QJsonArray tiers = o["tiers"].toArray();
        QCOMPARE(tiers.size(), 2);
        QCOMPARE(tiers[0].toObject()["name"].toString(), QStringLiteral("leaf"));
        QCOMPARE(tiers[0].toObject()["gpus"].toInt(), 48);
        const QJsonObject p = o["placement"].toObject();
        QCOMPARE(p["sbatch_args"].toArray()[0].toString(), QStringLiteral("--switches=1"));
        QVERIFY(p["guaranteed"].toBool());
    }

    void slurmBlockSegment() {
        const Run r = cli(
            {"topology", "import", topo("slurm-docs/man5-block.conf"), "--job-nodes", "64", "--group-nodes", "8"});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("--segment=8"));
        QVERIFY(r.out.contains("base block 30 nodes"));
        // No placement keeps a group larger than any block: a finding, exit 1.
        QCOMPARE(cli({"topology", "import", topo("slurm-docs/man5-block.conf"), "--job-nodes", "240", "--group-nodes",
                      "240"})
                     .code,
                 1);
    }

    void errors() {
        QTemporaryDir dir;
        const QString bad = dir.filePath("topology.conf");
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("SwitchName=s0 Nodes=n[1-4]\nSwitchName=s1 Switches=s9\n");
        f.close();
        Run r = cli({"topology", "import", bad});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("topology.conf: line 2"), r.err.constData());
        QVERIFY(r.err.contains("s9"));
        // A forced format that does not fit is an error too, not a guess.
        r = cli({"topology", "import", topo("slurm-docs/man5-tree.conf"), "--format", "nccl-xml"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.err.contains("line 1"));
        QCOMPARE(cli({"topology", "import", topo("slurm-docs/man5-tree.conf"), "--format", "xml"}).code, 2);
        QCOMPARE(cli({"topology", "export", topo("slurm-docs/man5-tree.conf")}).code, 2);
        QCOMPARE(cli({"topology", "import", dir.filePath("missing.xml")}).code, 2);
        QCOMPARE(
            cli({"topology", "import", topo("h200-1gpu-vm/nccl-topo.xml"), "--job-nodes", "2", "--group-nodes", "1"})
                .code,
            2);
    }

    // Slurm's man-page tree (6 nodes per leaf) into the 4-node Llama 70B example (tp 8, pp 4):
    // only cluster.network changes; the topology comes back out as topology.conf, and job.sbatch
    // asks one leaf switch for the whole job (its pp groups reach all 4 nodes, a leaf holds 6).
    void importIntoProjectAndExport() {
        QTemporaryDir dir;
        const QString in = example("llama3.1-70b-4nodes"), out = dir.filePath("out.paraplan.json");
        Run r = cli({"topology", "import", topo("slurm-docs/man5-tree.conf"), "--project", in, "-o", out, "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject o = parseObject(r.out);
        QVERIFY(o["slurm_topology"].toBool());
        QFile fi(in), fo(out);
        QVERIFY(fi.open(QIODevice::ReadOnly) && fo.open(QIODevice::ReadOnly));
        QJsonObject before = QJsonDocument::fromJson(fi.readAll()).object();
        QJsonObject after = QJsonDocument::fromJson(fo.readAll()).object();
        const QJsonObject net = after["cluster"].toObject()["network"].toObject();
        QVERIFY(net["slurm_topology"].toString().contains("SwitchName=s3 Switches=s[0-2]"));
        const QJsonArray tiers = net["tiers"].toArray();
        QCOMPARE(tiers.size(), 4);   // nvlink, scale-out, leaf, spine
        QCOMPARE(tiers[2].toObject()["name"].toString(), QStringLiteral("leaf"));
        QCOMPARE(tiers[2].toObject()["gpus"].toInt(), 48);
        // Nothing else changed: every field of the input is in the output with its value (a save
        // writes the defaults of fields the input left out), and the nodes are the same.
        QCOMPARE(after["cluster"].toObject()["nodes"], before["cluster"].toObject()["nodes"]);
        for (const QString& key : before.keys()) {
            if (key == "cluster") continue;
            if (!before[key].isObject()) {
                QCOMPARE(after[key], before[key]);
                continue;
            }
            const QJsonObject b = before[key].toObject(), a = after[key].toObject();
            for (const QString& k : b.keys()) QVERIFY2(a[k] == b[k], qPrintable(key + "/" + k));
        }
        r = cli({"export", out, "--format", "slurm-topology"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("TopologyPlugin=topology/tree"), r.out.constData());
        QVERIFY2(r.out.contains("SwitchName=s0 Nodes=dev[0-5]\n"), r.out.constData());
        r = cli({"export", out, "--format", "slurm", "--force"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.contains("\n#SBATCH --switches=1\n"), r.out.constData());
        QVERIFY2(r.out.contains("whole job (4 nodes, its pp groups)"), r.out.constData());
        // Without a topology: neither the option nor a topology.conf.
        r = cli({"export", in, "--format", "slurm", "--force"});
        QVERIFY(!r.out.contains("--switches"));
        r = cli({"export", in, "--format", "slurm-topology", "--force"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("no Slurm topology"), r.err.constData());
    }

    void importIntoProjectRefusals() {
        QTemporaryDir dir;
        const QString in = example("llama3.1-70b-4nodes"), out = dir.filePath("out.paraplan.json");
        // Another GPU: the recorded H200 into H100 nodes.
        Run r = cli({"topology", "import", topo("h200-1gpu-vm/nccl-topo.xml"), "--project", in, "-o", out});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("/cluster/nodes/0/g"), r.err.constData());
        QVERIFY(!QFile::exists(out));
        QCOMPARE(cli({"topology", "import", topo("slurm-docs/man5-tree.conf"), "--project", in}).code, 2);
        QCOMPARE(cli({"topology", "import", topo("slurm-docs/man5-tree.conf"), "--project", in, "-o", out,
                      "--gpus-per-node", "8"})
                     .code,
                 2);
    }
};

QTEST_GUILESS_MAIN(TestCliTopology)
#include "tst_cli_topology.moc"
