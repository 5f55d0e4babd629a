#include "run/run_panel.h"
#include "project/project_gpu.h"

#include "util/read_file.h"
#include "common/wording.h"

#include "run/log_view.h"

#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "runtime/connection_test.h"
#include "joblog/job_history.h"
#include "joblog/job_summary.h"
#include "launch/launch_plan.h"
#include "runtime/job_control.h"
#include "runtime/job_start.h"
#include "runtime/probe_job.h"
#include "shell/shell_quote.h"
#include "util/input_error.h"

#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace paraplan::widgets {

namespace {
// What a Past jobs item carries: its job id, and whether its record says it still runs.
constexpr int kIdRole = Qt::UserRole;
constexpr int kLiveRole = Qt::UserRole + 1;
}   // namespace

QString strip_ansi(const QString& line) {
    static const QRegularExpression re(QStringLiteral("\x1b\\[[0-9;?]*[ -/]*[@-~]|\x1b[@-Z\\\\-_]"));
    QString s = line;
    return s.remove(re);
}

RunPanel::RunPanel(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    auto* buttons = new QHBoxLayout;
    check_ = new QPushButton(tr("Test connection"), this);
    dry_ = new QPushButton(tr("Dry run"), this);
    launch_ = new QPushButton(tr("Launch"), this);
    stop_ = new QPushButton(tr("Stop"), this);
    probe_ = new QPushButton(tr("Show probe result…"), this);
    probe_->setObjectName(QStringLiteral("showProbeResult"));
    probe_->setToolTip(
        tr("Load a probe result (the JSON of `paraplan-cli probe --json`, or a probe job's rank-0.log) "
           "and show each group's measured bandwidth against the plan on the rank grid."));
    runProbe_ = new QPushButton(tr("Probe"), this);
    runProbe_->setObjectName(QStringLiteral("runProbe"));
    runProbe_->setToolTip(
        tr("Run the probe job on the cluster: create every planned group, check its members and "
           "measure its bandwidth; the result is shown on the rank grid."));
    for (auto* b : {check_, dry_, launch_, stop_, runProbe_, probe_}) buttons->addWidget(b);
    buttons->addStretch(1);
    status_ = new QLabel(tr("No project."), this);
    status_->setWordWrap(true);
    stepTime_ = new QLabel(this);
    stepTime_->setObjectName(QStringLiteral("stepTime"));
    stepTime_->setWordWrap(true);
    stepTime_->setVisible(false);
    log_ = new LogView(this);
    jobs_ = new QListWidget(this);
    jobs_->setObjectName(QStringLiteral("pastJobs"));
    jobs_->setMaximumHeight(120);
    stopListed_ = new QPushButton(tr("Stop Listed Job"), this);
    stopListed_->setObjectName(QStringLiteral("stopListedJob"));
    stopListed_->setToolTip(
        tr("Stop the job selected in Past jobs on every node (as `paraplan-cli stop` does): "
           "also a job launched from the command line or before Paraplan restarted."));
    layout->addLayout(buttons);
    layout->addWidget(status_);
    layout->addWidget(stepTime_);
    layout->addWidget(log_, 1);
    auto* pastRow = new QHBoxLayout;
    pastRow->addWidget(new QLabel(tr("Past jobs"), this));
    pastRow->addStretch(1);
    pastRow->addWidget(stopListed_);
    layout->addLayout(pastRow);
    layout->addWidget(jobs_);
    connect(check_, &QPushButton::clicked, this, &RunPanel::testConnection);
    connect(dry_, &QPushButton::clicked, this, &RunPanel::dryRun);
    connect(launch_, &QPushButton::clicked, this, &RunPanel::launch);
    connect(stop_, &QPushButton::clicked, this, &RunPanel::stop);
    connect(stopListed_, &QPushButton::clicked, this, &RunPanel::stopListedJob);
    connect(jobs_, &QListWidget::currentRowChanged, this, [this] { update_buttons(); });
    connect(probe_, &QPushButton::clicked, this, &RunPanel::showProbeResult);
    connect(runProbe_, &QPushButton::clicked, this, [this] { runProbe(); });
    update_buttons();
}

RunPanel::~RunPanel() = default;

