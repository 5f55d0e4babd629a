// The project's "runtime" section: defaults, every field, and errors naming the field.
#include "launch/runtime_config.h"
#include "ssh/ssh_policy.h"
#include "util/input_error.h"

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
        QCOMPARE(c.ssh_profile, std::string());
        QVERIFY(c.ignored.empty());
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
        QCOMPARE(c.ssh_options.front(), std::string("ProxyJump=bastion"));
        // What only the user may choose loads, is never used, and is named with the reason.
        QCOMPARE(c.ignored.size(), std::size_t(3));
        QVERIFY2(c.ignored[0].rfind("/runtime/job_dir: ignored: job records live in Paraplan's own folder", 0) == 0,
                 c.ignored[0].c_str());
        QVERIFY2(c.ignored[1].rfind("/runtime/ssh/known_hosts_file: ignored:", 0) == 0, c.ignored[1].c_str());
        QVERIFY2(c.ignored[2].rfind("/runtime/ssh/strict_host_key_checking: ignored: accepting new host keys", 0) == 0,
                 c.ignored[2].c_str());
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
        QTest::newRow("slurm gpus") << R"({"slurm": {"gpus": "yes"}})"
                                    << "/runtime/slurm/gpus";
        QTest::newRow("fail_fast") << R"({"fail_fast": "yes"})"
                                   << "/runtime/fail_fast";
        QTest::newRow("interval") << R"({"telemetry": {"interval_ms": 100}})"
                                  << "/runtime/telemetry/interval_ms";
        // Numbers that would overflow the milliseconds they become, and a profile id that is not one.
        QTest::newRow("connect timeout huge") << R"({"ssh": {"connect_timeout_s": 99999999999}})"
                                              << "/runtime/ssh/connect_timeout_s";
        QTest::newRow("connect timeout 0") << R"({"ssh": {"connect_timeout_s": 0}})"
                                           << "/runtime/ssh/connect_timeout_s";
        QTest::newRow("alive huge") << R"({"ssh": {"server_alive_interval_s": 2147483647}})"
                                    << "/runtime/ssh/server_alive_interval_s";
        QTest::newRow("grace huge") << R"({"stop_grace_s": 4294967296})"
                                    << "/runtime/stop_grace_s";
        QTest::newRow("interval huge") << R"({"telemetry": {"interval_ms": 3600001}})"
                                       << "/runtime/telemetry/interval_ms";
        QTest::newRow("profile id") << R"({"ssh": {"profile": "../etc"}})"
                                    << "/runtime/ssh/profile";
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

    // Options that would make ssh run a command, name a file here or trust a host key: loaded,
    // never passed to ssh, and listed with their pointer and the reason (ssh_config(5)).
    void hostileOptionsIgnored_data() {
        QTest::addColumn<QString>("option");
        QTest::addColumn<QString>("why");
        const char* const runs = "run a program";
        const char* const local = "names something on this computer";
        for (const char* o : {"ProxyCommand=touch /tmp/x", "LocalCommand=touch /tmp/x", "PermitLocalCommand=yes",
                              "KnownHostsCommand=/bin/id", "proxycommand=id", "PKCS11Provider=/tmp/evil.so",
                              "SecurityKeyProvider=/tmp/e.so", "XAuthLocation=/tmp/x", "RemoteCommand=id",
                              "Include=/tmp/cfg", "Match=exec id"})
            QTest::newRow(o) << o << runs;
        for (const char* o :
             {"IdentityFile=/k", "CertificateFile=/k-cert.pub", "HostKeyAlias=gpu-a", "IdentityAgent=/tmp/agent",
              "GlobalKnownHostsFile=/etc/x", "ForwardAgent=yes", "RemoteForward=2222 localhost:22", "identityfile=/k"})
            QTest::newRow(o) << o << local;
        QTest::newRow("managed") << "StrictHostKeyChecking=no"
                                 << "managed by Paraplan";
        QTest::newRow("managed known hosts") << "UserKnownHostsFile=/tmp/k"
                                             << "ssh profile";
        QTest::newRow("key with space") << "Proxy Command=x"
                                        << "letters and digits";
        QTest::newRow("quoted key") << "Proxy\"Command\"=touch /tmp/x"
                                    << "letters and digits";
        QTest::newRow("space form") << "ProxyCommand touch /tmp/x"
                                    << "Key=Value";
        QTest::newRow("ProxyJump shell") << "ProxyJump=b;touch /tmp/x"
                                         << "hops";
        QTest::newRow("ProxyJump dash") << "ProxyJump=-oProxyCommand=x"
                                        << "hops";
        QTest::newRow("Port text") << "Port=22;id"
                                   << "port number";
        QTest::newRow("User dash") << "User=-oProxyCommand=x"
                                   << "user name";
    }
    void hostileOptionsIgnored() {
        QFETCH(QString, option);
        QFETCH(QString, why);
        const auto c = runtime_config_from_json({{"ssh", {{"options", {"Port=2222", option.toStdString()}}}}});
        QCOMPARE(c.ssh_options, std::vector<std::string>{"Port=2222"});
        QCOMPARE(c.ignored.size(), std::size_t(1));
        QVERIFY2(c.ignored[0].rfind("/runtime/ssh/options/1: ignored: ", 0) == 0, c.ignored[0].c_str());
        QVERIFY2(c.ignored[0].find(why.toStdString()) != std::string::npos, c.ignored[0].c_str());
    }

    // A control character in an option is refused outright with its pointer (as in every value
    // that reaches a command line).
    void optionNewlineRefused() {
        try {
            runtime_config_from_json(json::parse(R"({"ssh": {"options": ["Port=22\nProxyCommand=id"]}})"));
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/runtime/ssh/options/0"));
        }
    }

    // The allowed connection options pass with their values, any letter case.
    void safeOptionsPass() {
        const auto c = runtime_config_from_json(json::parse(R"({"ssh": {"options": [
            "Port=2222", "User=ml-user", "IdentitiesOnly=yes",
            "ProxyJump=alice@bastion.example.org:2222,jump2", "ProxyJump=none",
            "ConnectionAttempts=3", "Compression=yes", "tcpkeepalive=no", "AddressFamily=inet",
            "Ciphers=chacha20-poly1305@openssh.com,aes256-gcm@openssh.com", "KexAlgorithms=+sntrup761x25519-sha512@openssh.com",
            "PreferredAuthentications=publickey"]}})"));
        QCOMPARE(c.ssh_options.size(), std::size_t(12));
        QVERIFY(c.ignored.empty());
        QCOMPARE(check_project_ssh_option("ProxyJump=bastion"), std::string());
        QVERIFY(!check_project_ssh_option("ProxyJump=user@bas tion").empty());
        QVERIFY(!check_project_ssh_option("ProxyJump=$(id)").empty());
        QVERIFY(!check_project_ssh_option("Port=0").empty());
        QVERIFY(!check_project_ssh_option("Compression=maybe").empty());
        QVERIFY(!check_project_ssh_option("NoEquals").empty());
    }

    // A project's ssh config file, known-hosts file and job folder are never opened: /dev/zero
    // or a FIFO named there is only reported as ignored (it once made loading read without end).
    void localPathsAreNeverRead() {
        QTemporaryDir dir;
        const std::string fifo = dir.filePath("fifo").toStdString();
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        for (const std::string& path : {std::string("/dev/zero"), fifo}) {
            const auto c = runtime_config_from_json(
                {{"job_dir", path}, {"ssh", {{"config_file", path}, {"known_hosts_file", path}}}});
            QCOMPARE(c.ignored.size(), std::size_t(3));
            QVERIFY2(c.ignored[1].rfind("/runtime/ssh/config_file: ignored: a project may not name a file", 0) == 0,
                     c.ignored[1].c_str());
            QVERIFY2(c.ignored[1].find("paraplan-cli ssh-profile") != std::string::npos, c.ignored[1].c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestRuntimeConfig)
#include "tst_runtime_config.moc"
