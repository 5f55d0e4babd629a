#pragma once
// Test helper: processes on this machine whose environment carries PARAPLAN_JOB=<id>
// (every process a Paraplan job starts inherits it), and pgrep -f on the id.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStringList>
#include <QThread>

#include <string>

inline QStringList processes_with_tag(const std::string& job_id) {
    QStringList pids;
    const QByteArray needle = QByteArray("PARAPLAN_JOB=") + QByteArray::fromStdString(job_id);
    const auto entries = QDir("/proc").entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString& e : entries) {
        bool ok = false;
        e.toInt(&ok);
        if (!ok) continue;
        QFile f("/proc/" + e + "/environ");
        if (!f.open(QIODevice::ReadOnly)) continue;
        for (const QByteArray& kv : f.readAll().split('\0'))
            if (kv == needle) pids << e;
    }
    return pids;
}

// pgrep -f: the wrapper shells carry the job id on their command line.
inline QStringList pgrep_f(const std::string& pattern) {
    QProcess p;
    p.start("pgrep", {"-f", QString::fromStdString(pattern)});
    p.waitForFinished(5000);
    QStringList pids = QString::fromUtf8(p.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
    return pids;
}

// Waits (polling) until no tagged process is left; returns what is left.
inline QStringList wait_no_tagged(const std::string& job_id, int timeout_ms) {
    QStringList left;
    for (int waited = 0; waited <= timeout_ms; waited += 100) {
        left = processes_with_tag(job_id);
        if (left.isEmpty()) return left;
        QThread::msleep(100);
    }
    return left;
}
