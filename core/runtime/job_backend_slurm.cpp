#include "runtime/job_backend_slurm.h"

#include "shell/shell_quote.h"
#include "slurm/slurm.h"

#include <QTimer>

namespace paraplan::runtime {

SlurmJobBackend::~SlurmJobBackend() {
    if (tail_ && tail_->state() != QProcess::NotRunning) {
        tail_->disconnect(this);
        tail_->closeWriteChannel();
        if (!tail_->waitForFinished(5000)) tail_->kill();
    }
}

std::string SlurmJobBackend::remote(const std::string& cmd) const {
    std::string s;
    if (!plan().path_prepend.empty()) {
        std::string path;
        for (const auto& d : plan().path_prepend) path += sh_quote(d) + ":";
        s += "PATH=" + path + "\"$PATH\"; export PATH\n";
    }
    return remote_sh(s + cmd);
}

void SlurmJobBackend::slurm_note(const std::string& text) { say(0, "paraplan: " + text, false); }

void SlurmJobBackend::start() {
    start_processes();   // sbatch, its script on stdin
}

std::optional<std::string> SlurmJobBackend::line(int, const std::string& text, bool) {
    return text;   // sbatch runs without the wrapper: all its output is output
}

bool SlurmJobBackend::process_ended(int i, int ssh_code) {
    auto& p = process(i);
    if (ssh_code == 0 && !slurm_id_) {
        submitted();
        return true;
    }
    // sbatch ran and said why it would not queue the job (e.g. a gres the partition lacks).
    if (!p.exit_code && p.error.empty() && ssh_code != 255 && !p.last_err.empty()) {
        p.error = "sbatch refused the job: " + p.last_err;
        p.error_kind = "launch_failed";
    }
    return false;
}

void SlurmJobBackend::stop() {
    if (!slurm_id_) {
        // sbatch still runs: let it end; submitted() cancels the job it queued.
        stop_processes();
        check_done();
        return;
    }
    if (!cancel_sent_) {
        cancel_sent_ = true;
        slurm_note("cancelling Slurm job " + std::to_string(*slurm_id_));
        QProcess* q = node_of(process(0)).start(remote(scancel_command(*slurm_id_)), this);
        connect(q, &QProcess::finished, q, &QObject::deleteLater);
    }
    set_state(Job::State::Stopping);
}

std::string SlurmJobBackend::end_error() const {
    return cancelled_ ? "Slurm job " + std::to_string(*slurm_id_) + " was cancelled" : std::string();
}

void SlurmJobBackend::describe(nlohmann::json& j) const {
    if (!slurm_id_) return;
    j["slurm_job_id"] = *slurm_id_;
    if (!slurm_state_.empty()) j["slurm_state"] = slurm_state_;
    j["slurm_output"] = slurm_output_file(plan().job_id, *slurm_id_);
}

void SlurmJobBackend::submitted() {
    auto& p = process(0);
    slurm_id_ = parse_sbatch_job_id(p.last_out);
    if (!slurm_id_) {
        p.finished = true;
        p.exit_code = 1;
        p.error = "sbatch printed no job id (\"" + p.last_out + "\")";
        fail(p.error);
        check_done();
        return;
    }
    slurm_note("submitted Slurm job " + std::to_string(*slurm_id_));
    follow_output();
    write_json();
    if (user_stopped()) {
        // Stop came while sbatch ran: cancel what it queued.
        set_user_stopped(false);
        job().stop();
    }
    QTimer::singleShot(poll_ms_, this, [this] { poll(); });
}

void SlurmJobBackend::poll() {
    SshNode* node = &node_of(process(0));
    QProcess* q = node->start(remote(squeue_command(*slurm_id_)), this);
    connect(q, &QProcess::finished, this, [this, q, node](int code, QProcess::ExitStatus) {
        q->deleteLater();
        std::string out = q->readAllStandardOutput().trimmed().toStdString();
        if (code != 0 && ++misses_ < 5) {
            QTimer::singleShot(poll_ms_, this, [this] { poll(); });
            return;
        }
        if (code == 0 && !out.empty()) {
            misses_ = 0;
            if (out != slurm_state_) {
                slurm_state_ = out;
                slurm_note("Slurm job " + std::to_string(*slurm_id_) + " " + out);
            }
            QTimer::singleShot(poll_ms_, this, [this] { poll(); });
            return;
        }
        // Gone from the queue (or squeue keeps failing): the controller still knows how it
        // ended for MinJobAge seconds (scontrol); after that only the accounting (sacct).
        QProcess* a = node->start(remote(final_state_command(*slurm_id_)), this);
        connect(a, &QProcess::finished, this, [this, a](int, QProcess::ExitStatus) {
            a->deleteLater();
            auto& p = process(0);
            const auto fin = parse_final_state(a->readAllStandardOutput().toStdString());
            if (!fin && ++misses_ < 5) {
                QTimer::singleShot(poll_ms_, this, [this] { poll(); });
                return;
            }
            p.finished = true;
            p.exit_code = fin ? fin->exit_code : 255;
            const std::string sid = std::to_string(*slurm_id_);
            if (!fin) {
                slurm_note("Slurm job " + sid + " left the queue; neither scontrol nor sacct knows how it ended");
                fail("Slurm job " + sid +
                     " ended in an unknown state (not in squeue, scontrol or sacct; "
                     "the controller forgot it and accounting is off)");
            } else {
                slurm_note("Slurm job " + sid + " ended " + fin->state + " (exit " + std::to_string(*p.exit_code) +
                           ")");
                if (fin->state == "CANCELLED") {
                    // Stop, Ctrl-C, `paraplan-cli stop` or someone's scancel: a stop, not a failure.
                    if (!user_stopped())
                        slurm_note("Slurm job " + sid + " was cancelled outside this launch (scancel)");
                    set_user_stopped(true);
                    cancelled_ = true;
                } else if (!fin->succeeded()) {
                    fail("Slurm job " + sid + " ended " + fin->state + " (exit " + std::to_string(*p.exit_code) + ")");
                }
            }
            finish();
        });
    });
}

void SlurmJobBackend::follow_output() {
    const auto& p = process(0);
    SshNode* node = &node_of(p);
    const std::string file = slurm_output_file(plan().job_id, *slurm_id_);
    const std::string cd = plan().workdir.empty() ? std::string() : "cd " + sh_quote(plan().workdir) + " || exit 1\n";
    tail_ = node->start(remote(cd + follow_file_command(file)), this);
    auto take = [this](QProcess* from) {
        const QByteArray chunk = from->readAllStandardOutput();
        tail_bytes_ += chunk.size();
        for (const auto& l :
             tail_buf_.append(std::string_view(chunk.constData(), static_cast<std::size_t>(chunk.size()))))
            output_line(l);
    };
    connect(tail_, &QProcess::readyReadStandardOutput, this, [this, take] { take(tail_); });
    connect(tail_, &QProcess::finished, this, [this, take, node, cd, file] {
        take(tail_);
        tail_->deleteLater();
        tail_ = nullptr;
        if (!process(0).finished) return;
        // The job has ended: whatever tail -F had not delivered when its channel closed (a
        // loaded login node, a job shorter than tail's start-up) is read from where it stopped.
        QProcess* rest = node->start(
            remote(cd + "tail -c +" + std::to_string(tail_bytes_ + 1) + " " + sh_quote(file) + " 2>/dev/null"), this);
        connect(rest, &QProcess::readyReadStandardOutput, this, [rest, take] { take(rest); });
        connect(rest, &QProcess::finished, this, [this, rest, take] {
            take(rest);
            rest->deleteLater();
            if (const std::string last = tail_buf_.take_rest(); !last.empty()) output_line(last);
            for (auto& [rank, f] : rank_logs_) f->flush();
            check_done();
        });
    });
    slurm_note("following " + file + " on " + p.host);
}

void SlurmJobBackend::output_line(const std::string& text) {
    const auto labelled = parse_srun_label(text);
    if (!labelled || labelled->task < 0 || labelled->task >= plan().world_size) {
        // srun's own messages ("srun: error: ...") and unlabelled output stay with sbatch.
        say(0, "slurm: " + text, false);
        return;
    }
    const std::string shown = "rank " + std::to_string(labelled->task) + ": " + labelled->text;
    auto& f = rank_logs_[labelled->task];
    if (!f) {
        f = std::make_unique<QFile>(
            QString::fromStdString(job().folder() + "/rank-" + std::to_string(labelled->task) + ".log"));
        if (!f->open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered))
            note(0, "cannot write " + f->fileName().toStdString() + ": " + f->errorString().toStdString() + " (rank " +
                        std::to_string(labelled->task) + "'s lines go to sbatch.log)");
    }
    if (!f->isOpen()) return say(0, shown, false);
    const std::string line = labelled->text + "\n";
    f->write(line.data(), static_cast<qint64>(line.size()));
    show(0, shown, false);
}

void SlurmJobBackend::finish() {
    write_json();
    if (!tail_) return check_done();
    // Let tail -F pick up the last lines, then close its channel (the remote side kills
    // the tail on EOF); check_done() follows when it has ended.
    QTimer::singleShot(kDrainMs, this, [this] {
        if (!tail_) return;
        tail_->closeWriteChannel();
        QProcess* t = tail_;
        QTimer::singleShot(5000, t, [t] {
            if (t->state() != QProcess::NotRunning) t->kill();
        });
    });
}

}   // namespace paraplan::runtime
