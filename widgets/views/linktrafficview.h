#pragma once
// Link traffic: the bytes one training step puts on every link (the NVLink/PCIe fabric
// inside each node, the network between each pair of nodes), largest first, with the
// group that sends most of it; links that cross nodes are flagged. From core's step
// playback (estimate/step_playback.h), so it follows the estimate's communication model.
// A cluster of 16,384 nodes has tens of thousands of links: the table reads them through a
// model, so only the rows on screen are ever turned into text.
#include "estimate/step_playback.h"

#include <QWidget>

#include <vector>

class QLabel;
class QTableView;
class LinkTrafficModel;

class LinkTrafficView : public QWidget {
    Q_OBJECT
public:
    explicit LinkTrafficView(QWidget* parent = nullptr);
    // Shows the links of `pb` (null: none, with `problem` as the reason).
    void setPlayback(const paraplan::estimate::StepPlayback* pb, const QString& problem = QString());
    // One row per link, in the playback's order (largest first). Column 0 holds the link's
    // name (Qt::UserRole: whether it crosses nodes), column 2 its GiB per step as a number.
    QTableView* table() const { return table_; }
    QString summaryText() const;
    // The links shown are of the project before the last edit (until the next setPlayback):
    // the summary says so and the rows are greyed.
    void setUpdating(bool on);
    bool updating() const { return updating_; }
    // How many rows have been turned into text since the view was made (tests: a refresh
    // formats the rows on screen, not every link).
    long long rowsFormatted() const;

private:
    QLabel* summary_;
    QTableView* table_;
    LinkTrafficModel* model_;
    QString text_;   // the summary without the updating note
    bool updating_ = false;
};
