#pragma once
// The open project: its content, file path, unsaved state and undo history. Every
// change is a QUndoCommand with a readable name; after any change (edit, undo,
// redo, load) the document emits changed() once and views refresh from it.
#include "projecteditor.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <memory>

class ProjectDocument : public QObject, public ProjectEditor {
    Q_OBJECT
public:
    explicit ProjectDocument(QObject* parent = nullptr);
    ~ProjectDocument() override;

    const paraplan::Project& project() const override { return project_; }
    const std::vector<paraplan::Diagnostic>& diagnostics() const override { return diagnostics_; }
    const paraplan::topology::RankMap& rankMap() const override { return rankMap_; }
    std::uint64_t projectId() const override { return projectId_; }
    std::uint64_t revision() const override { return revision_; }
    bool edit(const QString& label, const std::function<void(paraplan::Project&)>& edit,
              QString* error = nullptr) override;
    bool applyChanges(const QString& label, const std::vector<paraplan::FixChange>& changes,
                      QString* error = nullptr) override;

    // `p` with the JSON-pointer `changes` applied, through the project file form
    // (so the loader checks the result). Throws paraplan::InputError.
    static paraplan::Project withChanges(const paraplan::Project& p,
                                         const std::vector<paraplan::FixChange>& changes);

    QString path() const { return path_; }
    QString displayName() const;   // file name, or "Untitled"
    bool isModified() const { return !undo_.isClean(); }
    QUndoStack* undoStack() { return &undo_; }

    // Replaces the content and clears the history (New, Open, Import, restore).
    void reset(const paraplan::Project& p, const QString& path);
    // Loads a file; on failure throws InputError and leaves the document unchanged.
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
        paraplan::Project rest;   // everything but the cluster (rest.cluster is empty)
        std::uint64_t revision = 0;   // revision() while this state is shown
    };
    // How many clusters the history holds besides the open project's (each cluster edit
    // keeps one; layout and training edits keep none).
    int historyClusters() const;

signals:
    void changed();
    // After reset(): another project (or a fresh copy) replaced the content and history.
    void replaced();
    void pathChanged(const QString& path);
    void modifiedChanged(bool modified);
    void saved(const QString& path);

private:
    friend class SnapshotCommand;
    void setContent(const paraplan::Project& p);
    void setState(const State& s);
    State stateOf(paraplan::Project p, std::uint64_t revision);

    paraplan::Project project_;
    std::shared_ptr<const paraplan::Cluster> cluster_;   // == project_.cluster, shared with the history
    std::uint64_t projectId_ = 0;
    std::uint64_t revision_ = 0;
    std::uint64_t lastRevision_ = 0;   // the last one handed out
    std::vector<paraplan::Diagnostic> diagnostics_;
    paraplan::topology::RankMap rankMap_;
    QString path_;
    QUndoStack undo_;
};
