#pragma once
// Level of detail for large clusters. When the canvas is zoomed out so far that a GPU
// tile is a few pixels, tiles cannot be read: this one item then draws each node as a
// single block, and further out each block of kGroupNodes consecutive nodes (the cluster
// model has no racks or pods), coloured by what its tiles show: under the chosen "Colour by"
// group the colour most of its tiles have (for a block of nodes, most of its nodes), under a
// live heat map the mean of the sampled values. The node items are not drawn at those levels
// (see NodeLayerItem), so a repaint costs one fill per visible block.
#include "canvas/canvasdetail.h"
#include "common/heatmap.h"

#include <QColor>
#include <QGraphicsItem>
#include <QRectF>
#include <QVector>

#include <vector>

class NodeItem;
struct CanvasTiles;
struct GpuTile;

// The parent of all node items. Far out the canvas makes it fully transparent: the view then
// skips the whole layer at once (no walk over thousands of node items per repaint), their
// updates are dropped and they are not hit; their selection is kept.
class NodeLayerItem : public QGraphicsItem {
public:
    NodeLayerItem() { setFlag(ItemHasNoContents); }
    QRectF boundingRect() const override { return {}; }
    void paint(QPainter*, const QStyleOptionGraphicsItem*, QWidget*) override {}
};

class ClusterOverviewItem : public QGraphicsItem {
public:
    // The levels and their thresholds (canvasdetail.h, shared with NodeItem).
    using Detail = CanvasDetail;
    static constexpr qreal kNodeBlockLod = canvas_detail::kNodeBlockLod;
    static constexpr qreal kGroupBlockLod = canvas_detail::kGroupBlockLod;
    static constexpr int kGroupNodes = canvas_detail::kGroupNodes;
    static Detail detailFor(qreal lod) { return canvas_detail::detailFor(lod); }

    // The colour a block of these tiles shows: the most common fill (first seen wins a tie),
    // or, when the tiles show a heat map, the scale colour of the mean of the sampled values
    // (red when any failed; invalid when none has a sample). Invalid for no tiles.
    static QColor aggregate(const GpuTile* const* tiles, int count);

    // The colour of a block from the canvas's tiles [first, end) (same rule as aggregate()).
    static QColor aggregate(const CanvasTiles& tiles, int first, int end);

    // What the tiles show (the canvas's; it outlives this item): the blocks are made from it,
    // not from the node items, so a far-zoom repaint makes no node item build its tiles.
    explicit ClusterOverviewItem(const CanvasTiles* tiles);
    // The nodes to summarize (the canvas's items, in node order: their places and selection).
    // The blocks are recomputed on the next paint; call again (or invalidate()) when tiles,
    // selection or heat change.
    void setNodes(const std::vector<NodeItem*>* nodes);
    void invalidate();

    // Node blocks and group blocks, in scene coordinates, with their colours and whether they
    // hold a selected node or a member of the selected group.
    struct Block {
        QRectF rect;
        QColor colour;
        bool marked = false;
        int firstNode = 0, nodeCount = 0;
    };
    const std::vector<Block>& nodeBlocks() const;
    const std::vector<Block>& groupBlocks() const;
    // The node under a scene position (-1: none), from the blocks' geometry.
    int nodeAt(const QPointF& scenePos) const;
    NodeItem* nodeItemAt(const QPointF& scenePos) const;

    // What the last paint drew: its level and how many blocks (tests, benchmarks).
    Detail lastPaintDetail() const { return lastDetail_; }
    int lastPaintBlocks() const { return lastBlocks_; }
    // Increases whenever the blocks are invalidated (the minimap caches its picture by it).
    quint64 generation() const { return generation_; }

    QRectF boundingRect() const override { return bounds_; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget* w) override;
    enum { Type = UserType + 3 };
    int type() const override { return Type; }

private:
    void rebuild() const;

    const CanvasTiles* tiles_;
    const std::vector<NodeItem*>* nodes_ = nullptr;
    QRectF bounds_;
    mutable bool dirty_ = true;
    mutable std::vector<Block> nodeBlocks_, groupBlocks_;
    mutable quint64 generation_ = 0;
    Detail lastDetail_ = Detail::Tiles;
    int lastBlocks_ = 0;
};
