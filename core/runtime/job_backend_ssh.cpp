#include "runtime/job_backend_ssh.h"

#include "joblog/torchrun_failure.h"

#include <QTimer>

namespace paraplan::runtime {

SshJobBackend::SshJobBackend(Job& job) : JobBackend(job), markers_(wrapper_markers(plan().marker_token)) {}

void SshJobBackend::start() {
    start_processes();
    if (plan().heartbeat_s <= 0) return;
    // One byte per wrapper each heartbeat: its watchdog ends the ranks when they stop.
    auto* hb = new QTimer(this);
    connect(hb, &QTimer::timeout, this, [this, hb] {
        if (job().done() || stopping()) return hb->stop();
        for (int i = 0; i < process_count(); ++i) {
            auto& p = process(i);
            if (p.proc && !p.finished && p.proc->state() == QProcess::Running) p.proc->write("\n", 1);
        }
    });
    hb->start(plan().heartbeat_s * 1000);
}

std::optional<std::string> SshJobBackend::line(int i, const std::string& l, bool is_stderr) {
    auto& p = process(i);
    const MarkerLine m = parse_marker_line(markers_, l, is_stderr);
    if (m.kind == MarkerLine::Kind::Started) {
        if (m.pgid) p.pgid = *m.pgid;
        else note(i, "the wrapper's start line has no process group id (\"" + l + "\"); Stop still closes the channel");
        write_json();
        return std::nullopt;
    }
    if (m.kind == MarkerLine::Kind::Exited) {
        if (m.exit_status) p.exit_code = *m.exit_status;
        else p.error = "the wrapper's exit line has no exit status (\"" + l + "\")";
        return std::nullopt;
    }
    if (plan().mode == "torchrun" && !torch_worker_failed_)
        if (const auto failure = torchrun_worker_failure(l)) torchrun_worker_failed(i, *failure);
    if (m.kind == MarkerLine::Kind::Error) {
        p.error = m.message;
        return "paraplan: " + p.error;
    }
    return l;
}

bool SshJobBackend::process_ended(int, int) {
    return false;   // the wrapper's exit marker (or its absence) says how the process ended
}

void SshJobBackend::stop() {
    stop_processes();
    check_done();
}

void SshJobBackend::torchrun_worker_failed(int i, const std::string& failure) {
    // torchrun's agent, after a worker failed, waits in _exit_barrier for the other nodes
    // (torch/distributed/elastic/agent/server/api.py, SimpleElasticAgent, exit_barrier_timeout
    // = 300 s in PyTorch v1.13.1), whose workers may run on for minutes when they share no
    // collective.
    torch_worker_failed_ = true;
    const auto& p = process(i);
    const std::string what = "a torchrun worker failed on " + p.spec.label + " (" + p.host + ")";
    if (plan().fail_fast) {
        note(i, what + "; runtime.fail_fast: stopping every node now");
        fail(what + " (" + failure + "); stopped the job at once (fail_fast)");
        stop_processes();
        return;
    }
    note(i, what +
                "; torchrun reports it only after its exit barrier (up to 300 s while the other nodes "
                "run on); set runtime.fail_fast to stop the job at the first failure");
}

}   // namespace paraplan::runtime
