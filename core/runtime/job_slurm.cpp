// The Slurm side of a Job (plan mode "slurm"): after sbatch on the login node has printed
// the job id, squeue is polled until the job leaves the queue, its final state is read
// (scontrol, else sacct), and its output file is followed and split by srun's task labels
// into rank-<N>.log. The ssh lifecycle shared with the other modes is in job.cpp.
#include "runtime/job.h"

#include "shell/shell_quote.h"
#include "slurm/slurm.h"

#include <QTimer>

namespace paraplan::runtime {

std::string Job::slurm_remote(const std::string& cmd) const {
    std::string s;
    if (!plan_.path_prepend.empty()) {
        std::string path;
        for (const auto& d : plan_.path_prepend) path += sh_quote(d) + ":";
        s += "PATH=" + path + "\"$PATH\"; export PATH\n";
    }
    return remote_sh(s + cmd);
}

void Job::slurm_note(const std::string& text) {
    auto& p = *procs_[0];
    if (p.log) p.log->write(("paraplan: " + text + "\n").c_str());
    emit line(0, QString::fromStdString("paraplan: " + text), false);
}

void Job::slurm_submitted(int i) {
    auto& p = *procs_[static_cast<std::size_t>(i)];
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
    slurm_follow_output();
    write_json();
    if (user_stop_) {
        user_stop_ = false;
        stop();
    }
    QTimer::singleShot(slurm_poll_ms_, this, [this] { slurm_poll(); });
}

void Job::slurm_poll() {
    auto& p = *procs_[0];
    SshNode* node = nodes_[static_cast<std::size_t>(p.spec.node)].get();
    QProcess* q = node->start(slurm_remote(squeue_command(*slurm_id_)), this);
    connect(q, &QProcess::finished, this, [this, q, node](int code, QProcess::ExitStatus) {
        q->deleteLater();
        std::string out = q->readAllStandardOutput().trimmed().toStdString();
        auto& p = *procs_[0];
        if (code != 0 && ++slurm_misses_ < 5) {
            QTimer::singleShot(slurm_poll_ms_, this, [this] { slurm_poll(); });
            return;
        }
        if (code == 0 && !out.empty()) {
            slurm_misses_ = 0;
            if (out != slurm_state_) {
                slurm_state_ = out;
                slurm_note("Slurm job " + std::to_string(*slurm_id_) + " " + out);
            }
            QTimer::singleShot(slurm_poll_ms_, this, [this] { slurm_poll(); });
            return;
        }
        // Gone from the queue (or squeue keeps failing): the controller still knows how it
        // ended for MinJobAge seconds (scontrol); after that only the accounting (sacct).
        QProcess* a = node->start(slurm_remote(final_state_command(*slurm_id_)), this);
        connect(a, &QProcess::finished, this, [this, a](int, QProcess::ExitStatus) {
            a->deleteLater();
            auto& p = *procs_[0];
            const auto fin = parse_final_state(a->readAllStandardOutput().toStdString());
            if (!fin && ++slurm_misses_ < 5) {
                QTimer::singleShot(slurm_poll_ms_, this, [this] { slurm_poll(); });
                return;
            }
            p.finished = true;
            p.exit_code = fin ? fin->exit_code : 255;
            const std::string sid = std::to_string(*slurm_id_);
            if (!fin) {
                slurm_note("Slurm job " + sid + " left the queue; neither scontrol nor sacct knows how it ended");
                fail("Slurm job " + sid + " ended in an unknown state (not in squeue, scontrol or sacct; "
                     "the controller forgot it and accounting is off)");
            } else {
                slurm_note("Slurm job " + sid + " ended " + fin->state + " (exit " + std::to_string(*p.exit_code) + ")");
                if (fin->state == "CANCELLED") {
                    // Stop, Ctrl-C, `paraplan-cli stop` or someone's scancel: a stop, not a failure.
                    if (!user_stop_) slurm_note("Slurm job " + sid + " was cancelled outside this launch (scancel)");
                    user_stop_ = true;
                    slurm_cancelled_ = true;
                } else if (!fin->succeeded()) {
                    fail("Slurm job " + sid + " ended " + fin->state + " (exit " + std::to_string(*p.exit_code) + ")");
                }
            }
            slurm_finish();
        });
        (void)p;
    });
}

void Job::slurm_follow_output() {
    const auto& p = *procs_[0];
    SshNode* node = nodes_[static_cast<std::size_t>(p.spec.node)].get();
    const std::string file = slurm_output_file(plan_.job_id, *slurm_id_);
    const std::string cd = plan_.workdir.empty() ? std::string() : "cd " + sh_quote(plan_.workdir) + " || exit 1\n";
    slurm_tail_ = node->start(slurm_remote(cd + follow_file_command(file)), this);
    auto take = [this](QProcess* from) {
        const QByteArray chunk = from->readAllStandardOutput();
        slurm_tail_bytes_ += chunk.size();
        for (const auto& l : slurm_tail_buf_.append(std::string_view(chunk.constData(), static_cast<std::size_t>(chunk.size()))))
            slurm_output_line(l);
    };
    connect(slurm_tail_, &QProcess::readyReadStandardOutput, this, [this, take] { take(slurm_tail_); });
    connect(slurm_tail_, &QProcess::finished, this, [this, take, node, cd, file] {
        take(slurm_tail_);
        slurm_tail_->deleteLater();
        slurm_tail_ = nullptr;
        if (!procs_[0]->finished) return;
        // The job has ended: whatever tail -F had not delivered when its channel closed (a
        // loaded login node, a job shorter than tail's start-up) is read from where it stopped.
        QProcess* rest = node->start(
            slurm_remote(cd + "tail -c +" + std::to_string(slurm_tail_bytes_ + 1) + " " + sh_quote(file) + " 2>/dev/null"), this);
        connect(rest, &QProcess::readyReadStandardOutput, this, [rest, take] { take(rest); });
        connect(rest, &QProcess::finished, this, [this, rest, take] {
            take(rest);
            rest->deleteLater();
            if (const std::string last = slurm_tail_buf_.take_rest(); !last.empty()) slurm_output_line(last);
            for (auto& [rank, f] : rank_logs_) f->flush();
            check_done();
        });
    });
    slurm_note("following " + file + " on " + p.host);
}

void Job::slurm_output_line(const std::string& text) {
    const auto labelled = parse_srun_label(text);
    if (!labelled || labelled->task < 0 || labelled->task >= plan_.world_size) {
        // srun's own messages ("srun: error: ...") and unlabelled output stay with sbatch.
        auto& p = *procs_[0];
        if (p.log) p.log->write(("slurm: " + text + "\n").c_str());
        emit line(0, QString::fromStdString("slurm: " + text), false);
        return;
    }
    auto& f = rank_logs_[labelled->task];
    if (!f) {
        f = std::make_unique<QFile>(QString::fromStdString(folder_ + "/rank-" + std::to_string(labelled->task) + ".log"));
        if (!f->open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Unbuffered)) return;
    }
    f->write((labelled->text + "\n").c_str());
    emit line(0, QString::fromStdString("rank " + std::to_string(labelled->task) + ": " + labelled->text), false);
}

void Job::slurm_finish() {
    write_json();
    if (!slurm_tail_) return check_done();
    // Let tail -F pick up the last lines, then close its channel (the remote side kills
    // the tail on EOF); check_done() follows when it has ended.
    QTimer::singleShot(slurm_drain_ms_, this, [this] {
        if (!slurm_tail_) return;
        slurm_tail_->closeWriteChannel();
        QProcess* t = slurm_tail_;
        QTimer::singleShot(5000, t, [t] {
            if (t->state() != QProcess::NotRunning) t->kill();
        });
    });
}

}  // namespace paraplan::runtime
