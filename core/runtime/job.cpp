#include "runtime/job.h"

#include "runtime/job_backend.h"
#include "joblog/job_history.h"
#include "shell/shell_quote.h"
#include "util/local_dirs.h"

#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QSaveFile>
#include <QTimer>

namespace paraplan::runtime {

namespace {
std::string iso(long long ms) {
    return ms ? QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs).toStdString() : std::string();
}
}   // namespace

std::string Job::to_string(State s) {
    switch (s) {
    case State::Pending: return "pending";
    case State::Connecting: return "connecting";
    case State::Running: return "running";
    case State::Stopping: return "stopping";
    case State::Succeeded: return "succeeded";
    case State::Failed: return "failed";
    case State::Stopped: return "stopped";
    }
    return "unknown";
}

Job::Job(Cluster cluster, LaunchPlan plan, SshOptions ssh, std::string folder, nlohmann::json snapshot,
         std::string on_failure, QObject* parent)
    : QObject(parent),
      cluster_(std::move(cluster)),
      plan_(std::move(plan)),
      ssh_(std::move(ssh)),
      folder_(std::move(folder)),
      snapshot_(std::move(snapshot)),
      on_failure_(std::move(on_failure)) {
    nodes_.resize(cluster_.nodes.size());
    for (const auto& spec : plan_.processes) {
        auto p = std::make_unique<Process>();
        p->spec = spec;
        const auto& node = cluster_.nodes.at(static_cast<std::size_t>(spec.node));
        p->host = ssh_target(node).host;
        auto& n = nodes_[static_cast<std::size_t>(spec.node)];
        if (!n) n = std::make_unique<SshNode>(ssh_target(node), ssh_);
        p->command = n->commandArgv(remote_launch_command(plan_, spec));
        procs_.push_back(std::move(p));
    }
    backend_ = JobBackend::for_plan(*this);
}

Job::~Job() {
    backend_.reset();   // first: it ends what it runs itself (Slurm: the output file's tail)
    for (auto& p : procs_)
        if (p->proc && p->proc->state() != QProcess::NotRunning) {
            p->proc->disconnect(this);
            p->proc->closeWriteChannel();
            if (!p->proc->waitForFinished(plan_.stop_grace_s * 1000 + 5000)) p->proc->kill();
        }
}

void Job::set_state(State s) {
    if (s == state_) return;
    state_ = s;
    write_json();
    emit stateChanged();
    if (done()) emit finished();
}

void Job::start() {
    if (state_ != State::Pending) return;
    started_ms_ = QDateTime::currentMSecsSinceEpoch();
    // Nothing starts on a node until the job's private folder (0700, this user's: local_dirs.h),
    // every log and job.json itself can be written: a run that could not be followed or
    // stopped is not started.
    auto refuse = [this](const std::string& why) {
        fail(why);
        for (auto& q : procs_) q->finished = true;
        check_done();
    };
    if (const std::string why = ensure_private_dir(folder_); !why.empty())
        return refuse("cannot keep the job's records: " + why);
    for (std::size_t i = 0; i < procs_.size(); ++i) {
        auto& p = *procs_[i];
        p.log = std::make_unique<QFile>(QString::fromStdString(folder_ + "/" + p.spec.label + ".log"));
        if (!p.log->open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered))
            return refuse("cannot write the log " + p.log->fileName().toStdString() + ": " +
                          p.log->errorString().toStdString());
        p.log->setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);   // whatever the umask
    }
    write_json();
    if (!json_error_.empty()) return refuse(json_error_);
    set_state(State::Connecting);
    for (auto& n : nodes_) {
        if (!n) continue;
        SshNode* node = n.get();
        connect(node, &SshNode::connected, this, [this] {
            for (auto& m : nodes_)
                if (m && m->state() != SshNode::State::Connected) return;
            if (state_ == State::Connecting) launch_all();
        });
        connect(node, &SshNode::failed, this, [this, node] {
            const auto& e = node->error();
            unreachable_ = unreachable_ || (state_ == State::Connecting && is_unreachable(e.kind));
            for (auto& p : procs_)
                if (nodes_[static_cast<std::size_t>(p->spec.node)].get() == node && !p->proc) {
                    p->error = e.message;
                    p->error_kind = runtime::to_string(e.kind);
                    p->finished = true;
                    if (p->log) p->log->write(("paraplan: " + e.message + "\nparaplan fix: " + e.fix + "\n").c_str());
                }
            fail(e.message + (e.fix.empty() ? std::string() : " (" + e.fix + ")"));
            abandon_unstarted(e.message);
            stop_processes();
            check_done();
        });
        node->connectToHost();
    }
    // ssh's ConnectTimeout bounds the TCP connect; a host that accepts and then says
    // nothing (or a stuck key exchange) is bounded here, so "connecting" always ends.
    const int limit_ms = (ssh_.connect_timeout_s * 2 + 5) * 1000;
    QTimer::singleShot(limit_ms, this, [this, limit_ms] {
        if (state_ != State::Connecting || uploads_pending_ > 0) return;
        std::string slow;
        for (auto& n : nodes_)
            if (n && n->state() == SshNode::State::Connecting) slow += (slow.empty() ? "" : ", ") + n->target().host;
        if (slow.empty()) return;
        unreachable_ = true;
        const std::string why = "could not connect to " + slow + " within " + std::to_string(limit_ms / 1000) +
                                " s (the host accepts no ssh session; check it is up and that sshd answers)";
        for (auto& p : procs_)
            if (!p->proc && !p->finished) {
                const auto* n = nodes_[static_cast<std::size_t>(p->spec.node)].get();
                if (n && n->state() == SshNode::State::Connecting) {
                    p->error = why;
                    p->error_kind = runtime::to_string(SshErrorKind::Timeout);
                    if (p->log) p->log->write(("paraplan: " + why + "\n").c_str());
                }
            }
        fail(why);
        abandon_unstarted(why);
        check_done();
    });
}