void RunPanel::setProject(const Project& project, const QString& job_dir) {
    setProject(std::make_shared<const Project>(project), nullptr, job_dir);
}

void RunPanel::setProject(std::shared_ptr<const Project> shared, std::shared_ptr<const topology::RankMap> map,
                          const QString& job_dir) {
    project_ = std::move(shared);
    map_ = std::move(map);
    job_dir_ = job_dir;
    const Project& project = *project_;
    log_->setProject(project_, map_);
    status_->setText(
        tr("%1: %2, %3")
            .arg(QString::fromStdString(project.name),
                 wording::count(static_cast<long long>(project.cluster.nodes.size()), tr("1 node"), tr("%1 nodes")),
                 wording::count(project.world_size(), tr("1 rank"), tr("%1 ranks"))));
    refreshJobs();
    update_buttons();
}

QString RunPanel::logText() const { return log_->visibleText(); }
int RunPanel::pastJobCount() const { return jobs_->count(); }

void RunPanel::append(const QString& line) { log_->append({strip_ansi(line), {}, -1}); }

QString RunPanel::stepTimeText() const { return stepTime_->isHidden() ? QString() : stepTime_->text(); }

void RunPanel::noteStepLine(const QString& text) {
    const auto x = calibrate::parse_log_line(text.toStdString());
    if (!x || (x->step_s <= 0 && x->samples_per_s <= 0 && x->tokens_per_s_per_gpu <= 0 && x->microstep_s <= 0)) return;
    stepSamples_.push_back(*x);
    calibrate::LogSummary log;
    log.format = stepSamples_.front().format;
    log.samples = stepSamples_;
    const auto m = calibrate::measured_step(log, *project_);
    if (!m) return;
    QString line = tr("Step time: measured %1 s (%2)").arg(m->step_s, 0, 'f', 3).arg(QString::fromStdString(m->how));
    if (estimateStep_ > 0)
        line += tr(" · estimate %1 s (%2%3%)")
                    .arg(estimateStep_, 0, 'f', 3)
                    .arg(estimateStep_ >= m->step_s ? "+" : "")
                    .arg(100 * (estimateStep_ / m->step_s - 1), 0, 'f', 1);
    else if (!estimateWhy_.isEmpty()) line += tr(" · no estimate: %1").arg(estimateWhy_);
    stepTime_->setText(line);
    stepTime_->setVisible(true);
}

void RunPanel::update_buttons() {
    const bool running = busy();
    const bool has = !project_->cluster.nodes.empty();
    check_->setEnabled(has && !running);
    dry_->setEnabled(has && !running);
    launch_->setEnabled(has && !running);
    runProbe_->setEnabled(has && !running);
    stop_->setEnabled(running);
    const QListWidgetItem* listed = jobs_->currentItem();
    stopListed_->setEnabled(!stoppingListed_ && listed && listed->data(kLiveRole).toBool());
}

std::optional<runtime::LaunchSettings> RunPanel::launchSettings(const QString& failing) {
    try {
        auto s = runtime::launch_settings(*project_, runtime::load_ssh_profiles());
        for (const auto& line : s.ignored) append(tr("warning: %1").arg(QString::fromStdString(line)));
        return s;
    } catch (const InputError& e) {
        const QString where = QString::fromStdString(e.file().empty() ? e.pointer() : e.file());
        append(failing.arg(where, QString::fromStdString(e.message())));
        return std::nullopt;
    }
}

void RunPanel::testConnection() {
    const auto ls = launchSettings(tr("runtime settings: %1: %2"));
    if (!ls) return;
    const runtime::RuntimeConfig rc = ls->rc;
    const runtime::SshOptions ssh = ls->ssh;
    status_->setText(tr("Testing the connection to every node…"));
    check_->setEnabled(false);
    auto* watcher = new QFutureWatcher<std::vector<runtime::NodeCheck>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        int ok = 0;
        for (const auto& c : watcher->result()) {
            ok += c.ok() ? 1 : 0;
            append(QString::fromStdString(c.node + " (" + c.host + "): " +
                                          (c.ok()        ? "ok"
                                           : c.reachable ? "problems"
                                                         : "unreachable") +
                                          ", " + std::to_string(c.gpus.size()) +
                                          (c.gpus.size() == 1 ? " GPU seen" : " GPUs seen")));
            for (const auto& p : c.problems) append("  " + QString::fromStdString(p));
            if (!c.reachable && !c.error.fix.empty()) append("  fix: " + QString::fromStdString(c.error.fix));
        }
        status_->setText(tr("%1 of %2 nodes ready").arg(ok).arg(watcher->result().size()));
        watcher->deleteLater();
        update_buttons();
    });
    const Cluster cluster = project_->cluster;
    watcher->setFuture(QtConcurrent::run([cluster, rc, ssh] { return runtime::test_connections(cluster, rc, ssh); }));
}

