#include "canvas/clusteroverviewitem.h"

#include "canvas/canvastiles.h"
#include "canvas/nodeitem.h"
#include "common/theme.h"

#include <QApplication>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QVarLengthArray>
#include <QWidget>

#include <algorithm>
#include <utility>

namespace {
// The most common of `count` colours (first seen wins a tie; invalid ones skipped). Few
// distinct colours per block, so a short list is enough; colours compare as they are.
template <class ColourAt>
QColor majority(int count, ColourAt colourAt) {
    QVarLengthArray<std::pair<QColor, int>, 32> counts;
    qsizetype best = -1;
    for (int i = 0; i < count; ++i) {
        const QColor& c = colourAt(i);
        if (!c.isValid()) continue;
        qsizetype k = 0;
        while (k < counts.size() && !(counts[k].first == c)) ++k;
        if (k == counts.size()) counts.append({c, 0});
        if (++counts[k].second > (best < 0 ? 0 : counts[best].second)) best = k;
    }
    return best < 0 ? QColor() : counts[best].first;
}

// Mean heat of the sampled cells among `count` (red when any failed; invalid when none has a
// sample). `heatAt(i)` is null for a cell without a value.
template <class HeatAt>
QColor meanHeat(int count, HeatAt heatAt) {
    double sum = 0;
    int sampled = 0;
    for (int i = 0; i < count; ++i) {
        const HeatCell* h = heatAt(i);
        if (!h) continue;
        if (h->failed) return heat::failedColour();
        if (h->has) {
            sum += h->fraction;
            ++sampled;
        }
    }
    return sampled ? heat::colour(sum / sampled) : QColor();
}

const QColor& colourOf(const CanvasTiles& t, std::size_t k) {
    static const QColor none;
    const int c = t.colour[k];
    return c >= 0 ? t.colours[static_cast<std::size_t>(c)] : none;
}
}   // namespace

QColor ClusterOverviewItem::aggregate(const GpuTile* const* tiles, int count) {
    if (count <= 0) return {};
    if (tiles[0]->heat) return meanHeat(count, [&](int i) { return tiles[i]->heat ? &*tiles[i]->heat : nullptr; });
    return majority(count, [&](int i) -> const QColor& { return tiles[i]->fill; });
}

QColor ClusterOverviewItem::aggregate(const CanvasTiles& t, int first, int end) {
    if (end <= first) return {};
    if (t.heat) {
        static const HeatCell noSample;
        return meanHeat(end - first, [&](int i) {
            const HeatCell* h = t.heat->cell(t.rank[static_cast<std::size_t>(first) + static_cast<std::size_t>(i)]);
            return h ? h : &noSample;
        });
    }
    return majority(end - first, [&](int i) -> const QColor& {
        return colourOf(t, static_cast<std::size_t>(first) + static_cast<std::size_t>(i));
    });
}

ClusterOverviewItem::ClusterOverviewItem(const CanvasTiles* tiles) : tiles_(tiles) {
    setAcceptedMouseButtons(Qt::NoButton);   // presses go to the node items under it
    setFlag(ItemUsesExtendedStyleOption);    // exposedRect: paint only the blocks in view
    setZValue(5);
}

void ClusterOverviewItem::setNodes(const std::vector<NodeItem*>* nodes) {
    nodes_ = nodes;
    QRectF b;
    if (nodes_)
        for (const NodeItem* n : *nodes_) b |= n->sceneBoundingRect();
    if (b != bounds_) {
        prepareGeometryChange();
        bounds_ = b;
    }
    invalidate();
}

void ClusterOverviewItem::invalidate() {
    dirty_ = true;
    ++generation_;
    update();
}

const std::vector<ClusterOverviewItem::Block>& ClusterOverviewItem::nodeBlocks() const {
    if (dirty_) rebuild();
    return nodeBlocks_;
}

const std::vector<ClusterOverviewItem::Block>& ClusterOverviewItem::groupBlocks() const {
    if (dirty_) rebuild();
    return groupBlocks_;
}

