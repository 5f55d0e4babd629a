#pragma once
// The scale-up domains of the cluster on the canvas, drawn behind the nodes: an outline around
// each domain's nodes (an NVL72 rack's 18 trays) with a title (the domain's tier and bandwidth)
// and a line naming the tiers outwards (the scale-out network and the switch group it is in).
// Only drawn when a domain holds more than one node (network::domains_span_nodes).
#include <QGraphicsItem>
#include <QRectF>
#include <QString>

#include <vector>

class DomainsItem : public QGraphicsItem {
public:
    // Room above a domain's nodes for its two lines, and around them inside the outline.
    static constexpr qreal kHeader = 62, kPad = 12;

    struct Domain {
        QRectF rect;     // the outline, in scene coordinates (header included)
        QString title;   // "NVLink domain 0 · 72 GPUs · 18 nodes · …"
        QString tiers;   // "out: infiniband … · leaf 0 of 576 GPUs · spine"
        int firstNode = 0, nodes = 0;
    };
    void setDomains(std::vector<Domain> domains);
    const std::vector<Domain>& domains() const { return domains_; }

    QRectF boundingRect() const override { return bounds_; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* opt, QWidget* w) override;
    enum { Type = UserType + 7 };
    int type() const override { return Type; }

private:
    std::vector<Domain> domains_;
    QRectF bounds_;
};
