#pragma once
// A running launch: one ssh process per RemoteProcess of the plan (over the node's
// shared connection), live per-process output written to <folder>/<label>.log as it
// arrives, and <folder>/job.json (snapshot, commands, times, exit codes).
// A process that exits non-zero or loses its connection marks the job failed and,
// with on_failure "stop_all", stops the others. Stop closes each process's stdin: the
// remote watchdog then kills that process's whole group (TERM, grace, KILL).
// job.cpp: the ssh lifecycle every mode shares; job_slurm.cpp: the Slurm batch job's
// (queue polling, final state, the followed output file split into rank logs).
#include "project/cluster.h"
#include "runtime/launch_plan.h"
#include "joblog/line_buffer.h"
#include "runtime/ssh_node.h"

#include <QFile>
#include <QObject>
#include <QProcess>

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace paraplan::runtime {

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
        std::optional<long long> pgid;       // remote process group (from the wrapper's marker)
        std::optional<int> exit_code;        // the remote command's status
        bool finished = false;
        std::string error;
        std::string error_kind;
        std::string last_out;                // last stdout line (sbatch prints the job id)
        std::string last_err;                // last stderr line (sbatch's "error: ...")
    };

    // snapshot: the project as JSON (stored in job.json). folder: where logs go
    // (created). ssh: options for every node (control_dir is per node).
    Job(Cluster cluster, LaunchPlan plan, SshOptions ssh, std::string folder, nlohmann::json snapshot,
        std::string on_failure = "stop_all", QObject* parent = nullptr);
    ~Job() override;

    void start();
    void stop();   // user request: ends as Stopped (unless it already failed)
    bool waitFinished(int timeout_ms);   // runs the event loop

    State state() const { return state_; }
    bool done() const { return state_ == State::Succeeded || state_ == State::Failed || state_ == State::Stopped; }
    const std::string& error() const { return error_; }
    const std::string& folder() const { return folder_; }
    const LaunchPlan& plan() const { return plan_; }
    const std::vector<std::unique_ptr<Process>>& processes() const { return procs_; }
    nlohmann::json to_json() const;
    // The connection to cluster node `node` (null when the job runs nothing there).
    const SshNode* node(int node) const {
        return node >= 0 && node < static_cast<int>(nodes_.size()) ? nodes_[static_cast<std::size_t>(node)].get() : nullptr;
    }

    // Slurm mode: how often squeue is polled after submission (default 5000 ms).
    void setSlurmPollInterval(int ms) { slurm_poll_ms_ = ms; }
    std::optional<long long> slurmJobId() const { return slurm_id_; }

signals:
    // One output line of process `index` (markers removed).
    void line(int index, const QString& text, bool is_stderr);
    void stateChanged();
    void finished();

private:
    void set_state(State s);
    void launch_all();
    void start_processes();
    void on_output(int i, bool is_stderr);
    void on_finished(int i, int code, QProcess::ExitStatus st);
    void handle_line(int i, const std::string& line, bool is_stderr);
    void fail(const std::string& why);
    void abandon_unstarted(const std::string& why);
    void torchrun_worker_failed(int i, const std::string& line);
    void stop_processes();
    void check_done();
    void write_json();   // job.json; a failure is noted once in process 0's log and output
    void note(int i, const std::string& text);   // "paraplan: text" into process i's log and output
    void slurm_submitted(int i);
    void slurm_poll();
    void slurm_note(const std::string& text);
    std::string slurm_remote(const std::string& cmd) const;
    // Slurm: the job's output file followed over the login node's connection and split
    // by srun's task labels into rank-<N>.log; closed once sacct has the final state.
    void slurm_follow_output();
    void slurm_output_line(const std::string& text);
    void slurm_finish();

    Cluster cluster_;
    LaunchPlan plan_;
    SshOptions ssh_;
    std::string folder_;
    nlohmann::json snapshot_;
    std::string on_failure_;
    std::vector<std::unique_ptr<SshNode>> nodes_;   // by cluster node index (null when unused)
    std::vector<std::unique_ptr<Process>> procs_;
    State state_ = State::Pending;
    std::string error_;
    bool user_stop_ = false;
    bool failed_ = false;
    long long started_ms_ = 0, ended_ms_ = 0;
    std::optional<long long> slurm_id_;
    std::string slurm_state_;
    int slurm_poll_ms_ = 5000;
    int slurm_misses_ = 0;
    bool slurm_cancel_sent_ = false;
    bool slurm_cancelled_ = false;
    bool torch_worker_failed_ = false;   // ended CANCELLED (reported as stopped)
    int uploads_pending_ = 0;
    std::string upload_error_;
    QProcess* slurm_tail_ = nullptr;
    LineBuffer slurm_tail_buf_;
    long long slurm_tail_bytes_ = 0;   // of the output file, received so far (the final read resumes there)
    std::map<int, std::unique_ptr<QFile>> rank_logs_;   // slurm: rank -> rank-<N>.log
    int slurm_drain_ms_ = 1500;                          // tail -F polls once a second
    std::string json_error_;                             // the last job.json write failure (said once)
};

}  // namespace paraplan::runtime
