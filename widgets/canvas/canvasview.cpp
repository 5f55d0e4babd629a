#include "canvas/canvasview.h"

#include "canvas/clustermime.h"
#include "canvas/clusteroverviewitem.h"
#include "canvas/nodeitem.h"

#include <QDragEnterEvent>
#include <QMimeData>

#include <algorithm>
#include <cmath>

namespace {
bool ours(const QMimeData* m) {
    return m->hasFormat(clustermime::kSystem) || m->hasFormat(clustermime::kNodeTemplate) ||
           m->hasFormat(clustermime::kGpuType) || m->hasFormat(clustermime::kGpu) || m->hasFormat(clustermime::kNode);
}
}   // namespace

CanvasView::CanvasView(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
    setObjectName(QStringLiteral("canvasView"));
    setAcceptDrops(true);
    setDragMode(QGraphicsView::RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState);
    setRenderHint(QPainter::TextAntialiasing);
    setToolTip(
        tr("Drag nodes and GPUs here from the palette; drag a GPU tile onto another node to move it. "
           "Wheel zooms, middle button pans, drag on empty space selects."));
}

NodeItem* CanvasView::nodeAt(const QPoint& pos) const {
    for (QGraphicsItem* it : items(pos))
        if (it->type() == NodeItem::Type) return static_cast<NodeItem*>(it);
    return overview_ ? overview_->nodeItemAt(mapToScene(pos)) : nullptr;
}

void CanvasView::paintEvent(QPaintEvent* e) {
    emit aboutToPaint();
    QGraphicsView::paintEvent(e);
}

void CanvasView::setDropTarget(NodeItem* n) {
    if (dropTarget_ == n) return;
    if (dropTarget_) dropTarget_->setDropHighlight(false);
    dropTarget_ = n;
    if (dropTarget_) dropTarget_->setDropHighlight(true);
}

void CanvasView::dragEnterEvent(QDragEnterEvent* e) {
    if (ours(e->mimeData())) {
        e->acceptProposedAction();
        return;
    }
    e->ignore();
}

void CanvasView::dragMoveEvent(QDragMoveEvent* e) {
    if (!ours(e->mimeData())) {
        e->ignore();
        return;
    }
    // Templates drop anywhere; a moved node drops on a node (its new place) or after the last.
    const bool anywhere = e->mimeData()->hasFormat(clustermime::kNodeTemplate) ||
                          e->mimeData()->hasFormat(clustermime::kSystem);
    const bool needsNode = !anywhere && !e->mimeData()->hasFormat(clustermime::kNode);
    NodeItem* n = nodeAt(e->position().toPoint());
    setDropTarget(anywhere ? nullptr : n);
    if (needsNode && !n) e->ignore();
    else e->acceptProposedAction();
}

void CanvasView::dragLeaveEvent(QDragLeaveEvent* e) {
    setDropTarget(nullptr);
    QGraphicsView::dragLeaveEvent(e);
}

void CanvasView::dropEvent(QDropEvent* e) {
    setDropTarget(nullptr);
    if (!ours(e->mimeData())) {
        e->ignore();
        return;
    }
    emit dropped(e->mimeData(), nodeAt(e->position().toPoint()));
    e->acceptProposedAction();
}

void CanvasView::zoomBy(double factor) {
    emit userZoomed();
    const double current = transform().m11();
    const double target = std::clamp(current * factor, std::min(minScale_, current), 4.0);
    scale(target / current, target / current);
    emit zoomed();
}

void CanvasView::wheelEvent(QWheelEvent* e) {
    const double steps = e->angleDelta().y() / 120.0;
    if (steps == 0) return;
    zoomBy(std::pow(1.15, steps));
}

void CanvasView::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::MiddleButton) {
        // Pan by dragging with the middle button (ScrollHandDrag reacts to the left button only).
        panning_ = true;
        setDragMode(QGraphicsView::ScrollHandDrag);
        QMouseEvent fake(e->type(), e->position(), e->globalPosition(), Qt::LeftButton, Qt::LeftButton, e->modifiers());
        QGraphicsView::mousePressEvent(&fake);
        return;
    }
    if (e->button() == Qt::LeftButton) pressPos_ = e->position().toPoint();
    QGraphicsView::mousePressEvent(e);
}

void CanvasView::mouseReleaseEvent(QMouseEvent* e) {
    if (panning_ && e->button() == Qt::MiddleButton) {
        QMouseEvent fake(e->type(), e->position(), e->globalPosition(), Qt::LeftButton, Qt::NoButton, e->modifiers());
        QGraphicsView::mouseReleaseEvent(&fake);
        setDragMode(QGraphicsView::RubberBandDrag);
        panning_ = false;
        return;
    }
    const bool band = e->button() == Qt::LeftButton && !rubberBandRect().isNull();
    QGraphicsView::mouseReleaseEvent(e);
    if (band)
        emit rubberBandReleased(mapToScene(QRect(pressPos_, e->position().toPoint()).normalized()).boundingRect());
}

void CanvasView::resizeEvent(QResizeEvent* e) {
    QGraphicsView::resizeEvent(e);
    emit resized();
}

bool CanvasView::viewportEvent(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        if (NodeItem* n = nodeAt(he->pos())) {
            const int local = n->tileAt(n->mapFromScene(mapToScene(he->pos())));
            emit hoverTile(n, local, he->globalPos());
            return true;
        }
    }
    return QGraphicsView::viewportEvent(e);
}
