#include "recovery.h"

#include "projectdocument.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>

Recovery::Recovery(ProjectDocument* doc, QString dir, QObject* parent)
    : QObject(parent), doc_(doc), dir_(std::move(dir)) {
    if (dir_.isEmpty()) dir_ = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    connect(&timer_, &QTimer::timeout, this, &Recovery::writeNow);
    // Saving makes the recovery copy obsolete. (Not any return to a clean state: the
    // undo stack also reports one while it is destroyed, which is what a crash
    // must not look like. A file left by an earlier session waits for offerRecovery().)
    connect(doc_, &ProjectDocument::saved, this, [this] {
        if (wrote_) discard();
    });
}

void Recovery::start(int intervalMs) { timer_.start(intervalMs); }

QString Recovery::recoveryFile() const { return QDir(dir_).filePath(QStringLiteral("recovery.paraplan.json")); }
QString Recovery::metaFile() const { return QDir(dir_).filePath(QStringLiteral("recovery.meta.json")); }

void Recovery::writeNow() {
    if (!doc_->isModified()) return;
    QDir().mkpath(dir_);
    try {
        paraplan::save_project(doc_->project(), recoveryFile().toStdString());
        wrote_ = true;
    } catch (const std::exception&) {
        return;   // best effort: never interrupt the user for a failed autosave
    }
    QFile meta(metaFile());
    if (meta.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        QJsonObject o{{QStringLiteral("path"), doc_->path()},
                      {QStringLiteral("saved_at"), QDateTime::currentDateTime().toString(Qt::ISODate)}};
        meta.write(QJsonDocument(o).toJson());
    }
}

void Recovery::discard() {
    wrote_ = false;
    QFile::remove(recoveryFile());
    QFile::remove(metaFile());
}

std::optional<Recovery::Saved> Recovery::pending() const {
    if (!QFile::exists(recoveryFile())) return std::nullopt;
    Saved s;
    QFile meta(metaFile());
    if (meta.open(QIODevice::ReadOnly)) {
        const QJsonObject o = QJsonDocument::fromJson(meta.readAll()).object();
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