void RunPanel::dryRun() {
    const auto ls = launchSettings(tr("cannot launch: %1: %2"));
    if (!ls) return;
    try {
        const auto& rc = ls->rc;
        const auto plan = runtime::plan_job(*project_, rc,
                                            runtime::make_job_id(project_->name, QDateTime::currentSecsSinceEpoch()),
                                            runtime::JobKind::Training);
        const auto& ssh = ls->ssh;
        // First the config files copied to the nodes, then every process, as Launch runs them.
        for (const auto& u : plan.uploads) {
            const auto& node = project_->cluster.nodes[static_cast<std::size_t>(u.node)];
            append(tr("# copy %1 (%2 bytes) to %3")
                       .arg(QString::fromStdString(u.path))
                       .arg(u.content.size())
                       .arg(QString::fromStdString(node.name)));
            append(QString::fromStdString(runtime::sh_join(
                runtime::ssh_command_argv(runtime::ssh_target(node), ssh, runtime::upload_command(plan, u)))));
        }
        for (const auto& p : plan.processes) {
            const auto& node = project_->cluster.nodes[static_cast<std::size_t>(p.node)];
            append(QString::fromStdString("# " + p.label + " on " + node.name));
            append(QString::fromStdString(runtime::sh_join(
                runtime::ssh_command_argv(runtime::ssh_target(node), ssh, runtime::remote_launch_command(plan, p)))));
        }
    } catch (const InputError& e) {
        append(
            tr("cannot launch: %1: %2").arg(QString::fromStdString(e.pointer()), QString::fromStdString(e.message())));
    }
}

void RunPanel::launch() {
    if (busy()) return;
    const auto ls = launchSettings(tr("cannot launch: %1: %2"));
    if (!ls) return;
    try {
        startJob(ls->rc, ls->ssh, runtime::make_job_id(project_->name, QDateTime::currentSecsSinceEpoch()), false);
    } catch (const InputError& e) {
        append(
            tr("cannot launch: %1: %2").arg(QString::fromStdString(e.pointer()), QString::fromStdString(e.message())));
    }
}

bool RunPanel::busy() const { return probing_ || (job_ && !job_->done()); }

void RunPanel::startJob(const runtime::RuntimeConfig& rc, const runtime::SshOptions& ssh, const std::string& id,
                        bool probe) {
    // The same start as `paraplan-cli launch` / `probe` (throws InputError before any folder exists).
    job_ = runtime::create_job(*project_, rc, ssh, job_dir_.toStdString(), id,
                               probe ? runtime::JobKind::Probe : runtime::JobKind::Training);
    runtime::Job* job = job_.get();
    // The step time the job reports, beside the estimate (with the project's cluster profile).
    stepSamples_.clear();
    estimateStep_ = 0;
    estimateWhy_.clear();
    stepTime_->setVisible(false);
    if (!probe) {
        try {
            estimateStep_ = estimate::estimate_project(*project_).time.step_s;
        } catch (const std::exception& e) {
            estimateStep_ = 0;   // no estimate for this project (incomplete model or layout)
            estimateWhy_ = QString::fromStdString(e.what());
        }
    }
    connect(job, &runtime::Job::line, this, [this, job, probe](int i, const QString& text, bool) {
        if (!probe) noteStepLine(text);
        // Each line keeps its process's ranks and node, so the log can show one rank, node or group.
        const auto& spec = job->processes()[static_cast<std::size_t>(i)]->spec;
        log_->append({strip_ansi("[" + QString::fromStdString(spec.label) + "] " + text), spec.ranks, spec.node});
    });
    connect(job, &runtime::Job::stateChanged, this, [this, job] {
        status_->setText(tr("Job %1: %2%3")
                             .arg(QString::fromStdString(job->plan().job_id),
                                  QString::fromStdString(runtime::Job::to_string(job->state())),
                                  job->error().empty() ? QString() : " — " + QString::fromStdString(job->error())));
        update_buttons();
    });
    connect(job, &runtime::Job::finished, this, [this, job, probe] {
        if (monitor_) monitor_->stop();
        refreshJobs();
        if (probe) {
            // The probe's rank 0 prints the result: show it against the plan.
            const QString log = QString::fromStdString(job->folder() + "/rank-0.log");
            if (!loadProbeResult(log)) append(tr("the probe produced no result (see %1)").arg(log));
        }
        emit jobFinished();
    });
    if (!probe) log_->clear();
    job->start();
    refreshJobs();   // the new job, listed as running
    // Live GPU telemetry over the same hosts while the job runs (GPU monitor, heatmaps).
    monitor_.reset();
    if (rc.telemetry_interval_ms > 0) {
        monitor_ = std::make_unique<runtime::TelemetryMonitor>(project_->cluster, ssh, rc.telemetry_interval_ms,
                                                               rc.path_prepend);
        monitor_->start();
    }
    update_buttons();
    emit jobStarted(job);
}

