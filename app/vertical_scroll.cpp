#include "vertical_scroll.h"

#include <QScrollArea>
#include <QScrollBar>

namespace {
class VerticalScroll : public QScrollArea {
public:
    QSize minimumSizeHint() const override {
        QSize s = QScrollArea::minimumSizeHint();
        if (widget())
            s.setWidth(widget()->minimumSizeHint().width() + verticalScrollBar()->sizeHint().width() +
                       2 * frameWidth());
        return s;
    }
};
}   // namespace

QWidget* verticallyScrolled(QWidget* view) {
    auto* area = new VerticalScroll;
    area->setObjectName(view->objectName() + QStringLiteral("Scroll"));
    area->setFrameShape(QFrame::NoFrame);
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    area->setWidgetResizable(true);
    area->setWidget(view);
    return area;
}
