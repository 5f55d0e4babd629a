#pragma once
// What a Job does differently by where its work runs. The Job (job.h) connects the nodes,
// writes the uploads, starts one ssh process per plan process, splits their output into
// lines, keeps the logs, the state and job.json; its backend starts the work, reads each
// output line, decides what a process's end means, stops the work and ends the job:
//   SshJobBackend (job_backend_ssh.h)     direct, torchrun, colossalai, deepspeed: each
//                                          process runs under the launch wrapper
//   SlurmJobBackend (job_backend_slurm.h) slurm: one sbatch on the login node, then the
//                                          batch job followed through squeue/scontrol/sacct
#include "runtime/job.h"

#include <QObject>

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

namespace paraplan::runtime {

// A QObject only to be the context of its own connections and timers: they end with it.
class JobBackend : public QObject {
public:
    explicit JobBackend(Job& job) : job_(job) {}
    ~JobBackend() override = default;

    // The backend for the job's plan (its mode).
    static std::unique_ptr<JobBackend> for_plan(Job& job);

    // Every node is connected and every upload written: start the work (state Running).
    virtual void start() = 0;
    // One complete output line of process i (without its line end). nullopt: the line was
    // the backend's own (a marker) and is not shown; else the text to log and show.
    virtual std::optional<std::string> line(int i, const std::string& text, bool is_stderr) = 0;
    // Process i's ssh command has ended with ssh_code (255: ssh itself failed) and all its
    // output has been read. true: the backend keeps the process going (the job it
    // submitted runs on); false: the Job reads the process's end as it stands (exit_code,
    // error) and finishes it.
    virtual bool process_ended(int i, int ssh_code) = 0;
    // The user's Stop while the work runs (after the nodes are connected).
    virtual void stop() = 0;
    // The job's error when it ends without one of its own ("" for none).
    virtual std::string end_error() const { return {}; }
    // Fields this backend adds to job.json.
    virtual void describe(nlohmann::json& /*job_json*/) const {}
    // Batch-scheduler side (Slurm): how often to poll, how long one call to the scheduler may take
    // before it is ended and counted as no answer, and the job id once known.
    virtual void set_poll_interval(int /*ms*/) {}
    virtual void set_call_timeout(int /*seconds*/) {}
    virtual std::optional<long long> batch_job_id() const { return std::nullopt; }

protected:
    Job& job() { return job_; }
    const LaunchPlan& plan() const { return job_.plan_; }
    Job::Process& process(int i) { return *job_.procs_[static_cast<std::size_t>(i)]; }
    int process_count() const { return static_cast<int>(job_.procs_.size()); }
    SshNode& node_of(const Job::Process& p) { return *job_.nodes_[static_cast<std::size_t>(p.spec.node)]; }
    bool stopping() const { return job_.state_ == Job::State::Stopping; }
    bool user_stopped() const { return job_.user_stop_; }
    void set_user_stopped(bool on) { job_.user_stop_ = on; }
    void set_state(Job::State s) { job_.set_state(s); }
    void start_processes() { job_.start_processes(); }
    void fail(const std::string& why) { job_.fail(why); }
    void stop_processes() { job_.stop_processes(); }
    void check_done() { job_.check_done(); }
    void write_json() { job_.write_json(); }
    void say(int i, const std::string& text, bool is_stderr) { job_.say(i, text, is_stderr); }
    void note(int i, const std::string& text) { job_.note(i, text); }
    // Shown on process i's output only (not in its log).
    void show(int i, const std::string& text, bool is_stderr) {
        emit job_.line(i, QString::fromStdString(text), is_stderr);
    }

private:
    Job& job_;
};

}   // namespace paraplan::runtime
