#pragma once
// The Compare view: two or more layouts side by side (the open project, project files,
// planner rows). One column per candidate with the figures `paraplan-cli compare` prints
// (core/compare: memory per stage, step-time breakdown, MFU, tokens/s, bubble, time to
// train), the differences against the first candidate (knobs, process groups that change
// or now cross nodes) and every candidate's simulated step on one time axis: the whole step
// as the estimate prices it, its k pipeline flushes back to back with the gradient reductions
// (estimate/step_flushes.h), as the Timeline view draws it.
#include "compare/compare.h"
#include "estimate/step_flushes.h"

#include <QWidget>

#include <optional>
#include <vector>

class ProjectEditor;
class QCustomPlot;
class QLabel;
class ProjectLoad;
class QPushButton;
class QTableWidget;
class QTreeWidget;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(ProjectEditor* editor, QWidget* parent = nullptr);

    // Adds a candidate (at most 8); `name` labels its column.
    void addProject(const QString& name, const paraplan::Project& p);
public slots:
    void addCurrentProject();   // a snapshot of the open project
public:
    // Adds a project file's layout, read at once (the screenshot harness).
    bool addFile(const QString& path, QString* error = nullptr);
    // Add File…: reads the file off the GUI thread (ProjectLoad, a progress dialog with Cancel
    // for a large one), then adds it; what went wrong shows in the view's hint line. False
    // while another file is being read.
    bool addFileInBackground(const QString& path);
    ProjectLoad* fileLoad() const { return load_; }
    QString hint() const;
    void removeCandidate(int index);
    void clear();
    int count() const { return int(names_.size()); }

    const paraplan::compare::Comparison& comparison() const { return cmp_; }
    QTableWidget* table() const { return table_; }
    QTreeWidget* differences() const { return diffs_; }
    QCustomPlot* plot() const { return plot_; }
    // The table cell of a figure ("step_s", "mfu", "peak_gib", "memory_stage_0", ...) for a candidate.
    QString cellText(const QString& figure, int candidate) const;
    // The simulated pipeline flush of each candidate (nullopt where it cannot be simulated), seconds.
    const std::vector<std::optional<paraplan::schedule::Timeline>>& timelines() const { return timelines_; }
    // Each candidate's flushes and reductions in its step (one flush where there is no estimate).
    const std::vector<paraplan::estimate::StepFlushes>& steps() const { return steps_; }
    // Where candidate i's drawn step ends: its k flushes and reductions, seconds (0: no timeline).
    double stepSpan(int i) const;
    double timeAxisUpper() const;   // the shared time axis' upper bound (the longest span), seconds

    static constexpr int kMaxCandidates = 8;

signals:
    void changed();

private:
    void recompute();
    void fillTable();
    void fillDifferences();
    void fillTimelines();

    ProjectEditor* editor_;
    std::vector<QString> names_;
    std::vector<paraplan::Project> projects_;
    paraplan::compare::Comparison cmp_;
    std::vector<std::optional<paraplan::schedule::Timeline>> timelines_;
    std::vector<paraplan::estimate::StepFlushes> steps_;
    QLabel* hint_;
    QTableWidget* table_;
    QTreeWidget* diffs_;
    QCustomPlot* plot_;
    QPushButton* addCurrent_;
    QPushButton* addFile_;
    ProjectLoad* load_ = nullptr;   // the file Add File… is reading
    QPushButton* clear_;
};