void Job::abandon_unstarted(const std::string& why) {
    // Nothing more starts once a node is lost before launch; the nodes that did connect
    // are let go by check_done (their masters exit).
    for (auto& p : procs_)
        if (!p->proc && !p->finished) {
            p->finished = true;
            if (p->error.empty()) {
                p->error = "not started: " + why;
                p->error_kind = "not_started";
            }
        }
}

void Job::launch_all() {
    if (plan_.uploads.empty()) {
        backend_->start();
        return;
    }
    // The config files first, each over its node's connection (`cat >` from stdin); the
    // processes start once every copy has succeeded.
    uploads_pending_ = static_cast<int>(plan_.uploads.size());
    for (const FileUpload& u : plan_.uploads) {
        const SshNode* node = nodes_[static_cast<std::size_t>(u.node)].get();
        QProcess* q = node->start(upload_command(plan_, u), this);
        const std::string where = node->target().host + ":" + u.path;
        connect(q, &QProcess::finished, this, [this, q, where](int code, QProcess::ExitStatus st) {
            q->deleteLater();
            if ((code != 0 || st != QProcess::NormalExit) && upload_error_.empty())
                upload_error_ = "cannot copy the config file to " + where + ": " +
                                QString::fromLocal8Bit(q->readAllStandardError()).trimmed().toStdString();
            if (--uploads_pending_ > 0 || done()) return;
            if (!upload_error_.empty()) {
                fail(upload_error_);
                for (auto& p : procs_) {
                    p->finished = true;
                    if (p->log) p->log->write(("paraplan: " + upload_error_ + "\n").c_str());
                }
                check_done();
                return;
            }
            if (state_ == State::Connecting) backend_->start();
        });
        q->write(u.content.data(), static_cast<qint64>(u.content.size()));
        q->closeWriteChannel();
    }
}

void Job::start_processes() {
    set_state(State::Running);
    for (std::size_t i = 0; i < procs_.size(); ++i) {
        auto& p = *procs_[i];
        const int idx = static_cast<int>(i);
        p.proc = new QProcess(this);
        end_with_parent(p.proc);
        const auto argv = to_qt(p.command);
        p.proc->setProgram(argv.front());
        p.proc->setArguments(argv.mid(1));
        connect(p.proc, &QProcess::readyReadStandardOutput, this, [this, idx] { on_output(idx, false); });
        connect(p.proc, &QProcess::readyReadStandardError, this, [this, idx] { on_output(idx, true); });
        connect(p.proc, &QProcess::finished, this,
                [this, idx](int code, QProcess::ExitStatus st) { on_finished(idx, code, st); });
        connect(p.proc, &QProcess::errorOccurred, this, [this, idx](QProcess::ProcessError e) {
            if (e == QProcess::FailedToStart) on_finished(idx, 255, QProcess::CrashExit);
        });
        p.proc->start();
        if (!p.spec.stdin_text.empty()) {
            p.proc->write(p.spec.stdin_text.data(), static_cast<qint64>(p.spec.stdin_text.size()));
            p.proc->closeWriteChannel();
        }
    }
    write_json();
}

void Job::on_output(int i, bool is_stderr) {
    auto& p = *procs_[static_cast<std::size_t>(i)];
    const QByteArray data = is_stderr ? p.proc->readAllStandardError() : p.proc->readAllStandardOutput();
    auto& buf = is_stderr ? p.err : p.out;
    for (const auto& l : buf.append(std::string_view(data.constData(), static_cast<std::size_t>(data.size()))))
        handle_line(i, l, is_stderr);
}

