#include "runtime/job_backend_slurm.h"

#include "launch/launch_plan.h"
#include "launch/slurm_gpus.h"
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
    if (plan().slurm_gpus != "auto" || plan().slurm_gpus_per_node <= 0) return start_processes();
    // gpus "auto": read every node's gres first (bounded), choose the GPUs sbatch asks for,
    // or refuse before anything is queued (slurm_gpus.h).
    QProcess* q = slurm_call(sinfo_nodes_command(call_timeout_s_));
    connect(q, &QProcess::finished, this, [this, q](int code, QProcess::ExitStatus st) {
        q->deleteLater();
        auto& p = process(0);
        if (p.finished) return;   // stopped meanwhile
        const std::string out = q->readAllStandardOutput().toStdString();
        const std::string err = q->readAllStandardError().trimmed().toStdString();
        // Called only within this slot, while p lives (clazy takes it for a connected lambda).
        auto refuse = [this, &p](const std::string& why) {   // clazy:exclude=lambda-in-connect
            slurm_note(why);
            p.finished = true;
            p.exit_code = 1;
            p.error = why;
            p.error_kind = "launch_failed";
            fail(why);
            check_done();
        };
        if (st != QProcess::NormalExit || code != 0) {
            const std::string said = !err.empty()  ? err
                                     : code == 124 ? "no answer in " + std::to_string(call_timeout_s_) + " s"
                                                   : "exit " + std::to_string(code);
            return refuse("could not read the nodes' GPUs (sinfo: " + said +
                          "); nothing was submitted. Set runtime.slurm.gpus to \"gres\" or \"none\" to submit "
                          "without asking sinfo");
        }
        const SlurmGpuChoice c = choose_slurm_gpus(parse_sinfo_nodes(out), plan().slurm_partition, plan().slurm_nodes,
                                                   plan().slurm_gpus_per_node);
        if (!c.ok) return refuse("cannot place the job's GPUs: " + c.error + "; nothing was submitted");
        slurm_note(c.note);
        for (const auto& a : c.sbatch_args) p.spec.argv.push_back(a);
        p.command = node_of(p).commandArgv(remote_launch_command(plan(), p.spec));
        start_processes();   // sbatch, its script on stdin
    });
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
    // sbatch ran and said why it would not queue the job (an invalid partition, a gres the
    // partition lacks): its own "sbatch: error: ..." whatever the exit status. Without
    // such a message an exit of 255 is ssh's (the connection), left to the Job to report.
    if (!p.exit_code && p.error.empty() && !p.last_err.empty() && (is_sbatch_error(p.last_err) || ssh_code != 255)) {
        p.error = "sbatch refused the job: " + p.last_err;
        p.error_kind = "launch_failed";
    }
    return false;
}

QProcess* SlurmJobBackend::slurm_call(const std::string& cmd) {
    QProcess* q = node_of(process(0)).start(remote(cmd), this);
    QTimer::singleShot((call_timeout_s_ + 20) * 1000, q, [q] {
        if (q->state() != QProcess::NotRunning) q->kill();
    });
    return q;
}

