#pragma once
// The auto-planner view: runs core/search's planner on the open project off the GUI
// thread (QtConcurrent with a QPromise: progress, cancel), lists the results in a
// sortable table with a step-time / memory scatter and its Pareto front, and applies
// a chosen row to the project as one undoable step.
#include "search/planner.h"

#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <memory>

class ProjectEditor;
class PlanModel;
class QComboBox;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

class PlannerPanel : public QWidget {
    Q_OBJECT
public:
    explicit PlannerPanel(ProjectEditor* editor, QWidget* parent = nullptr);
    ~PlannerPanel() override;

    // Call on ProjectDocument::changed: marks the current row and stale results.
    void refresh();

    PlanModel* model() const { return model_; }
    QSortFilterProxyModel* proxy() const { return proxy_; }
    QTableView* table() const { return table_; }
    QCustomPlot* plot() const { return plot_; }
    // The text the chart shows in place of points when it has none ("No layouts yet: press
    // Plan"); empty while it shows results.
    QString plotEmptyText() const;
    bool isRunning() const;
    bool hasRun() const { return hasRun_; }
    // The search the panel starts by itself the first time it is shown (so the table is never
    // empty) waits until the open state's analysis is at hand, so it never competes for the
    // cores with an edit's analysis, and is not started at all above this many GPUs (there it
    // runs on Plan / F5 only).
    static constexpr int kAutoRunMaxGpus = 16384;
    // The automatic search waits for the open state's analysis (refresh() starts it).
    bool autoRunPending() const { return autoRunPending_; }
    // Stale: the model, cluster or batch changed since the search, or another project is
    // open (New, Open): the rows no longer fit and cannot be applied.
    bool isStale() const;
    // The rows can still be applied: same project (ProjectEditor::projectId) in the state
    // searched (revision) or with the same model, cluster and batch.
    bool resultsFitProject() const;
    QString summaryText() const;
    const paraplan::search::PlanResult& result() const { return result_; }

    // Settings of the next run (also set from the panel's fields).
    void setConstraints(const QString& text);   // the CLI's --fix syntax
    void setObjective(paraplan::search::Objective o);
    void setFrameworks(const QStringList& ids);   // empty: the project's framework
    void setTop(int n);
    void setShowPareto(bool pareto);

public slots:
    void run();
    void cancel();
    // Applies the row (in the table's sorted order) to the project; false if refused.
    bool applyRow(int viewRow);
    bool applySelected();

signals:
    void started();
    void finished(bool cancelled);
    void applied(const QString& description);

protected:
    void showEvent(QShowEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    void onFinished();
    void showResults();
    void updatePlot();
    void updateButtons();
    QString baseKey() const;

    ProjectEditor* editor_;
    PlanModel* model_;
    QSortFilterProxyModel* proxy_;
    QComboBox* framework_;
    QComboBox* objective_;
    QComboBox* show_;
    QLineEdit* constraints_;
    QSpinBox* top_;
    QPushButton* run_;
    QPushButton* cancel_;
    QPushButton* apply_;
    QProgressBar* progress_;
    QLabel* summary_;
    QLabel* stale_;
    QTableView* table_;
    QCustomPlot* plot_;
    QCPItemText* plotEmpty_;   // centred in the axes while there is nothing to plot
    QFutureWatcher<paraplan::search::PlanResult> watcher_;
    std::shared_ptr<std::atomic<bool>> cancelFlag_;
    paraplan::search::PlanResult result_;
    double gpuMemoryGib_ = 0;
    std::string runKey_;               // the model, cluster and training the results are for
    std::uint64_t runProjectId_ = 0;   // the project (ProjectEditor::projectId) searched
    std::uint64_t runRevision_ = 0;    // and its state then (ProjectEditor::revision)
    bool hasRun_ = false;
    bool running_ = false;
    bool autoRunPending_ = false;
    void autoRun();
};
