// The project's "runtime" section: defaults, every field, and errors naming the field.
#include "launch/runtime_config.h"
#include "ssh/ssh_policy.h"
#include "util/input_error.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>

using namespace paraplan;
using namespace paraplan::runtime;
using nlohmann::json;

class TestRuntimeConfig : public QObject {
    Q_OBJECT
private slots:
    void defaults() {
        const auto c = runtime_config_from_json(json::object());
        QCOMPARE(c.mode, std::string("direct"));
        QCOMPARE(c.python, std::string("python3"));
        QCOMPARE(c.master_port, 29500);
        QCOMPARE(c.on_failure, std::string("stop_all"));
        QCOMPARE(c.job_dir, std::string("jobs"));
        QCOMPARE(c.strict_host_key_checking, std::string("yes"));
        QCOMPARE(c.slurm.gpus, std::string("auto"));
        QVERIFY(!c.fail_fast);
    }

    void fullSection() {
        const auto c = runtime_config_from_json(json::parse(R"({
            "mode": "torchrun", "workdir": "/w d", "python": "/usr/bin/python3", "script": "train.py",
            "args": ["--lr", "0.1"], "env": {"NCCL_DEBUG": "INFO", "B": 2}, "path_prepend": ["/opt/x"],
            "master_port": 29600, "job_dir": "runs", "on_failure": "continue", "stop_grace_s": 2,
            "ssh": {"connect_timeout_s": 3, "known_hosts_file": "/k", "strict_host_key_checking": "accept-new",
                    "options": ["ProxyJump=bastion"]},
            "telemetry": {"interval_ms": 500},
            "slurm": {"partition": "gpu", "time": "01:00:00", "gpus": "none"}, "fail_fast": true})"));
        QCOMPARE(c.mode, std::string("torchrun"));
        QCOMPARE(c.workdir, std::string("/w d"));
        QCOMPARE(c.args.size(), std::size_t(2));
        QCOMPARE(c.env.size(), std::size_t(2));
        QCOMPARE(c.env[0].first, std::string("B"));   // key order
        QCOMPARE(c.env[0].second, std::string("2"));
        QCOMPARE(c.env[1].first, std::string("NCCL_DEBUG"));
        QCOMPARE(c.master_port, 29600);
        QCOMPARE(c.on_failure, std::string("continue"));
        QCOMPARE(c.connect_timeout_s, 3);
        QCOMPARE(c.strict_host_key_checking, std::string("accept-new"));
        QCOMPARE(c.ssh_options.front(), std::string("ProxyJump=bastion"));
        QCOMPARE(c.telemetry_interval_ms, 500);
        QCOMPARE(c.slurm.partition, std::string("gpu"));
        QCOMPARE(c.slurm.gpus, std::string("none"));
        QVERIFY(c.fail_fast);
    }

