#include "runtime/job.h"

#include "shell/shell_quote.h"
#include "slurm/slurm.h"

#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QSaveFile>
#include <QTimer>

#include <charconv>

namespace paraplan::runtime {

namespace {
std::string iso(long long ms) {
    return ms ? QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs).toStdString() : std::string();
}

// The integer after a wrapper marker ("__PARAPLAN_EXIT__ 3" -> 3); nullopt unless the
// rest of the line is one integer (surrounding blanks allowed).
std::optional<long long> marker_number(std::string_view rest) {
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.remove_suffix(1);
    long long v = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
    if (rest.empty() || ec != std::errc() || end != rest.data() + rest.size()) return std::nullopt;
    return v;
}
}  // namespace

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
    : QObject(parent), cluster_(std::move(cluster)), plan_(std::move(plan)), ssh_(std::move(ssh)),
      folder_(std::move(folder)), snapshot_(std::move(snapshot)), on_failure_(std::move(on_failure)) {
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
}

Job::~Job() {
    if (slurm_tail_ && slurm_tail_->state() != QProcess::NotRunning) {
        slurm_tail_->disconnect(this);
        slurm_tail_->closeWriteChannel();
        if (!slurm_tail_->waitForFinished(5000)) slurm_tail_->kill();
    }
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
    QDir().mkpath(QString::fromStdString(folder_));
    started_ms_ = QDateTime::currentMSecsSinceEpoch();
    for (std::size_t i = 0; i < procs_.size(); ++i) {
        auto& p = *procs_[i];
        p.log = std::make_unique<QFile>(QString::fromStdString(folder_ + "/" + p.spec.label + ".log"));
        if (!p.log->open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered)) {
            fail("cannot write the log " + p.log->fileName().toStdString() + ": " + p.log->errorString().toStdString());
            for (auto& q : procs_) q->finished = true;
            check_done();
            return;
        }
    }
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
        start_processes();
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
            if (state_ == State::Connecting) start_processes();
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
    if (plan_.heartbeat_s > 0 && plan_.mode != "slurm") {
        // One byte per wrapper each heartbeat: its watchdog ends the ranks when they stop.
        auto* hb = new QTimer(this);
        connect(hb, &QTimer::timeout, this, [this, hb] {
            if (done() || state_ == State::Stopping) return hb->stop();
            for (auto& p : procs_)
                if (p->proc && !p->finished && p->proc->state() == QProcess::Running) p->proc->write("\n", 1);
        });
        hb->start(plan_.heartbeat_s * 1000);
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
    const std::string started = started_marker(plan_), exited = exit_marker(plan_), error = error_marker(plan_);
    if (!is_stderr && l.rfind(started, 0) == 0) {
        if (const auto pgid = marker_number(std::string_view(l).substr(started.size()))) p.pgid = *pgid;
        else note(i, "the wrapper's start line has no process group id (\"" + l + "\"); Stop still closes the channel");
        write_json();
        return;
    }
    if (!is_stderr && l.rfind(exited, 0) == 0) {
        const auto code = marker_number(std::string_view(l).substr(exited.size()));
        if (code && *code >= 0 && *code <= 255) p.exit_code = static_cast<int>(*code);
        else p.error = "the wrapper's exit line has no exit status (\"" + l + "\")";
        return;
    }
    if (plan_.mode == "torchrun" && !torch_worker_failed_ && l.find("failed (exitcode: ") != std::string::npos &&
        l.find(" local_rank: ") != std::string::npos)
        torchrun_worker_failed(i, l);
    std::string text = l;
    if (is_stderr && l.rfind(error, 0) == 0) {
        p.error = l.substr(error.size());
        text = "paraplan: " + p.error;
    }
    if (!is_stderr && !text.empty()) p.last_out = text;
    if (is_stderr && !text.empty() && text.rfind("paraplan: ", 0) != 0) p.last_err = text;
    if (p.log) {
        p.log->write(text.data(), static_cast<qint64>(text.size()));
        p.log->write("\n", 1);
    }
    emit line(i, QString::fromStdString(text), is_stderr);
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
    if (plan_.mode == "slurm" && p.spec.label == "sbatch" && ssh_code == 0 && !slurm_id_) {
        slurm_submitted(i);
        return;
    }
    p.finished = true;
    if (!p.exit_code) {
        // No exit marker: the wrapper never ran to its end.
        if (p.error.empty() && plan_.mode == "slurm" && p.spec.label == "sbatch" && ssh_code != 255 &&
            !p.last_err.empty()) {
            p.error = "sbatch refused the job: " + p.last_err;   // e.g. a gres the partition lacks
            p.error_kind = "launch_failed";
        } else if (p.error.empty()) {
            const SshError e = classify_ssh_failure(p.host, ssh_code == 0 ? 255 : ssh_code, "");
            p.error_kind = runtime::to_string(ssh_code == 255 || ssh_code == 0 ? SshErrorKind::ConnectionLost : e.kind);
            p.error = ssh_code == 255 || ssh_code == 0 ? "the connection to \"" + p.host + "\" was lost while " +
                                                             p.spec.label + " ran"
                                                       : e.message;
        } else {
            p.error_kind = ssh_code == 127 ? "remote_command_missing" : "launch_failed";
        }
        if (!(user_stop_ && state_ == State::Stopping)) p.exit_code = ssh_code == 0 ? 255 : ssh_code;
    }
    const bool bad = (p.exit_code && *p.exit_code != 0) || (!p.exit_code && !user_stop_);
    if (bad && !user_stop_ && !(failed_ && state_ == State::Stopping)) {
        std::string why = p.spec.label + " on " + p.host + " " +
                          (p.error.empty() ? "exited with status " + std::to_string(p.exit_code.value_or(-1)) : p.error);
        if (p.log) p.log->write(("paraplan: " + why + "\n").c_str());
        fail(why);
        if (on_failure_ == "stop_all") stop_processes();
    }
    write_json();
    check_done();
}

