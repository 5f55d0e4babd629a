#pragma once
// One QCustomPlot plottable that draws a whole pipeline timeline in one pass: every
// F/B/W block, microbatch numbers, chunk shading and the idle (bubble) background.
// One plottable instead of an item per block keeps replots fast with 10^4 blocks.
// A step of several pipeline flushes (gradient accumulation) is drawn from the one
// simulated flush, shifted along time, with the gradient reduction between or after.
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "schedule/timeline.h"

class GanttPlottable : public QCPAbstractPlottable {
    Q_OBJECT
public:
    GanttPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis);

    void setTimeline(const paraplan::schedule::Timeline* t);
    const paraplan::schedule::Timeline* timeline() const { return t_; }

    // Where the timeline sits in the step (the core estimate's step_flushes(), in the
    // timeline's unit). `repeat`: the timeline is one flush, drawn `count` times; otherwise it
    // holds all of them already (the step playback's). `sync`: one exposed gradient reduction,
    // drawn across all lanes after every flush (`sync_each_flush`) or after the last.
    struct Flushes {
        int count = 1;
        bool repeat = true;
        double flush = 0;   // one flush's length; 0: the timeline's makespan / count
        double sync = 0;
        bool sync_each_flush = false;
    };
    void setFlushes(const Flushes& f) { flushes_ = f; }
    const Flushes& flushes() const { return flushes_; }
    // Length of one flush, start of flush j, the whole drawn span (flushes and reductions).
    double flushLength() const;
    double flushStart(int j) const;
    double span() const;
    // What the last replot drew: blocks (every flush's), forward blocks of one stage, flush
    // labels, and whether flushes after the first were stamped from an image of it (many blocks).
    int lastDrawnBlocks() const { return lastDrawn_; }
    int lastDrawnForwards(int stage) const;
    const QStringList& lastFlushLabels() const { return lastLabels_; }
    bool lastStamped() const { return lastStamped_; }
    // Rectangles the last replot filled for its blocks: blocks of one colour that touch or overlap
    // in a lane are filled as one where no outlines are drawn (thinner blocks than pixels).
    int lastFilledRects() const { return lastFilled_; }
    // Off: every block is filled on its own (tests compare the two pictures).
    void setMergeBlocks(bool on) { mergeBlocks_ = on; }
    // Pipeline stages whose lanes are marked (the stages of the group selected in another view).
    void setHighlightedStages(std::vector<int> stages) { highlighted_ = std::move(stages); }
    const std::vector<int>& highlightedStages() const { return highlighted_; }
    // The op under a point in pixels, or nullptr; `flush` (when given) gets the flush it is
    // drawn in (its start and microbatch are the first flush's: add flushStart(flush) and
    // flush x microbatches).
    const paraplan::schedule::TimelineOp* opAt(const QPointF& pixel, int* flush = nullptr) const;
    // The flush whose gradient reduction is drawn under a point in pixels, or -1.
    int syncAt(const QPointF& pixel) const;

    static QColor opColor(paraplan::schedule::OpKind k, int chunk, const QPalette& pal);
    static QColor syncColor(const QPalette& pal);   // the gradient reduction

    double selectTest(const QPointF& pos, bool onlySelectable, QVariant* details = nullptr) const override;
    QCPRange getKeyRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth) const override;
    QCPRange getValueRange(bool& foundRange, QCP::SignDomain inSignDomain = QCP::sdBoth,
                           const QCPRange& inKeyRange = QCPRange()) const override;

protected:
    void draw(QCPPainter* painter) override;
    void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override;

private:
    int copies() const { return flushes_.repeat ? std::max(1, flushes_.count) : 1; }
    std::vector<int> highlighted_;
    const paraplan::schedule::Timeline* t_ = nullptr;
    Flushes flushes_;
    int lastDrawn_ = 0;
    std::vector<int> lastForwards_;
    QStringList lastLabels_;
    bool lastStamped_ = false;
    int lastFilled_ = 0;
    bool mergeBlocks_ = true;
};
