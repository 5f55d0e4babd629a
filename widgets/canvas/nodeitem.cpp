#include "canvas/nodeitem.h"
#include "project/project_gpu.h"

#include "canvas/canvasdetail.h"
#include "canvas/canvastiles.h"
#include "catalog/catalog.h"
#include "canvas/clustermime.h"
#include "common/theme.h"

#include <QApplication>
#include <QDrag>
#include <QGraphicsSceneMouseEvent>
#include <QGraphicsView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QWidget>

NodeItem::NodeItem(int index, const CanvasTiles* source) : index_(index), source_(source) {
    setFlag(ItemIsSelectable);
    setAcceptHoverEvents(false);
    size_ = sizeFor(0);
}

QSizeF NodeItem::sizeFor(int gpus) {
    const int cols = std::max(1, std::min(gpus, kColumns));
    const int rows = std::max(1, (gpus + kColumns - 1) / kColumns);
    return {2 * kPad + cols * kTileW + (cols - 1) * kGap, kHeader + kPad + rows * kTileH + (rows - 1) * kGap};
}

void NodeItem::setGpuCount(int gpus) {
    gpus = std::max(0, gpus);
    if (gpus == gpus_) return;
    const QSizeF s = sizeFor(gpus);
    if (s != size_) prepareGeometryChange();
    gpus_ = gpus;
    size_ = s;
}

void NodeItem::sync() const {
    if (!source_ || synced_ == source_->generation) return;
    synced_ = source_->generation;
    ++builds_;
    const CanvasTiles& src = *source_;
    const int count = src.tileCount(index_);
    const std::size_t first = count > 0 ? static_cast<std::size_t>(src.first[static_cast<std::size_t>(index_)]) : 0;
    tiles_.resize(count);
    for (int g = 0; g < count; ++g) {
        GpuTile& t = tiles_[g];
        const std::size_t k = first + static_cast<std::size_t>(g);
        t.rank = src.rank[k];
        const int c = src.colour[k];
        t.fill = c >= 0 ? src.colours[static_cast<std::size_t>(c)] : QColor();
        t.highlighted = k < src.highlighted.size() && src.highlighted[k];
        t.heat.reset();
        if (src.heat) t.heat = src.heat->cell(t.rank) ? *src.heat->cell(t.rank) : HeatCell{};
    }
    title_.clear();
    subtitle_.clear();
    if (src.project && index_ >= 0 && index_ < static_cast<int>(src.project->cluster.nodes.size())) {
        const auto& node = src.project->cluster.nodes[static_cast<std::size_t>(index_)];
        const paraplan::GpuSpec* spec = paraplan::find_gpu(src.project->cluster, node.gpu);
        title_ = QString::fromStdString(node.name);
        subtitle_ = QStringLiteral("%1 · %2").arg(QString::fromStdString(node.host.empty() ? node.name : node.host),
                                                  QString::fromStdString(spec ? spec->name : node.gpu));
    }
}

const QVector<GpuTile>& NodeItem::tiles() const {
    sync();
    return tiles_;
}

QString NodeItem::title() const {
    sync();
    return title_;
}

QString NodeItem::subtitle() const {
    sync();
    return subtitle_;
}

QString NodeItem::tileCaption(int local) const {
    const auto& tiles = this->tiles();
    if (local < 0 || local >= tiles.size() || tiles[local].rank < 0 || !source_ || !source_->caption ||
        !*source_->caption)
        return {};
    return (*source_->caption)(tiles[local].rank);
}

QRectF NodeItem::gripRect() const { return {2, 4, 14, kHeader - 8}; }

bool NodeItem::startsReorder(const QPointF& itemPos, qreal lod) const {
    return lod > kHeaderLod && gripRect().contains(itemPos);
}

int NodeItem::reorderDragDistance() { return 2 * QApplication::startDragDistance(); }

QRectF NodeItem::boundingRect() const { return {QPointF(0, 0), size_}; }

QRectF NodeItem::tileRect(int local) const {
    const int r = local / kColumns, c = local % kColumns;
    return {kPad + c * (kTileW + kGap), kHeader + r * (kTileH + kGap), kTileW, kTileH};
}

int NodeItem::tileAt(const QPointF& pos) const {
    for (int i = 0; i < gpus_; ++i)
        if (tileRect(i).contains(pos)) return i;
    return -1;
}

void NodeItem::setDropHighlight(bool on) {
    if (dropHighlight_ == on) return;
    dropHighlight_ = on;
    update();
}

