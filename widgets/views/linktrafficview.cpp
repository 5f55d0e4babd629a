#include "views/linktrafficview.h"

#include <QAbstractTableModel>
#include <QFont>
#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

using namespace paraplan::estimate;

namespace {
QString gib(double b) { return QString::number(b / (1024.0 * 1024 * 1024), 'f', 2); }
}   // namespace

// The links of one playback (a copy: the player replaces its playback on each edit).
class LinkTrafficModel : public QAbstractTableModel {
public:
    using QAbstractTableModel::QAbstractTableModel;

    void setLinks(std::vector<LinkTraffic> links) {
        beginResetModel();
        links_ = std::move(links);
        endResetModel();
    }
    const std::vector<LinkTraffic>& links() const { return links_; }
    mutable long long rowsFormatted = 0;

    int rowCount(const QModelIndex& parent = {}) const override {
        return parent.isValid() ? 0 : static_cast<int>(links_.size());
    }
    int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : 5; }

    QVariant headerData(int section, Qt::Orientation o, int role) const override {
        if (o != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, o, role);
        switch (section) {
        case 0: return LinkTrafficView::tr("Link");
        case 1: return LinkTrafficView::tr("Fabric");
        case 2: return LinkTrafficView::tr("GiB per step");
        case 3: return LinkTrafficView::tr("Mostly");
        case 4: return LinkTrafficView::tr("By group (GiB)");
        default: return {};
        }
    }

    QVariant data(const QModelIndex& index, int role) const override {
        if (!index.isValid() || index.row() >= static_cast<int>(links_.size())) return {};
        const LinkTraffic& k = links_[static_cast<std::size_t>(index.row())];
        switch (role) {
        case Qt::DisplayRole: {
            if (index.column() == 0) ++rowsFormatted;   // once per row shown
            switch (index.column()) {
            case 0:
                return k.cross_node ? LinkTrafficView::tr("⚠ node %1 ↔ node %2").arg(k.node_a).arg(k.node_b)
                                    : LinkTrafficView::tr("inside node %1").arg(k.node_a);
            case 1:
                if (!k.tier.empty()) return QString::fromStdString(k.tier);   // the cluster's tiers
                return k.cross_node ? LinkTrafficView::tr("network") : LinkTrafficView::tr("NVLink / PCIe");
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
        }
        case Qt::FontRole:
            if (k.cross_node) {
                QFont f;
                f.setBold(true);
                return f;
            }
            return {};
        case Qt::ToolTipRole:
            if (index.column() == 0 && k.cross_node)
                return LinkTrafficView::tr("This traffic crosses the network between two nodes");
            return {};
        case Qt::UserRole:
            if (index.column() == 0) return k.cross_node;
            return {};
        default: return {};
        }
    }

private:
    std::vector<LinkTraffic> links_;
};

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
    table_->horizontalHeader()->setResizeContentsPrecision(200);   // columns sized from 200 rows at most
    table_->verticalHeader()->setVisible(false);
    // Rows of one height: the view places them without asking each row for its size.
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    l->addWidget(table_, 1);
}

void LinkTrafficView::setPlayback(const StepPlayback* pb, const QString& problem) {
    setUpdating(false);
    if (!pb) {
        model_->setLinks({});
        text_ = tr("No link traffic: %1").arg(problem);
        summary_->setText(text_);
        return;
    }
    model_->setLinks(pb->links);
    double cross = 0, total = 0;
    int crossing = 0;
    for (const LinkTraffic& k : pb->links) {
        total += k.bytes;
        if (k.cross_node) {
            cross += k.bytes;
            ++crossing;
        }
    }
    // Sized from the rows in view and a bounded number of others (not every link).
    table_->resizeColumnsToContents();
    QString text = tr("%1 links carry %2 GiB per step; %3 links cross nodes with %4 GiB (%5 %).")
                       .arg(pb->links.size())
                       .arg(gib(total))
                       .arg(crossing)
                       .arg(gib(cross))
                       .arg(total > 0 ? 100.0 * cross / total : 0.0, 0, 'f', 1);
    // On the cluster's tiers: what crosses each tier and how busy it keeps it over the step.
    QStringList tiers;
    for (const TierTraffic& t : pb->tiers)
        tiers << tr("%1 %2 GiB (%3 % busy)")
                     .arg(QString::fromStdString(t.name), gib(t.bytes))
                     .arg(100.0 * t.utilisation, 0, 'f', 1);
    if (!tiers.isEmpty()) text += QLatin1Char('\n') + tr("Per tier: %1.").arg(tiers.join(QStringLiteral("; ")));
    text_ = text;
    summary_->setText(text);
}

void LinkTrafficView::setUpdating(bool on) {
    if (on == updating_ || (on && text_.isEmpty())) return;   // nothing shown yet: nothing to mark
    updating_ = on;
    summary_->setText(on ? tr("Updating for the last edit: these links are of the project before it.\n%1").arg(text_)
                         : text_);
    QPalette pal = palette();
    if (on) pal.setColor(QPalette::Text, pal.color(QPalette::PlaceholderText));
    table_->setPalette(pal);
}

QString LinkTrafficView::summaryText() const { return summary_->text(); }

long long LinkTrafficView::rowsFormatted() const { return model_->rowsFormatted; }
