#pragma once
// Memory and time view: per pipeline stage, the memory one GPU holds (parameters,
// gradients, optimizer states, activations, other) as stacked bars against the GPU's
// capacity line, and the step time broken down (compute, tp/cp/ep/pp/dp
// communication, bubble) with MFU and tokens/s. All figures come from
// core/estimate (estimate_project, as `paraplan-cli estimate` uses it).
#include "estimate/estimate.h"

#include <QWidget>

#include <optional>

class ProjectEditor;
class QCustomPlot;
class QCPBars;
class QLabel;

class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(ProjectEditor* editor, QWidget* parent = nullptr);

    void refresh();
    // The last estimate; empty when the layout could not be estimated (see errorText()).
    const std::optional<paraplan::estimate::Estimate>& estimate() const { return estimate_; }
    QString errorText() const { return error_; }
    QCustomPlot* memoryPlot() const { return memPlot_; }
    QCustomPlot* timePlot() const { return timePlot_; }
    // Number of bar groups (pipeline stages) drawn in the memory chart.
    int stageCount() const;
    QString summaryText() const;

private:
    void drawMemory();
    void drawTime();
    ProjectEditor* editor_;
    QCustomPlot* memPlot_;
    QCustomPlot* timePlot_;
    QList<QCPBars*> memBars_;
    QLabel* summary_;
    std::optional<paraplan::estimate::Estimate> estimate_;
    QString error_;
};
