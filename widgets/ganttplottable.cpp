#include "ganttplottable.h"

#include "theme.h"

#include <QApplication>

using paraplan::schedule::OpKind;
using paraplan::schedule::Timeline;
using paraplan::schedule::TimelineOp;

namespace {
constexpr double kHalfLane = 0.4;   // a block fills 80% of its stage's lane
}

GanttPlottable::GanttPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis) {
    setSelectable(QCP::stNone);
    setAntialiasedFill(false);
}

void GanttPlottable::setTimeline(const Timeline* t) { t_ = t; }

QColor GanttPlottable::opColor(OpKind k, int chunk, const QPalette& pal) {
    // One colour grammar in every view: F blue, B orange/vermillion, W green (Okabe-Ito).
    QColor c;
    switch (k) {
    case OpKind::Forward: c = QColor(0x00, 0x72, 0xB2); break;
    case OpKind::BackwardInput: c = QColor(0xD5, 0x5E, 0x00); break;
    case OpKind::FullBackward: c = QColor(0xD5, 0x5E, 0x00); break;
    case OpKind::BackwardWeight: c = QColor(0x00, 0x9E, 0x73); break;
    }
    // Later chunks: lighter shades of the same hue.
    if (chunk > 0) c = c.lighter(100 + 35 * std::min(chunk, 3));
    if (theme::isDark(pal)) c = c.darker(110);
    return c;
}

QCPRange GanttPlottable::getKeyRange(bool& found, QCP::SignDomain) const {
    found = t_ && !t_->ops.empty();
    return found ? QCPRange(0, t_->makespan) : QCPRange();
}

QCPRange GanttPlottable::getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const {
    found = t_ && t_->pp > 0;
    return found ? QCPRange(-0.5, t_->pp - 0.5) : QCPRange();
}

const TimelineOp* GanttPlottable::opAt(const QPointF& px) const {
    if (!t_ || t_->ops.empty()) return nullptr;
    const double time = keyAxis()->pixelToCoord(px.x());
    const double lane = valueAxis()->pixelToCoord(px.y());
    const int stage = static_cast<int>(std::lround(lane));
    if (stage < 0 || stage >= t_->pp || std::abs(lane - stage) > kHalfLane) return nullptr;
    const auto b = t_->ops.begin() + static_cast<std::ptrdiff_t>(t_->stage_begin[static_cast<std::size_t>(stage)]);
    const auto e = t_->ops.begin() + static_cast<std::ptrdiff_t>(t_->stage_begin[static_cast<std::size_t>(stage) + 1]);
    // A stage's ops are in execution order, so starts are ascending: binary search.
    auto it = std::upper_bound(b, e, time, [](double v, const TimelineOp& op) { return v < op.start; });
    if (it == b) return nullptr;
    --it;
    return time <= it->end ? &*it : nullptr;
}

double GanttPlottable::selectTest(const QPointF& pos, bool onlySelectable, QVariant*) const {
    if (onlySelectable && !selectable()) return -1;
    return opAt(pos) ? 0 : -1;
}

void GanttPlottable::draw(QCPPainter* painter) {
    if (!t_ || t_->ops.empty()) return;
    const QPalette pal = QApplication::palette();
    const QCPRange visible = keyAxis()->range();
    const double x0 = keyAxis()->coordToPixel(0), x1 = keyAxis()->coordToPixel(t_->makespan);

    // Bubbles: the whole lane is shaded as idle; blocks are drawn over it.
    QColor idle = theme::errorColor(pal);
    idle.setAlphaF(0.10f);
    for (int s = 0; s < t_->pp; ++s) {
        const double y0 = valueAxis()->coordToPixel(s - kHalfLane), y1 = valueAxis()->coordToPixel(s + kHalfLane);
        painter->fillRect(QRectF(QPointF(x0, y0), QPointF(x1, y1)).normalized(), idle);
    }

    // The selected group's stages: a band in the highlight colour around their lanes.
    if (!highlighted_.empty()) {
        QColor band = pal.color(QPalette::Highlight);
        band.setAlphaF(0.28f);
        for (int s : highlighted_) {
            if (s < 0 || s >= t_->pp) continue;
            const double y0 = valueAxis()->coordToPixel(s - 0.5), y1 = valueAxis()->coordToPixel(s + 0.5);
            painter->fillRect(QRectF(QPointF(x0, y0), QPointF(x1, y1)).normalized(), band);
        }
    }

    // Blocks, grouped by colour (op kind x chunk) so each colour is one drawRects call. The
    // axes are linear, so pixel positions come from one scale and offset, not a call per op.
    constexpr int kKinds = 4, kChunkShades = 4;
    QVector<QRectF> byColour[kKinds * kChunkShades];
    QVector<QPair<QRectF, const TimelineOp*>> labelled;
    const double kx = keyAxis()->coordToPixel(1) - x0;
    const double vy0 = valueAxis()->coordToPixel(0), vy = valueAxis()->coordToPixel(1) - vy0;
    const double top = -kHalfLane * vy, height = 2 * kHalfLane * vy;
    double widths = 0;
    int drawn = 0;
    for (const TimelineOp& op : t_->ops) {
        if (op.end < visible.lower || op.start > visible.upper) continue;   // cull to the visible range
        const QRectF r =
            QRectF(x0 + op.start * kx, vy0 + op.stage * vy + top, (op.end - op.start) * kx, height).normalized();
        const int shade = std::min(op.chunk, kChunkShades - 1);
        byColour[static_cast<int>(op.kind) * kChunkShades + shade].append(r);
        widths += r.width();
        ++drawn;
        if (r.width() >= 14 && r.height() >= 10) labelled.append({r, &op});
    }
    // Outlines separate blocks when they are wide enough to see; thinner blocks fill solid.
    if (drawn > 0 && widths / drawn >= 4) painter->setPen(QPen(pal.color(QPalette::Base), 1));
    else painter->setPen(Qt::NoPen);
    for (int i = 0; i < kKinds * kChunkShades; ++i) {
        if (byColour[i].isEmpty()) continue;
        painter->setBrush(opColor(static_cast<OpKind>(i / kChunkShades), i % kChunkShades, pal));
        painter->drawRects(byColour[i]);
    }
    // Microbatch numbers inside blocks wide enough to hold them; chunk as a suffix.
    QFont f = painter->font();
    f.setPointSizeF(7.5);
    painter->setFont(f);
    for (const auto& [r, op] : labelled) {
        painter->setPen(theme::textOn(opColor(op->kind, op->chunk, pal)));
        QString s = QString::number(op->microbatch);
        if (t_->chunks > 1 && r.width() >= 24) s += QStringLiteral("·%1").arg(op->chunk);
        painter->drawText(r, Qt::AlignCenter, s);
    }
}

void GanttPlottable::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const {
    painter->fillRect(rect, opColor(OpKind::Forward, 0, QApplication::palette()));
}
