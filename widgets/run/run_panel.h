#pragma once
// Launch and follow a project's job: Test connection (per node), Dry run, Launch, Stop,
// the live log of every rank (bounded, ANSI escapes stripped) and the list of past jobs.
// Self-contained (the main window docks it); the logic lives in core/runtime.
#include "calibrate/log_parse.h"
#include "launch/launch_settings.h"
#include "project/project.h"
#include "runtime/job.h"
#include "probe/probe_compare.h"
#include "runtime/telemetry.h"
#include "topology/rank_map.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QListWidget;
class QPushButton;

namespace paraplan::widgets {

class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);
    ~RunPanel() override;

    // The project to run and the folder its job folders go to.
    void setProject(const Project& project, const QString& job_dir);
    // The same, shared with the document: its immutable snapshot and its rank map (null: built
    // when needed), so an edit copies nothing here.
    void setProject(std::shared_ptr<const Project> project, std::shared_ptr<const topology::RankMap> map,
                    const QString& job_dir);

    runtime::Job* job() const { return job_.get(); }
    // The GPU telemetry of the job launched last (runtime.telemetry.interval_ms > 0):
    // started with the job, stopped when it ends. Null before the first launch.
    runtime::TelemetryMonitor* monitor() const { return monitor_.get(); }
    // The last probe result shown, held against the plan (core/runtime/probe_compare.h).
    const std::vector<runtime::ProbeGroupCheck>& probeChecks() const { return probe_checks_; }
    QString logText() const;   // the lines the log shows now (its filter and search applied)
    class LogView* logView() const {
        return log_;
    }
    int pastJobCount() const;
    QListWidget* pastJobs() const { return jobs_; }
    // The launched job's step time as its log lines report it (core/calibrate/log_parse.h:
    // Megatron-LM, torchtitan, DeepSpeed, ColossalAI), beside the estimate.
    QString stepTimeText() const;

public slots:
    void testConnection();
    void dryRun();
    void launch();
    void stop();
    void refreshJobs();
    // Stops the job selected in the Past jobs list when it still runs: the panel's own job as
    // stop() does, any other (one launched by `paraplan-cli launch`, or before a restart) as
    // `paraplan-cli stop` does (runtime/job_control.h), off the GUI thread.
    void stopListedJob();
    // A probe result: the JSON document (tests/data/probe/*.json shape) or a probe job's
    // rank-0.log. Logs each group against the plan and emits probeChecked. False (and a
    // message in the log) when the file is unreadable or malformed.
    bool loadProbeResult(const QString& path);
    void showProbeResult();   // asks for the file
    // Runs the probe job (resources/probe/paraplan_probe.py, as `paraplan-cli probe`) on the
    // project's cluster with its layout's groups; its result is then loaded as above.
    // extra_args go to the probe script (e.g. --sizes, --iters).
    void runProbe(const QStringList& extra_args = {});

signals:
    void jobStarted(runtime::Job* job);
    void jobFinished();
    void probeChecked(const std::vector<paraplan::runtime::ProbeGroupCheck>& checks);

private:
    bool busy() const;   // a job runs or a probe is being uploaded
    // Plans and starts a job (throws InputError); probe: load the result when it ends.
    void startJob(const runtime::RuntimeConfig& rc, const runtime::SshOptions& ssh, const std::string& id, bool probe);
    // The project's launch settings with the user's ssh profile; every ignored project setting
    // is listed in the log as a warning. nullopt, with `failing` (%1 where, %2 why) in the log,
    // when they cannot be read.
    std::optional<runtime::LaunchSettings> launchSettings(const QString& failing);
    void append(const QString& line);
    void update_buttons();
    void noteStepLine(const QString& text);   // a job's output line that may report a step time

    std::shared_ptr<const Project> project_ = std::make_shared<const Project>();
    std::shared_ptr<const topology::RankMap> map_;
    QString job_dir_;
    std::unique_ptr<runtime::Job> job_;
    std::unique_ptr<runtime::TelemetryMonitor> monitor_;
    std::vector<runtime::ProbeGroupCheck> probe_checks_;
    QLabel* status_;
    QLabel* stepTime_;
    std::vector<calibrate::LogSample> stepSamples_;
    double estimateStep_ = 0;   // s, 0 = no estimate
    QString estimateWhy_;       // why there is none
    QPushButton *check_, *dry_, *launch_, *stop_, *probe_, *runProbe_, *stopListed_;
    bool probing_ = false;
    bool stoppingListed_ = false;   // a listed job's stop is under way
    class LogView* log_;
    QListWidget* jobs_;
};

// Removes ANSI escape sequences (colours, cursor moves) from a log line.
QString strip_ansi(const QString& line);

}   // namespace paraplan::widgets
