#include "canvas/clusterpalette.h"

#include "catalog/catalog.h"
#include "canvas/clustermime.h"
#include "network/rack.h"
#include "network/systems.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QPainter>
#include <QPixmap>
#include <QScrollBar>

#include <algorithm>

namespace {
constexpr int kMimeRole = Qt::UserRole + 1;
constexpr int kPayloadRole = Qt::UserRole + 2;

// A small picture of a node (a frame with n GPU chips) or of one GPU chip.
QIcon chipIcon(int gpus, const QColor& c) {
    QPixmap pm(32, 32);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    if (gpus <= 1) {
        p.setBrush(c);
        p.setPen(c.darker(140));
        p.drawRoundedRect(QRectF(6, 6, 20, 20), 3, 3);
    } else {
        p.setPen(QPen(c.darker(150), 1.2));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(1.5, 5.5, 29, 21), 3, 3);
        const int cols = 4, rows = (gpus + cols - 1) / cols;
        for (int i = 0; i < gpus; ++i) {
            const int row = i / cols, col = i % cols;
            p.fillRect(QRectF(4 + col * 6.4, 8 + row * (16.0 / rows), 5, 16.0 / rows - 1.5), c);
        }
    }
    return QIcon(pm);
}
}   // namespace

ClusterPalette::ClusterPalette(QWidget* parent) : QListWidget(parent) {
    setObjectName(QStringLiteral("palette"));
    setDragEnabled(true);
    setDragDropMode(QAbstractItemView::DragOnly);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setIconSize(QSize(24, 24));
    setSpacing(1);
    setToolTip(
        tr("Drag a system onto the canvas to add one of its racks, a node template to add a node, or a "
           "single GPU onto a node to add it there."));
    QFont head = font();
    head.setBold(true);
    auto section = [&](const QString& text) {
        auto* it = new QListWidgetItem(text, this);
        it->setFlags(Qt::NoItemFlags);
        it->setFont(head);
    };
    section(tr("Systems"));
    for (const auto& sys : paraplan::network::systems()) {
        const auto shape = paraplan::network::rack_shape(sys);
        const auto& d = sys.domain();
        const QString id = QString::fromStdString(sys.id);
        auto* it = new QListWidgetItem(
            shape.nodes > 1 ? tr("%1 (%2 × %3)").arg(id).arg(shape.nodes).arg(shape.gpus_per_node) : id, this);
        it->setIcon(chipIcon(std::min(shape.gpus(), 16), QColor(0xCC, 0x79, 0xA7)));
        it->setData(kMimeRole, clustermime::kSystem);
        it->setData(kPayloadRole,
                    QJsonDocument(QJsonObject{{QStringLiteral("system"), id}}).toJson(QJsonDocument::Compact));
        const QString rack = shape.nodes > 1
                                 ? tr("one rack: %1 nodes (trays) of %2 %3 GPUs in one %4-GPU %5 domain")
                                       .arg(shape.nodes)
                                       .arg(shape.gpus_per_node)
                                       .arg(QString::fromStdString(sys.gpu))
                                       .arg(d.domain_gpus)
                                       .arg(QString::fromStdString(d.generation))
                                 : tr("one node of %1 %2 GPUs (%3)")
                                       .arg(shape.gpus_per_node)
                                       .arg(QString::fromStdString(sys.gpu), QString::fromStdString(d.generation));
        it->setToolTip(tr("<b>%1</b><br>Adds %2, and makes the cluster this system (its network tiers). Dropped on "
                          "a cluster of another system, it replaces that cluster (Ctrl+Z undoes it).")
                           .arg(QString::fromStdString(sys.name).toHtmlEscaped(), rack));
    }
    section(tr("Node templates"));
    for (const auto& g : paraplan::catalog::gpus()) {
        for (int n : {8, 4}) {
            auto* it = new QListWidgetItem(tr("%1 × %2").arg(n).arg(QString::fromStdString(g.id)), this);
            it->setIcon(chipIcon(n, QColor(0x00, 0x72, 0xB2)));
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
        auto* it = new QListWidgetItem(QString::fromStdString(g.id), this);
        it->setIcon(chipIcon(1, QColor(0x00, 0x9E, 0x73)));
        it->setData(kMimeRole, clustermime::kGpuType);
        it->setData(kPayloadRole, QJsonDocument(QJsonObject{{QStringLiteral("gpu"), QString::fromStdString(g.id)}})
                                      .toJson(QJsonDocument::Compact));
        it->setToolTip(tr("One %1 (%2 GiB, %3 bf16 TFLOP/s). Drag onto a node of the same type.")
                           .arg(QString::fromStdString(g.name))
                           .arg(g.memory_gib)
                           .arg(g.tflops_bf16));
    }
}

QSize ClusterPalette::sizeHint() const {
    const int width = sizeHintForColumn(0) + 2 * spacing() + 2 * frameWidth() + verticalScrollBar()->sizeHint().width();
    return {width, QListWidget::sizeHint().height()};
}

QStringList ClusterPalette::mimeTypes() const {
    return {clustermime::kSystem, clustermime::kNodeTemplate, clustermime::kGpuType};
}

QMimeData* ClusterPalette::mimeData(const QList<QListWidgetItem*>& items) const {
    if (items.isEmpty() || !items.front()->data(kMimeRole).isValid()) return nullptr;
    auto* mime = new QMimeData;
    mime->setData(items.front()->data(kMimeRole).toString(), items.front()->data(kPayloadRole).toByteArray());
    return mime;
}

QString ClusterPalette::currentSystem() const {
    const QListWidgetItem* it = currentItem();
    if (!it || it->data(kMimeRole).toString() != clustermime::kSystem) return {};
    return QJsonDocument::fromJson(it->data(kPayloadRole).toByteArray())
        .object()
        .value(QStringLiteral("system"))
        .toString();
}

std::optional<std::pair<QString, int>> ClusterPalette::currentTemplate() const {
    const QListWidgetItem* it = currentItem();
    if (!it || it->data(kMimeRole).toString() != clustermime::kNodeTemplate) return std::nullopt;
    const QJsonObject o = QJsonDocument::fromJson(it->data(kPayloadRole).toByteArray()).object();
    return std::make_pair(o.value(QStringLiteral("gpu")).toString(), o.value(QStringLiteral("gpus")).toInt(8));
}
