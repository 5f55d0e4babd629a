#pragma once
// Crash recovery: while the document has unsaved changes, its content is written to
// a recovery file every minute (and on demand). A clean exit or a save removes it;
// a file left behind at start-up means the last session ended without saving.
// The minute's write runs on a worker from the document's immutable snapshot (at 131,072
// GPUs the file holds 16,384 nodes, a few hundred ms of work), and only when the content
// changed since the last write.
#include <QFuture>
#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

#include <cstdint>
#include <optional>

namespace paraplan {
struct Project;
}
class ProjectDocument;

class Recovery : public QObject {
    Q_OBJECT
public:
    // `dir`: where recovery files live (default: the app data location).
    Recovery(ProjectDocument* doc, QString dir = QString(), QObject* parent = nullptr);

    void start(int intervalMs = 60'000);
    QString recoveryFile() const;

    ~Recovery() override;

    // Writes the current content if it has unsaved changes (here, at once).
    void writeNow();
    // What the timer does: starts writing the current content on a worker if it has unsaved
    // changes that were not written yet (returns at once; nothing when one is being written).
    void autosave();
    bool writing() const { return writing_; }   // an autosave is on its worker
    void discard();                             // on clean exit

    struct Saved {
        QString originalPath;   // the file the work belonged to ("" if untitled)
        QString savedAt;        // ISO time
    };
    // Whether a previous session left a recovery file.
    std::optional<Saved> pending() const;
    // Loads the recovery file into the document as unsaved work. Throws InputError.
    void restore();

private:
    QString metaFile() const;
    void writeMeta();
    void autosaveFinished();
    bool isWritten() const;   // the file holds the document's current content
    ProjectDocument* doc_;
    QString dir_;
    QTimer timer_;
    bool wrote_ = false;   // the recovery file on disk is this session's
    std::uint64_t writtenProject_ = 0, writtenRevision_ = 0;
    bool writing_ = false;
    std::uint64_t writingProject_ = 0, writingRevision_ = 0;
    int generation_ = 0, writingGeneration_ = 0;   // discard() counts up: a write started before is void
    QFuture<bool> write_;
    QFutureWatcher<bool> watcher_;
};