void SlurmJobBackend::send_scancel(bool kill) {
    const std::string sid = std::to_string(*slurm_id_);
    ++scancel_tries_;
    slurm_note(kill ? "Slurm job " + sid + " still runs after scancel: scancel --signal=KILL " + sid
                    : "cancelling Slurm job " + sid);
    QProcess* q = slurm_call(kill ? scancel_kill_command(*slurm_id_, call_timeout_s_)
                                  : scancel_command(*slurm_id_, call_timeout_s_));
    connect(q, &QProcess::finished, this, [this, q, kill, sid](int code, QProcess::ExitStatus st) {
        q->deleteLater();
        if ((st == QProcess::NormalExit && code == 0) || process(0).finished) return;
        const std::string err = q->readAllStandardError().trimmed().toStdString();
        // The controller may be down or the link lost: say so, and try again (the poll
        // keeps running and resends it while the job is still queued or running).
        slurm_note("scancel " + sid + " failed" + (err.empty() ? std::string() : ": " + err) +
                   (scancel_tries_ < 5 ? "; trying again" : "; sending it again once squeue answers"));
        if (scancel_tries_ < 5)
            QTimer::singleShot(poll_ms_, this, [this, kill] {
                if (!process(0).finished) send_scancel(kill);
            });
        else scancel_owed_ = true;   // sent again once squeue answers (the controller is back)
    });
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
        send_scancel(false);
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
    if (slurm_signal_) j["slurm_signal"] = slurm_signal_;
    if (!slurm_reason_.empty() && slurm_reason_ != "None") j["slurm_reason"] = slurm_reason_;
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
    QProcess* q = slurm_call(squeue_command(*slurm_id_, call_timeout_s_));
    connect(q, &QProcess::finished, this, [this, q](int code, QProcess::ExitStatus st) {
        q->deleteLater();
        const std::string out = q->readAllStandardOutput().trimmed().toStdString();
        const std::string err = q->readAllStandardError().trimmed().toStdString();
        const std::string sid = std::to_string(*slurm_id_);
        auto again = [this] { QTimer::singleShot(poll_ms_, this, [this] { poll(); }); };
        const bool answered = st == QProcess::NormalExit && code == 0;
        const auto qs = answered ? parse_squeue(out) : std::nullopt;
        if (qs) {
            if (misses_ >= kUnknownAfter) slurm_note("Slurm job " + sid + ": squeue answers again");
            misses_ = 0;
            const SlurmStateInfo info = slurm_state_info(qs->state);
            const SlurmReasonInfo why = slurm_reason_info(qs->reason);
            if (qs->state != slurm_state_ || qs->reason != slurm_reason_) {
                slurm_state_ = qs->state;
                slurm_reason_ = qs->reason;
                std::string text = "Slurm job " + sid + " " + qs->state;
                if (qs->reason != "None" && !qs->reason.empty())
                    text += " (" + qs->reason + (why.advice.empty() ? "" : ": " + why.advice) + ")";
                else if (info.phase == SlurmPhase::Queued && qs->state != "PENDING")
                    text += " (" + std::string(info.meaning) + ")";
                slurm_note(text);
                write_json();
            }
            const bool live = info.phase == SlurmPhase::Queued || info.phase == SlurmPhase::Running;
            if (live && cancel_sent_ && !blocked_reason_.empty()) {
                // cancelled for a blocking reason: just wait for it to leave the queue
            } else if (live && cancel_sent_ && scancel_owed_) {
                scancel_owed_ = false;
                scancel_tries_ = 0;
                send_scancel(kill_sent_);
            } else if (live && cancel_sent_) {
                // Stop escalates: scancel, then scancel --signal=KILL, then say what still runs.
                ++cancel_polls_;
                if (cancel_polls_ == kKillAfterPolls && !kill_sent_) {
                    kill_sent_ = true;
                    scancel_tries_ = 0;
                    send_scancel(true);
                } else if (cancel_polls_ == kReportAfterPolls) {
                    slurm_note("Slurm job " + sid + " is still " + qs->state +
                               " after scancel --signal=KILL (squeue -j " + sid + "; its nodes: scontrol show job " +
                               sid + ")");
                }
            }
            if (info.phase == SlurmPhase::Queued && why.blocked && !cancel_sent_) {
                if (++blocked_polls_ >= kBlockedPolls) {
                    blocked_reason_ = qs->reason + ": " + why.advice;
                    slurm_note("Slurm job " + sid + " cannot start (" + blocked_reason_ + "); cancelling it");
                    cancel_sent_ = true;
                    send_scancel(false);
                }
            } else {
                blocked_polls_ = 0;
            }
            return again();
        }
        if (!(answered && out.empty()) && !squeue_says_job_gone(err)) {
            // Not an answer about the job: the controller is unreachable, squeue hung
            // (timeout's 124) or ssh failed. The job may well still run: its state is unknown.
            if (++misses_ == kUnknownAfter) {
                std::string why = err;
                if (why.empty())
                    why = code == 124 ? "squeue gave no answer in " + std::to_string(call_timeout_s_) + " s"
                                      : "squeue exited " + std::to_string(code);
                slurm_state_ = "UNKNOWN";
                slurm_note("Slurm job " + sid + " UNKNOWN (" + why + "); asking again every " +
                           QString::number(poll_ms_ / 1000.0).toStdString() + " s");
                write_json();
            }
            return again();
        }
        // Gone from the queue: the controller still knows how it ended for MinJobAge seconds
        // (scontrol); after that only the accounting (sacct).
        QProcess* a = slurm_call(final_state_command(*slurm_id_, call_timeout_s_));
        connect(a, &QProcess::finished, this, [this, a, again, sid](int, QProcess::ExitStatus) {
            a->deleteLater();
            auto& p = process(0);
            const auto fin = parse_final_state(a->readAllStandardOutput().toStdString());
            if (!fin && ++misses_ < 5) return again();
            p.finished = true;
            if (!fin) {
                p.exit_code = 255;
                slurm_note("Slurm job " + sid + " left the queue; neither scontrol nor sacct knows how it ended");
                fail("Slurm job " + sid +
                     " ended in an unknown state (not in squeue, scontrol or sacct; "
                     "the controller forgot it and accounting is off)");
                return finish();
            }
            ended(*fin);
        });
    });
}

