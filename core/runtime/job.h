#pragma once
// A running launch: one ssh process per RemoteProcess of the plan (over the node's
// shared connection), live per-process output written to <folder>/<label>.log as it
// arrives, and <folder>/job.json (snapshot, commands, times, exit codes).
// A process that exits non-zero or loses its connection marks the job failed and,
// with on_failure "stop_all", stops the others.
// The Job owns what every mode shares: the nodes' connections, the uploads, the ssh
// processes, their logs, the state and job.json. What differs by where the work runs is
// its JobBackend (job_backend.h), chosen from the plan's mode: SshJobBackend (the wrapper's
// markers, heartbeats, Stop by closing stdin) or SlurmJobBackend (sbatch, squeue polling,
// scancel, the batch job's output split into rank logs).
#include "project/cluster.h"
#include "joblog/line_buffer.h"
#include "launch/launch_plan.h"
#include "runtime/ssh_node.h"

#include <QFile>
#include <QObject>
#include <QProcess>

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace paraplan::runtime {

class JobBackend;

class Job : public QObject {
    Q_OBJECT
public:
    enum class State { Pending, Connecting, Running, Stopping, Succeeded, Failed, Stopped };
    static std::string to_string(State s);

    struct Process {
        RemoteProcess spec;
        std::string host;
        std::vector<std::string> command;   // the full local ssh argv
        QProcess* proc = nullptr;
        std::unique_ptr<QFile> log;
        LineBuffer out, err;
        std::optional<long long> pgid;   // remote process group (from the wrapper's marker)
        std::optional<int> exit_code;    // the remote command's status
        bool finished = false;
        std::string error;
        std::string error_kind;
        std::string last_out;   // last stdout line (sbatch prints the job id)
        std::string last_err;   // last stderr line (sbatch's "error: ...")
    };

    // snapshot: the project as JSON (stored in job.json). folder: where logs go
    // (created). ssh: options for every node (control_dir is per node).
    Job(Cluster cluster, LaunchPlan plan, SshOptions ssh, std::string folder, nlohmann::json snapshot,
        std::string on_failure = "stop_all", QObject* parent = nullptr);
    ~Job() override;

    void start();
    void stop();                         // user request: ends as Stopped (unless it already failed)
    bool waitFinished(int timeout_ms);   // runs the event loop

    State state() const { return state_; }
    bool done() const { return state_ == State::Succeeded || state_ == State::Failed || state_ == State::Stopped; }
    const std::string& error() const { return error_; }
    // A node could not be reached or refused us while connecting (ssh_error.h is_unreachable):
    // nothing of the job ran there.
    bool unreachable() const { return unreachable_; }
    const std::string& folder() const { return folder_; }
    const LaunchPlan& plan() const { return plan_; }
    const std::vector<std::unique_ptr<Process>>& processes() const { return procs_; }
    nlohmann::json to_json() const;
    // The connection to cluster node `node` (null when the job runs nothing there).
    const SshNode* node(int node) const {
        return node >= 0 && node < static_cast<int>(nodes_.size()) ? nodes_[static_cast<std::size_t>(node)].get()
                                                                   : nullptr;
    }

    // Slurm mode: how often squeue is polled after submission (default 5000 ms), and the
    // batch job's id once sbatch has printed it (nullopt in the other modes).
    void setSlurmPollInterval(int ms);
    void setSlurmCallTimeout(int seconds);   // each Slurm call's bound (default kSlurmCallTimeoutS)
    std::optional<long long> slurmJobId() const;

signals:
    // One output line of process `index` (markers removed).
    void line(int index, const QString& text, bool is_stderr);
    void stateChanged();
    void finished();

private:
    friend class JobBackend;   // the backends drive the lifecycle through the helpers below

    void set_state(State s);
    void launch_all();
    void start_processes();   // one ssh process per plan process (state Running)
    void on_output(int i, bool is_stderr);
    void on_finished(int i, int code, QProcess::ExitStatus st);
    void handle_line(int i, const std::string& line, bool is_stderr);
    void fail(const std::string& why);
    void abandon_unstarted(const std::string& why);
    void stop_processes();   // closes each running process's stdin, kills it after the grace
    void check_done();
    void write_json();   // job.json; a failure is noted once in process 0's log and output
    // `text` into process i's log and onto its output (the line() signal).
    void say(int i, const std::string& text, bool is_stderr);
    void note(int i, const std::string& text);   // say(i, "paraplan: " + text) on stderr

    Cluster cluster_;
    LaunchPlan plan_;
    SshOptions ssh_;
    std::string folder_;
    nlohmann::json snapshot_;
    std::string on_failure_;
    std::vector<std::unique_ptr<SshNode>> nodes_;   // by cluster node index (null when unused)
    std::vector<std::unique_ptr<Process>> procs_;
    std::unique_ptr<JobBackend> backend_;
    State state_ = State::Pending;
    std::string error_;
    bool user_stop_ = false;
    bool unreachable_ = false;
    bool failed_ = false;
    long long started_ms_ = 0, ended_ms_ = 0;
    int uploads_pending_ = 0;
    std::string upload_error_;
    std::string json_error_;   // the last job.json write failure (said once)
};

}   // namespace paraplan::runtime
