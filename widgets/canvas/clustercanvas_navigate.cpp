// The cluster canvas's navigation: fit, zoom level of detail, Go to, and the tiles' tooltips.
#include "canvas/clustercanvas.h"
#include "common/wording.h"

#include "catalog/catalog.h"
#include "project/reorder_nodes.h"
#include "canvas/canvasminimap.h"
#include "canvas/canvastiles.h"
#include "canvas/clustermime.h"
#include "canvas/clusteroverviewitem.h"
#include "canvas/clusterpalette.h"
#include "canvas/domainsitem.h"
#include "network/fabric.h"
#include "network/group.h"
#include "network/rack.h"
#include "network/systems.h"
#include "canvas/gotobar.h"
#include "canvas/grouplinksitem.h"
#include "canvas/nodeitem.h"
#include "document/projecteditor.h"
#include "common/theme.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QToolBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

using paraplan::Project;

void ClusterCanvas::requestFit() {
    fitPending_ = true;
    autoFit_ = true;
    layoutNodes();
    zoomToFit();
}

void ClusterCanvas::zoomToFit() {
    autoFit_ = true;
    // Until the view is on screen with its real size a fit would be for the wrong size: the
    // view's resize does it then.
    if (!view_->isVisible() || view_->viewport()->width() < 50 || view_->viewport()->height() < 50) {
        fitPending_ = true;
        return;
    }
    fitPending_ = false;
    view_->fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
    if (view_->transform().m11() > 1.5) view_->setTransform(QTransform::fromScale(1.5, 1.5));
    // A cluster that fits only below the usual minimum zoom can still be zoomed out a bit
    // further, to the blocks of nodes.
    view_->setMinimumScale(std::min(0.02, view_->transform().m11() / 2));
    minimap_->sync();
}

void ClusterCanvas::openGoTo() { goTo_->open(); }

void ClusterCanvas::syncDetail() {
    // The node items have no transform of their own: their level of detail is the view's scale.
    const int d = static_cast<int>(ClusterOverviewItem::detailFor(view_->transform().m11()));
    if (d == detail_) return;
    detail_ = d;
    const bool tiles = d == static_cast<int>(ClusterOverviewItem::Detail::Tiles);
    nodeLayer_->setOpacity(tiles ? 1.0 : 0.0);
}

void ClusterCanvas::centreOn(const QPointF& scenePos) {
    // Close enough to read the tiles (1:1), or closer if the user already is.
    autoFit_ = false;
    fitPending_ = false;
    const double scale = std::max(1.0, view_->transform().m11());
    view_->setTransform(QTransform::fromScale(scale, scale));
    view_->centerOn(scenePos);
    minimap_->sync();
}

bool ClusterCanvas::goTo(const QString& input) {
    const QString text = input.trimmed();
    const Project& p = editor_->project();
    auto fail = [this](const QString& why) {
        goTo_->showError(why);
        emit message(why);
        return false;
    };
    if (text.isEmpty()) return fail(tr("Type a rank number or a node name."));
    static const QRegularExpression rankForm(QStringLiteral("^(?:r|rank\\s*)?(\\d+)$"),
                                             QRegularExpression::CaseInsensitiveOption);
    const auto m = rankForm.match(text);
    const int world = p.world_size();
    if (m.hasMatch()) {
        bool ok = false;
        const qlonglong rank = m.captured(1).toLongLong(&ok);
        const auto placement = p.cluster.placement();
        if (!ok || rank >= static_cast<qlonglong>(placement.size()) || rank >= world)
            return fail(world == 1
                            ? tr("No rank %1: this cluster has rank 0 only.").arg(m.captured(1))
                            : tr("No rank %1: this cluster has ranks 0 to %2.").arg(m.captured(1)).arg(world - 1));
        const auto& slot = placement[static_cast<std::size_t>(rank)];
        if (slot.node < 0 || slot.node >= static_cast<int>(nodes_.size()))
            return fail(tr("Rank %1 has no GPU.").arg(rank));
        const int r = static_cast<int>(rank);
        scene_->clearSelection();
        NodeItem* node = nodes_[static_cast<std::size_t>(slot.node)];
        autoFit_ = false;   // the group selection below redraws; it must not refit
        selectGroupOf(r);
        emit groupSelected(r, groupKind());
        node = nodes_[static_cast<std::size_t>(slot.node)];
        node->setSelected(true);
        centreOn(node->mapToScene(node->tileRect(slot.local_rank).center()));
        emit message(tr("Rank %1: GPU %2 of %3")
                         .arg(r)
                         .arg(slot.local_rank)
                         .arg(QString::fromStdString(p.cluster.nodes[static_cast<std::size_t>(slot.node)].name)));
        return true;
    }
    // A node by name, else by host; exact first, then ignoring case.
    int found = -1;
    for (Qt::CaseSensitivity cs : {Qt::CaseSensitive, Qt::CaseInsensitive}) {
        for (std::size_t i = 0; i < p.cluster.nodes.size() && found < 0; ++i)
            if (QString::fromStdString(p.cluster.nodes[i].name).compare(text, cs) == 0) found = static_cast<int>(i);
        for (std::size_t i = 0; i < p.cluster.nodes.size() && found < 0; ++i)
            if (!p.cluster.nodes[i].host.empty() &&
                QString::fromStdString(p.cluster.nodes[i].host).compare(text, cs) == 0)
                found = static_cast<int>(i);
        if (found >= 0) break;
    }
    if (found < 0 || found >= static_cast<int>(nodes_.size())) {
        const auto& nodes = p.cluster.nodes;
        const QString known = nodes.empty()       ? tr("there are no nodes")
                              : nodes.size() == 1 ? tr("the node is %1").arg(QString::fromStdString(nodes.front().name))
                                                  : tr("nodes are %1 … %2")
                                                        .arg(QString::fromStdString(nodes.front().name),
                                                             QString::fromStdString(nodes.back().name));
        return fail(tr("No rank or node \"%1\": type a rank from 0 to %2, or a node name (%3).")
                        .arg(text)
                        .arg(std::max(0, world - 1))
                        .arg(known));
    }
    scene_->clearSelection();
    NodeItem* node = nodes_[static_cast<std::size_t>(found)];
    node->setSelected(true);
    centreOn(node->sceneBoundingRect().center());
    emit message(tr("Node %1").arg(QString::fromStdString(p.cluster.nodes[static_cast<std::size_t>(found)].name)));
    return true;
}

