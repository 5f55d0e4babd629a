// A project file is input from anyone: opening, validating, launching or monitoring
// someone else's project must not run their command on this computer, add a line to
// a script, or crash the loader. Each hostile value is refused (exit 2, the field's
// JSON pointer in the message) before anything runs, and the file its command would
// have created does not exist afterwards. The first test shows the payloads are real:
// handed to ssh directly, the same ProxyCommand does create its file.
#include "clitest.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using nlohmann::json;

class TestCliSecurity : public QObject {
    Q_OBJECT
    QTemporaryDir work{QDir::tempPath() + "/pp-sec-XXXXXX"};

    struct Out {
        int code = -1;
        QString out, err;
    };
    // paraplan-cli in the scratch folder (clitest.h), its output as text.
    Out run(const QStringList& args) {
        const Run r = cli(args, {}, work.path());
        return {r.code, QString::fromUtf8(r.out), QString::fromUtf8(r.err)};
    }
    QString marker(const QString& name) const { return work.path() + "/pwned-" + name; }
    static void write(const QString& path, const QByteArray& text) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
    }
    json project(const json& runtime, const std::string& host1 = "127.0.0.3") const {
        json nodes = json::array();
        for (const std::string& h : {std::string("127.0.0.2"), host1})
            nodes.push_back({{"name", "n" + std::to_string(nodes.size())},
                             {"host", h},
                             {"port", 1},
                             {"gpu", "a100-80g"},
                             {"gpus", 2}});
        return {{"paraplan", 1},
                {"name", "hostile"},
                {"cluster", {{"nodes", nodes}}},
                {"model", {{"preset", "gpt2"}}},
                {"layout", {{"framework", "colossalai"}, {"tp", 2}, {"pp", 2}}},
                {"runtime", runtime}};
    }
    QString save(const json& p, const QString& name) {
        const QString path = work.path() + "/" + name + ".paraplan.json";
        write(path, QByteArray::fromStdString(p.dump(2)));
        return path;
    }

