#pragma once
// Launch and follow a project's job: Test connection (per node), Dry run, Launch, Stop,
// the live log of every rank (bounded, ANSI escapes stripped) and the list of past jobs.
// Self-contained (the main window docks it); the logic lives in core/runtime.
#include "project/project.h"
#include "runtime/job.h"

#include <QWidget>

#include <memory>

class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace paraplan::widgets {

class RunPanel : public QWidget {
    Q_OBJECT
public:
    explicit RunPanel(QWidget* parent = nullptr);
    ~RunPanel() override;

    // The project to run and the folder its job folders go to.
    void setProject(const Project& project, const QString& job_dir);

    runtime::Job* job() const { return job_.get(); }
    QString logText() const;
    int pastJobCount() const;

public slots:
    void testConnection();
    void dryRun();
    void launch();
    void stop();
    void refreshJobs();

signals:
    void jobStarted(runtime::Job* job);
    void jobFinished();

private:
    void append(const QString& line);
    void update_buttons();

    Project project_;
    QString job_dir_;
    std::unique_ptr<runtime::Job> job_;
    QLabel* status_;
    QPushButton *check_, *dry_, *launch_, *stop_;
    QPlainTextEdit* log_;
    QListWidget* jobs_;
};

// Removes ANSI escape sequences (colours, cursor moves) from a log line.
QString strip_ansi(const QString& line);

}  // namespace paraplan::widgets