void SlurmJobBackend::ended(const SlurmFinal& fin) {
    if (fin.state == "NODE_FAIL" && !fin.nodes.empty() && !down_asked_) {
        // scontrol names the job's nodes, not the one that failed: sinfo -R lists the down ones.
        down_asked_ = true;
        QProcess* q = slurm_call(sinfo_down_command(fin.nodes, call_timeout_s_));
        connect(q, &QProcess::finished, this, [this, q, fin](int, QProcess::ExitStatus) {
            q->deleteLater();
            down_nodes_ = parse_sinfo_down(q->readAllStandardOutput().toStdString());
            ended(fin);
        });
        return;
    }
    auto& p = process(0);
    // The task's own exit status; a signal is reported as such (describe(): slurm_signal).
    p.exit_code = fin.exit_code;
    slurm_state_ = fin.state;
    slurm_signal_ = fin.signal;
    const std::string sid = std::to_string(*slurm_id_);
    slurm_note("Slurm job " + sid + " ended " + fin.state + " (" + fin.outcome() + ")");
    switch (slurm_state_info(fin.state).phase) {
    case SlurmPhase::Succeeded:
        if (!fin.succeeded()) fail("Slurm job " + sid + " ended " + fin.state + " (" + fin.outcome() + ")");
        break;
    case SlurmPhase::Cancelled:
        if (!blocked_reason_.empty()) {
            fail("Slurm job " + sid + " could not start (" + blocked_reason_ + "); cancelled it after " +
                 std::to_string(kBlockedPolls) + " polls");
            break;
        }
        // Stop, Ctrl-C, `paraplan-cli stop` or someone's scancel: a stop, not a failure.
        if (!user_stopped()) slurm_note("Slurm job " + sid + " was cancelled outside this launch (scancel)");
        set_user_stopped(true);
        cancelled_ = true;
        break;
    case SlurmPhase::Failed:
        if (user_stopped() && fin.signal) {
            // Ended by the signal Stop's escalation sent (scancel --signal=KILL): a stop.
            cancelled_ = true;
            break;
        }
        if (!fin.reason.empty()) slurm_reason_ = fin.reason;
        if (fin.state == "NODE_FAIL")
            // A node whose slurmd was killed keeps running its tasks under slurmstepd; Slurm
            // ends them when that slurmd registers again (slurmctld: "Registered JobId=N
            // StepId=N.0 in state NODE_FAIL", then kills them; tried on Slurm 22.05).
            slurm_note("Slurm job " + sid + ": if only a node's slurmd died, the tasks there may still run until it " +
                       "is back; Slurm ends them when it registers again");
        fail("Slurm job " + sid + " ended " + fin.state + " (" + fin.outcome() +
             "): " + slurm_state_info(fin.state).meaning +
             (fin.reason.empty() && down_nodes_.empty()
                  ? std::string()
                  : " (" + (fin.reason.empty() ? std::string() : "reason " + fin.reason) +
                        (!fin.reason.empty() && !down_nodes_.empty() ? "; " : "") +
                        (down_nodes_.empty() ? std::string() : "down: " + down_nodes_) + ")"));
        break;
    default: fail("Slurm job " + sid + " left the queue in state " + fin.state + " (" + fin.outcome() + ")");
    }
    finish();
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
