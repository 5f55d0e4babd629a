#include "recovery.h"

#include "projectdocument.h"
#include "util/local_dirs.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

Recovery::Recovery(ProjectDocument* doc, QString dir, QObject* parent)
    : QObject(parent), doc_(doc), dir_(std::move(dir)) {
    if (dir_.isEmpty()) dir_ = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    connect(&timer_, &QTimer::timeout, this, &Recovery::autosave);
    connect(&watcher_, &QFutureWatcherBase::finished, this, &Recovery::autosaveFinished);
    // Saving makes the recovery copy obsolete. (Not any return to a clean state: the
    // undo stack also reports one while it is destroyed, which is what a crash
    // must not look like. A file left by an earlier session waits for offerRecovery().)
    connect(doc_, &ProjectDocument::saved, this, [this] {
        if (wrote_ || writing_) discard();
    });
}

void Recovery::start(int intervalMs) { timer_.start(intervalMs); }

QString Recovery::recoveryFile() const { return QDir(dir_).filePath(QStringLiteral("recovery.paraplan.json")); }
QString Recovery::metaFile() const { return QDir(dir_).filePath(QStringLiteral("recovery.meta.json")); }

Recovery::~Recovery() {
    // A write still on its worker finishes (the file is renamed into place whole or not at all).
    watcher_.disconnect(this);
    write_.waitForFinished();
}

bool Recovery::isWritten() const {
    return wrote_ && writtenProject_ == doc_->projectId() && writtenRevision_ == doc_->revision();
}

void Recovery::writeNow() {
    if (!doc_->isModified()) return;
    write_.waitForFinished();   // an autosave on its worker writes the same file
    QDir().mkpath(dir_);
    try {
        paraplan::save_project(doc_->project(), recoveryFile().toStdString());
        wrote_ = true;
        writtenProject_ = doc_->projectId();
        writtenRevision_ = doc_->revision();
    } catch (const std::exception&) {
        return;   // best effort: never interrupt the user for a failed autosave
    }
    writeMeta();
}

void Recovery::autosave() {
    if (!doc_->isModified() || writing_ || isWritten()) return;
    QDir().mkpath(dir_);
    writing_ = true;
    writingProject_ = doc_->projectId();
    writingRevision_ = doc_->revision();
    writingGeneration_ = generation_;
    write_ = QtConcurrent::run([p = doc_->sharedProject(), file = recoveryFile().toStdString()] {
        try {
            paraplan::save_project(*p, file);
            return true;
        } catch (const std::exception&) {
            return false;   // best effort, as writeNow()
        }
    });
    watcher_.setFuture(write_);
}

void Recovery::autosaveFinished() {
    writing_ = false;
    if (!write_.result() || writingGeneration_ != generation_) return;   // discarded meanwhile
    wrote_ = true;
    writtenProject_ = writingProject_;
    writtenRevision_ = writingRevision_;
    writeMeta();
}

void Recovery::writeMeta() {
    // A new file renamed into place (util/local_dirs write_own_file, 0600), so a link planted at
    // the name is replaced rather than written through, as QFile's truncate (or QSaveFile) would.
    // Best effort, as the recovery copy itself.
    const QJsonObject o{{QStringLiteral("path"), doc_->path()},
                        {QStringLiteral("saved_at"), QDateTime::currentDateTime().toString(Qt::ISODate)}};
    (void)paraplan::write_own_file(metaFile().toStdString(), QJsonDocument(o).toJson().toStdString());
}

void Recovery::discard() {
    write_.waitForFinished();   // else an autosave on its worker could put the file back
    ++generation_;
    wrote_ = false;
    QFile::remove(recoveryFile());
    QFile::remove(metaFile());
}

std::optional<Recovery::Saved> Recovery::pending() const {
    if (!QFile::exists(recoveryFile())) return std::nullopt;
    Saved s;
    std::string problem;
    if (const auto text = paraplan::read_own_file(metaFile().toStdString(), 1u << 20, &problem)) {
        const QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(*text)).object();
        s.originalPath = o.value(QStringLiteral("path")).toString();
        s.savedAt = o.value(QStringLiteral("saved_at")).toString();
    }
    return s;
}

void Recovery::restore() {
    const auto saved = pending();
    const paraplan::Project p = paraplan::load_project(recoveryFile().toStdString());
    doc_->reset(p, saved ? saved->originalPath : QString());
    doc_->markModified();
    writeNow();   // keep the copy until the user saves
}
