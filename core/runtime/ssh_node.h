#pragma once
// One cluster node reached over the system ssh client: a ControlMaster started once
// (in a private temporary folder) and shared by every command to the node.
#include "ssh/ssh_command.h"
#include "ssh/ssh_error.h"

#include <QObject>
#include <QProcess>
#include <QTemporaryDir>

#include <memory>
#include <string>

namespace paraplan::runtime {

class SshNode : public QObject {
    Q_OBJECT
public:
    enum class State { Disconnected, Connecting, Connected, Failed };

    // `options.control_dir` is replaced by the node's own private folder.
    SshNode(SshTarget target, SshOptions options, QObject* parent = nullptr);
    ~SshNode() override;

    const SshTarget& target() const { return target_; }
    const SshOptions& options() const { return options_; }
    State state() const { return state_; }
    // Local pid of the master ssh process (0 when none runs).
    qint64 masterPid() const { return master_ ? master_->processId() : 0; }
    const SshError& error() const { return error_; }

    // Starts the master; emits connected() or failed(). Refused targets fail at once.
    void connectToHost();
    // Runs the event loop until connected or failed (or timeout_ms): true when connected.
    bool waitConnected(int timeout_ms);
    // Stops the master (ssh -O exit, then TERM and KILL) without waiting for it: it ends on the
    // application's event loop (in the application's thread; elsewhere it is waited for here).
    void disconnectFromHost();

    // argv of a command over this node's connection.
    std::vector<std::string> commandArgv(const std::string& remote_command) const;
    // Starts a remote command; the caller owns the QProcess (parent given or none).
    QProcess* start(const std::string& remote_command, QObject* parent = nullptr) const;

    struct Result {
        int exit_code = -1;
        std::string out;
        std::string err;
        bool timed_out = false;
        SshError error;   // kind None on success
    };
    // Runs a command to completion (blocking, with its own event handling); stdin_text
    // is written and the channel closed.
    Result run(const std::string& remote_command, int timeout_ms, const std::string& stdin_text = {}) const;

signals:
    void connected();
    void failed();

private:
    void fail(const SshError& e);
    void makeControlDir();   // a private folder for the master's socket (options_.control_dir)
    // Port and known_hosts file for the fix commands of host-key errors.
    HostKeyPlace place() const { return {target_.port, options_.known_hosts_file}; }

    SshTarget target_;
    SshOptions options_;
    std::unique_ptr<QTemporaryDir> control_dir_;
    QProcess* master_ = nullptr;
    State state_ = State::Disconnected;
    SshError error_;
    QByteArray master_err_;
};

// Makes `p` (not yet started) end when this process dies, even by SIGKILL (Linux).
void end_with_parent(QProcess* p);

// QStringList from std argv (UTF-8).
QStringList to_qt(const std::vector<std::string>& argv);

}   // namespace paraplan::runtime
