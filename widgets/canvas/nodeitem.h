#pragma once
// One node of the cluster canvas: a frame with its name, host and GPU type, and one
// tile per GPU. All tiles and their text are painted by this single item (no item
// per GPU or per label), so the canvas stays smooth with thousands of GPUs.
#include "common/heatmap.h"

#include <QColor>
#include <QGraphicsItem>
#include <QString>
#include <QVector>

#include <functional>
#include <optional>

struct GpuTile {
    int rank = -1;   // global rank, -1 when unplaced
    QColor fill;
    bool highlighted = false;       // member of the selected group
    std::optional<HeatCell> heat;   // set while coloured by a live metric: drawn instead of fill
};

struct CanvasTiles;

class NodeItem : public QGraphicsItem {
public:
    static constexpr qreal kTileW = 74, kTileH = 46, kGap = 4, kHeader = 30, kPad = 6;
    static constexpr int kColumns = 4;
    // The header (and its reorder grip) is drawn from this level of detail up.
    static constexpr qreal kHeaderLod = 0.35;

    // Node `index` of the canvas's tiles `source` (which outlives the item).
    NodeItem(int index, const CanvasTiles* source);

    int index() const { return index_; }
    // This node's GPUs as the canvas's tiles show them now. Made from the canvas's tiles
    // (CanvasTiles) when first needed after they changed: when the node is painted or asked,
    // not when the canvas refreshes.
    const QVector<GpuTile>& tiles() const;
    QString title() const;
    QString subtitle() const;
    // How many times this item made its tiles from the canvas's (tests: an edit at far zoom,
    // where node items are not drawn, makes none).
    int tileBuilds() const { return builds_; }
    // The caption of each tile (its mesh coordinates, e.g. "tp1 pp0 dp3") is made from its rank
    // when the tile is painted, so a refresh of 131,072 tiles builds no strings.
    QString tileCaption(int local) const;
    // The number of GPUs (the item's size follows); the canvas sets it when it changes.
    void setGpuCount(int gpus);
    int tileAt(const QPointF& itemPos) const;   // -1 if none
    QRectF tileRect(int local) const;
    void setDropHighlight(bool on);
    static QSizeF sizeFor(int gpus);
    // The reorder handle: a grip at the left of the title bar. Dragging it moves the node in
    // the node order (which is the rank order); nothing else on the node does.
    QRectF gripRect() const;
    // Whether a left press at `itemPos`, seen at level of detail `lod`, may start a reorder
    // drag: only on the grip, and only when the grip is drawn (not at far zoom).
    bool startsReorder(const QPointF& itemPos, qreal lod) const;
    // How far (screen pixels) the grip must be dragged before the node moves.
    static int reorderDragDistance();
    // Called with (node index, GPU index) when a tile is clicked without dragging.
    std::function<void(int, int)> onTileClicked;

    // Whether the last paint drew the tiles (false: too far out, drawn as a block by
    // ClusterOverviewItem).
    bool paintedTiles() const { return paintedTiles_; }
    // False while the canvas does not draw the node items at all (far zoom: their layer is
    // transparent and ClusterOverviewItem draws blocks instead).
    bool drawn() const { return effectiveOpacity() > 0; }

    QRectF boundingRect() const override;
    void paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget* w) override;
    enum { Type = UserType + 1 };
    int type() const override { return Type; }

protected:
    void mousePressEvent(QGraphicsSceneMouseEvent* e) override;
    void mouseMoveEvent(QGraphicsSceneMouseEvent* e) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent* e) override;

private:
    void sync() const;   // makes tiles_, title_ and subtitle_ from the source when it changed

    int index_;
    const CanvasTiles* source_;
    int gpus_ = 0;
    mutable quint64 synced_ = 0;   // the source generation tiles_ was made for
    mutable int builds_ = 0;
    mutable QString title_, subtitle_;
    mutable QVector<GpuTile> tiles_;
    QSizeF size_;
    bool dropHighlight_ = false;
    int pressedTile_ = -1;
    bool pressedHeader_ = false;
    QPointF pressPos_;
    bool paintedTiles_ = false;
};
