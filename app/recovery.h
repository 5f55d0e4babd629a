#pragma once
// Crash recovery: while the document has unsaved changes, its content is written to
// a recovery file every minute (and on demand). A clean exit or a save removes it;
// a file left behind at start-up means the last session ended without saving.
#include <QObject>
#include <QString>
#include <QTimer>

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

    // Writes the current content if it has unsaved changes; removes the file when clean.
    void writeNow();
    void discard();   // on clean exit

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
    ProjectDocument* doc_;
    QString dir_;
    QTimer timer_;
    bool wrote_ = false;   // the recovery file on disk is this session's
};
