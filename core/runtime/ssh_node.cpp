#include "runtime/ssh_node.h"

#include "runtime/process_closer.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <utility>

#ifdef __linux__
#include <sys/prctl.h>
#include <csignal>
#include <unistd.h>
#endif

namespace paraplan::runtime {

QStringList to_qt(const std::vector<std::string>& argv) {
    QStringList l;
    for (const auto& a : argv) l << QString::fromStdString(a);
    return l;
}

void end_with_parent(QProcess* p) {
#ifdef __linux__
    // prctl(2) PR_SET_PDEATHSIG: the ssh client gets SIGTERM when the process that started
    // it dies, even by SIGKILL, so no ControlMaster (and its sshd session) outlives it.
    const pid_t parent = ::getpid();
    p->setChildProcessModifier([parent] {
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) ::_exit(1);   // the parent died before prctl
    });
#else
    (void)p;
#endif
}

SshNode::SshNode(SshTarget target, SshOptions options, QObject* parent)
    : QObject(parent), target_(std::move(target)), options_(std::move(options)) {
    makeControlDir();
}

void SshNode::makeControlDir() {
    // Short path: sockets are limited to ~100 bytes; %C adds 40.
    control_dir_ = std::make_unique<QTemporaryDir>(QDir::tempPath() + "/pp-ssh-XXXXXX");
    if (control_dir_->isValid()) {
        QFile::setPermissions(control_dir_->path(), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        options_.control_dir = control_dir_->path().toStdString();
    } else {
        options_.control_dir.clear();   // no sharing: every command connects on its own
    }
}

SshNode::~SshNode() { disconnectFromHost(); }

void SshNode::fail(const SshError& e) {
    error_ = e;
    state_ = State::Failed;
    emit failed();
}

void SshNode::connectToHost() {
    if (state_ == State::Connecting || state_ == State::Connected) return;
    const std::string why = check_target(target_);
    if (!why.empty()) {
        SshError e;
        e.kind = SshErrorKind::Other;
        e.exit_code = -1;
        e.message = why;
        e.fix = "fix the node's host/user/port in the cluster section";
        fail(e);
        return;
    }
    state_ = State::Connecting;
    error_ = {};
    master_err_.clear();
    master_ = new QProcess(this);
    end_with_parent(master_);
    const auto argv = to_qt(ssh_master_argv(target_, options_));
    master_->setProgram(argv.front());
    master_->setArguments(argv.mid(1));
    master_->setStandardInputFile(QProcess::nullDevice());
    connect(master_, &QProcess::readyReadStandardOutput, this, [this] {
        master_->readAllStandardOutput();
        if (state_ == State::Connecting) {
            state_ = State::Connected;
            emit connected();
        }
    });
    connect(master_, &QProcess::readyReadStandardError, this,
            [this] { master_err_ += master_->readAllStandardError(); });
    connect(master_, &QProcess::finished, this, [this](int code, QProcess::ExitStatus st) {
        master_err_ += master_->readAllStandardError();
        const auto err = master_err_.toStdString();
        master_->deleteLater();
        master_ = nullptr;
        // Killed by a signal, QProcess gives CrashExit and the signal number as the code:
        // that is the connection ending, never a remote command's status.
        const bool killed = st != QProcess::NormalExit;
        if (state_ == State::Connecting || state_ == State::Connected) {
            SshError e = classify_ssh_failure(target_.host, killed || code == 0 ? 255 : code, err, place());
            if (state_ == State::Connected && (killed || e.kind == SshErrorKind::Other))
                e = connection_lost(target_.host, code, killed ? code : 0, err);
            fail(e);
        }
    });
    connect(master_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError pe) {
        if (pe != QProcess::FailedToStart) return;
        SshError e;
        e.kind = SshErrorKind::Other;
        e.exit_code = -1;
        e.message = "cannot start the ssh client \"" + options_.ssh_program + "\"";
        e.fix = "install openssh-client or set the ssh program path";
        master_->deleteLater();
        master_ = nullptr;
        fail(e);
    });
    master_->start();
}

