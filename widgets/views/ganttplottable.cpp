#include "views/ganttplottable.h"

#include "common/theme.h"

#include <QApplication>
#include <QImage>
#include <QPaintEngine>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <vector>

using paraplan::schedule::OpKind;
using paraplan::schedule::Timeline;
using paraplan::schedule::TimelineOp;

namespace {
constexpr double kHalfLane = 0.4;   // a block fills 80% of its stage's lane
constexpr double kHeader = -1.0;    // a step of several flushes: a row above stage 0 for their labels
constexpr int kKinds = 4, kChunkShades = 4;
// More blocks than this in view (several flushes) and the flushes are stamped from an image of
// a run of them at least kStampPx wide (on screen; vector exports draw every block).
constexpr int kDetailBlocks = 8000;
constexpr double kStampPx = 32;
}   // namespace

GanttPlottable::GanttPlottable(QCPAxis* keyAxis, QCPAxis* valueAxis) : QCPAbstractPlottable(keyAxis, valueAxis) {
    setSelectable(QCP::stNone);
    setAntialiasedFill(false);
}

void GanttPlottable::setTimeline(const Timeline* t) { t_ = t; }

double GanttPlottable::flushLength() const {
    if (!t_) return 0;
    const int k = std::max(1, flushes_.count);
    if (flushes_.repeat || k == 1) return t_->makespan;
    if (flushes_.flush > 0) return flushes_.flush;
    return (t_->makespan - (flushes_.sync_each_flush ? (k - 1) * flushes_.sync : 0)) / k;
}

double GanttPlottable::flushStart(int j) const {
    return j * (flushLength() + (flushes_.sync_each_flush ? flushes_.sync : 0));
}

double GanttPlottable::span() const {
    if (!t_) return 0;
    const int k = std::max(1, flushes_.count);
    const double all = k * flushLength() + (flushes_.sync_each_flush ? k : 1) * std::max(0.0, flushes_.sync);
    return std::max(all, t_->makespan);
}

int GanttPlottable::lastDrawnForwards(int stage) const {
    return stage >= 0 && stage < int(lastForwards_.size()) ? lastForwards_[std::size_t(stage)] : 0;
}

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

QColor GanttPlottable::syncColor(const QPalette& pal) {
    // Okabe-Ito reddish purple, beside F blue, B vermillion, W green.
    const QColor c(0xCC, 0x79, 0xA7);
    return theme::isDark(pal) ? c.darker(110) : c;
}

QCPRange GanttPlottable::getKeyRange(bool& found, QCP::SignDomain) const {
    found = t_ && !t_->ops.empty();
    return found ? QCPRange(0, span()) : QCPRange();
}

QCPRange GanttPlottable::getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const {
    found = t_ && t_->pp > 0;
    return found ? QCPRange(flushes_.count > 1 ? kHeader : -0.5, t_->pp - 0.5) : QCPRange();
}

