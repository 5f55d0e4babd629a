// The cluster canvas's colouring: the axis coloured, a job's live overlay, and the selected group's links.
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

void ClusterCanvas::setColourAxis(const QString& axis) {
    preferredAxis_ = axis;
    if (!axis.startsWith(QStringLiteral("live:"))) layoutAxis_ = axis;
    clearGroupSelection();
    refresh();
}

QString ClusterCanvas::colourAxis() const { return colourBy_->currentData().toString(); }

void ClusterCanvas::setLiveOverlay(const LiveOverlay& overlay) {
    // The first overlay, or one from the other source (playback <-> live job), is shown.
    const bool first = live_.empty() || live_.playback != overlay.playback;
    live_ = overlay;
    if (first && !live_.empty()) preferredAxis_ = heat::kUtilization;
    refresh();
}

void ClusterCanvas::updateLiveOverlay(const LiveOverlay& overlay) {
    if (live_.empty() || live_.playback != overlay.playback || colourAxis() != heat::kUtilization ||
        overlay.utilization.cells.size() != live_.utilization.cells.size())
        return setLiveOverlay(overlay);
    live_ = overlay;   // the tiles read it in place (CanvasTiles::heat): no node item is touched
    tiles_->touch();
    overview_->invalidate();
    minimap_->update();
    view_->viewport()->update();   // one rectangle, not one per node
    legend_->setHeatmap(live_.utilization);
    if (info_->text() != live_.utilization.summary) info_->setText(live_.utilization.summary);
}

void ClusterCanvas::clearLiveOverlay() {
    live_ = {};
    if (preferredAxis_.startsWith(QStringLiteral("live:"))) preferredAxis_ = layoutAxis_;
    refresh();
}

const Heatmap* ClusterCanvas::shownHeatmap() const {
    const QString axis = colourAxis();
    if (axis == heat::kUtilization) return &live_.utilization;
    if (axis == heat::kMemory) return &live_.memory;
    return nullptr;
}

std::optional<HeatCell> ClusterCanvas::tileHeat(int node, int local) const {
    if (node < 0 || node >= static_cast<int>(nodes_.size())) return std::nullopt;
    const auto& tiles = nodes_[static_cast<std::size_t>(node)]->tiles();
    if (local < 0 || local >= tiles.size()) return std::nullopt;
    return tiles[local].heat;
}

QString ClusterCanvas::groupKind() const {
    const auto& m = editor_->rankMap();
    const std::string axis = colourAxis().toStdString();
    if (m.has_group(axis)) return colourAxis();
    return m.has_group("tp") ? QStringLiteral("tp") : QString();
}

int ClusterCanvas::rankAt(int node, int local) const {
    if (node < 0 || node >= static_cast<int>(nodes_.size())) return -1;
    const auto& tiles = nodes_[static_cast<std::size_t>(node)]->tiles();
    return local >= 0 && local < tiles.size() ? tiles[local].rank : -1;
}

void ClusterCanvas::selectGroupOf(int rank) {
    groupRank_ = rank;
    refresh();
}

void ClusterCanvas::clearGroupSelection() {
    groupRank_ = -1;
    groupMembers_.clear();
}

int ClusterCanvas::crossingLinks() const {
    int n = 0;
    for (const auto& l : links_->links()) n += l.leavesDomain;
    return n;
}

void ClusterCanvas::updateLinks() {
    const auto& m = editor_->rankMap();
    groupMembers_.clear();
    std::vector<GroupLinksItem::Link> links;
    const QString kind = groupKind();
    if (groupRank_ >= 0 && m.valid() && groupRank_ < m.world_size && !kind.isEmpty()) {
        const auto members = m.group_of(kind.toStdString(), groupRank_);
        groupMembers_.assign(members.begin(), members.end());
        // Tile centres of the members, in group order: a ring as collectives run it.
        std::vector<QPointF> centre(groupMembers_.size());
        std::vector<int> nodeOf(groupMembers_.size(), -1);
        for (std::size_t i = 0; i < groupMembers_.size(); ++i) {
            const auto& s = m.placement[static_cast<std::size_t>(groupMembers_[i])];
            if (s.node < 0 || s.node >= static_cast<int>(nodes_.size())) continue;
            NodeItem* n = nodes_[static_cast<std::size_t>(s.node)];
            centre[i] = n->mapToScene(n->tileRect(s.local_rank).center());
            nodeOf[i] = s.node;
        }
        const std::size_t k = groupMembers_.size();
        // Where a domain holds several nodes a link leaves it when its two ends lie in two
        // domains (group_shape of the pair), else when they lie on two nodes.
        const bool byDomain = !domains_.empty() && system_;
        for (std::size_t i = 0; k > 1 && i < k; ++i) {
            const std::size_t j = (i + 1) % k;
            if (j == 0 && k == 2) break;   // two members: one link
            bool leaves = nodeOf[i] != nodeOf[j];
            if (byDomain && nodeOf[i] >= 0 && nodeOf[j] >= 0 && nodeOf[i] < static_cast<int>(offsets_.size()) &&
                nodeOf[j] < static_cast<int>(offsets_.size())) {
                const std::vector<int> pair = {groupMembers_[i], groupMembers_[j]};
                leaves = paraplan::network::group_shape(*system_, offsets_, m.placement, pair).domains > 1;
            }
            links.push_back({QLineF(centre[i], centre[j]), leaves});
        }
        const auto span = m.group_span(
            kind.toStdString(), m.group_set(kind.toStdString())->group_index[static_cast<std::size_t>(groupRank_)]);
        QStringList ranks;
        for (std::size_t i = 0; i < groupMembers_.size() && i < 16; ++i) ranks << QString::number(groupMembers_[i]);
        if (groupMembers_.size() > 16) ranks << QStringLiteral("…");
        bool leaves = false;
        const QString tiers = tierCrossing(groupMembers_, &leaves);
        QString crossing;
        if (!tiers.isEmpty()) {
            // Domains of several nodes: what is slow is leaving the domain, not the node.
            crossing = leaves ? tr(" · <span style='color:%1'>%2 (dashed links)</span>")
                                    .arg(theme::errorColor(palette()).name(), tiers.toHtmlEscaped())
                              : QStringLiteral(" · ") + tiers.toHtmlEscaped();
        } else if (span.crosses_nodes) {
            crossing = tr(" · <span style='color:%1'>crosses nodes (dashed links)</span>")
                           .arg(theme::errorColor(palette()).name());
        }
        info_->setText(tr("<b>%1 group</b> of rank %2: [%3] · %4%5")
                           .arg(kind, QString::number(groupRank_), ranks.join(QStringLiteral(", ")),
                                span.nodes_spanned == 1 ? tr("1 node") : tr("%1 nodes").arg(span.nodes_spanned),
                                crossing));
    }
    links_->setLinks(std::move(links));
    // The members' tiles are marked in the canvas's tiles (the node items follow when painted).
    CanvasTiles& t = *tiles_;
    std::vector<char> hi(static_cast<std::size_t>(std::max(0, m.world_size)), 0);
    for (int r : groupMembers_) hi[static_cast<std::size_t>(r)] = 1;
    t.highlighted.assign(t.rank.size(), 0);
    if (!groupMembers_.empty())
        for (std::size_t k = 0; k < t.rank.size(); ++k) {
            const int r = t.rank[k];
            t.highlighted[k] = r >= 0 && r < static_cast<int>(hi.size()) && hi[static_cast<std::size_t>(r)];
        }
    t.touch();
    overview_->invalidate();
    minimap_->update();
    view_->viewport()->update();
}
