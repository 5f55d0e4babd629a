// Every reader of a user-named file takes only a regular file of bounded size: /dev/zero,
// a FIFO, a 1 GB file and a folder are refused with a message that names the file and why,
// JSON nested 100,000 deep is refused rather than crashing, a cluster beyond the stated
// limits is refused naming the field, and numeric options are range-checked. Each command
// must return: the 20 s wait is a hang guard only (a refusal takes milliseconds).
#include "clitest.h"

#include <QtTest>

#include <sys/stat.h>
#include <sys/types.h>

namespace {

struct Result {
    bool finished = false;
    int code = -1;
    QString err;
};

Result run(const QStringList& args, const QByteArray& input = {}) {
    QProcess p;
    p.start(QStringLiteral(PARAPLAN_CLI), args);
    if (!input.isEmpty()) p.write(input);
    p.closeWriteChannel();
    Result r;
    r.finished = p.waitForFinished(20000);
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
        return r;
    }
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : 128 + p.exitCode();
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

QString writeText(const QTemporaryDir& dir, const QString& name, const QByteArray& text) {
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size()) return {};
    return path;
}

QByteArray nested(int depth) { return QByteArray(depth, '[') + QByteArray(depth, ']'); }

QByteArray project(const QByteArray& cluster, const QByteArray& extra = {}, int global_batch = 8) {
    return R"({"paraplan": 1, "cluster": )" + cluster + R"(, "model": {"preset": "gpt2"}, "training": )" +
           R"({"global_batch_size": )" + QByteArray::number(global_batch) +
           R"(, "micro_batch_size": 1, "seq_len": 1024}, "layout": {"framework": "megatron"})" + extra + "}";
}

// The commands that read a file named on their command line; %1 is the file.
QList<QStringList> fileCommands() {
    return {{"validate", "%1"},
            {"estimate", "%1"},
            {"launch", "%1", "--dry-run"},
            {"plan", "--project", "%1", "--top", "1"},
            {"compare", "%1", "%1"},
            {"calibrate", "%1", "--name", "x"},
            {"import", "%1", "--format", "deepspeed", "--json"},
            {"import-hf", "%1"},
            {"explain-error", "--file", "%1"},
            {"timeline", "--import-csv", "%1"},
            {"estimate", example("gpt2-1node"), "--profile", "%1"}};
}

QStringList substitute(QStringList args, const QString& file) {
    for (auto& a : args) a.replace(QLatin1String("%1"), file);
    return args;
}

}   // namespace

class TestCliBounded : public QObject {
    Q_OBJECT
private:
    QTemporaryDir dir_;