private slots:
    void initTestCase() { QVERIFY(work.isValid()); }

    // Control: OpenSSH runs a ProxyCommand through the shell before it connects.
    void payloadIsReal() {
        const QString m = marker("control");
        QProcess ssh;
        ssh.start("ssh", {"-F", "/dev/null", "-o", "BatchMode=yes", "-o", "ProxyCommand=touch " + m, "nohost.invalid",
                          "true"});
        QVERIFY(ssh.waitForFinished(30000));
        QVERIFY2(QFile::exists(m), "ssh did not run the ProxyCommand: the refusal tests below would prove nothing");
        QFile::remove(m);
    }

    void hostileSshSettingsRunNothing_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("ProxyCommand") << "proxy"
                                      << "/runtime/ssh/options/0";
        QTest::newRow("LocalCommand") << "local"
                                      << "/runtime/ssh/options/0";
        QTest::newRow("KnownHostsCommand") << "khc"
                                           << "/runtime/ssh/options/0";
        QTest::newRow("config file ProxyCommand") << "cfgproxy"
                                                  << "/runtime/ssh/config_file";
        QTest::newRow("config file Match exec") << "cfgexec"
                                                << "/runtime/ssh/config_file";
        QTest::newRow("config file Include") << "cfginclude"
                                             << "/runtime/ssh/config_file";
    }
    void hostileSshSettingsRunNothing() {
        QFETCH(QString, name);
        QFETCH(QString, pointer);
        const QString m = marker(name);
        const std::string touch = "touch " + m.toStdString();
        json ssh;
        if (name == "proxy") ssh["options"] = {"ProxyCommand=" + touch};
        if (name == "local") ssh["options"] = {"LocalCommand=" + touch, "PermitLocalCommand=yes"};
        if (name == "khc") ssh["options"] = {"KnownHostsCommand=/bin/sh -c \"" + touch + "\""};
        if (name.startsWith("cfg")) {
            const QString cfg = work.path() + "/ssh_config-" + name;
            const QString included = work.path() + "/included-" + name;
            write(included, QByteArray::fromStdString("ProxyCommand " + touch + "\n"));
            if (name == "cfgproxy")
                write(cfg, QByteArray::fromStdString("Host *\n  Port 22\n  ProxyCommand " + touch + "\n"));
            if (name == "cfgexec") write(cfg, QByteArray::fromStdString("Match exec \"" + touch + "\"\n  Port 22\n"));
            if (name == "cfginclude") write(cfg, ("Include " + included + "\n").toUtf8());
            ssh["config_file"] = cfg.toStdString();
        }
        const QString file = save(
            project({{"ssh", ssh}, {"script", "train.py"}, {"workdir", work.path().toStdString()}}), name);
        for (const QStringList& args :
             {QStringList{"launch", file, "--dry-run"}, QStringList{"launch", file, "--check"},
              QStringList{"launch", file}, QStringList{"monitor", file, "--once"}, QStringList{"probe", file}}) {
            const Out o = run(args);
            QVERIFY2(o.code == 2, qPrintable(args.join(' ') + " -> " + QString::number(o.code) + "\n" + o.out + o.err));
            QVERIFY2(o.err.contains(pointer), qPrintable(args.join(' ') + ": " + o.err));
            QVERIFY2(!QFile::exists(m), qPrintable(args.join(' ') + " ran the project's command"));
        }
        // validate reads the project without the runtime section's commands: it runs nothing either.
        run({"validate", file});
        QVERIFY(!QFile::exists(m));
    }

    // A newline in a value that reaches a script or a command line is refused with its pointer.
    void controlCharactersRefused_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("sbatch_args") << "sbatch"
                                     << "/runtime/slurm/sbatch_args/1";
        QTest::newRow("args") << "args"
                              << "/runtime/args/0";
        QTest::newRow("env") << "env"
                             << "/runtime/env/X";
        QTest::newRow("workdir") << "workdir"
                                 << "/runtime/workdir";
        QTest::newRow("node host") << "host"
                                   << "/cluster/nodes/1/host";
    }
    void controlCharactersRefused() {
        QFETCH(QString, name);
        QFETCH(QString, pointer);
        const QString m = marker("nl-" + name);
        const std::string line = "\ntouch " + m.toStdString() + "\n";
        json rt = {{"script", "train.py"}, {"mode", "slurm"}};
        std::string host = "127.0.0.3";
        if (name == "sbatch") rt["slurm"] = {{"sbatch_args", {"--exclusive", "--comment=x" + line}}};
        if (name == "args") rt["args"] = {"--lr" + line};
        if (name == "env") rt["env"] = {{"X", "1" + line}};
        if (name == "workdir") rt["workdir"] = "/tmp" + line;
        if (name == "host") host = "127.0.0.3" + line;
        const QString file = save(project(rt, host), "nl-" + name);
        for (const QStringList& args : {QStringList{"launch", file, "--dry-run"}, QStringList{"launch", file}}) {
            const Out o = run(args);
            QVERIFY2(o.code == 2, qPrintable(args.join(' ') + " -> " + QString::number(o.code) + "\n" + o.out + o.err));
            QVERIFY2(o.err.contains(pointer) && o.err.contains("newline"), qPrintable(o.err));
            QVERIFY(!o.out.contains("touch " + m));   // no script printed with the line in it
            QVERIFY(!QFile::exists(m));
        }
    }

    // runtime.args nested 100,000 levels deep: a clean refusal, not a stack overflow (exit 139).
    void deepNestingRefused() {
        const int depth = 100000;
        std::string args(depth, '[');
        args += std::string(depth, ']');
        const std::string text =
            R"({"paraplan": 1, "name": "deep", "cluster": {"nodes": [{"name": "n", "gpu": "a100-80g", "gpus": 8}]},
 "model": {"preset": "gpt2"}, "layout": {"tp": 2}, "runtime": {"script": "t.py", "args": )" +
            args + "}}\n";
        const QString file = work.path() + "/deep.paraplan.json";
        write(file, QByteArray::fromStdString(text));
        for (const QStringList& a :
             {QStringList{"validate", file}, QStringList{"launch", file, "--dry-run"},
              QStringList{"export", file, "--format", "torchrun", "-o", work.path() + "/deep-out"}}) {
            const Out o = run(a);
            QVERIFY2(o.code == 2, qPrintable(a.join(' ') + " -> " + QString::number(o.code) + "\n" + o.err));
            QVERIFY2(o.err.contains("nested more than 256 levels"), qPrintable(o.err));
            QVERIFY2(o.err.contains("line 2"), qPrintable(o.err));   // where: the bracket that goes too deep
        }
        // A Hugging Face config.json nested as deep.
        const QString hf = work.path() + "/config.json";
        write(hf, QByteArray::fromStdString(R"({"model_type": "llama", "x": )" + args + "}"));
        const Out o = run({"import-hf", hf});
        QVERIFY2(o.code == 2, qPrintable(QString::number(o.code) + o.err));
        QVERIFY2(o.err.contains("nested more than 256 levels"), qPrintable(o.err));
    }
};

QTEST_GUILESS_MAIN(TestCliSecurity)
#include "tst_cli_security.moc"
