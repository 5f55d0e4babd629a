// A project file is input from anyone: opening, validating, launching or monitoring
// someone else's project must not run their command on this computer, write a file the user
// never named, add a line to a script, or crash the loader. What a project may not decide
// (local paths and trust for ssh, the job folder) is loaded, reported as ignored with its JSON
// pointer, and never used; values that would break a command line are refused (exit 2, the
// pointer in the message). The file a command would have created never exists afterwards.
// The first test shows the payloads are real: handed to ssh directly, the same ProxyCommand
// does create its file.
#include "clitest.h"

#include <nlohmann/json.hpp>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <unistd.h>

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

    // Every ssh_config(5) option that runs a program, names a local path or decides which host
    // keys to trust, written plainly, with spaces, with '=' and in OpenSSH's quoted forms: a
    // project's option list is loaded, each such entry is reported as ignored with its pointer,
    // and nothing runs or is written here, with the real ssh client connecting (or failing to).
    void hostileSshOptionsRunNothing_data() {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("value");
        const QString touch = "touch " + marker("opt");
        const QString file = marker("opt");
        const std::vector<std::pair<QString, QString>> options = {
            {"ProxyCommand", touch},
            {"LocalCommand", touch},
            {"PermitLocalCommand", "yes"},
            {"KnownHostsCommand", "/bin/sh -c '" + touch + "'"},
            {"RemoteCommand", touch},
            {"ProxyUseFdpass", "yes"},
            {"PKCS11Provider", file},
            {"SecurityKeyProvider", file},
            {"XAuthLocation", file},
            {"Include", file},
            {"Match", "exec \"" + touch + "\""},
            {"IdentityFile", file},
            {"CertificateFile", file},
            {"UserKnownHostsFile", file},
            {"GlobalKnownHostsFile", file},
            {"RevokedHostKeys", file},
            {"IdentityAgent", file},
            {"ControlPath", file},
            {"ControlMaster", "yes"},
            {"HostKeyAlias", "victim"},
            {"StrictHostKeyChecking", "accept-new"},
            {"UpdateHostKeys", "yes"},
            {"ForwardAgent", "yes"},
            {"LocalForward", "2222 127.0.0.1:22"},
            {"SetEnv", "LD_PRELOAD=" + file},
        };
        for (const auto& [k, v] : options) {
            QTest::newRow(qPrintable(k + " =")) << k + "=" << v;
            QTest::newRow(qPrintable(k + " space")) << k + " " << v;
            QTest::newRow(qPrintable(k + " quoted key")) << "\"" + k + "\"=" << v;
            QTest::newRow(qPrintable(k + " half quoted")) << k.left(3) + "\"" + k.mid(3) + "\"=" << v;
            QTest::newRow(qPrintable(k + " quoted value")) << k + "="
                                                           << "\"" + v + "\"";
        }
    }
    void hostileSshOptionsRunNothing() {
        QFETCH(QString, key);
        QFETCH(QString, value);
        QFile::remove(marker("opt"));
        const json ssh = {{"options", {"Port=2", (key + value).toStdString()}}, {"connect_timeout_s", 2}};
        const QString file = save(
            project({{"ssh", ssh}, {"script", "train.py"}, {"workdir", work.path().toStdString()}}), "opt");
        for (const QStringList& args :
             {QStringList{"launch", file, "--dry-run"}, QStringList{"launch", file, "--check"}}) {
            const Out o = run(args);
            QVERIFY2(o.err.contains("/runtime/ssh/options/1: ignored: "), qPrintable(args.join(' ') + ": " + o.err));
            // Never on an ssh command line (ControlPath, ControlMaster are Paraplan's own there).
            QVERIFY2(!o.out.contains(marker("opt")) && !o.out.contains(key + value), qPrintable(o.out));
            QVERIFY2(!QFile::exists(marker("opt")), qPrintable(args.join(' ') + " ran or wrote what the project said"));
        }
    }

    // Path-valued and trust settings of a project (a config file full of commands, a known-hosts
    // file with accept-new, a node's identity file, a job folder) load, are reported, and are
    // never used: nothing runs and no file appears where they point, through every command.
    void hostileLocalSettingsIgnored() {
        const QString m = marker("cfg");
        const QString cfg = work.path() + "/ssh_config-hostile";
        write(cfg, QByteArray::fromStdString("Host *\n  ProxyCommand touch " + m.toStdString() +
                                             "\nMatch ex\"ec\" \"touch " + m.toStdString() + "\"\n"));
        const QString kh = marker("known_hosts");
        const QString jobs = marker("jobs");
        json p = project({{"ssh",
                           {{"config_file", cfg.toStdString()},
                            {"known_hosts_file", kh.toStdString()},
                            {"strict_host_key_checking", "accept-new"},
                            {"options", {"HostKeyAlias=victim", "ProxyJump=127.0.0.2:1"}},
                            {"connect_timeout_s", 2}}},
                          {"job_dir", jobs.toStdString()},
                          {"script", "train.py"},
                          {"workdir", work.path().toStdString()}});
        p["cluster"]["nodes"][0]["identity"] = m.toStdString();
        const QString file = save(p, "local");
        for (const QStringList& args :
             {QStringList{"launch", file, "--dry-run"}, QStringList{"launch", file, "--check"},
              QStringList{"launch", file}, QStringList{"monitor", file, "--once", "--timeout", "5"},
              QStringList{"probe", file}}) {
            const Out o = run(args);
            for (const char* ptr : {"/runtime/ssh/config_file: ignored", "/runtime/ssh/known_hosts_file: ignored",
                                    "/runtime/ssh/strict_host_key_checking: ignored", "/runtime/ssh/options/0: ignored",
                                    "/cluster/nodes/0/identity: ignored"})
                QVERIFY2(o.err.contains(ptr), qPrintable(args.join(' ') + ": missing " + ptr + "\n" + o.err));
            QVERIFY2(!o.out.contains(cfg) && !o.out.contains(kh), qPrintable(o.out));
            QVERIFY2(!QFile::exists(m), qPrintable(args.join(' ') + " ran the config file's command"));
            QVERIFY2(!QFile::exists(kh), qPrintable(args.join(' ') + " wrote the project's known_hosts file"));
            QVERIFY2(!QFile::exists(jobs), qPrintable(args.join(' ') + " wrote into the project's job_dir"));
        }
        run({"validate", file});
        QVERIFY(!QFile::exists(m));
    }

    // `stop` on a planted or edited job record: local ssh files and options off the list in it
    // are never used, and a record another user owns or can write is refused outright.
    void plantedJobRecordRunsNothing() {
        const QString m = marker("stop");
        const QString cfg = work.path() + "/ssh_config-stop";
        write(cfg, QByteArray::fromStdString("Host *\n  ProxyCommand touch " + m.toStdString() + "\n"));
        const QString jobs = work.path() + "/planted-jobs";
        QVERIFY(QDir().mkpath(jobs + "/20261204-000000-x"));
        const json rec = {{"paraplan_job", 1},
                          {"id", "20261204-000000-x"},
                          {"state", "running"},
                          {"ssh_config_file", cfg.toStdString()},
                          {"known_hosts_file", marker("stop-kh").toStdString()},
                          {"ssh_options", {"ProxyCommand=touch " + m.toStdString()}},
                          {"processes",
                           {{{"label", "rank-0"},
                             {"ssh", {{"host", "127.0.0.2"}, {"port", 1}, {"identity", m.toStdString()}}},
                             {"pgid", 4242}}}}};
        const QString recfile = jobs + "/20261204-000000-x/job.json";
        write(recfile, QByteArray::fromStdString(rec.dump()));
        Out o = run({"stop", "20261204-000000-x", "--job-dir", jobs});
        QVERIFY2(o.code == 3, qPrintable(QString::number(o.code) + o.out + o.err));
        QVERIFY2(o.out.contains("/ssh_options/0") && o.out.contains("ProxyCommand is refused"), qPrintable(o.out));
        QVERIFY(!QFile::exists(m));
        // Without the hostile option, stop tries the host with the user's own settings only.
        json clean = rec;
        clean.erase("ssh_options");
        write(recfile, QByteArray::fromStdString(clean.dump()));
        o = run({"stop", "20261204-000000-x", "--job-dir", jobs});
        QVERIFY(!QFile::exists(m));
        QVERIFY(!QFile::exists(marker("stop-kh")));
        // Writable by others, or another user's: refused before anything is read from it.
        QVERIFY(QFile::setPermissions(recfile, QFile::ReadOwner | QFile::WriteOwner | QFile::WriteOther));
        o = run({"stop", "20261204-000000-x", "--job-dir", jobs});
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("can be written by other users"), qPrintable(o.err));
        if (::geteuid() == 0) {
            QVERIFY(QFile::setPermissions(recfile, QFile::ReadOwner | QFile::WriteOwner));
            QCOMPARE(::chown(recfile.toLocal8Bit().constData(), 65534, 65534), 0);
            o = run({"stop", "20261204-000000-x", "--job-dir", jobs});
            QCOMPARE(o.code, 2);
            QVERIFY2(o.err.contains("belongs to user id 65534"), qPrintable(o.err));
        }
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