void RunPanel::runProbe(const QStringList& extra_args) {
    if (busy()) return;
    const auto ls = launchSettings(tr("cannot probe: %1: %2"));
    if (!ls) return;
    const runtime::RuntimeConfig base = ls->rc;
    // The groups the project's framework builds (`paraplan-cli groups --json`), as the CLI probes
    // them: the document's map when it is this project's, else built here.
    const auto groups = runtime::probe_groups(*project_, map_.get());
    if (groups.layout.is_null()) {
        for (const auto& d : groups.errors) append(tr("cannot probe: %1").arg(QString::fromStdString(d.message)));
        return;
    }
    const std::string id = runtime::make_job_id("probe-" + project_->name, QDateTime::currentSecsSinceEpoch());
    const std::string layout = groups.layout.dump();
    log_->clear();
    append(tr("[probe] uploading the probe and the layout to a private folder on every node…"));
    probing_ = true;
    update_buttons();
    // Uploads block on ssh: run them off the GUI thread (each SshNode lives in that thread).
    const Cluster cluster = project_->cluster;
    const runtime::SshOptions ssh = ls->ssh;
    const int timeout_ms = (base.connect_timeout_s + 5) * 1000;
    auto* watcher = new QFutureWatcher<runtime::ProbeFolder>(this);
    std::vector<std::string> extra;
    for (const auto& a : extra_args) extra.push_back(a.toStdString());
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, base, ssh, cluster, id, extra] {
        const runtime::ProbeFolder folder = watcher->result();
        watcher->deleteLater();
        probing_ = false;
        if (!folder.error.empty()) {
            append(tr("cannot probe: %1").arg(QString::fromStdString(folder.error)));
            update_buttons();
            return;
        }
        append(tr("[probe] files in %1").arg(QString::fromStdString(folder.dir)));
        try {
            startJob(runtime::probe_runtime(base, folder.dir, extra), ssh, id, true);
            // The run's folder goes when the job ends (detached ssh: the GUI thread waits on nothing).
            connect(job_.get(), &runtime::Job::finished, this,
                    [cluster, ssh, dir = folder.dir] { runtime::remove_probe_folder_detached(cluster, ssh, dir); });
        } catch (const InputError& e) {
            append(tr("cannot probe: %1: %2")
                       .arg(QString::fromStdString(e.pointer()), QString::fromStdString(e.message())));
            update_buttons();
        }
    });
    watcher->setFuture(QtConcurrent::run(
        [cluster, ssh, layout, timeout_ms] { return runtime::prepare_probe(cluster, ssh, layout, timeout_ms); }));
}

void RunPanel::showProbeResult() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Show probe result"), job_dir_,
                                                      tr("Probe results (*.json *.log);;All files (*)"));
    if (!path.isEmpty()) loadProbeResult(path);
}

