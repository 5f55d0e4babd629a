#pragma once
// One QCustomPlot plottable that draws a whole pipeline timeline in one pass: every
// F/B/W block, microbatch numbers, chunk shading and the idle (bubble) background.
// One plottable instead of an item per block keeps replots fast with 10^4 blocks.
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "schedule/timeline.h"

class GanttPlottable : public QCPAbstractPlottable {
    Q_OBJECT
public:
    GanttPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis);

    void setTimeline(const paraplan::schedule::Timeline* t);
    // Pipeline stages whose lanes are marked (the stages of the group selected in another view).
    void setHighlightedStages(std::vector<int> stages) { highlighted_ = std::move(stages); }
    const std::vector<int>& highlightedStages() const { return highlighted_; }
    // The op under a point in pixels, or nullptr.
    const paraplan::schedule::TimelineOp* opAt(const QPointF& pixel) const;

    static QColor opColor(paraplan::schedule::OpKind k, int chunk, const QPalette& pal);

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    std::vector<int> highlighted_;
    const paraplan::schedule::Timeline* t_ = nullptr;
};
