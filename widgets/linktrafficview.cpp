#include "linktrafficview.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace paraplan::estimate;

namespace {
QString gib(double b) { return QString::number(b / (1024.0 * 1024 * 1024), 'f', 2); }
}   // namespace

LinkTrafficView::LinkTrafficView(QWidget* parent) : QWidget(parent) {
    auto* l = new QVBoxLayout(this);
    l->setContentsMargins(8, 4, 8, 4);
    summary_ = new QLabel(this);
    summary_->setObjectName(QStringLiteral("linkTrafficSummary"));
    summary_->setWordWrap(true);
    l->addWidget(summary_);
    table_ = new QTableWidget(this);
    table_->setObjectName(QStringLiteral("linkTrafficTable"));
    table_->setColumnCount(5);
    table_->setHorizontalHeaderLabels(
        {tr("Link"), tr("Fabric"), tr("GiB per step"), tr("Mostly"), tr("By group (GiB)")});
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->verticalHeader()->setVisible(false);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    l->addWidget(table_, 1);
}

void LinkTrafficView::setPlayback(const StepPlayback* pb, const QString& problem) {
    table_->setRowCount(0);
    if (!pb) {
        summary_->setText(tr("No link traffic: %1").arg(problem));
        return;
    }
    table_->setRowCount(int(pb->links.size()));
    double cross = 0, total = 0;
    int crossing = 0;
    for (int i = 0; i < int(pb->links.size()); ++i) {
        const LinkTraffic& k = pb->links[std::size_t(i)];
        total += k.bytes;
        if (k.cross_node) {
            cross += k.bytes;
            ++crossing;
        }
        const QString name = k.cross_node ? tr("⚠ node %1 ↔ node %2").arg(k.node_a).arg(k.node_b)
                                          : tr("inside node %1").arg(k.node_a);
        QStringList by;
        for (int g = 0; g < kGroupKinds; ++g)
            if (k.by_group[std::size_t(g)] > 0)
                by << QStringLiteral("%1 %2").arg(QString::fromLatin1(group_label(GroupKind(g))),
                                                  gib(k.by_group[std::size_t(g)]));
        auto* a = new QTableWidgetItem(name);
        auto* b = new QTableWidgetItem(k.cross_node ? tr("network") : tr("NVLink / PCIe"));
        auto* c = new QTableWidgetItem;
        c->setData(Qt::DisplayRole, k.bytes / (1024.0 * 1024 * 1024));
        auto* d = new QTableWidgetItem(QString::fromLatin1(group_label(k.top_group())));
        auto* e = new QTableWidgetItem(by.join(QStringLiteral(", ")));
        if (k.cross_node) {
            QFont f = a->font();
            f.setBold(true);
            for (auto* it : {a, b, c, d, e}) it->setFont(f);
            a->setToolTip(tr("This traffic crosses the network between two nodes"));
        }
        a->setData(Qt::UserRole, k.cross_node);
        table_->setItem(i, 0, a);
        table_->setItem(i, 1, b);
        table_->setItem(i, 2, c);
        table_->setItem(i, 3, d);
        table_->setItem(i, 4, e);
    }
    table_->resizeColumnsToContents();
    summary_->setText(tr("%1 links carry %2 GiB per step; %3 links cross nodes with %4 GiB (%5 %).")
                          .arg(pb->links.size())
                          .arg(gib(total))
                          .arg(crossing)
                          .arg(gib(cross))
                          .arg(total > 0 ? 100.0 * cross / total : 0.0, 0, 'f', 1));
}

QString LinkTrafficView::summaryText() const { return summary_->text(); }
