#pragma once
// Shared by the telemetry tests: recorded nvidia-smi output and a one-node cluster.
#include "project/cluster.h"

#include <QByteArray>
#include <QFile>
#include <QList>
#include <QString>
#include <QtGlobal>

// The lines of tests/data/nvidia-smi/<name>.
inline QList<QByteArray> lines_of(const char* name) {
    QFile f(QString(PARAPLAN_TEST_DATA) + "/nvidia-smi/" + name);
    if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", name);
    return f.readAll().split('\n');
}

inline paraplan::Cluster one_node(int gpus) {
    paraplan::Cluster c;
    paraplan::Node n;
    n.name = "node0";
    n.gpus = gpus;
    c.nodes.push_back(n);
    return c;
}
