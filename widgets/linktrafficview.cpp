#include "linktrafficview.h"

#include <QHeaderView>
#include <QLabel>
#include <QFont>
#include <QStringList>
#include <QTableView>
#include <QVBoxLayout>

using namespace paraplan::estimate;

namespace {
QString gib(double b) { return QString::number(b / (1024.0 * 1024 * 1024), 'f', 2); }
}   // namespace

void LinkTrafficModel::setLinks(std::vector<LinkTraffic> links) {
    beginResetModel();
    links_ = std::move(links);
    endResetModel();
}

int LinkTrafficModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(links_.size());
}

int LinkTrafficModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : 5; }

QVariant LinkTrafficModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case 0: return tr("Link");
    case 1: return tr("Fabric");
    case 2: return tr("GiB per step");
    case 3: return tr("Mostly");
    case 4: return tr("By group (GiB)");
    default: return {};
    }
}

QVariant LinkTrafficModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const LinkTraffic& k = links_[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case 0:
            return k.cross_node ? tr("⚠ node %1 ↔ node %2").arg(k.node_a).arg(k.node_b)
                                : tr("inside node %1").arg(k.node_a);
        case 1: return k.cross_node ? tr("network") : tr("NVLink / PCIe");
        case 2: return k.bytes / (1024.0 * 1024 * 1024);
        case 3: return QString::fromLatin1(group_label(k.top_group()));
        case 4: {
            QStringList by;
            for (int g = 0; g < kGroupKinds; ++g)
                if (k.by_group[std::size_t(g)] > 0)
                    by << QStringLiteral("%1 %2").arg(QString::fromLatin1(group_label(GroupKind(g))),
                                                      gib(k.by_group[std::size_t(g)]));
            return by.join(QStringLiteral(", "));
        }
        default: return {};
        }
    case Qt::UserRole:
        if (index.column() == 0) return k.cross_node;
        return {};
    case Qt::FontRole:
        if (k.cross_node) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        if (k.cross_node && index.column() == 0) return tr("This traffic crosses the network between two nodes");
        return {};
    default: return {};
    }
}

LinkTrafficView::LinkTrafficView(QWidget* parent) : QWidget(parent) {
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(8, 4, 8, 4);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("linkTrafficSummary"));
    summary_->setWordWrap(true);
    l->addWidget(summary_);
    model_ = new LinkTrafficModel(this);
    table_ = new QTableView(this);
    table_->setObjectName(QStringLiteral("linkTrafficTable"));
    table_->setModel(model_);
    table_->horizontalHeader()->setStretchLastSection(true);
    // Column widths from the first rows (the largest links), not from every one of them.
    table_->horizontalHeader()->setResizeContentsPrecision(64);
    table_->verticalHeader()->setVisible(false);
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    l->addWidget(table_, 1);
}

void LinkTrafficView::setPlayback(const StepPlayback* pb, const QString& problem) {
    if (!pb) {
        model_->setLinks({});
        summary_->setText(tr("No link traffic: %1").arg(problem));
        return;
    }
    double cross = 0, total = 0;
    int crossing = 0;
    for (const LinkTraffic& k : pb->links) {
        total += k.bytes;
        if (k.cross_node) {
            cross += k.bytes;
            ++crossing;
        }
    }
    model_->setLinks(pb->links);
    table_->resizeColumnsToContents();
    summary_->setText(tr("%1 links carry %2 GiB per step; %3 links cross nodes with %4 GiB (%5 %).")
                          .arg(pb->links.size())
                          .arg(gib(total))
                          .arg(crossing)
                          .arg(gib(cross))
                          .arg(total > 0 ? 100.0 * cross / total : 0.0, 0, 'f', 1));
}

QString LinkTrafficView::summaryText() const { return summary_->text(); }
