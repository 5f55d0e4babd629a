#pragma once
// Live GPU view of a running job: a table (node, GPU, planned rank, util, memory,
// temperature, power, sample age) and a utilisation plot per GPU over a sliding window.
// Reads a TelemetryMonitor's store; self-contained (the main window docks it).
#include "runtime/telemetry.h"

#include <QPointer>
#include <QWidget>

class QCustomPlot;
class QLabel;
class QTableWidget;
class QTimer;

namespace paraplan::widgets {

class GpuMonitor : public QWidget {
    Q_OBJECT
public:
    explicit GpuMonitor(QWidget* parent = nullptr);

    // Shows `monitor`'s data (not owned; may be null to clear). window_s: plot span.
    void setMonitor(runtime::TelemetryMonitor* monitor, const Cluster& cluster, double window_s = 120);
    int rowCount() const;
    int graphCount() const;

public slots:
    void refresh();

private:
    QPointer<runtime::TelemetryMonitor> monitor_;
    Cluster cluster_;
    double window_s_ = 120;
    QLabel* status_;
    QTableWidget* table_;
    QCustomPlot* plot_;
    QTimer* timer_;
};

}   // namespace paraplan::widgets
