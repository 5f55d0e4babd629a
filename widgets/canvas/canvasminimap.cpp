#include "canvas/canvasminimap.h"

#include "canvas/canvasview.h"
#include "canvas/clusteroverviewitem.h"
#include "common/theme.h"

#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>

#include <algorithm>

namespace {
constexpr int kMaxW = 220, kMaxH = 150, kMargin = 8;
}

CanvasMinimap::CanvasMinimap(CanvasView* view, ClusterOverviewItem* overview)
    : QWidget(view), view_(view), overview_(overview) {
    setObjectName(QStringLiteral("canvasMinimap"));
    setCursor(Qt::PointingHandCursor);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setToolTip(tr("The whole cluster: click or drag to move the view (View > Minimap hides it)"));
    for (QScrollBar* bar : {view_->horizontalScrollBar(), view_->verticalScrollBar()}) {
        connect(bar, &QScrollBar::valueChanged, this, &CanvasMinimap::sync);
        connect(bar, &QScrollBar::rangeChanged, this, &CanvasMinimap::sync);
    }
    connect(view_, &CanvasView::resized, this, &CanvasMinimap::sync);
    hide();
}

void CanvasMinimap::setOn(bool on) {
    on_ = on;
    sync();
}

QRectF CanvasMinimap::sceneRect() const { return view_->scene() ? view_->scene()->sceneRect() : QRectF(); }

void CanvasMinimap::sync() {
    const QRectF scene = sceneRect();
    const QRectF shown = view_->mapToScene(view_->viewport()->rect()).boundingRect();
    // Shown only when there is something off screen to navigate to.
    const bool wanted = on_ && !scene.isEmpty() && !shown.contains(scene.adjusted(1, 1, -1, -1));
    if (wanted) {
        const double aspect = scene.width() / std::max(1.0, scene.height());
        int w = kMaxW, h = static_cast<int>(kMaxW / aspect);
        if (h > kMaxH) {
            h = kMaxH;
            w = static_cast<int>(kMaxH * aspect);
        }
        w = std::max(w, 40) + 4;
        h = std::max(h, 30) + 4;
        const QRect vp = view_->viewport()->geometry();
        setGeometry(vp.right() - w - kMargin + 1, vp.bottom() - h - kMargin + 1, w, h);
        raise();
    }
    setVisible(wanted);
    if (wanted) update();
}

QRectF CanvasMinimap::mapArea() const {
    const QRectF scene = sceneRect();
    const QRectF inner = QRectF(rect()).adjusted(2, 2, -2, -2);
    if (scene.isEmpty() || inner.isEmpty()) return inner;
    const double k = std::min(inner.width() / scene.width(), inner.height() / scene.height());
    const QSizeF size(scene.width() * k, scene.height() * k);
    return {inner.center() - QPointF(size.width() / 2, size.height() / 2), size};
}

QRectF CanvasMinimap::toMap(const QRectF& r) const {
    const QRectF scene = sceneRect(), area = mapArea();
    if (scene.isEmpty()) return {};
    const double k = area.width() / scene.width();
    return {area.topLeft() + (r.topLeft() - scene.topLeft()) * k, r.size() * k};
}

QPointF CanvasMinimap::sceneAt(const QPointF& pos) const {
    const QRectF scene = sceneRect(), area = mapArea();
    if (area.isEmpty()) return scene.center();
    const double k = scene.width() / area.width();
    return scene.topLeft() + (pos - area.topLeft()) * k;
}

QRectF CanvasMinimap::viewportOnMap() const {
    return toMap(view_->mapToScene(view_->viewport()->rect()).boundingRect());
}

void CanvasMinimap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QPalette& pal = palette();
    const QRectF area = mapArea();
    // The cluster picture is redrawn only when the blocks change or the size does.
    if (picture_.size() != size() || pictureGeneration_ != overview_->generation()) {
        const auto& nodeBlocks = overview_->nodeBlocks();   // may rebuild (a new generation)
        // Nodes under two and a half pixels wide here (16,384 nodes in 200 pixels are about
        // two): one fill per node draws stripes no one can tell apart, so the picture is drawn
        // from the runs of nodes the far zoom draws, with a thirtieth of the fills.
        const bool groups = !nodeBlocks.empty() && toMap(nodeBlocks.front().rect).width() < 2.5;
        const auto& blocks = groups ? overview_->groupBlocks() : nodeBlocks;
        pictureBlocks_ = static_cast<int>(blocks.size());
        pictureGeneration_ = overview_->generation();
        picture_ = QImage(size(), QImage::Format_ARGB32_Premultiplied);
        picture_.fill(pal.color(QPalette::Window));   // opaque: a repaint does not redraw the canvas under it
        QPainter ip(&picture_);
        ip.setPen(theme::subtle(pal));
        ip.drawRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5));
        const QColor none = pal.color(QPalette::Button);
        for (const auto& b : blocks) {
            QRectF r = toMap(b.rect);
            r.setWidth(std::max(r.width(), 1.0));
            r.setHeight(std::max(r.height(), 1.0));
            ip.fillRect(r, b.marked ? pal.color(QPalette::Highlight) : b.colour.isValid() ? b.colour : none);
        }
    }
    p.drawImage(0, 0, picture_);
    // The part the view shows.
    QRectF v = viewportOnMap().intersected(area.adjusted(-1, -1, 1, 1));
    // Zoomed in far on a large cluster the part shown is under a pixel here: keep it findable.
    if (v.width() < 8 || v.height() < 8) {
        const QPointF c = v.center();
        v = QRectF(c.x() - std::max(v.width(), 8.0) / 2, c.y() - std::max(v.height(), 8.0) / 2,
                   std::max(v.width(), 8.0), std::max(v.height(), 8.0));
    }
    QColor fill = pal.color(QPalette::Highlight);
    fill.setAlphaF(0.18f);
    p.fillRect(v, fill);
    p.setPen(QPen(pal.color(QPalette::Highlight), 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(v);
}

void CanvasMinimap::mousePressEvent(QMouseEvent* e) {
    if (e->button() != Qt::LeftButton) return QWidget::mousePressEvent(e);
    view_->centerOn(sceneAt(e->position()));
    e->accept();
}

void CanvasMinimap::mouseMoveEvent(QMouseEvent* e) {
    if (!(e->buttons() & Qt::LeftButton)) return QWidget::mouseMoveEvent(e);
    view_->centerOn(sceneAt(e->position()));
    e->accept();
}
