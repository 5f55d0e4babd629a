#pragma once
// Test fixture: a private OpenSSH server on loopback (127.0.0.1-3, one free port), its own
// host key, an authorized user key, a wrong key, and a known_hosts file for the client.
// The login shell's HOME points at an empty folder (SetEnv HOME=...), so the machine's
// ~/.bashrc (pyenv init, ~2 s) does not run for every command.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

class SshdFixture {
public:
    QString error;   // why start() failed
    int port = 0;
    QString dir;
    QString user_key, wrong_key, known_hosts, client_config, host_pub;

    bool start() {
        tmp_ = std::make_unique<QTemporaryDir>(QDir::tempPath() + "/pp-sshd-XXXXXX");
        if (!tmp_->isValid()) return fail("cannot create a temporary folder");
        dir = tmp_->path();
        const QString sshd = "/usr/sbin/sshd";
        if (!QFile::exists(sshd)) return fail("sshd is not installed (apt-get install -y openssh-server)");
        QDir().mkpath("/run/sshd");   // privilege separation folder sshd insists on
        for (const char* k : {"host_key", "user_key", "wrong_key"})
            if (!run("ssh-keygen", {"-q", "-t", "ed25519", "-N", "", "-C", k, "-f", dir + "/" + k}))
                return fail("ssh-keygen failed");
        user_key = dir + "/user_key";
        wrong_key = dir + "/wrong_key";
        host_pub = read(dir + "/host_key.pub").trimmed();
        write(dir + "/authorized_keys", read(user_key + ".pub"));
        QDir().mkpath(dir + "/home");
        client_config = dir + "/ssh_config";
        write(client_config, "# empty: tests ignore the user's ~/.ssh/config\n");
        // Remote commands see the test's Slurm configuration (tests/runtime/slurm_fixture.h).
        QString set_env = "SetEnv HOME=" + dir + "/home";
        if (qEnvironmentVariableIsSet("SLURM_CONF")) set_env += " SLURM_CONF=" + qEnvironmentVariable("SLURM_CONF");
        for (int attempt = 0; attempt < 5; ++attempt) {
            port = free_port();
            write(dir + "/sshd_config",
                  QString("Port %1\nListenAddress 127.0.0.1\nListenAddress 127.0.0.2\nListenAddress 127.0.0.3\n"
                          "HostKey %2/host_key\nPidFile %2/sshd.pid\nAuthorizedKeysFile %2/authorized_keys\n"
                          "UsePAM no\nStrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                          "PermitRootLogin prohibit-password\n%3\nMaxSessions 100\n"
                          "MaxStartups 100\nLogLevel ERROR\n")
                      .arg(port)
                      .arg(dir, set_env));
            sshd_ = std::make_unique<QProcess>();
            sshd_->setProcessChannelMode(QProcess::MergedChannels);
            sshd_->start(sshd, {"-D", "-e", "-f", dir + "/sshd_config"});
            if (!sshd_->waitForStarted(5000)) return fail("cannot start sshd");
            if (wait_listening()) break;
            error = QString::fromUtf8(sshd_->readAll());
            sshd_->kill();
            sshd_->waitForFinished(2000);
            sshd_.reset();
        }
        if (!sshd_) return fail("sshd did not start: " + error);
        QString kh;
        for (const char* h : {"127.0.0.1", "127.0.0.2", "127.0.0.3"})
            kh += QString("[%1]:%2 %3\n").arg(h).arg(port).arg(host_pub.section(' ', 0, 1));
        known_hosts = dir + "/known_hosts";
        write(known_hosts, kh);
        return true;
    }

    ~SshdFixture() {
        if (sshd_) {
            sshd_->terminate();
            if (!sshd_->waitForFinished(3000)) sshd_->kill();
            sshd_->waitForFinished(2000);
        }
    }

    QString log() const { return sshd_ ? QString::fromUtf8(sshd_->readAll()) : QString(); }
    // The listening sshd's pid (its sessions are its descendants).
    qint64 pid() const { return sshd_ ? sshd_->processId() : 0; }

    static void write(const QString& path, const QString& text) {
        QFile f(path);
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write(text.toUtf8());
    }
    static QString read(const QString& path) {
        QFile f(path);   // "" until the file exists (tests poll logs that a rank has yet to write)
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }

private:
    bool fail(const QString& why) {
        error = why;
        return false;
    }
    static bool run(const QString& prog, const QStringList& args) {
        QProcess p;
        p.start(prog, args);
        return p.waitForFinished(20000) && p.exitCode() == 0;
    }

public:
    // A TCP port nothing listens on now (the kernel's pick), for a test's own listener.
    static int free_port() {
        const int s = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = 0;
        ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
        socklen_t len = sizeof a;
        ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
        const int p = ntohs(a.sin_port);
        ::close(s);
        return p;
    }

private:
    bool wait_listening() {
        for (int i = 0; i < 50; ++i) {
            if (sshd_->state() != QProcess::Running) return false;
            const int s = ::socket(AF_INET, SOCK_STREAM, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_port = htons(static_cast<uint16_t>(port));
            inet_pton(AF_INET, "127.0.0.3", &a.sin_addr);
            const bool ok = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
            ::close(s);
            if (ok) return true;
            QThread::msleep(100);
        }
        return false;
    }

    std::unique_ptr<QTemporaryDir> tmp_;
    std::unique_ptr<QProcess> sshd_;
};