bool RunPanel::loadProbeResult(const QString& path) {
    std::optional<runtime::ProbeResult> result;
    try {
        const QByteArray text =
            QByteArray::fromStdString(read_input_file(path.toStdString(), "probe result")).trimmed();
        if (text.startsWith('{')) result = runtime::probe_result_from_text(text.toStdString());
        else result = runtime::probe_result_from_log(path.toStdString());
    } catch (const InputError& e) {
        append(tr("probe result %1: %2: %3")
                   .arg(path, QString::fromStdString(e.pointer()), QString::fromStdString(e.message())));
        return false;
    }
    if (!result) {
        append(tr("probe result: %1 holds no probe result line").arg(path));
        return false;
    }
    // The bandwidths the cost model assumes for this cluster (node 0's GPU, as the estimate).
    estimate::Hardware hw;
    if (!project_->cluster.nodes.empty())
        if (const GpuSpec* gpu = find_gpu(project_->cluster, project_->cluster.nodes[0].gpu))
            hw = estimate::hardware_for(*gpu, project_->cluster, project_->training.precision);
    probe_checks_ = runtime::compare_probe(*result, project_->cluster, hw);
    int slow = 0, failed = 0;
    for (const auto& c : probe_checks_) {
        slow += c.slow ? 1 : 0;
        failed += c.membership_ok ? 0 : 1;
        append(QStringLiteral("[probe] ") + QString::fromStdString(c.message));
    }
    for (const auto& e : result->errors) append(QStringLiteral("[probe] error: ") + QString::fromStdString(e));
    status_->setText(tr("Probe (%1, %2 ranks): %3 groups, %4 slow, %5 failed the membership check")
                         .arg(QString::fromStdString(result->backend))
                         .arg(result->world_size)
                         .arg(probe_checks_.size())
                         .arg(slow)
                         .arg(failed));
    if (result->world_size != project_->world_size())
        append(tr("[probe] note: the result is for %1 ranks, the project has %2")
                   .arg(result->world_size)
                   .arg(project_->world_size()));
    emit probeChecked(probe_checks_);
    return true;
}

void RunPanel::stop() {
    if (job_) job_->stop();
}

void RunPanel::stopListedJob() {
    const QListWidgetItem* item = jobs_->currentItem();
    if (!item || stoppingListed_) return;
    const std::string id = item->data(kIdRole).toString().toStdString();
    if (job_ && !job_->done() && job_->plan().job_id == id) {
        stop();
        return;
    }
    std::string problem;
    const auto rec = runtime::find_job(job_dir_.toStdString(), id, &problem);
    if (!rec) {
        append(tr("cannot stop %1: %2").arg(QString::fromStdString(id), QString::fromStdString(problem)));
        return;
    }
    append(tr("[stop] stopping job %1 on every node…").arg(QString::fromStdString(id)));
    stoppingListed_ = true;
    update_buttons();
    // Blocking ssh, bounded per process: off the GUI thread, as the probe's uploads.
    auto* watcher = new QFutureWatcher<std::vector<runtime::StopOutcome>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        for (const auto& o : watcher->result())
            append(tr("[stop] %1 on %2: %3")
                       .arg(QString::fromStdString(o.label), QString::fromStdString(o.host),
                            QString::fromStdString(o.result)));
        watcher->deleteLater();
        stoppingListed_ = false;
        refreshJobs();
    });
    watcher->setFuture(QtConcurrent::run(
        [record = *rec] { return runtime::stop_job(record, runtime::SshOptions{}, runtime::load_ssh_profiles()); }));
}

void RunPanel::refreshJobs() {
    jobs_->clear();
    // The same reading as `paraplan-cli jobs` (job_summary.h), in the same folder.
    for (const auto& j : runtime::list_jobs(job_dir_.toStdString())) {
        const auto s = runtime::summarize(j);
        auto* item = new QListWidgetItem(
            QString::fromStdString(runtime::summary_line(s) + (j.error.empty() ? "" : "  (" + j.error + ")")), jobs_);
        item->setToolTip(QString::fromStdString(j.folder));
        item->setData(kIdRole, QString::fromStdString(j.id));
        item->setData(kLiveRole, !runtime::job_over(j.state));
    }
    update_buttons();
}

}   // namespace paraplan::widgets