void ClusterOverviewItem::rebuild() const {
    dirty_ = false;
    nodeBlocks_.clear();
    groupBlocks_.clear();
    if (!nodes_ || !tiles_) return;
    const CanvasTiles& t = *tiles_;
    const std::size_t count = std::min(nodes_->size(), static_cast<std::size_t>(t.nodeCount()));
    nodeBlocks_.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        const NodeItem* n = (*nodes_)[i];
        const int first = t.first[i], end = t.first[i + 1];
        bool marked = n->isSelected();
        for (int k = first; k < end && !marked && static_cast<std::size_t>(k) < t.highlighted.size(); ++k)
            marked = t.highlighted[static_cast<std::size_t>(k)];
        nodeBlocks_.push_back({n->sceneBoundingRect(), aggregate(t, first, end), marked, static_cast<int>(i), 1});
    }
    // Groups of kGroupNodes consecutive nodes, one block per row the group covers: the colour
    // most of its nodes show, or the mean heat of all its tiles.
    for (std::size_t g = 0; g < count; g += kGroupNodes) {
        const std::size_t end = std::min(count, g + kGroupNodes);
        bool mark = false;
        for (std::size_t i = g; i < end; ++i) mark = mark || nodeBlocks_[i].marked;
        const QColor colour = t.heat ? aggregate(t, t.first[g], t.first[end])
                                     : majority(static_cast<int>(end - g), [&](int i) -> const QColor& {
                                           return nodeBlocks_[g + static_cast<std::size_t>(i)].colour;
                                       });
        for (std::size_t i = g; i < end;) {
            Block b{nodeBlocks_[i].rect, colour, mark, static_cast<int>(i), 1};
            std::size_t j = i + 1;
            for (; j < end && nodeBlocks_[j].rect.top() == b.rect.top() && nodeBlocks_[j].rect.left() > b.rect.left();
                 ++j) {
                b.rect |= nodeBlocks_[j].rect;
                ++b.nodeCount;
            }
            groupBlocks_.push_back(b);
            i = j;
        }
    }
}

int ClusterOverviewItem::nodeAt(const QPointF& scenePos) const {
    for (const Block& b : nodeBlocks())
        if (b.rect.contains(scenePos)) return b.firstNode;
    return -1;
}

NodeItem* ClusterOverviewItem::nodeItemAt(const QPointF& scenePos) const {
    const int i = nodeAt(scenePos);
    return i >= 0 && nodes_ && i < static_cast<int>(nodes_->size()) ? (*nodes_)[static_cast<std::size_t>(i)] : nullptr;
}

void ClusterOverviewItem::paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget* w) {
    const qreal lod = opt->levelOfDetailFromTransform(p->worldTransform());
    lastDetail_ = detailFor(lod);
    lastBlocks_ = 0;
    if (lastDetail_ == Detail::Tiles) {
        // The node items draw their tiles, unless the view has their layer off (it is far out)
        // while this paint is near: a picture of the scene at its own scale. Draw them here then.
        if (!nodes_ || nodes_->empty() || nodes_->front()->drawn()) return;
        QStyleOptionGraphicsItem nodeOpt(*opt);
        for (NodeItem* n : *nodes_) {
            const QRectF r = n->sceneBoundingRect();
            if (!r.intersects(opt->exposedRect)) continue;
            nodeOpt.exposedRect = n->boundingRect();
            p->save();
            p->translate(n->pos());
            n->paint(p, &nodeOpt, w);
            p->restore();
        }
        return;
    }
    const QPalette& pal = w ? w->palette() : QApplication::palette();
    const auto& blocks = lastDetail_ == Detail::Nodes ? nodeBlocks() : groupBlocks();
    const QRectF exposed = opt->exposedRect;
    const QColor highlight = pal.color(QPalette::Highlight);
    const QColor none = pal.color(QPalette::Button);
    // A marked block (selected node, member of the selected group) gets a frame about two
    // pixels wide around it, whatever the zoom.
    const qreal ring = 2.0 / std::max(lod, 1e-6);
    for (const Block& b : blocks) {
        if (!b.rect.intersects(exposed)) continue;
        if (b.marked) p->fillRect(b.rect.adjusted(-ring, -ring, ring, ring), highlight);
        p->fillRect(b.rect, b.colour.isValid() ? b.colour : none);
        ++lastBlocks_;
    }
}
