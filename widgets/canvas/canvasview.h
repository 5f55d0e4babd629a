#pragma once
// The cluster canvas's view: zoom (wheel, actions), middle-button pan, rubber-band
// selection, and drops of palette and canvas data, handed to the canvas as signals.
#include <QGraphicsView>
#include <QPointer>

class ClusterOverviewItem;
class NodeItem;
class QMimeData;

class CanvasView : public QGraphicsView {
    Q_OBJECT
public:
    explicit CanvasView(QGraphicsScene* scene, QWidget* parent = nullptr);
    // The node under a viewport position: its item, or at far zoom (where the node items are
    // not drawn and not hit) the node whose block is there.
    NodeItem* nodeAt(const QPoint& viewportPos) const;
    void setOverview(ClusterOverviewItem* overview) { overview_ = overview; }
    void zoomBy(double factor);
    // The smallest scale zoomBy goes to (the canvas lowers it for clusters that fit only below it).
    void setMinimumScale(double s) { minScale_ = s; }
    double minimumScale() const { return minScale_; }

signals:
    void dropped(const QMimeData* mime, NodeItem* target);
    void hoverTile(NodeItem* node, int local, const QPoint& globalPos);
    void userZoomed();   // wheel or zoom actions: the user chose a scale
    void zoomed();       // after the scale changed by zoomBy
    void resized();
    void rubberBandReleased(const QRectF& sceneRect);   // a rubber band selection ended
    void aboutToPaint();   // before each paint: the canvas picks the level of detail for the scale

protected:
    void dragEnterEvent(QDragEnterEvent* e) override;
    void dragMoveEvent(QDragMoveEvent* e) override;
    void dragLeaveEvent(QDragLeaveEvent* e) override;
    void dropEvent(QDropEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    bool viewportEvent(QEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    void paintEvent(QPaintEvent* e) override;

private:
    void setDropTarget(NodeItem* n);
    QPointer<QObject> dummy_;
    NodeItem* dropTarget_ = nullptr;
    bool panning_ = false;
    double minScale_ = 0.02;
    QPoint pressPos_;
    ClusterOverviewItem* overview_ = nullptr;
};
