#pragma once
// Link traffic: the bytes one training step puts on every link (the NVLink/PCIe fabric
// inside each node, the network between each pair of nodes), largest first, with the
// group that sends most of it; links that cross nodes are flagged. From core's step
// playback (estimate/step_playback.h), so it follows the estimate's communication model.
#include "estimate/step_playback.h"

#include <QWidget>

class QLabel;
class QTableWidget;

class LinkTrafficView : public QWidget {
    Q_OBJECT
public:
    explicit LinkTrafficView(QWidget* parent = nullptr);
    // Shows the links of `pb` (null: none, with `problem` as the reason).
    void setPlayback(const paraplan::estimate::StepPlayback* pb, const QString& problem = QString());
    QTableWidget* table() const { return table_; }
    QString summaryText() const;

private:
    QLabel* summary_;
    QTableWidget* table_;
};