    void errorsNameTheField_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("mode") << R"({"mode": "mpirun"})"
                              << "/runtime/mode";
        QTest::newRow("env name") << R"({"env": {"A B": "x"}})"
                                  << "/runtime/env/A B";
        QTest::newRow("env value") << R"({"env": {"A": [1]}})"
                                   << "/runtime/env/A";
        QTest::newRow("args") << R"({"args": "--lr 1"})"
                              << "/runtime/args";
        QTest::newRow("args item") << R"({"args": ["a", 3]})"
                                   << "/runtime/args/1";
        QTest::newRow("port") << R"({"master_port": 70000})"
                              << "/runtime/master_port";
        QTest::newRow("on_failure") << R"({"on_failure": "retry"})"
                                    << "/runtime/on_failure";
        QTest::newRow("unknown") << R"({"scirpt": "x.py"})"
                                 << "/runtime/scirpt";
        QTest::newRow("strict no") << R"({"ssh": {"strict_host_key_checking": "no"}})"
                                   << "/runtime/ssh/strict_host_key_checking";
        QTest::newRow("managed option") << R"({"ssh": {"options": ["StrictHostKeyChecking=no"]}})"
                                        << "/runtime/ssh/options/0";
        QTest::newRow("slurm gpus") << R"({"slurm": {"gpus": "yes"}})"
                                    << "/runtime/slurm/gpus";
        QTest::newRow("fail_fast") << R"({"fail_fast": "yes"})"
                                   << "/runtime/fail_fast";
        QTest::newRow("interval") << R"({"telemetry": {"interval_ms": 100}})"
                                  << "/runtime/telemetry/interval_ms";
        // Options that would make ssh run a command on this computer (ssh_config(5)).
        QTest::newRow("ProxyCommand") << R"({"ssh": {"options": ["Port=22", "ProxyCommand=touch /tmp/x"]}})"
                                      << "/runtime/ssh/options/1";
        QTest::newRow("LocalCommand") << R"({"ssh": {"options": ["LocalCommand=touch /tmp/x"]}})"
                                      << "/runtime/ssh/options/0";
        QTest::newRow("PermitLocalCommand") << R"({"ssh": {"options": ["PermitLocalCommand=yes"]}})"
                                            << "/runtime/ssh/options/0";
        QTest::newRow("KnownHostsCommand") << R"({"ssh": {"options": ["KnownHostsCommand=/bin/id"]}})"
                                           << "/runtime/ssh/options/0";
        QTest::newRow("proxycommand lower case") << R"({"ssh": {"options": ["proxycommand=id"]}})"
                                                 << "/runtime/ssh/options/0";
        QTest::newRow("PKCS11Provider") << R"({"ssh": {"options": ["PKCS11Provider=/tmp/evil.so"]}})"
                                        << "/runtime/ssh/options/0";
        QTest::newRow("SecurityKeyProvider") << R"({"ssh": {"options": ["SecurityKeyProvider=/tmp/e.so"]}})"
                                             << "/runtime/ssh/options/0";
        QTest::newRow("XAuthLocation") << R"({"ssh": {"options": ["XAuthLocation=/tmp/x"]}})"
                                       << "/runtime/ssh/options/0";
        QTest::newRow("RemoteCommand") << R"({"ssh": {"options": ["RemoteCommand=id"]}})"
                                       << "/runtime/ssh/options/0";
        QTest::newRow("Include") << R"({"ssh": {"options": ["Include=/tmp/cfg"]}})"
                                 << "/runtime/ssh/options/0";
        QTest::newRow("ControlPersist") << R"({"ssh": {"options": ["ControlPersist=yes"]}})"
                                        << "/runtime/ssh/options/0";
        QTest::newRow("ForwardAgent") << R"({"ssh": {"options": ["ForwardAgent=yes"]}})"
                                      << "/runtime/ssh/options/0";
        QTest::newRow("RemoteForward") << R"({"ssh": {"options": ["RemoteForward=2222 localhost:22"]}})"
                                       << "/runtime/ssh/options/0";
        QTest::newRow("key with space") << R"({"ssh": {"options": ["Proxy Command=x"]}})"
                                        << "/runtime/ssh/options/0";
        QTest::newRow("ProxyJump shell") << R"({"ssh": {"options": ["ProxyJump=b;touch /tmp/x"]}})"
                                         << "/runtime/ssh/options/0";
        QTest::newRow("ProxyJump dash") << R"({"ssh": {"options": ["ProxyJump=-oProxyCommand=x"]}})"
                                        << "/runtime/ssh/options/0";
        QTest::newRow("Port text") << R"({"ssh": {"options": ["Port=22;id"]}})"
                                   << "/runtime/ssh/options/0";
        QTest::newRow("User dash") << R"({"ssh": {"options": ["User=-oProxyCommand=x"]}})"
                                   << "/runtime/ssh/options/0";
        // Control characters in values that reach scripts and command lines.
        QTest::newRow("sbatch newline") << R"({"slurm": {"sbatch_args": ["--exclusive", "--comment=x\ntouch /tmp/x"]}})"
                                        << "/runtime/slurm/sbatch_args/1";
        QTest::newRow("args newline") << R"({"args": ["--lr", "1\nid"]})"
                                      << "/runtime/args/1";
        QTest::newRow("args CR") << R"({"args": ["a\rb"]})"
                                 << "/runtime/args/0";
        QTest::newRow("args NUL") << R"({"args": ["a\u0000b"]})"
                                  << "/runtime/args/0";
        QTest::newRow("args DEL") << R"({"args": ["a\u007fb"]})"
                                  << "/runtime/args/0";
        QTest::newRow("args tab") << R"({"args": ["a\tb"]})"
                                  << "/runtime/args/0";
        QTest::newRow("env value newline") << R"({"env": {"A": "x\ny"}})"
                                           << "/runtime/env/A";
        QTest::newRow("workdir") << R"({"workdir": "/w\nid"})"
                                 << "/runtime/workdir";
        QTest::newRow("python") << R"({"python": "python3\u001b"})"
                                << "/runtime/python";
        QTest::newRow("script") << R"({"script": "t.py\n"})"
                                << "/runtime/script";
        QTest::newRow("launcher") << R"({"launcher": "torchrun\nid"})"
                                  << "/runtime/launcher";
        QTest::newRow("path_prepend") << R"({"path_prepend": ["/opt\n/x"]})"
                                      << "/runtime/path_prepend/0";
        QTest::newRow("master_addr") << R"({"master_addr": "h\n"})"
                                     << "/runtime/master_addr";
        QTest::newRow("upload_dir") << R"({"upload_dir": "c\nd"})"
                                    << "/runtime/upload_dir";
        QTest::newRow("job_dir") << R"({"job_dir": "j\nk"})"
                                 << "/runtime/job_dir";
        QTest::newRow("known_hosts_file") << R"({"ssh": {"known_hosts_file": "/k\n"}})"
                                          << "/runtime/ssh/known_hosts_file";
        QTest::newRow("config_file") << R"({"ssh": {"config_file": "/c\n"}})"
                                     << "/runtime/ssh/config_file";
        QTest::newRow("option value") << R"({"ssh": {"options": ["IdentityFile=/k\nProxyCommand=id"]}})"
                                      << "/runtime/ssh/options/0";
        QTest::newRow("partition") << R"({"slurm": {"partition": "gpu\n#SBATCH --x"}})"
                                   << "/runtime/slurm/partition";
        QTest::newRow("account") << R"({"slurm": {"account": "a\nb"}})"
                                 << "/runtime/slurm/account";
        QTest::newRow("time") << R"({"slurm": {"time": "1:00\nid"}})"
                              << "/runtime/slurm/time";
        QTest::newRow("login_node") << R"({"slurm": {"login_node": "n\n"}})"
                                    << "/runtime/slurm/login_node";
    }
    void errorsNameTheField() {
        QFETCH(QString, text);
        QFETCH(QString, pointer);
        try {
            runtime_config_from_json(json::parse(text.toStdString()));
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.pointer()), pointer);
            QVERIFY(!e.message().empty());
        }
    }

    // The refusals say why and where the option belongs instead.
    void refusalsExplain() {
        auto message = [](const char* text) {
            try {
                runtime_config_from_json(json::parse(text));
            } catch (const InputError& e) {
                return e.message();
            }
            return std::string();
        };
        const std::string proxy = message(R"({"ssh": {"options": ["ProxyCommand=nc %h %p"]}})");
        QVERIFY2(proxy.find("run a program") != std::string::npos, proxy.c_str());
        QVERIFY2(proxy.find("~/.ssh/config") != std::string::npos, proxy.c_str());
        const std::string other = message(R"({"ssh": {"options": ["ForwardX11=yes"]}})");
        QVERIFY2(other.find("not one of the ssh options") != std::string::npos, other.c_str());
        QVERIFY2(other.find("ProxyJump") != std::string::npos, other.c_str());   // lists what is allowed
        const std::string managed = message(R"({"ssh": {"options": ["ConnectTimeout=3"]}})");
        QVERIFY2(managed.find("/runtime/ssh/connect_timeout_s") != std::string::npos, managed.c_str());
        const std::string nl = message(R"({"slurm": {"sbatch_args": ["a\nb"]}})");
        QVERIFY2(nl.find("newline") != std::string::npos, nl.c_str());
    }

    // The allowed connection options pass with their values, any letter case.
    void safeOptionsPass() {
        const auto c = runtime_config_from_json(json::parse(R"({"ssh": {"options": [
            "Port=2222", "User=ml-user", "IdentityFile=~/.ssh/id_ed25519", "IdentitiesOnly=yes",
            "ProxyJump=alice@bastion.example.org:2222,jump2", "ProxyJump=none", "HostKeyAlias=gpu-a",
            "ConnectionAttempts=3", "Compression=yes", "tcpkeepalive=no", "AddressFamily=inet",
            "Ciphers=chacha20-poly1305@openssh.com,aes256-gcm@openssh.com", "KexAlgorithms=+sntrup761x25519-sha512@openssh.com",
            "PreferredAuthentications=publickey", "CertificateFile=/k-cert.pub"]}})"));
        QCOMPARE(c.ssh_options.size(), std::size_t(15));
        QCOMPARE(check_project_ssh_option("ProxyJump=bastion"), std::string());
        QVERIFY(!check_project_ssh_option("ProxyJump=user@bas tion").empty());
        QVERIFY(!check_project_ssh_option("ProxyJump=$(id)").empty());
        QVERIFY(!check_project_ssh_option("Port=0").empty());
        QVERIFY(!check_project_ssh_option("Compression=maybe").empty());
        QVERIFY(!check_project_ssh_option("NoEquals").empty());
    }

    // A config file the project names is held to the same list.
    void configFileChecked() {
        QCOMPARE(
            check_project_ssh_config("# comment\n\nHost gpu-*\n  Port 2222\n  User=ml\n  IdentityFile \"/k\"\n"
                                     "Match host a,b user x\n  Hostname a.example.org\n  StrictHostKeyChecking no\n"),
            std::string());
        const std::string proxy = check_project_ssh_config("Host *\n  Port 22\n  ProxyCommand touch /tmp/x\n");
        QVERIFY2(proxy.rfind("line 3: ProxyCommand", 0) == 0, proxy.c_str());
        QVERIFY(check_project_ssh_config("Match exec \"touch /tmp/x\"\n").rfind("line 1: Match exec", 0) == 0);
        QVERIFY(!check_project_ssh_config("Match host=x exec=\"id\"\n").empty());
        QVERIFY(!check_project_ssh_config("Include /tmp/other\n").empty());
        QVERIFY(!check_project_ssh_config("\tLocalCommand=id\n").empty());
        QVERIFY(!check_project_ssh_config("  knownhostscommand /bin/id\r\n").empty());

        QTemporaryDir dir;
        const QString path = dir.filePath("ssh_config");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("Host *\n  ProxyCommand touch /tmp/x\n");
        f.close();
        try {
            runtime_config_from_json({{"ssh", {{"config_file", path.toStdString()}}}});
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/runtime/ssh/config_file"));
            QVERIFY2(e.message().find("line 2: ProxyCommand") != std::string::npos, e.what());
        }
        // A file that cannot be read is left to ssh (which then refuses to connect).
        QCOMPARE(runtime_config_from_json({{"ssh", {{"config_file", (dir.path() + "/none").toStdString()}}}})
                     .ssh_config_file,
                 (dir.path() + "/none").toStdString());
    }

    // A project naming /dev/zero as its ssh config file made loading it read without end (out
    // of memory; fuzz_runtime_config on that input); a FIFO would block it, a directory read as
    // empty. Only a regular file of at most 1 MiB is read.
    void configFileMustBeARegularFile() {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("fifo").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        for (const std::string& path : {std::string("/dev/zero"), fifo, dir.path().toStdString()}) {
            try {
                runtime_config_from_json({{"ssh", {{"config_file", path}}}});
                QFAIL(("expected an InputError for " + path).c_str());
            } catch (const InputError& e) {
                QCOMPARE(e.pointer(), std::string("/runtime/ssh/config_file"));
                QVERIFY2(e.message() == path + " is not a regular file (an ssh config file is)", e.what());
            }
        }
        const QString big = dir.filePath("big_config");
        QFile f(big);
        QVERIFY(f.open(QIODevice::WriteOnly));
        const QByteArray line("# comment\n");
        for (int i = 0; i < (2 << 20) / line.size(); ++i) f.write(line);
        f.close();
        try {
            runtime_config_from_json({{"ssh", {{"config_file", big.toStdString()}}}});
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QVERIFY2(e.message().find("too large for an ssh config file") != std::string::npos, e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestRuntimeConfig)
#include "tst_runtime_config.moc"
