#pragma once
// The links of the selected process group, drawn over the nodes: solid inside a
// scale-up domain, dashed and in the warning colour where a link leaves it (those go
// over the slower scale-out network). The domain is the node, or where the system's
// domain holds several nodes (an NVL72 rack) the outlined group of nodes.
#include <QGraphicsItem>
#include <QLineF>

#include <vector>

class GroupLinksItem : public QGraphicsItem {
public:
    struct Link {
        QLineF line;
        bool leavesDomain;   // its ends lie in two scale-up domains
    };
    void setLinks(std::vector<Link> links) {
        prepareGeometryChange();
        links_ = std::move(links);
        bounds_ = QRectF();
        for (const auto& l : links_) bounds_ |= QRectF(l.line.p1(), l.line.p2()).normalized();
        bounds_.adjust(-40, -40, 40, 40);
    }
    const std::vector<Link>& links() const { return links_; }
    QRectF boundingRect() const override { return bounds_; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem*, QWidget* w) override;

private:
    std::vector<Link> links_;
    QRectF bounds_;
};