bool SshNode::waitConnected(int timeout_ms) {
    if (state_ == State::Disconnected) connectToHost();
    if (state_ != State::Connecting) return state_ == State::Connected;
    QEventLoop loop;
    QTimer t;
    t.setSingleShot(true);
    connect(&t, &QTimer::timeout, &loop, &QEventLoop::quit);
    connect(this, &SshNode::connected, &loop, &QEventLoop::quit);
    connect(this, &SshNode::failed, &loop, &QEventLoop::quit);
    t.start(timeout_ms);
    loop.exec();
    if (state_ == State::Connecting) {
        SshError e = classify_ssh_failure(target_.host, 255, "Connection timed out", place());
        if (master_) {
            master_->disconnect(this);
            master_->kill();
            master_->waitForFinished(2000);
            master_->deleteLater();
            master_ = nullptr;
        }
        fail(e);
    }
    return state_ == State::Connected;
}

void SshNode::disconnectFromHost() {
    if (!master_) {
        if (state_ != State::Failed) state_ = State::Disconnected;
        return;
    }
    master_->disconnect(this);
    // Handed over, not waited for: `ssh -O exit` asks the master to leave, TERM after 2 s, KILL
    // after 4 s, and its control folder goes with it; a new connection gets a folder of its own.
    CloseLater how;
    if (!options_.control_dir.empty()) how.ask_argv = to_qt(ssh_exit_argv(target_, options_));
    how.term_after_ms = state_ == State::Connected ? 2000 : 0;   // one still connecting has no socket to ask on
    how.kill_after_ms = 4000;
    how.dir = std::move(control_dir_);
    if (close_later(master_, how)) {
        master_ = nullptr;
        makeControlDir();
        if (state_ != State::Failed) state_ = State::Disconnected;
        return;
    }
    control_dir_ = std::move(how.dir);   // not taken: ended here (see close_later)
    // No event loop to end it later (no application, or another thread): ended here.
    if (!options_.control_dir.empty()) {
        QProcess exit;
        const auto argv = to_qt(ssh_exit_argv(target_, options_));
        exit.start(argv.front(), argv.mid(1));
        exit.waitForFinished(3000);
    }
    if (!master_->waitForFinished(2000)) {
        master_->terminate();
        if (!master_->waitForFinished(2000)) {
            master_->kill();
            master_->waitForFinished(2000);
        }
    }
    delete master_;
    master_ = nullptr;
    if (state_ != State::Failed) state_ = State::Disconnected;
}

std::vector<std::string> SshNode::commandArgv(const std::string& remote_command) const {
    return ssh_command_argv(target_, options_, remote_command);
}

QProcess* SshNode::start(const std::string& remote_command, QObject* parent) const {
    auto* p = new QProcess(parent);
    end_with_parent(p);
    const auto argv = to_qt(commandArgv(remote_command));
    p->setProgram(argv.front());
    p->setArguments(argv.mid(1));
    p->start();
    return p;
}

SshNode::Result SshNode::run(const std::string& remote_command, int timeout_ms, const std::string& stdin_text) const {
    Result r;
    QProcess p;
    const auto argv = to_qt(commandArgv(remote_command));
    p.start(argv.front(), argv.mid(1));
    if (!p.waitForStarted(5000)) {
        r.error.kind = SshErrorKind::Other;
        r.error.message = "cannot start the ssh client \"" + options_.ssh_program + "\"";
        return r;
    }
    if (!stdin_text.empty()) p.write(stdin_text.data(), static_cast<qint64>(stdin_text.size()));
    p.closeWriteChannel();
    if (!p.waitForFinished(timeout_ms)) {
        r.timed_out = true;
        p.kill();
        p.waitForFinished(2000);
        r.out = p.readAllStandardOutput().toStdString();
        r.err = p.readAllStandardError().toStdString();
        r.error = classify_ssh_failure(target_.host, 255, "Connection timed out", place());
        r.error.message = "the command on \"" + target_.host + "\" did not finish within " +
                          std::to_string(timeout_ms / 1000) + " s";
        return r;
    }
    r.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : 255;
    r.out = p.readAllStandardOutput().toStdString();
    r.err = p.readAllStandardError().toStdString();
    if (r.exit_code != 0) r.error = classify_ssh_failure(target_.host, r.exit_code, r.err, place());
    return r;
}

}   // namespace paraplan::runtime
