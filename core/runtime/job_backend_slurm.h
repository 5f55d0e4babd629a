#pragma once
// Slurm jobs (plan mode "slurm"): the plan's one process is sbatch on the login node. Once
// it has printed the job id, squeue is polled until the job leaves the queue, its final
// state is read (scontrol, else sacct), and its output file is followed and split by srun's
// task labels into rank-<N>.log. Stop cancels the batch job (scancel).
#include "joblog/line_buffer.h"
#include "runtime/job_backend.h"
#include "slurm/slurm.h"

#include <QFile>
#include <QProcess>

#include <map>
#include <memory>
#include <optional>
#include <string>

namespace paraplan::runtime {

class SlurmJobBackend : public JobBackend {
public:
    explicit SlurmJobBackend(Job& job) : JobBackend(job) {}
    ~SlurmJobBackend() override;

    void start() override;
    std::optional<std::string> line(int i, const std::string& text, bool is_stderr) override;
    bool process_ended(int i, int ssh_code) override;
    void stop() override;
    std::string end_error() const override;
    void describe(nlohmann::json& job_json) const override;
    void set_poll_interval(int ms) override { poll_ms_ = ms; }
    void set_call_timeout(int seconds) override { call_timeout_s_ = seconds; }
    std::optional<long long> batch_job_id() const override { return slurm_id_; }

private:
    std::string remote(const std::string& cmd) const;   // with the plan's PATH prefixes
    void slurm_note(const std::string& text);           // "paraplan: text" in sbatch's log and output
    void submitted();
    void poll();
    // The job's output file followed over the login node's connection and split by srun's
    // task labels into rank-<N>.log; closed once the final state is known.
    void follow_output();
    void output_line(const std::string& text);
    void finish();
    // A remote Slurm call, bounded here too (the remote side has `timeout`; this ends the
    // ssh client should the connection itself hang).
    QProcess* slurm_call(const std::string& cmd);
    void send_scancel(bool kill);
    void ended(const SlurmFinal& fin);

    std::optional<long long> slurm_id_;
    std::string slurm_state_;
    std::string slurm_reason_;
    int slurm_signal_ = 0;   // ExitCode's signal, once ended
    int poll_ms_ = 5000;
    int call_timeout_s_ = kSlurmCallTimeoutS;   // each Slurm call's bound (slurm/slurm.h)
    int misses_ = 0;               // squeue calls in a row that could not say (controller down, timeout, ssh)
    int blocked_polls_ = 0;        // polls in a row pending for a reason waiting cannot cure
    std::string blocked_reason_;   // set when this launch cancelled the job for it
    int cancel_polls_ = 0;         // polls since scancel with the job still queued or running
    int scancel_tries_ = 0;
    bool cancel_sent_ = false;
    bool kill_sent_ = false;
    bool scancel_owed_ = false;   // every scancel try failed: resent when squeue answers again
    // Slurm keeps a job pending for PartitionTimeLimit and the like until someone changes
    // it; the launch reports the reason at once and cancels it after this many polls (one
    // minute at the default 5 s).
    static constexpr int kBlockedPolls = 12;
    static constexpr int kUnknownAfter = 3;      // failed squeue calls before the state is reported unknown
    static constexpr int kKillAfterPolls = 12;   // scancel, then scancel --signal=KILL
    static constexpr int kReportAfterPolls = 24;
    bool cancelled_ = false;    // ended CANCELLED (reported as stopped)
    bool down_asked_ = false;   // NODE_FAIL: sinfo -R asked which of its nodes are down
    std::string down_nodes_;    // "n2 (Not responding)"
    QProcess* tail_ = nullptr;
    LineBuffer tail_buf_;
    long long tail_bytes_ = 0;   // of the output file, received so far (the final read resumes there)
    std::map<int, std::unique_ptr<QFile>> rank_logs_;   // rank -> rank-<N>.log
    static constexpr int kDrainMs = 1500;               // tail -F polls once a second
};

}   // namespace paraplan::runtime
