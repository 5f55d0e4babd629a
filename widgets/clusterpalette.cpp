#include "clusterpalette.h"

#include "catalog/catalog.h"
#include "clustermime.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>

namespace {
constexpr int kMimeRole = Qt::UserRole + 1;
constexpr int kPayloadRole = Qt::UserRole + 2;
}  // namespace

ClusterPalette::ClusterPalette(QWidget* parent) : QListWidget(parent) {
    setObjectName(QStringLiteral("palette"));
    setDragEnabled(true);
    setDragDropMode(QAbstractItemView::DragOnly);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setToolTip(tr("Drag a node template onto the canvas to add a node, or a single GPU onto a node to add it there."));
    QFont head = font();
    head.setBold(true);
    auto section = [&](const QString& text) {
        auto* it = new QListWidgetItem(text, this);
        it->setFlags(Qt::NoItemFlags);
        it->setFont(head);
    };
    section(tr("Node templates"));
    for (const auto& g : paraplan::catalog::gpus()) {
        for (int n : {8, 4}) {
            auto* it = new QListWidgetItem(tr("%1 × %2").arg(n).arg(QString::fromStdString(g.name)), this);
            it->setData(kMimeRole, clustermime::kNodeTemplate);
            it->setData(kPayloadRole, QJsonDocument(QJsonObject{{QStringLiteral("gpu"), QString::fromStdString(g.id)},
                                                                {QStringLiteral("gpus"), n}})
                                          .toJson(QJsonDocument::Compact));
            it->setToolTip(tr("A node with %1 %2 GPUs (%3 GiB each, %4). Drag onto the canvas.")
                               .arg(n)
                               .arg(QString::fromStdString(g.name))
                               .arg(g.memory_gib)
                               .arg(QString::fromStdString(g.intra_node_link)));
        }
    }
    section(tr("GPUs"));
    for (const auto& g : paraplan::catalog::gpus()) {
        auto* it = new QListWidgetItem(QString::fromStdString(g.name), this);
        it->setData(kMimeRole, clustermime::kGpuType);
        it->setData(kPayloadRole,
                    QJsonDocument(QJsonObject{{QStringLiteral("gpu"), QString::fromStdString(g.id)}}).toJson(QJsonDocument::Compact));
        it->setToolTip(tr("One %1 (%2 GiB, %3 bf16 TFLOP/s). Drag onto a node of the same type.")
                           .arg(QString::fromStdString(g.name))
                           .arg(g.memory_gib)
                           .arg(g.tflops_bf16));
    }
}

QStringList ClusterPalette::mimeTypes() const { return {clustermime::kNodeTemplate, clustermime::kGpuType}; }

QMimeData* ClusterPalette::mimeData(const QList<QListWidgetItem*>& items) const {
    if (items.isEmpty() || !items.front()->data(kMimeRole).isValid()) return nullptr;
    auto* mime = new QMimeData;
    mime->setData(items.front()->data(kMimeRole).toString(), items.front()->data(kPayloadRole).toByteArray());
    return mime;
}
