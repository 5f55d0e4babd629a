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

signals:
    void changed();
    void pathChanged(const QString& path);
    void modifiedChanged(bool modified);
    void saved(const QString& path);

private:
    friend class SnapshotCommand;
    // `cluster`: the shared copy of p.cluster an undo snapshot holds (made when null).
    void setContent(const paraplan::Project& p, std::shared_ptr<const paraplan::Cluster> cluster = nullptr);

    paraplan::Project project_;
    std::shared_ptr<const paraplan::Cluster> cluster_;   // project_.cluster, shared with undo snapshots
    std::vector<paraplan::Diagnostic> diagnostics_;
    paraplan::topology::RankMap rankMap_;
    QString path_;
    QUndoStack undo_;
};
