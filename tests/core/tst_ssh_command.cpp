// ssh argv building and error classification (stderr as OpenSSH 9.2p1 prints it: sshconnect.c, sshconnect2.c).
#include "ssh/ssh_command.h"
#include "ssh/ssh_error.h"

#include <QtTest>

#include <algorithm>

using namespace paraplan;
using namespace paraplan::runtime;

namespace {
bool has_pair(const std::vector<std::string>& a, const std::string& x, const std::string& y) {
    for (std::size_t i = 0; i + 1 < a.size(); ++i)
        if (a[i] == x && a[i + 1] == y) return true;
    return false;
}
}   // namespace

class TestSshCommand : public QObject {
    Q_OBJECT
private slots:
    void commandArgv() {
        SshTarget t{"gpu01", "alice", 2222};
        SshOptions o;
        o.identity_file = "/keys/id_ed25519";
        o.certificate_file = "/keys/id_ed25519-cert.pub";
        o.control_dir = "/tmp/pp-ssh-x";
        o.known_hosts_file = "/app/known_hosts";
        o.connect_timeout_s = 7;
        const auto a = ssh_command_argv(t, o, "echo hi");
        QCOMPARE(a.front(), std::string("ssh"));
        QVERIFY(has_pair(a, "-o", "BatchMode=yes"));
        QVERIFY(has_pair(a, "-o", "ConnectTimeout=7"));
        QVERIFY(has_pair(a, "-o", "ServerAliveInterval=15"));
        QVERIFY(has_pair(a, "-o", "StrictHostKeyChecking=yes"));
        QVERIFY(has_pair(a, "-o", "UserKnownHostsFile=/app/known_hosts"));
        QVERIFY(has_pair(a, "-o", "ControlPath=/tmp/pp-ssh-x/%C"));
        QVERIFY(has_pair(a, "-o", "ControlMaster=no"));
        QVERIFY(has_pair(a, "-o", "User=alice"));
        QVERIFY(has_pair(a, "-o", "Port=2222"));
        QVERIFY(has_pair(a, "-i", "/keys/id_ed25519"));
        QVERIFY(has_pair(a, "-o", "CertificateFile=/keys/id_ed25519-cert.pub"));
        QVERIFY(has_pair(a, "-o", "IdentitiesOnly=yes"));
        // The host comes after "--", the remote command is one argument at the end.
        QCOMPARE(a[a.size() - 3], std::string("--"));
        QCOMPARE(a[a.size() - 2], std::string("gpu01"));
        QCOMPARE(a.back(), std::string("echo hi"));
        // Never "no" for host keys.
        o.strict_host_key_checking = "no";
        QVERIFY(has_pair(ssh_command_argv(t, o, "x"), "-o", "StrictHostKeyChecking=yes"));
    }

    void masterArgv() {
        SshTarget t{"alias-from-config", "", 0};
        SshOptions o;
        o.control_dir = "/tmp/d";
        const auto a = ssh_master_argv(t, o);
        QVERIFY(has_pair(a, "-o", "ControlMaster=yes"));
        QVERIFY(has_pair(a, "-o", "LocalCommand=echo"));
        QVERIFY(has_pair(a, "-o", "PermitLocalCommand=yes"));
        QVERIFY(std::find(a.begin(), a.end(), "-N") != a.end());
        QCOMPARE(a.back(), std::string("alias-from-config"));
        // No user/port/identity flags: ~/.ssh/config decides for an alias.
        for (const auto& s : a) {
            QVERIFY(s.rfind("User=", 0) != 0);
            QVERIFY(s.rfind("Port=", 0) != 0);
        }
    }

    void targetChecks() {
        QVERIFY(check_target({"gpu01", "", 0}).empty());
        QVERIFY(!check_target({"", "", 0}).empty());
        QVERIFY(!check_target({"-oProxyCommand=id", "", 0}).empty());
        QVERIFY(!check_target({"a b", "", 0}).empty());
        QVERIFY(!check_target({"a\nb", "", 0}).empty());
        QVERIFY(!check_target({"h", "-x", 0}).empty());
        QVERIFY(!check_target({"h", "u@v", 0}).empty());
        QVERIFY(!check_target({"h", "", 70000}).empty());
        // Nothing a shell reads: ssh expands the host into the command it runs for a ProxyJump.
        for (const char* h : {"$(id)", "a;b", "`id`", "a|b", "a'b", "a\"b", "a\\b", "h%h", "a&b", "a@b"})
            QVERIFY2(!check_target({h, "", 0}).empty(), h);
        for (const char* u : {"$(id)", "a;b", "u%u", "a b"}) QVERIFY2(!check_target({"h", u, 0}).empty(), u);
        QVERIFY(check_target({"fe80::1", "ml-user", 22}).empty());
        QVERIFY(check_target({"gpu-a.example.org", "first.last", 22}).empty());
    }

