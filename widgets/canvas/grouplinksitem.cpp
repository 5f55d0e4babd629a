#include "canvas/grouplinksitem.h"

#include "common/theme.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>
#include <QWidget>

#include <algorithm>

void GroupLinksItem::paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget* w) {
    const QPalette& pal = w ? w->palette() : QApplication::palette();
    p->setRenderHint(QPainter::Antialiasing);
    // Lines only: an arc path drawn with the painter's brush (set by whatever painted
    // before, the view does not save painter state) would fill into a blob over the tiles.
    p->setBrush(Qt::NoBrush);
    for (const auto& l : links_) {
        QColor c = l.leavesDomain ? theme::errorColor(pal) : pal.color(QPalette::Highlight);
        c.setAlphaF(0.8f);   // the tile labels under a link stay readable
        QPen pen(c, l.leavesDomain ? 2.5 : 2);
        pen.setCosmetic(true);
        if (l.leavesDomain) pen.setStyle(Qt::DashLine);
        p->setPen(pen);
        // A gentle arc so links between tiles of one row stay visible.
        QPainterPath path(l.line.p1());
        const QPointF mid = (l.line.p1() + l.line.p2()) / 2;
        const QPointF normal(-(l.line.dy()), l.line.dx());
        const double len = std::max(1.0, l.line.length());
        path.quadTo(mid + normal / len * std::min(40.0, len * 0.2), l.line.p2());
        p->drawPath(path);
    }
}
