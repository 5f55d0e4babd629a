#pragma once
// Link traffic: the bytes one training step puts on every link (the NVLink/PCIe fabric
// inside each node, the network between each pair of nodes), largest first, with the
// group that sends most of it; links that cross nodes are flagged. From core's step
// playback (estimate/step_playback.h), so it follows the estimate's communication model.
//
// A cluster of 16,384 nodes has tens of thousands of links: the table reads them through a
// model that formats only the rows on screen (no item object per cell), so showing a new
// step's links costs about as much at 131,072 GPUs as at 8.
#include "estimate/step_playback.h"

#include <QAbstractTableModel>
#include <QWidget>

#include <vector>

class QLabel;
class QTableView;

// The links of one step as table rows: Link, Fabric, GiB per step (a number), Mostly, By group.
// Column 0's UserRole is whether the link crosses nodes; those rows are bold.
class LinkTrafficModel : public QAbstractTableModel {
    Q_OBJECT
public:
    using QAbstractTableModel::QAbstractTableModel;
    void setLinks(std::vector<paraplan::estimate::LinkTraffic> links);
    int rowCount(const QModelIndex& parent = QModelIndex()) const override;
    int columnCount(const QModelIndex& parent = QModelIndex()) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<paraplan::estimate::LinkTraffic> links_;
};

class LinkTrafficView : public QWidget {
    Q_OBJECT
public:
    explicit LinkTrafficView(QWidget* parent = nullptr);
    // Shows the links of `pb` (null: none, with `problem` as the reason).
    void setPlayback(const paraplan::estimate::StepPlayback* pb, const QString& problem = QString());
    QTableView* table() const { return table_; }
    LinkTrafficModel* model() const { return model_; }
    QString summaryText() const;

private:
    QLabel* summary_;
    QTableView* table_;
    LinkTrafficModel* model_;
};
