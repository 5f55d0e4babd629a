// The cluster canvas's scale-up domains: their outlines, the tiers outwards, and which tier a group crosses.
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

// Each scale-up domain's nodes in a grid of their own inside its outline, the domains in a grid
// whose shape follows the view's aspect ratio (one domain alone takes the view's shape).
void ClusterCanvas::layoutDomains(const QSizeF& cell, double gap) {
    const double pad = DomainsItem::kPad, head = DomainsItem::kHeader, apart = 2 * gap;
    const double aspect = view_->width() > 0 && view_->height() > 0 ? double(view_->width()) / view_->height() : 1.6;
    int most = 1;
    for (const auto& b : domains_) most = std::max(most, b.nodes);
    const int count = static_cast<int>(domains_.size());
    const double inner = count == 1 ? aspect : 1.0;
    const int ic = std::clamp(static_cast<int>(std::ceil(std::sqrt(most * inner * cell.height() / cell.width()))), 1,
                              most);
    const int ir = (most + ic - 1) / ic;
    const QSizeF block(ic * (cell.width() + gap) - gap + 2 * pad, head + ir * (cell.height() + gap) - gap + 2 * pad);
    const int oc = std::clamp(static_cast<int>(std::ceil(std::sqrt(count * aspect * block.height() / block.width()))),
                              1, count);
    for (int d = 0; d < count; ++d) {
        const auto& b = domains_[static_cast<std::size_t>(d)];
        const int col = d % oc, row = d / oc;   // the domain's place in the grid of domains
        const double x0 = col * (block.width() + apart), y0 = row * (block.height() + apart);
        for (int k = 0; k < b.nodes; ++k) {
            const std::size_t n = static_cast<std::size_t>(b.first_node) + static_cast<std::size_t>(k);
            if (n >= nodes_.size()) break;
            const int kc = k % ic, kr = k / ic;   // the node's place inside its domain
            nodes_[n]->setPos(x0 + pad + kc * (cell.width() + gap), y0 + head + pad + kr * (cell.height() + gap));
        }
    }
    const int orows = (count + oc - 1) / oc;
    scene_->setSceneRect(-gap, -gap, oc * (block.width() + apart) - apart + 2 * gap,
                         orows * (block.height() + apart) - apart + 2 * gap);
    overview_->setNodes(&nodes_);
    updateDomainItem();
}

namespace {
QString tierKindName(paraplan::network::TierKind k) {
    using paraplan::network::TierKind;
    switch (k) {
    case TierKind::NvLink: return QStringLiteral("NVLink");
    case TierKind::Xgmi: return QStringLiteral("xGMI");
    case TierKind::Pcie: return QStringLiteral("PCIe");
    case TierKind::ScaleOut: return QStringLiteral("scale-out");
    case TierKind::Switch: return QStringLiteral("switch");
    }
    return {};
}
}   // namespace

void ClusterCanvas::updateDomainItem() {
    std::vector<DomainsItem::Domain> out;
    const auto& project = tiles_->project;
    if (system_ && !domains_.empty() && project) {
        using paraplan::network::TierKind;
        const auto& cluster = project->cluster;
        const auto& up = system_->domain();
        // Which group of each switch tier every node lies in (the tier's blocks of GPUs).
        QStringList outward;
        if (const auto* net = system_->scale_out())
            outward << tr("%1 %2 × %3 Gbit/s per GPU, %4 rails")
                           .arg(QString::fromStdString(net->name))
                           .arg(net->nics_per_gpu)
                           .arg(net->nic_gbit)
                           .arg(net->rails);
        std::vector<std::pair<const paraplan::network::Tier*, std::vector<int>>> switches;
        for (const auto& t : system_->tiers) {
            if (t.kind != TierKind::Switch) continue;
            std::vector<int> of(cluster.nodes.size(), 0);
            if (t.gpus > 0)
                for (const auto& b : paraplan::network::node_blocks(cluster, t.gpus))
                    for (int k = 0; k < b.nodes; ++k)
                        of[static_cast<std::size_t>(b.first_node) + static_cast<std::size_t>(k)] = b.index;
            switches.emplace_back(&t, std::move(of));
        }
        for (const auto& b : domains_) {
            if (b.first_node + b.nodes > static_cast<int>(nodes_.size())) break;
            DomainsItem::Domain d;
            d.firstNode = b.first_node;
            d.nodes = b.nodes;
            for (int k = 0; k < b.nodes; ++k)
                d.rect |=
                    nodes_[static_cast<std::size_t>(b.first_node) + static_cast<std::size_t>(k)]->sceneBoundingRect();
            d.rect.adjust(-DomainsItem::kPad, -DomainsItem::kPad - DomainsItem::kHeader, DomainsItem::kPad,
                          DomainsItem::kPad);
            const QString gpus = b.gpus == up.domain_gpus ? tr("%1 GPUs").arg(b.gpus)
                                                          : tr("%1 of %2 GPUs").arg(b.gpus).arg(up.domain_gpus);
            d.title = tr("%1 domain %2 · %3 · %4 · %5 %6 GB/s per GPU each way%7%8")
                          .arg(tierKindName(up.kind))
                          .arg(b.index)
                          .arg(gpus, wording::count(b.nodes, tr("1 node"), tr("%1 nodes")),
                               QString::fromStdString(up.generation))
                          .arg(up.gpu_gbps())
                          .arg(up.reduction == "nvls" ? tr(" · NVLink SHARP") : QString(),
                               b.straddles ? tr(" · its last node runs into the next domain") : QString());
            QStringList line = outward;
            for (const auto& [t, of] : switches)
                line << (t->gpus > 0 ? tr("%1 %2 (%3 GPUs)")
                                           .arg(QString::fromStdString(t->name))
                                           .arg(of[static_cast<std::size_t>(b.first_node)])
                                           .arg(t->gpus)
                                     : tr("%1 (all GPUs)").arg(QString::fromStdString(t->name)));
            d.tiers = tr("Outwards: %1").arg(line.join(QStringLiteral(" → ")));
            out.push_back(std::move(d));
        }
    }
    domainsItem_->setDomains(std::move(out));
}

QString ClusterCanvas::tierCrossing(const std::vector<int>& members, bool* leaves) const {
    if (leaves) *leaves = false;
    const auto& m = editor_->rankMap();
    if (!system_ || domains_.empty() || members.empty() || !m.valid()) return {};
    for (int r : members) {
        if (r < 0 || r >= static_cast<int>(m.placement.size())) return {};
        const auto& s = m.placement[static_cast<std::size_t>(r)];
        if (s.node < 0 || s.node >= static_cast<int>(offsets_.size())) return {};
    }
    const auto shape = paraplan::network::group_shape(*system_, offsets_, m.placement, members);
    const QString kind = tierKindName(system_->domain().kind);
    if (shape.domains <= 1) return tr("inside one %1 domain").arg(kind);
    if (leaves) *leaves = true;
    QStringList tiers;
    if (const auto* net = system_->scale_out()) tiers << QString::fromStdString(net->name);
    for (const auto* t : paraplan::network::switch_tiers_crossed(*system_, shape.span_gpus))
        tiers << QString::fromStdString(t->name);
    return tr("crosses %1 %2 domains over %3").arg(shape.domains).arg(kind, tiers.join(QStringLiteral(" → ")));
}