    // Every file command on `path`: exit 2, the file named, and `why` in the message.
    void refusedByEveryReader(const QString& path, const QString& why) {
        for (const auto& c : fileCommands()) {
            const QStringList args = substitute(c, path);
            const Result r = run(args);
            QVERIFY2(r.finished, qPrintable(args.join(' ') + " did not return"));
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + QString(" exited %1: ").arg(r.code) + r.err));
            QVERIFY2(r.err.contains(path), qPrintable(args.join(' ') + ": " + r.err));
            QVERIFY2(r.err.contains(why), qPrintable(args.join(' ') + ": " + r.err));
        }
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY(QFile::exists(example("gpt2-1node")));
    }

    void characterDevice() { refusedByEveryReader(QStringLiteral("/dev/zero"), "character device"); }

    void fifo() {
        const QString path = dir_.filePath(QStringLiteral("pipe"));
        QCOMPARE(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
        refusedByEveryReader(path, "FIFO");
    }

    void folder() { refusedByEveryReader(dir_.path(), "folder"); }

    void oneGigabyteFile() {
        // Sparse: the size is set, no block is written.
        const QString path = dir_.filePath(QStringLiteral("huge.json"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        QVERIFY(f.resize(qint64{1} << 30));
        f.close();
        refusedByEveryReader(path, "1073741824 bytes, more than the");
    }

    void standardInputStopsAtTheLimit() {
        const Result r = run({"explain-error", "-"}, QByteArray(17 << 20, 'x'));
        QVERIFY(r.finished);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("standard input") && r.err.contains("longer than the limit of 16 MiB"),
                 qPrintable(r.err));
    }

    void deepNesting_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QByteArray>("text");
        const QByteArray deep = nested(100000);
        QTest::newRow("project") << QStringList{"validate", "%1"}
                                 << project(R"({"gpu": "h100-sxm", "nodes": 1})", R"(, "x": )" + deep);
        QTest::newRow("runs table (JSON)") << QStringList{"calibrate", "%1", "--name", "x"} << deep;
        QTest::newRow("runs table in an object")
            << QStringList{"calibrate", "%1", "--name", "x"} << QByteArray(R"({"runs": )") + deep + "}";
        QTest::newRow("deepspeed config") << QStringList{"import", "%1", "--format", "deepspeed", "--json"}
                                          << QByteArray(R"({"train_batch_size": 8, "x": )") + deep + "}";
        QTest::newRow("hf config") << QStringList{"import-hf", "%1"}
                                   << QByteArray(R"({"model_type": "llama", "x": )") + deep + "}";
        QTest::newRow("plan --model") << QStringList{"plan", "--model",        "%1", "--gpu", "h100-sxm", "--nodes",
                                                     "1",    "--global-batch", "8",  "--seq", "1024"}
                                      << deep;
        QTest::newRow("profile") << QStringList{"estimate", example("gpt2-1node"), "--profile", "%1"} << deep;
    }
    void deepNesting() {
        QFETCH(QStringList, args);
        QFETCH(QByteArray, text);
        const QString path = writeText(dir_, QStringLiteral("deep-%1.json").arg(QTest::currentDataTag()), text);
        QVERIFY(!path.isEmpty());
        const Result r = run(substitute(args, path));
        QVERIFY2(r.finished, "did not return");
        QVERIFY2(r.code == 2, qPrintable(QString("exit %1: ").arg(r.code) + r.err));
        QVERIFY2(r.err.contains("nested more than 256 levels"), qPrintable(r.err));
        QVERIFY2(r.err.contains(path), qPrintable(r.err));
    }

    void clusterLimits_data() {
        QTest::addColumn<QByteArray>("cluster");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("why");
        QTest::newRow("200,000,000 nodes")
            << QByteArray(R"({"gpu": "h100-sxm", "nodes": 200000000, "gpus_per_node": 8})") << "/cluster/nodes"
            << "at most 100000 nodes";
        QTest::newRow("gpus per node") << QByteArray(R"({"gpu": "h100-sxm", "nodes": 2, "gpus_per_node": 100000})")
                                       << "/cluster/gpus_per_node"
                                       << "at most 4096 GPUs per node";
        QTest::newRow("world") << QByteArray(R"({"gpu": "h100-sxm", "nodes": 100000, "gpus_per_node": 4096})")
                               << "/cluster/nodes"
                               << "Paraplan plans up to 4194304 GPUs";
        QTest::newRow("node gpus") << QByteArray(R"({"nodes": [{"name": "a", "gpu": "h100-sxm", "gpus": 5000}]})")
                                   << "/cluster/nodes/0/gpus"
                                   << "at most 4096 GPUs per node";
        QByteArray many = R"({"nodes": [)";
        for (int i = 0; i < 100001; ++i)
            many += (i ? "," : "") + QByteArray("{\"name\":\"n") + QByteArray::number(i) +
                    "\",\"gpu\":\"h100-sxm\",\"gpus\":1}";
        QTest::newRow("100,001 listed nodes") << many + "]}"
                                              << "/cluster/nodes"
                                              << "lists 100001 nodes; Paraplan plans at most 100000 nodes";
    }
    void clusterLimits() {
        QFETCH(QByteArray, cluster);
        QFETCH(QString, field);
        QFETCH(QString, why);
        const QString path = writeText(dir_, QStringLiteral("big.paraplan.json"),
                                       project(cluster, R"(, "runtime": {"script": "train.py"})"));
        for (const QStringList& args :
             QList<QStringList>{{"launch", path, "--dry-run"}, {"validate", path}, {"estimate", path}}) {
            const Result r = run(args);
            QVERIFY2(r.finished, qPrintable(args.join(' ') + " did not return"));
            QVERIFY2(r.code == 2, qPrintable(args.join(' ') + QString(" exited %1: ").arg(r.code) + r.err));
            QVERIFY2(r.err.contains(field + ": ") && r.err.contains(why), qPrintable(args.join(' ') + ": " + r.err));
        }
    }

    // Within the planning limits but beyond what one launch holds: refused before the plan is built.
    void launchLimit() {
        const QString path = writeText(dir_, QStringLiteral("wide.paraplan.json"),
                                       project(R"({"gpu": "h100-sxm", "nodes": 100000, "gpus_per_node": 8})",
                                               R"(, "runtime": {"script": "train.py"})", 800000));
        const Result r = run({"launch", path, "--dry-run"});
        QVERIFY2(r.finished, "did not return");
        QVERIFY2(r.code == 2, qPrintable(QString("exit %1: ").arg(r.code) + r.err));
        QVERIFY2(r.err.contains("/cluster/nodes: the cluster has 800000 GPUs; Paraplan launches jobs of up to 131072"),
                 qPrintable(r.err));
    }

    void numericOptions_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString p = example("gpt2-1node");
        QTest::newRow("plan --top -1") << QStringList{"plan", "--project", p, "--top", "-1"}
                                       << "--top: expected an integer from 1 to 100000, got -1";
        QTest::newRow("plan --top huge") << QStringList{"plan", "--project", p, "--top", "99999999999"}
                                         << "--top: expected an integer, got '99999999999'";
        QTest::newRow("plan --nodes") << QStringList{"plan",     "--model", "gpt2",      "--gpu",
                                                     "h100-sxm", "--nodes", "200000000", "--global-batch",
                                                     "8",        "--seq",   "1024"}
                                      << "--nodes: expected an integer from 1 to 100000, got 200000000";
        QTest::newRow("plan --threads") << QStringList{"plan", "--project", p, "--threads", "-3"}
                                        << "--threads: expected an integer from 0 to 4096, got -3";
        QTest::newRow("groups --world") << QStringList{"groups", "--framework", "megatron", "--world", "-8"}
                                        << "--world: expected an integer from 1 to 4194304, got -8";
        QTest::newRow("groups --gpus-per-node")
            << QStringList{"groups", "--framework", "megatron", "--world", "8", "--gpus-per-node", "0"}
            << "--gpus-per-node: expected an integer from 1 to 4096, got 0";
        QTest::newRow("advise --world") << QStringList{"advise", "--world", "2000000000"}
                                        << "--world: expected an integer from 1 to 4194304, got 2000000000";
        QTest::newRow("export --master-port")
            << QStringList{"export", p, "--format", "torchrun", "--master-port", "70000"}
            << "--master-port: expected an integer from 1 to 65535, got 70000";
        QTest::newRow("timeline --f nan")
            << QStringList{"timeline", "--schedule", "1f1b", "--pp", "2", "--microbatches", "4", "--f", "nan"}
            << "--f: expected a number, got 'nan'";
    }
    void numericOptions() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Result r = run(args);
        QVERIFY2(r.finished, "did not return");
        QVERIFY2(r.code == 2, qPrintable(QString("exit %1: ").arg(r.code) + r.err));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliBounded)
#include "tst_cli_bounded.moc"