const TimelineOp* GanttPlottable::opAt(const QPointF& px, int* flush) const {
    if (!t_ || t_->ops.empty()) return nullptr;
    double time = keyAxis()->pixelToCoord(px.x());
    const int k = std::max(1, flushes_.count);
    const double period = k > 1 ? flushStart(1) : 0;
    const int j = period > 0 ? std::clamp(int(std::floor(time / period)), 0, k - 1) : 0;
    if (flush) *flush = j;
    if (copies() > 1) {
        time -= flushStart(j);
        if (time > flushLength()) return nullptr;   // in the gradient reduction after the flush
    }
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

int GanttPlottable::syncAt(const QPointF& px) const {
    if (!t_ || t_->pp <= 0 || flushes_.sync <= 0) return -1;
    const double time = keyAxis()->pixelToCoord(px.x()), lane = valueAxis()->pixelToCoord(px.y());
    if (lane < -kHalfLane || lane > t_->pp - 1 + kHalfLane) return -1;
    const int k = std::max(1, flushes_.count);
    for (int j = flushes_.sync_each_flush ? 0 : k - 1; j < k; ++j) {
        const double a = flushStart(j) + flushLength();
        if (time >= a && time <= a + flushes_.sync) return j;
    }
    return -1;
}

double GanttPlottable::selectTest(const QPointF& pos, bool onlySelectable, QVariant*) const {
    if (onlySelectable && !selectable()) return -1;
    return opAt(pos) ? 0 : -1;
}

void GanttPlottable::draw(QCPPainter* painter) {
    lastDrawn_ = 0;
    lastForwards_.assign(t_ ? std::size_t(std::max(0, t_->pp)) : 0, 0);
    lastLabels_.clear();
    lastStamped_ = false;
    lastFilled_ = 0;
    if (!t_ || t_->ops.empty()) return;
    const QPalette pal = QApplication::palette();
    const QCPRange visible = keyAxis()->range();
    const double x0 = keyAxis()->coordToPixel(0);
    const double kx = keyAxis()->coordToPixel(1) - x0;
    const double vy0 = valueAxis()->coordToPixel(0), vy = valueAxis()->coordToPixel(1) - vy0;
    const auto px = [&](double time) { return x0 + time * kx; };
    const auto py = [&](double lane) { return vy0 + lane * vy; };

    // The step's flushes: those in view (each one flush long, the reductions between them).
    const int k = std::max(1, flushes_.count);
    const double flush = flushLength(), sync = std::max(0.0, flushes_.sync);
    std::vector<int> inView;
    for (int j = 0; j < k; ++j) {
        const double a = flushStart(j);
        if (a > visible.upper) break;
        if (a + flush + sync >= visible.lower) inView.push_back(j);
    }

    // Bubbles: each flush's lanes are shaded as idle; blocks are drawn over them. Flushes back to
    // back (no reduction between them) are one stretch.
    QColor idle = theme::errorColor(pal);
    idle.setAlphaF(0.10f);
    const bool gaps = flushes_.sync_each_flush && sync > 0;
    for (std::size_t i = 0; i < inView.size();) {
        const std::size_t last = gaps ? i : inView.size() - 1;
        for (int s = 0; s < t_->pp; ++s)
            painter->fillRect(QRectF(QPointF(px(flushStart(inView[i])), py(s - kHalfLane)),
                                     QPointF(px(flushStart(inView[last]) + flush), py(s + kHalfLane)))
                                  .normalized(),
                              idle);
        i = last + 1;
    }

    // The selected group's stages: a band in the highlight colour around their lanes.
    if (!highlighted_.empty()) {
        QColor band = pal.color(QPalette::Highlight);
        band.setAlphaF(0.28f);
        for (int s : highlighted_) {
            if (s < 0 || s >= t_->pp) continue;
            painter->fillRect(QRectF(QPointF(px(0), py(s - 0.5)), QPointF(px(span()), py(s + 0.5))).normalized(), band);
        }
    }

    // The gradient reduction after a flush: one block across every lane (all stages reduce).
    QFont f = painter->font();
    f.setPointSizeF(7.5);
    painter->setFont(f);
    if (sync > 0)
        for (int j : inView) {
            if (!flushes_.sync_each_flush && j != k - 1) continue;
            const QRectF r = QRectF(QPointF(px(flushStart(j) + flush), py(-kHalfLane)),
                                    QPointF(px(flushStart(j) + flush + sync), py(t_->pp - 1 + kHalfLane)))
                                 .normalized();
            painter->fillRect(r, syncColor(pal));
            const QString what = QObject::tr("gradient sync");
            if (r.width() >= painter->fontMetrics().horizontalAdvance(what) + 6) {
                painter->setPen(theme::textOn(syncColor(pal)));
                painter->drawText(r, Qt::AlignCenter, what);
            }
        }

    // Blocks, grouped by colour (op kind x chunk) so each colour is one drawRects call. The
    // axes are linear, so pixel positions come from one scale and offset, not a call per op.
    const double top = -kHalfLane * vy, height = 2 * kHalfLane * vy;
    const int copies = this->copies();
    const std::vector<int> one{0};
    const std::vector<int>& drawnFlushes = copies > 1 ? inView : one;
    // Many blocks in view: the first flush in view is drawn once into an image, stamped at every flush.
    const QPaintEngine* engine = painter->paintEngine();
    const bool vector = painter->modes().testFlag(QCPPainter::pmVectorized) ||
                        (engine && engine->type() != QPaintEngine::Raster);   // PDF, SVG, printing
    // Many blocks in view: a run of flushes (at least kStampPx wide, so that blocks thinner than
    // a pixel add up as they do drawn one by one) is drawn once into an image, stamped along.
    const double periodPx = std::abs((k > 1 ? flushStart(1) : flush) * kx);
    const int run = std::max(1, int(std::ceil(kStampPx / std::max(1e-9, periodPx))));
    const bool stamp = copies > 1 && !vector && drawnFlushes.size() > std::size_t(run) &&
                       double(drawnFlushes.size()) * double(t_->ops.size()) > kDetailBlocks &&
                       (run + 1) * periodPx <= 2.0 * std::max(1, clipRect().width());
    lastStamped_ = stamp;
    QVector<QRectF> byColour[kKinds * kChunkShades];
    QVector<QPair<QRectF, const TimelineOp*>> labelled;
    QVector<int> labelledFlush;
    double widths = 0;
    int drawn = 0;
    // Blocks of one colour that touch or overlap in a stage's lane are collected as one rectangle:
    // without outlines they cover the same pixels (the fill is not antialiased), and where blocks
    // are thinner than a pixel far fewer are kept and filled (one flush of 8,192 microbatches on
    // 32 stages is 524,288 blocks in a plot 900 pixels wide: 150 ms of the GUI thread, one by one).
    // Should the blocks turn out wide enough for outlines, they are collected again one by one.
    bool merge = mergeBlocks_, merged = false;
    const int lanes = std::max(0, t_->pp);
    std::vector<qsizetype> laneLast(std::size_t(kKinds * kChunkShades * lanes), -1);   // index in byColour
    const auto collect = [&](int j, double shift, const QCPRange& range) {
        const double off = copies > 1 ? flushStart(j) : 0;
        for (const TimelineOp& op : t_->ops) {
            if (op.end + off < range.lower || op.start + off > range.upper) continue;   // cull to the range
            QRectF r = QRectF(shift + x0 + (op.start + off) * kx, vy0 + op.stage * vy + top, (op.end - op.start) * kx,
                              height)
                           .normalized();
            if (r.width() < 1) r.setWidth(1);   // thinner than a pixel: still drawn (a pixel wide)
            const int colour = static_cast<int>(op.kind) * kChunkShades + std::min(op.chunk, kChunkShades - 1);
            QVector<QRectF>& same = byColour[colour];
            widths += r.width();
            ++drawn;
            if (op.kind == OpKind::Forward && op.stage >= 0 && op.stage < t_->pp)
                ++lastForwards_[std::size_t(op.stage)];
            if (r.width() >= 14 && r.height() >= 10) {
                labelled.append({r, &op});
                labelledFlush.append(j);
            }
            if (merge && op.stage >= 0 && op.stage < lanes) {
                qsizetype& last = laneLast[std::size_t(colour) * std::size_t(lanes) + std::size_t(op.stage)];
                if (last >= 0 && r.left() <= same[last].right() && r.right() >= same[last].left()) {
                    QRectF& m = same[last];
                    m = QRectF(QPointF(std::min(m.left(), r.left()), m.top()),
                               QPointF(std::max(m.right(), r.right()), m.bottom()));
                    merged = true;
                    continue;
                }
                last = same.size();
            }
            same.append(r);
        }
    };
    const auto outlines = [&] { return drawn > 0 && widths / drawn >= 4; };
    // Runs the collection `all` makes; again, block by block, if it merged blocks that get outlines.
    const auto gather = [&](const std::function<void()>& all) {
        all();
        if (!merged || !outlines()) return;
        for (auto& v : byColour) v.clear();
        labelled.clear();
        labelledFlush.clear();
        widths = 0;
        drawn = 0;
        std::fill(lastForwards_.begin(), lastForwards_.end(), 0);
        merge = false;
        all();
    };
    const auto fill = [&](QPainter* p) {
        // Outlines separate blocks when they are wide enough to see; thinner blocks fill solid,
        // without antialiasing (as setAntialiasedFill(false) says, and as the stamped image always
        // drew them), so that blocks merged in a lane cover exactly the pixels they cover one by one.
        const bool aa = p->testRenderHint(QPainter::Antialiasing);
        if (outlines()) p->setPen(QPen(pal.color(QPalette::Base), 1));
        else {
            p->setPen(Qt::NoPen);
            p->setRenderHint(QPainter::Antialiasing, false);
        }
        for (int i = 0; i < kKinds * kChunkShades; ++i) {
            if (byColour[i].isEmpty()) continue;
            p->setBrush(opColor(static_cast<OpKind>(i / kChunkShades), i % kChunkShades, pal));
            p->drawRects(byColour[i]);
        }
        p->setRenderHint(QPainter::Antialiasing, aa);
    };
    if (stamp) {
        // Flushes j0 .. j0 + run (one more than a run, so that stamps overlap rather than leave a
        // rounding gap) into an image whose left edge is j0's start less a pixel.
        const int j0 = drawnFlushes.front();
        const double left = std::floor(px(flushStart(j0)) - 1);
        const QRect clip = clipRect();
        QImage img(int(std::ceil((run + 1) * periodPx)) + 3, clip.height(), QImage::Format_ARGB32_Premultiplied);
        img.fill(Qt::transparent);
        const QCPRange all(-std::numeric_limits<double>::max(), std::numeric_limits<double>::max());
        gather([&] {
            for (int j = j0; j <= std::min(k - 1, j0 + run); ++j) collect(j, -left, all);
        });
        lastFilled_ = 0;
        for (auto& v : byColour) {
            lastFilled_ += int(v.size());
            for (auto& r : v) r.translate(0, -clip.top());
        }
        {
            QPainter ip(&img);
            fill(&ip);
        }
        // Not past the step's last flush.
        painter->save();
        painter->setClipRect(
            QRectF(QPointF(px(0), clip.top()), QPointF(px(flushStart(k - 1) + flush), clip.bottom())).normalized(),
            Qt::IntersectClip);
        for (std::size_t i = 0; i < drawnFlushes.size(); i += std::size_t(run))
            painter->drawImage(QPointF(left + (flushStart(drawnFlushes[i]) - flushStart(j0)) * kx, clip.top()), img);
        painter->restore();
        // Every flush in view is drawn: count them so.
        const int perFlush = int(t_->ops.size());
        std::fill(lastForwards_.begin(), lastForwards_.end(), 0);
        for (const TimelineOp& op : t_->ops)
            if (op.kind == OpKind::Forward && op.stage >= 0 && op.stage < t_->pp)
                lastForwards_[std::size_t(op.stage)] += int(drawnFlushes.size());
        drawn = perFlush * int(drawnFlushes.size());
        labelled.clear();   // blocks this many are too thin for numbers
    } else {
        gather([&] {
            for (int j : drawnFlushes) collect(j, 0, visible);
        });
        lastFilled_ = 0;
        for (const auto& v : byColour) lastFilled_ += int(v.size());
        fill(painter);
    }
    lastDrawn_ = drawn;
    // Microbatch numbers inside blocks wide enough to hold them; chunk as a suffix. Microbatches
    // are numbered on across the flushes of the step.
    for (int i = 0; i < labelled.size(); ++i) {
        const auto& [r, op] = labelled[i];
        painter->setPen(theme::textOn(opColor(op->kind, op->chunk, pal)));
        QString s = QString::number(op->microbatch + (copies > 1 ? labelledFlush[i] * t_->microbatches : 0));
        if (t_->chunks > 1 && r.width() >= 24) s += QStringLiteral("·%1").arg(op->chunk);
        painter->drawText(r, Qt::AlignCenter, s);
    }

    // Several flushes: a line where each begins and "flush j of k" in the row above stage 0,
    // on every flush that has room (every n-th when they are narrow).
    if (k > 1) {
        const QFontMetricsF fm(painter->font());
        const double every = std::max(1e-12, std::abs(flushStart(1) * kx));
        const double need = fm.horizontalAdvance(QObject::tr("flush %1 of %2").arg(k).arg(k)) + 12;
        const int step = std::max(1, int(std::ceil(need / every)));
        painter->setPen(QPen(pal.color(QPalette::WindowText), 1, Qt::DashLine));
        for (int j : inView)
            if (j > 0 && (j % step == 0 || every >= 6))
                painter->drawLine(QPointF(px(flushStart(j)), py(j % step == 0 ? kHeader : -0.5)),
                                  QPointF(px(flushStart(j)), py(t_->pp - 0.5)));   // up to a label
        painter->setPen(pal.color(QPalette::WindowText));
        for (int j : inView) {
            if (j % step != 0) continue;
            const QString s = QObject::tr("flush %1 of %2").arg(j + 1).arg(k);
            const QRectF r(QPointF(px(flushStart(j)) + 4, py(kHeader)), QPointF(px(flushStart(j)) + need, py(-0.5)));
            painter->drawText(r.normalized(), Qt::AlignLeft | Qt::AlignVCenter, s);
            lastLabels_.append(s);
        }
    }
}

void GanttPlottable::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const {
    painter->fillRect(rect, opColor(OpKind::Forward, 0, QApplication::palette()));
}