void Job::torchrun_worker_failed(int i, const std::string& l) {
    // torch/distributed/elastic/multiprocessing/api.py (1.13 and 2.x) logs the first failed
    // worker as "failed (exitcode: N) local_rank: L (pid: P) of binary: ..."; the agent then
    // waits in _exit_barrier (agent/server/api.py, exit_barrier_timeout = 300 s) for the
    // other nodes, whose workers may run on for minutes when they share no collective.
    torch_worker_failed_ = true;
    auto& p = *procs_[static_cast<std::size_t>(i)];
    const std::string what = "a torchrun worker failed on " + p.spec.label + " (" + p.host + ")";
    std::string note;
    if (plan_.fail_fast) {
        note = what + "; runtime.fail_fast: stopping every node now";
        if (p.log) p.log->write(("paraplan: " + note + "\n").c_str());
        emit line(i, QString::fromStdString("paraplan: " + note), true);
        fail(what + " (" + l.substr(l.find("failed (exitcode: ")) + "); stopped the job at once (fail_fast)");
        stop_processes();
        return;
    }
    note = what + "; torchrun reports it only after its exit barrier (up to 300 s while the other nodes "
                  "run on); set runtime.fail_fast to stop the job at the first failure";
    if (p.log) p.log->write(("paraplan: " + note + "\n").c_str());
    emit line(i, QString::fromStdString("paraplan: " + note), true);
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
    if (slurm_id_) {
        if (!slurm_cancel_sent_) {
            slurm_cancel_sent_ = true;
            slurm_note("cancelling Slurm job " + std::to_string(*slurm_id_));
            QProcess* q = nodes_[static_cast<std::size_t>(procs_[0]->spec.node)]->start(
                slurm_remote(scancel_command(*slurm_id_)), this);
            connect(q, &QProcess::finished, q, &QObject::deleteLater);
        }
        set_state(State::Stopping);
        return;
    }
    if (state_ == State::Connecting || state_ == State::Pending) {
        for (auto& n : nodes_)
            if (n) n->disconnect(this);
        for (auto& p : procs_) p->finished = true;
        check_done();
        return;
    }
    stop_processes();
    check_done();
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
    if (slurm_cancelled_ && error_.empty()) error_ = "Slurm job " + std::to_string(*slurm_id_) + " was cancelled";
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
        j["ssh"] = {{"host", ssh_target(node).host}, {"user", node.user}, {"port", node.port},
                    {"identity", node.identity}};
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
    if (slurm_id_) {
        j["slurm_job_id"] = *slurm_id_;
        if (!slurm_state_.empty()) j["slurm_state"] = slurm_state_;
        j["slurm_output"] = slurm_output_file(plan_.job_id, *slurm_id_);
    }
    if (!ssh_.known_hosts_file.empty()) j["known_hosts_file"] = ssh_.known_hosts_file;
    if (!ssh_.config_file.empty()) j["ssh_config_file"] = ssh_.config_file;
    return j;
}

void Job::write_json() {
    if (folder_.empty() || !QDir(QString::fromStdString(folder_)).exists()) return;
    const std::string path = folder_ + "/job.json";
    QSaveFile f(QString::fromStdString(path));
    const std::string text = to_json().dump(2) + "\n";
    if (f.open(QIODevice::WriteOnly) && f.write(text.data(), static_cast<qint64>(text.size())) == qint64(text.size()) &&
        f.commit()) {
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

void Job::note(int i, const std::string& text) {
    auto& p = *procs_[static_cast<std::size_t>(i)];
    if (p.log) p.log->write(("paraplan: " + text + "\n").c_str());
    emit line(i, QString::fromStdString("paraplan: " + text), true);
}

}  // namespace paraplan::runtime