void Job::handle_line(int i, const std::string& l, bool is_stderr) {
    auto& p = *procs_[static_cast<std::size_t>(i)];
    const auto text = backend_->line(i, l, is_stderr);
    if (!text) return;
    if (!is_stderr && !text->empty()) p.last_out = *text;
    if (is_stderr && !text->empty() && text->rfind("paraplan: ", 0) != 0) p.last_err = *text;
    say(i, *text, is_stderr);
}

void Job::on_finished(int i, int code, QProcess::ExitStatus st) {
    auto& p = *procs_[static_cast<std::size_t>(i)];
    if (p.finished) return;
    for (bool e : {false, true}) {
        const QByteArray rest = e ? p.proc->readAllStandardError() : p.proc->readAllStandardOutput();
        auto& buf = e ? p.err : p.out;
        for (const auto& l : buf.append(std::string_view(rest.constData(), static_cast<std::size_t>(rest.size()))))
            handle_line(i, l, e);
        const std::string last = buf.take_rest();
        if (!last.empty()) handle_line(i, last, e);
    }
    const int ssh_code = st == QProcess::NormalExit ? code : 255;
    if (backend_->process_ended(i, ssh_code)) return;
    p.finished = true;
    if (!p.exit_code) {
        // No exit status (the wrapper's marker, or the backend's reading): the command
        // never ran to its end.
        if (p.error.empty()) {
            const SshError e = classify_ssh_failure(p.host, ssh_code == 0 ? 255 : ssh_code, "");
            p.error_kind = runtime::to_string(ssh_code == 255 || ssh_code == 0 ? SshErrorKind::ConnectionLost : e.kind);
            p.error = ssh_code == 255 || ssh_code == 0
                          ? "the connection to \"" + p.host + "\" was lost while " + p.spec.label + " ran"
                          : e.message;
        } else if (p.error_kind.empty()) {
            p.error_kind = ssh_code == 127 ? "remote_command_missing" : "launch_failed";
        }
        if (!(user_stop_ && state_ == State::Stopping)) p.exit_code = ssh_code == 0 ? 255 : ssh_code;
    }
    // `paraplan-cli stop` from another process ends the job's processes by signal: stopped, not failed.
    if (!user_stop_ && QFile::exists(QString::fromStdString(folder_ + "/" + kStopRequestedFile))) {
        user_stop_ = true;
        note(i, "stopped from outside this launch (paraplan-cli stop)");
    }
    const bool bad = (p.exit_code && *p.exit_code != 0) || (!p.exit_code && !user_stop_);
    if (bad && !user_stop_ && !(failed_ && state_ == State::Stopping)) {
        std::string why = p.spec.label + " on " + p.host + " " +
                          (p.error.empty() ? "exited with status " + std::to_string(p.exit_code.value_or(-1))
                                           : p.error);
        if (p.log) p.log->write(("paraplan: " + why + "\n").c_str());
        fail(why);
        if (on_failure_ == "stop_all") stop_processes();
    }
    write_json();
    check_done();
}

void Job::fail(const std::string& why) {
    if (!failed_) error_ = why;
    failed_ = true;
}

void Job::stop_processes() {
    bool any = false;
    for (auto& p : procs_) {
        if (!p->proc || p->finished) continue;
        any = true;
        p->proc->closeWriteChannel();   // remote watchdog: TERM the group, grace, KILL
        QProcess* proc = p->proc;
        QTimer::singleShot((plan_.stop_grace_s + 10) * 1000, proc, [proc] {
            if (proc->state() != QProcess::NotRunning) proc->kill();
        });
    }
    if (any && !done()) set_state(State::Stopping);
}

void Job::stop() {
    if (done()) return;
    user_stop_ = true;
    if (state_ == State::Connecting || state_ == State::Pending) {
        for (auto& n : nodes_)
            if (n) n->disconnect(this);
        for (auto& p : procs_) p->finished = true;
        check_done();
        return;
    }
    backend_->stop();
}

void Job::check_done() {
    if (done()) return;
    for (auto& p : procs_)
        if (!p->finished) return;
    ended_ms_ = QDateTime::currentMSecsSinceEpoch();
    for (auto& p : procs_)
        if (p->log) p->log->flush();
    for (auto& n : nodes_)
        if (n) n->disconnectFromHost();
    if (error_.empty()) error_ = backend_->end_error();
    if (failed_) set_state(State::Failed);
    else if (user_stop_) set_state(State::Stopped);
    else set_state(State::Succeeded);
}

