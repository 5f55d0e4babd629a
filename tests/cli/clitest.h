#pragma once
// Shared by the CLI tests: run paraplan-cli as a process and read what it printed.
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QtDebug>

struct Run {
    int code = -1;
    QByteArray out, err;
};

// Runs paraplan-cli with `args` (stdin: `stdin_data`; working directory: `cwd` if given).
inline Run cli(const QStringList& args, const QByteArray& stdin_data = {}, const QString& cwd = {}) {
    QProcess p;
    if (!cwd.isEmpty()) p.setWorkingDirectory(cwd);
    p.start(QStringLiteral(PARAPLAN_CLI), args);
    if (!stdin_data.isEmpty()) p.write(stdin_data);
    p.closeWriteChannel();
    p.waitForFinished(120000);
    return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

// stdout as one JSON object; an empty object (and a warning with the text) when it is not one.
inline QJsonObject parseObject(const QByteArray& out) {
    QJsonParseError e;
    const auto doc = QJsonDocument::fromJson(out, &e);
    if (e.error != QJsonParseError::NoError || !doc.isObject()) {
        qWarning() << "not a JSON object:" << e.errorString() << out.left(400);
        return {};
    }
    return doc.object();
}

// A built-in example project's file in the source tree.
inline QString example(const char* name) {
    return QStringLiteral(PARAPLAN_SOURCE_DIR "/resources/examples/%1.paraplan.json").arg(QLatin1String(name));
}

// A copy of a built-in example with some /layout keys changed.
inline QString write_variant(QTemporaryDir& dir, const char* ex, const QJsonObject& layout_patch, const char* name) {
    QFile in(example(ex));
    if (!in.open(QIODevice::ReadOnly)) return {};
    QJsonObject p = QJsonDocument::fromJson(in.readAll()).object();
    QJsonObject l = p["layout"].toObject();
    for (auto it = layout_patch.begin(); it != layout_patch.end(); ++it) l[it.key()] = it.value();
    p["layout"] = l;
    const QString path = dir.filePath(QLatin1String(name));
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly)) return {};
    out.write(QJsonDocument(p).toJson());
    return path;
}