void NodeItem::paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget* w) {
    const QPalette& pal = w ? w->palette() : QApplication::palette();
    const qreal lod = opt->levelOfDetailFromTransform(p->worldTransform());
    // Too far out to tell tiles apart: the overview item draws this node as one block.
    paintedTiles_ = canvas_detail::detailFor(lod) == CanvasDetail::Tiles;
    if (!paintedTiles_) return;
    sync();
    const bool sel = isSelected();
    if (lod < 0.3) {
        // Far away (thousands of GPUs on screen): flat fills only, no pens or text.
        p->fillRect(boundingRect(), sel || dropHighlight_ ? pal.color(QPalette::Highlight) : theme::subtle(pal));
        p->fillRect(boundingRect().adjusted(2, 2, -2, -2), pal.color(QPalette::AlternateBase));
        for (int i = 0; i < tiles_.size(); ++i) {
            const GpuTile& t = tiles_[i];
            if (t.highlighted) p->fillRect(tileRect(i).adjusted(-3, -3, 3, 3), pal.color(QPalette::Highlight));
            if (t.heat) heat::paintCell(*p, tileRect(i), &*t.heat, pal);
            else p->fillRect(tileRect(i), t.fill.isValid() ? t.fill : pal.color(QPalette::Button));
        }
        return;
    }
    const QRectF frame = boundingRect().adjusted(0.5, 0.5, -0.5, -0.5);
    p->setRenderHint(QPainter::Antialiasing, lod > 0.5);
    QPen framePen(sel ? pal.color(QPalette::Highlight) : theme::subtle(pal), sel || dropHighlight_ ? 2.5 : 1);
    if (dropHighlight_) framePen.setColor(pal.color(QPalette::Link));
    p->setPen(framePen);
    p->setBrush(pal.color(QPalette::AlternateBase));
    p->drawRoundedRect(frame, 6, 6);

    // Header: name, host and GPU type. Skipped when too small to read.
    if (lod > kHeaderLod) {
        // The reorder grip: two columns of dots.
        const QRectF g = gripRect();
        QColor dot = pal.color(QPalette::WindowText);
        dot.setAlphaF(0.55f);
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 2; ++c) p->fillRect(QRectF(g.left() + 3 + c * 5, g.top() + 3 + r * 5, 2.5, 2.5), dot);
        QFont f = p->font();
        f.setPointSizeF(9);
        f.setBold(true);
        p->setFont(f);
        p->setPen(pal.color(QPalette::WindowText));
        const QRectF head(gripRect().right() + 4, 2, size_.width() - gripRect().right() - 4 - kPad, kHeader - 4);
        p->drawText(head, Qt::AlignLeft | Qt::AlignVCenter, title_);
        const qreal titleWidth = QFontMetricsF(f).horizontalAdvance(title_);
        f.setBold(false);
        f.setPointSizeF(8);
        p->setFont(f);
        QColor sub = pal.color(QPalette::WindowText);
        sub.setAlphaF(0.65f);
        p->setPen(sub);
        // The host and GPU fill what the name leaves (a 4-GPU node is narrow): never over the name.
        const qreal room = head.width() - titleWidth - 8;
        if (room > 12)
            p->drawText(head, Qt::AlignRight | Qt::AlignVCenter,
                        QFontMetricsF(f).elidedText(subtitle_, Qt::ElideRight, room));
    }

    // Tiles: group colour, rank, coordinates.
    const bool text = lod > 0.45;
    QFont rf = p->font();
    rf.setPointSizeF(10);
    rf.setBold(true);
    QFont cf = rf;
    cf.setBold(false);
    cf.setPointSizeF(7);
    for (int i = 0; i < tiles_.size(); ++i) {
        const GpuTile& t = tiles_[i];
        const QRectF r = tileRect(i);
        QColor fill = t.fill.isValid() ? t.fill : pal.color(QPalette::Button);
        if (t.heat) {
            // Live metric: the scale colour (hatched when there is no sample), flagged outlined.
            fill = heat::paintCell(*p, r, &*t.heat, pal, 4);
            if (t.highlighted) {
                p->setPen(QPen(pal.color(QPalette::Highlight), 3));
                p->setBrush(Qt::NoBrush);
                p->drawRoundedRect(r, 4, 4);
            }
        } else {
            p->setPen(t.highlighted ? QPen(pal.color(QPalette::Highlight), 3) : QPen(fill.darker(130), 1));
            p->setBrush(fill);
            p->drawRoundedRect(r, 4, 4);
        }
        if (!text) continue;
        p->setPen(theme::textOn(fill));
        p->setFont(rf);
        p->drawText(r.adjusted(4, 2, -4, -r.height() / 2), Qt::AlignLeft | Qt::AlignVCenter,
                    t.rank >= 0 ? QStringLiteral("r%1").arg(t.rank) : QStringLiteral("—"));
        p->setFont(cf);
        p->drawText(r.adjusted(4, 2, -3, -2), Qt::AlignRight | Qt::AlignTop, QStringLiteral("g%1").arg(i));
        const QString caption = t.heat ? (t.heat->has || t.heat->failed ? t.heat->text : QObject::tr("no sample"))
                                       : tileCaption(i);
        if (!caption.isEmpty())
            p->drawText(r.adjusted(4, r.height() / 2, -4, -2), Qt::AlignLeft | Qt::AlignVCenter, caption);
    }
}

