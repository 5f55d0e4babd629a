#pragma once
// One node of the cluster canvas: a frame with its name, host and GPU type, and one
// tile per GPU. All tiles and their text are painted by this single item (no item
// per GPU or per label), so the canvas stays smooth with thousands of GPUs.
#include "heatmap.h"

#include <QColor>
#include <QGraphicsItem>
#include <QString>
#include <QVector>

#include <functional>
#include <memory>
#include <optional>

struct GpuTile {
    int rank = -1;   // global rank, -1 when unplaced
    QColor fill;
    bool highlighted = false;       // member of the selected group
    std::optional<HeatCell> heat;   // set while coloured by a live metric: drawn instead of fill
};

class NodeItem : public QGraphicsItem {
public:
    static constexpr qreal kTileW = 74, kTileH = 46, kGap = 4, kHeader = 30, kPad = 6;
    static constexpr int kColumns = 4;
    // The header (and its reorder grip) is drawn from this level of detail up.
    static constexpr qreal kHeaderLod = 0.35;

    explicit NodeItem(int index);

    void setContent(int index, const QString& title, const QString& subtitle, QVector<GpuTile> tiles);
    int index() const { return index_; }
    const QVector<GpuTile>& tiles() const { return tiles_; }
    // The caption of each tile (its mesh coordinates, e.g. "tp1 pp0 dp3") is made from its rank
    // when the tile is painted, so a refresh of 131,072 tiles builds no strings. One provider is
    // shared by all node items; empty when the coordinates are unknown.
    using CaptionProvider = std::shared_ptr<const std::function<QString(int rank)>>;
    void setCaptionProvider(CaptionProvider c) { captions_ = std::move(c); }
    QString tileCaption(int local) const;
    // New heat values for the same tiles (by each tile's rank; a rank without a cell shows
    // "no sample"). Does not schedule a repaint: the caller repaints the view once for all
    // nodes (hundreds of item updates make a many-rectangle clip region that slows painting).
    void setTileHeat(const Heatmap& h);
    int tileAt(const QPointF& itemPos) const;   // -1 if none
    QRectF tileRect(int local) const;
    void setTiles(QVector<GpuTile> tiles) {
        tiles_ = std::move(tiles);
        update();
    }
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
    int index_;
    QString title_, subtitle_;
    QVector<GpuTile> tiles_;
    CaptionProvider captions_;
    QSizeF size_;
    bool dropHighlight_ = false;
    int pressedTile_ = -1;
    bool pressedHeader_ = false;
    QPointF pressPos_;
    bool paintedTiles_ = false;
};
