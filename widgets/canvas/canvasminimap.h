#pragma once
// The canvas's minimap: the whole cluster in small (one block per node, or per run of nodes
// when a node would be under 2.5 pixels, as the far zoom draws them) with the part the view
// shows outlined. A click or drag centres the view on that point. It sits in the view's lower
// right corner and shows itself only when it is switched on (View > Minimap) and the view does
// not already show the whole cluster.
#include <QImage>
#include <QWidget>

class CanvasView;
class ClusterOverviewItem;

class CanvasMinimap : public QWidget {
    Q_OBJECT
public:
    CanvasMinimap(CanvasView* view, ClusterOverviewItem* overview);

    void setOn(bool on);   // the user's choice (View > Minimap)
    bool isOn() const { return on_; }
    // Places it in the view's corner and shows or hides it; call after zooms and scrolls.
    void sync();
    // Where the scene is drawn inside the widget, and the two mappings.
    QRectF mapArea() const;
    QPointF sceneAt(const QPointF& widgetPos) const;
    QRectF toMap(const QRectF& sceneRect) const;
    // The part of the scene the view shows, in widget coordinates.
    QRectF viewportOnMap() const;
    // The overview generation its cluster picture was drawn from (it follows edits and recolours).
    quint64 pictureGeneration() const { return pictureGeneration_; }
    // How many blocks its cluster picture was drawn with: one per node, or one per run of nodes
    // (ClusterOverviewItem::groupBlocks()) when a node would be under 2.5 pixels wide.
    int pictureBlocks() const { return pictureBlocks_; }

protected:
    void paintEvent(QPaintEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;

private:
    QRectF sceneRect() const;
    CanvasView* view_;
    ClusterOverviewItem* overview_;
    bool on_ = true;
    QImage picture_;
    quint64 pictureGeneration_ = ~0ULL;
    int pictureBlocks_ = 0;
};