void NodeItem::mousePressEvent(QGraphicsSceneMouseEvent* e) {
    pressedTile_ = e->button() == Qt::LeftButton ? tileAt(e->pos()) : -1;
    // The grip in the title bar drags the whole node to another place in the order, when it
    // can be seen: at far zoom a press there is an ordinary press (selection, rubber band).
    qreal lod = 1;
    if (auto* v = e->widget() ? qobject_cast<QGraphicsView*>(e->widget()->parentWidget()) : nullptr)
        lod = QStyleOptionGraphicsItem::levelOfDetailFromTransform(sceneTransform() * v->viewportTransform());
    pressedHeader_ = e->button() == Qt::LeftButton && pressedTile_ < 0 && startsReorder(e->pos(), lod);
    pressPos_ = e->screenPos();
    QGraphicsItem::mousePressEvent(e);
}

void NodeItem::mouseReleaseEvent(QGraphicsSceneMouseEvent* e) {
    const int tile = pressedTile_;
    pressedTile_ = -1;
    pressedHeader_ = false;
    QGraphicsItem::mouseReleaseEvent(e);
    if (tile >= 0 && tile == tileAt(e->pos()) && onTileClicked) onTileClicked(index_, tile);
}

void NodeItem::mouseMoveEvent(QGraphicsSceneMouseEvent* e) {
    if (pressedHeader_ && (e->buttons() & Qt::LeftButton) &&
        (e->screenPos() - pressPos_).manhattanLength() >= reorderDragDistance()) {
        pressedHeader_ = false;
        auto* mime = new QMimeData;
        mime->setData(clustermime::kNode,
                      QJsonDocument(QJsonObject{{QStringLiteral("node"), index_}}).toJson(QJsonDocument::Compact));
        QWidget* src = e->widget();
        auto* drag = new QDrag(src ? static_cast<QObject*>(src) : static_cast<QObject*>(QApplication::instance()));
        drag->setMimeData(mime);
        QPixmap pm(boundingRect().size().toSize() / 2);
        pm.fill(QColor(128, 128, 128, 90));
        drag->setPixmap(pm);
        drag->exec(Qt::MoveAction);
        return;
    }
    if (pressedTile_ < 0 || !(e->buttons() & Qt::LeftButton) ||
        (e->screenPos() - pressPos_).manhattanLength() < QApplication::startDragDistance()) {
        QGraphicsItem::mouseMoveEvent(e);
        return;
    }
    // Dragging a GPU tile: it can be dropped on another node.
    auto* mime = new QMimeData;
    mime->setData(clustermime::kGpu, QJsonDocument(QJsonObject{{QStringLiteral("node"), index_},
                                                               {QStringLiteral("local_rank"), pressedTile_}})
                                         .toJson(QJsonDocument::Compact));
    QWidget* src = e->widget();
    auto* drag = new QDrag(src ? static_cast<QObject*>(src) : static_cast<QObject*>(QApplication::instance()));
    drag->setMimeData(mime);
    const QRectF r = tileRect(pressedTile_);
    QPixmap pm(r.size().toSize());
    const QColor fill = pressedTile_ < tiles().size() ? tiles()[pressedTile_].fill : QColor();
    pm.fill(fill.isValid() ? fill : QColor(Qt::gray));
    drag->setPixmap(pm);
    pressedTile_ = -1;
    drag->exec(Qt::MoveAction);
}
