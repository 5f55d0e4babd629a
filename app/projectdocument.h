#pragma once
// The open project: its content, file path, unsaved state and undo history. Every
// change is a QUndoCommand with a readable name; after any change (edit, undo,
// redo, load) the document emits changed() at once (the fields show the new values),
// then works out the analysis of the new state (rank map, findings, estimate, schedule)
// on a worker thread and emits analysisReady() when it has it; views refresh then.
#include "document/projecteditor.h"

#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QUndoStack>

#include <atomic>
#include <memory>

class ProjectDocument : public QObject, public ProjectEditor {
    Q_OBJECT
public:
    explicit ProjectDocument(QObject* parent = nullptr);
    ~ProjectDocument() override;

    const paraplan::Project& project() const override { return *project_; }
    // The current state as an immutable snapshot (what the analysis worker reads).
    std::shared_ptr<const paraplan::Project> sharedProject() const { return project_; }
    std::shared_ptr<const ProjectAnalysis> analysis() const override;
    std::shared_ptr<const ProjectAnalysis> latestAnalysis() const override { return analysis_; }
    // Waits (at most `ms`) until the current state's analysis has been delivered (analysisReady
    // emitted for it); processes events meanwhile. For scripts, pictures and tests.
    bool waitForAnalysis(int ms = 60000);
    // Works out (or waits for) the current state's analysis here and announces it at once, so
    // the views show it when this returns. For scripts and tests; the window never waits.
    void deliverNow();
    // How many analyses were started and how many of those were dropped as stale (tests).
    int analysesStarted() const { return started_; }
    int analysesDropped() const { return dropped_; }
    std::uint64_t projectId() const override { return projectId_; }
    std::uint64_t revision() const override { return revision_; }
    bool edit(const QString& label, const std::function<void(paraplan::Project&)>& edit,
              QString* error = nullptr) override;
    bool applyChanges(const QString& label, const std::vector<paraplan::FixChange>& changes,
                      QString* error = nullptr) override;

    // `p` with the JSON-pointer `changes` applied, through the project file form
    // (so the loader checks the result). Throws paraplan::InputError.
    static paraplan::Project withChanges(const paraplan::Project& p, const std::vector<paraplan::FixChange>& changes);

    QString path() const { return path_; }
    QString displayName() const;   // file name, or "Untitled"
    bool isModified() const { return !undo_.isClean(); }
    QUndoStack* undoStack() { return &undo_; }

    // Replaces the content and clears the history (New, Open, Import, restore). Returns without
    // waiting for the new project's analysis, as an edit does (analysisReady() follows).
    void reset(const paraplan::Project& p, const QString& path);
    // Loads a file (as reset()); on failure throws InputError and leaves the document unchanged.
    void open(const QString& path);
    // Saves (atomically); throws InputError on failure. Marks the document clean.
    void saveAs(const QString& path);
    // Marks the content as unsaved work (a restored recovery file).
    void markModified();

    // One state of the project as the undo history keeps it: the cluster (which holds
    // every node and can be large) is shared between the states that have the same one,
    // so an edit of the layout or training costs a few KB of history, not a cluster copy.
    struct State {
        std::shared_ptr<const paraplan::Cluster> cluster;
        paraplan::Project rest;       // everything but the cluster (rest.cluster is empty)
        std::uint64_t revision = 0;   // revision() while this state is shown
    };
    // How many clusters the history holds besides the open project's (each cluster edit
    // keeps one; layout and training edits keep none).
    int historyClusters() const;

signals:
    void changed();
    // The analysis of the current state is ready (latestAnalysis()->revision == revision).
    // Results of a state that is no longer current are dropped, never announced.
    void analysisReady(quint64 revision);
    // After reset(): another project (or a fresh copy) replaced the content and history.
    void replaced();
    void pathChanged(const QString& path);
    void modifiedChanged(bool modified);
    void saved(const QString& path);

private:
    friend class SnapshotCommand;
    // `clusterShared`: cluster_ and current_ already hold p's (an undo step's state).
    void setContent(paraplan::Project p, bool clusterShared = false);
    void setState(const State& s);
    State stateOf(paraplan::Project p, std::uint64_t revision);
    // `p` without its cluster, with `changes` applied, through the file form (the loader's
    // checks); one node of the open cluster stands in for it on the way. Throws InputError.
    paraplan::Project checkedRest(paraplan::Project p, const std::vector<paraplan::FixChange>& changes) const;
    // Pushes the undo step to `next` (none when nothing changed).
    bool push(const QString& label, State next);
    // Starts the current state's analysis on a worker, or (one already running) cancels that
    // one and starts this one when it returns: rapid edits leave one analysis running, the latest.
    void startAnalysis();
    void analysisFinished();
    // Announces the analysis of the current state once per change.
    void deliver();
    bool analysisIsCurrent(const std::shared_ptr<const ProjectAnalysis>& a) const {
        return a && a->revision == revision_ && a->project_id == projectId_;
    }

    std::shared_ptr<const paraplan::Project> project_;
    std::shared_ptr<const paraplan::Cluster> cluster_;   // == project_.cluster, shared with the history
    State current_;                                      // the state shown, as the history keeps it
    std::uint64_t projectId_ = 0;
    std::uint64_t revision_ = 0;
    std::uint64_t lastRevision_ = 0;                            // the last one handed out
    mutable std::shared_ptr<const ProjectAnalysis> analysis_;   // the newest delivered or waited for
    bool delivered_ = false;                                    // analysisReady emitted for the current state
    QFuture<std::shared_ptr<const ProjectAnalysis>> running_;
    QFutureWatcher<std::shared_ptr<const ProjectAnalysis>> watcher_;
    std::uint64_t runningRevision_ = 0, runningProjectId_ = 0;
    std::shared_ptr<std::atomic<bool>> runningCancel_;
    bool inFlight_ = false;
    int started_ = 0, dropped_ = 0;
    QString path_;
    QUndoStack undo_;
};
