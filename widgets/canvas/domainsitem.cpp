#include "canvas/domainsitem.h"

#include <QApplication>
#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>
#include <QWidget>

void DomainsItem::setDomains(std::vector<Domain> domains) {
    prepareGeometryChange();
    domains_ = std::move(domains);
    bounds_ = QRectF();
    for (const auto& d : domains_) bounds_ |= d.rect;
    bounds_.adjust(-4, -4, 4, 4);
    update();
}

void DomainsItem::paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget* w) {
    const QPalette& pal = w ? w->palette() : QApplication::palette();
    p->setRenderHint(QPainter::Antialiasing);
    QColor frame = pal.color(QPalette::Highlight);
    QColor fill = frame;
    fill.setAlphaF(0.06f);
    QPen pen(frame, 2);
    pen.setCosmetic(true);
    QFont titleFont = QApplication::font();
    titleFont.setPixelSize(18);
    titleFont.setBold(true);
    QFont lineFont = QApplication::font();
    lineFont.setPixelSize(15);
    const QRectF exposed = opt ? opt->exposedRect : bounds_;
    for (const auto& d : domains_) {
        if (!d.rect.intersects(exposed)) continue;
        p->setPen(pen);
        p->setBrush(fill);
        p->drawRoundedRect(d.rect, 10, 10);
        const QRectF head(d.rect.left() + kPad, d.rect.top() + 6, d.rect.width() - 2 * kPad, kHeader - 10);
        p->setPen(pal.color(QPalette::Text));
        p->setFont(titleFont);
        const QFontMetricsF tm(titleFont);
        p->drawText(QRectF(head.left(), head.top(), head.width(), tm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                    tm.elidedText(d.title, Qt::ElideRight, head.width()));
        p->setFont(lineFont);
        QColor second = pal.color(QPalette::Text);
        second.setAlphaF(0.75f);   // below the title
        p->setPen(second);
        const QFontMetricsF lm(lineFont);
        p->drawText(QRectF(head.left(), head.top() + tm.height() + 4, head.width(), lm.height()),
                    Qt::AlignLeft | Qt::AlignVCenter, lm.elidedText(d.tiers, Qt::ElideRight, head.width()));
    }
}