bool Job::waitFinished(int timeout_ms) {
    if (done()) return true;
    QEventLoop loop;
    QTimer t;
    t.setSingleShot(true);
    connect(&t, &QTimer::timeout, &loop, &QEventLoop::quit);
    connect(this, &Job::finished, &loop, &QEventLoop::quit);
    t.start(timeout_ms);
    loop.exec();
    return done();
}

nlohmann::json Job::to_json() const {
    nlohmann::json procs = nlohmann::json::array();
    for (const auto& p : procs_) {
        nlohmann::json env = nlohmann::json::object();
        for (const auto& [k, v] : p->spec.env) env[k] = v;
        nlohmann::json j = {{"label", p->spec.label},
                            {"node", cluster_.nodes[static_cast<std::size_t>(p->spec.node)].name},
                            {"host", p->host},
                            {"ranks", p->spec.ranks},
                            {"argv", p->spec.argv},
                            {"env", env},
                            {"command", sh_join(p->command)},
                            {"log", p->spec.label + ".log"},
                            {"pgid", p->pgid ? nlohmann::json(*p->pgid) : nlohmann::json()},
                            {"exit_code", p->exit_code ? nlohmann::json(*p->exit_code) : nlohmann::json()},
                            {"finished", p->finished}};
        if (!p->error.empty()) j["error"] = p->error;
        if (!p->error_kind.empty()) j["error_kind"] = p->error_kind;
        const auto& node = cluster_.nodes[static_cast<std::size_t>(p->spec.node)];
        j["ssh"] = {{"host", ssh_target(node).host}, {"user", node.user}, {"port", node.port}};
        procs.push_back(std::move(j));
    }
    nlohmann::json j = {{"paraplan_job", 1},
                        {"id", plan_.job_id},
                        {"mode", plan_.mode},
                        {"state", to_string(state_)},
                        {"error", error_},
                        {"started", iso(started_ms_)},
                        {"ended", iso(ended_ms_)},
                        {"master_addr", plan_.master_addr},
                        {"master_port", plan_.master_port},
                        {"world_size", plan_.world_size},
                        {"workdir", plan_.workdir},
                        {"stop_grace_s", plan_.stop_grace_s},
                        {"on_failure", on_failure_},
                        {"processes", procs},
                        {"project", snapshot_}};
    if (!plan_.sbatch_script.empty()) j["sbatch_script"] = plan_.sbatch_script;
    nlohmann::json uploads = nlohmann::json::array();
    for (const auto& u : plan_.uploads)
        uploads.push_back({{"node", cluster_.nodes[static_cast<std::size_t>(u.node)].name},
                           {"path", u.path},
                           {"bytes", u.content.size()}});
    if (!uploads.empty()) j["uploads"] = uploads;
    if (!plan_.path_prepend.empty()) j["path_prepend"] = plan_.path_prepend;
    backend_->describe(j);
    // Local ssh values are named by profile id only: `stop` takes them from the user's own
    // settings, never from this file (ssh_profile.h).
    if (!ssh_.profile.empty()) j["ssh_profile"] = ssh_.profile;
    if (!ssh_.extra_options.empty()) j["ssh_options"] = ssh_.extra_options;
    return j;
}

void Job::write_json() {
    if (folder_.empty() || !QDir(QString::fromStdString(folder_)).exists()) return;
    const std::string path = folder_ + "/job.json";
    QSaveFile f(QString::fromStdString(path));
    const std::string text = to_json().dump(2) + "\n";
    // 0600 whatever the umask: records are read back only when nobody else can write them.
    if (f.open(QIODevice::WriteOnly) && f.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) &&
        f.write(text.data(), static_cast<qint64>(text.size())) == qint64(text.size()) && f.commit()) {
        json_error_.clear();
        return;
    }
    // The job runs on, but `paraplan-cli status`/`stop` read this file: say so once per
    // distinct failure, in the first process's log and on its output.
    const std::string why = "cannot write " + path + ": " + f.errorString().toStdString() +
                            " (paraplan-cli status and stop will not see this job's latest state)";
    if (why == json_error_) return;
    json_error_ = why;
    if (!procs_.empty()) note(0, why);
}

void Job::say(int i, const std::string& text, bool is_stderr) {
    auto& p = *procs_[static_cast<std::size_t>(i)];
    if (p.log) {
        const std::string l = text + "\n";
        p.log->write(l.data(), static_cast<qint64>(l.size()));
    }
    emit line(i, QString::fromStdString(text), is_stderr);
}

void Job::note(int i, const std::string& text) { say(i, "paraplan: " + text, true); }

void Job::setSlurmPollInterval(int ms) { backend_->set_poll_interval(ms); }
void Job::setSlurmCallTimeout(int seconds) { backend_->set_call_timeout(seconds); }

std::optional<long long> Job::slurmJobId() const { return backend_->batch_job_id(); }

}   // namespace paraplan::runtime