    void classify_data() {
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("err");
        QTest::addColumn<QString>("kind");
        QTest::newRow("unknown key")
            << 255
            << "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\n"
               "Host key verification failed.\n"
            << "unknown_host_key";
        QTest::newRow("changed key") << 255
                                     << "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
                                        "@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n"
                                        "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n"
                                        "IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\n"
                                        "Host key verification failed.\n"
                                     << "changed_host_key";
        QTest::newRow("denied") << 255 << "root@127.0.0.1: Permission denied (publickey).\n"
                                << "auth_failed";
        QTest::newRow("dns") << 255 << "ssh: Could not resolve hostname nosuch: Name or service not known\n"
                             << "unresolvable_host";
        QTest::newRow("refused") << 255 << "ssh: connect to host 127.0.0.1 port 2999: Connection refused\n"
                                 << "connection_refused";
        QTest::newRow("timeout") << 255 << "ssh: connect to host 10.255.255.1 port 22: Connection timed out\n"
                                 << "timeout";
        QTest::newRow("no route") << 255 << "ssh: connect to host 10.0.0.9 port 22: No route to host\n"
                                  << "unreachable";
        QTest::newRow("dropped") << 255 << "Timeout, server 10.0.0.9 not responding.\n"
                                 << "connection_lost";
        QTest::newRow("closed") << 255 << "Connection to 10.0.0.9 closed by remote host.\n"
                                << "connection_lost";
        QTest::newRow("127") << 127 << "sh: 1: torchrun: not found\n"
                             << "remote_command_missing";
        QTest::newRow("remote status") << 3 << ""
                                       << "other";
        QTest::newRow("ok") << 0 << ""
                            << "none";
    }
    void classify() {
        QFETCH(int, exitCode);
        QFETCH(QString, err);
        QFETCH(QString, kind);
        const auto e = classify_ssh_failure("h1", exitCode, err.toStdString());
        QCOMPARE(QString::fromStdString(to_string(e.kind)), kind);
        if (exitCode != 0) {
            QVERIFY(e.message.find("\"h1\"") != std::string::npos);
            QVERIFY(!e.fix.empty());
        }
        if (kind == "changed_host_key") QCOMPARE(e.raw, std::string("Host key verification failed."));
    }

    // Host-key fixes name the port (known_hosts records "[host]:port") and the
    // project's own known_hosts file, so the commands fix what ssh actually checks.
    void hostKeyHintsNamePortAndFile() {
        const std::string unknown =
            "No ED25519 host key is known for [127.0.0.2]:2222 and you have requested strict checking.\n"
            "Host key verification failed.\n";
        const auto plain = classify_ssh_failure("gpu-a", 255, unknown);
        QVERIFY2(plain.fix.find("ssh-keyscan -H gpu-a >> ~/.ssh/known_hosts") != std::string::npos, plain.fix.c_str());
        const auto e = classify_ssh_failure("127.0.0.2", 255, unknown, {2222, "/home/u/my known_hosts"});
        QCOMPARE(to_string(e.kind), std::string("unknown_host_key"));
        QVERIFY2(e.fix.find("ssh-keyscan -H -p 2222 127.0.0.2 >> '/home/u/my known_hosts'") != std::string::npos,
                 e.fix.c_str());
        QVERIFY2(
            e.fix.find("ssh -p 2222 -o UserKnownHostsFile='/home/u/my known_hosts' 127.0.0.2") != std::string::npos,
            e.fix.c_str());
        QVERIFY2(e.message.find("port 2222") != std::string::npos &&
                     e.message.find("/home/u/my known_hosts") != std::string::npos,
                 e.message.c_str());
        const auto changed = classify_ssh_failure(
            "127.0.0.2", 255, "WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!\n", {2222, "/k/hosts"});
        QVERIFY2(changed.fix.find("ssh-keygen -R '[127.0.0.2]:2222' -f /k/hosts") != std::string::npos,
                 changed.fix.c_str());
        // Port 22 is ssh's default: recorded without brackets.
        QVERIFY(classify_ssh_failure("h", 255, unknown, {22, ""}).fix.find("ssh-keyscan -H h >>") != std::string::npos);
    }

    // The control connection killed (QProcess: CrashExit with the signal as code 9) is
    // a lost connection, not "remote command exited with status 9".
    void controlConnectionDeathIsConnectionLost() {
        const auto e = connection_lost("gpu-a", 9, 9, "");
        QCOMPARE(to_string(e.kind), std::string("connection_lost"));
        QVERIFY2(e.message.find("connection to \"gpu-a\" was lost") != std::string::npos, e.message.c_str());
        QVERIFY2(e.message.find("signal 9") != std::string::npos, e.message.c_str());
        QVERIFY(e.message.find("exited with status") == std::string::npos);
        QCOMPARE(e.exit_code, 255);
        const auto ended = connection_lost("gpu-a", 9, 0, "client_loop: send disconnect: Broken pipe\n");
        QVERIFY2(ended.message.find("ssh exit status 9") != std::string::npos, ended.message.c_str());
        QVERIFY(ended.message.find("Broken pipe") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSshCommand)
#include "tst_ssh_command.moc"