void ClusterCanvas::showTileTip(NodeItem* node, int local, const QPoint& globalPos) {
    QToolTip::showText(globalPos, tileToolTip(node->index(), local), view_);
}

QString ClusterCanvas::tileToolTip(int nodeIndex, int local) const {
    const Project& p = editor_->project();
    if (nodeIndex < 0 || nodeIndex >= static_cast<int>(nodes_.size())) return {};
    const NodeItem* node = nodes_[static_cast<std::size_t>(nodeIndex)];
    const auto& n = p.cluster.nodes.at(static_cast<std::size_t>(node->index()));
    QString text = tr("<b>%1</b> · host %2 · %3 × %4")
                       .arg(QString::fromStdString(n.name).toHtmlEscaped(),
                            QString::fromStdString(n.host.empty() ? n.name : n.host).toHtmlEscaped())
                       .arg(n.gpus)
                       .arg(QString::fromStdString(n.gpu));
    if (local >= 0 && local < node->tiles().size()) {
        const GpuTile& t = node->tiles()[local];
        text += tr("<br>GPU %1 · global rank <b>%2</b>").arg(local).arg(t.rank);
        if (const Heatmap* hm = shownHeatmap())
            text += QStringLiteral("<br>") + (t.rank >= 0
                                                  ? heat::tooltip(*hm, t.rank)
                                                  : tr("<b>%1</b>: no sample (no rank on this GPU)").arg(hm->metric));
        const auto& m = editor_->rankMap();
        if (t.rank >= 0 && m.valid() && t.rank < m.world_size) {
            QStringList coords;
            for (std::size_t i = 0; i < m.coord_names.size(); ++i)
                coords
                    << QStringLiteral("%1=%2").arg(QString::fromStdString(m.coord_names[i])).arg(m.coords(t.rank)[i]);
            text += QStringLiteral("<br>") + coords.join(QStringLiteral(" "));
            for (const auto& [kind, set] : m.groups) {
                const auto members = m.group_of(kind, t.rank);
                if (members.empty()) continue;
                QStringList ms;
                for (std::size_t i = 0; i < members.size() && i < 12; ++i) ms << QString::number(members[i]);
                if (members.size() > 12) ms << QStringLiteral("…");
                const auto span = m.group_span(kind, set.group_index[static_cast<std::size_t>(t.rank)]);
                const QString tiers = tierCrossing(std::vector<int>(members.begin(), members.end()));
                text += tr("<br>%1 group: [%2]%3")
                            .arg(QString::fromStdString(kind), ms.join(QStringLiteral(", ")),
                                 !tiers.isEmpty()     ? QStringLiteral(" · ") + tiers.toHtmlEscaped()
                                 : span.crosses_nodes ? tr(" · crosses nodes")
                                                      : QString());
            }
        }
        text += tr("<br><i>Click to highlight its %1 group.</i>").arg(groupKind());
    }
    return text;
}
