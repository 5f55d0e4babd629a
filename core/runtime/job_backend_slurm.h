#pragma once
// Slurm jobs (plan mode "slurm"): the plan's one process is sbatch on the login node. Once
// it has printed the job id, squeue is polled until the job leaves the queue, its final
// state is read (scontrol, else sacct), and its output file is followed and split by srun's
// task labels into rank-<N>.log. Stop cancels the batch job (scancel).
#include "joblog/line_buffer.h"
#include "runtime/job_backend.h"

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

    std::optional<long long> slurm_id_;
    std::string slurm_state_;
    int poll_ms_ = 5000;
    int misses_ = 0;
    bool cancel_sent_ = false;
    bool cancelled_ = false;   // ended CANCELLED (reported as stopped)
    QProcess* tail_ = nullptr;
    LineBuffer tail_buf_;
    long long tail_bytes_ = 0;   // of the output file, received so far (the final read resumes there)
    std::map<int, std::unique_ptr<QFile>> rank_logs_;   // rank -> rank-<N>.log
    static constexpr int kDrainMs = 1500;               // tail -F polls once a second
};

}   // namespace paraplan::runtime
