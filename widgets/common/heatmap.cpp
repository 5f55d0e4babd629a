#include "common/heatmap.h"
#include "common/wording.h"

#include "probe/probe_compare.h"
#include "telemetry/telemetry_heat.h"
#include "common/theme.h"

#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace heat {

namespace {
// viridis at 0, .25, .5, .75, 1 (matplotlib's _cm_listed.py values, rounded to 8 bits).
const QColor kStops[] = {QColor(0x44, 0x01, 0x54), QColor(0x3b, 0x52, 0x8b), QColor(0x21, 0x91, 0x8c),
                         QColor(0x5e, 0xc9, 0x62), QColor(0xfd, 0xe7, 0x25)};

QString fmtValue(paraplan::runtime::HeatMetric m, double v) {
    if (m == paraplan::runtime::HeatMetric::Utilization) return QStringLiteral("%1 %").arg(std::lround(v));
    return QStringLiteral("%1 GiB").arg(v / 1024.0, 0, 'f', 1);
}

QString gbps(double v) { return QStringLiteral("%1 GB/s").arg(v, 0, 'g', v >= 10 ? 4 : 2); }
}   // namespace

QColor colour(double f) {
    f = std::clamp(f, 0.0, 1.0) * 4;
    const int i = std::min(3, static_cast<int>(f));
    const double t = f - i;
    const QColor &a = kStops[i], &b = kStops[i + 1];
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

QColor failedColour() { return QColor(0xd6, 0x27, 0x28); }
QColor flagColour() { return QColor(0xff, 0x7f, 0x0e); }

QColor paintCell(QPainter& p, const QRectF& r, const HeatCell* c, const QPalette& pal, qreal radius) {
    QColor fill;
    const bool missing = !c || (!c->has && !c->failed);
    if (c && c->failed) fill = failedColour();
    else if (!missing) fill = colour(c->fraction);
    else fill = theme::isDark(pal) ? QColor(0x55, 0x55, 0x55) : QColor(0xd0, 0xd0, 0xd0);
    if (radius <= 0) {
        // Square cells (the rank grid, the canvas at far zoom): plain rectangle fills, no path
        // and no painter state copy, so that thousands of cells repaint at playback rate.
        const bool aa = p.testRenderHint(QPainter::Antialiasing);
        if (aa) p.setRenderHint(QPainter::Antialiasing, false);
        p.fillRect(r, fill);
        if (missing) p.fillRect(r, QBrush(fill.darker(150), Qt::BDiagPattern));
        if (c && c->flagged) {
            // The 3 px outline as four filled strips (a wide pen goes through the stroker).
            const qreal w = std::min<qreal>(3, std::min(r.width(), r.height()) / 2);
            const QColor f = flagColour();
            p.fillRect(QRectF(r.left(), r.top(), r.width(), w), f);
            p.fillRect(QRectF(r.left(), r.bottom() - w, r.width(), w), f);
            p.fillRect(QRectF(r.left(), r.top(), w, r.height()), f);
            p.fillRect(QRectF(r.right() - w, r.top(), w, r.height()), f);
        }
        if (aa) p.setRenderHint(QPainter::Antialiasing, true);
        return fill;
    }
    QPainterPath path;
    if (radius > 0) path.addRoundedRect(r, radius, radius);
    else path.addRect(r);
    p.save();
    p.setRenderHint(QPainter::Antialiasing, radius > 0);
    p.fillPath(path, fill);
    if (missing) p.fillPath(path, QBrush(fill.darker(150), Qt::BDiagPattern));
    if (c && c->flagged) {
        p.setPen(QPen(flagColour(), 3));
        p.setBrush(Qt::NoBrush);
        if (radius > 0) p.drawRoundedRect(r.adjusted(1.5, 1.5, -1.5, -1.5), radius, radius);
        else p.drawRect(r.adjusted(1.5, 1.5, -1.5, -1.5));
    }
    p.restore();
    return fill;
}

namespace {

QString groupMean(const paraplan::runtime::HeatMap& h, const paraplan::runtime::GroupHeat& g) {
    QString s = g.mean ? fmtValue(h.metric, *g.mean) : QObject::tr("no sample");
    if (g.mean && g.missing) s += QObject::tr(" (%1 without a sample)").arg(g.missing);
    return s;
}

// A rank's tooltip lines from core's live heat: its value's caveats, the estimate, its flags,
// then the mean of its pipeline stage and of each group of two or more it belongs to.
QString liveNote(const paraplan::runtime::HeatMap& h, int rank) {
    using paraplan::runtime::HeatMetric;
    const bool util = h.metric == HeatMetric::Utilization;
    const auto& in = h.ranks[static_cast<std::size_t>(rank)];
    QStringList notes;
    if (in.value) {
        if (!in.fraction) notes << QObject::tr("%1, but memory.total not reported").arg(fmtValue(h.metric, *in.value));
        if (in.age_s >= 0) notes << QObject::tr("sample %1 s old").arg(in.age_s, 0, 'f', 1);
    } else {
        notes << QObject::tr("<i>no sample</i>%1")
                     .arg(in.missing.empty() || in.missing == "no sample"
                              ? QString()
                              : QStringLiteral(" (%1)").arg(QString::fromStdString(in.missing).toHtmlEscaped()));
    }
    if (!util && in.expected_mib) notes << QObject::tr("estimate %1").arg(fmtValue(h.metric, *in.expected_mib));
    for (const auto& f : in.flags) notes << QStringLiteral("⚠ ") + QString::fromStdString(f).toHtmlEscaped();
    auto holds = [rank](const paraplan::runtime::GroupHeat& g) {
        return std::find(g.ranks.begin(), g.ranks.end(), rank) != g.ranks.end();
    };
    for (const auto& s : h.stages)
        if (holds(s)) notes << QObject::tr("pipeline stage %1: mean %2").arg(s.index).arg(groupMean(h, s));
    for (const auto& g : h.groups)
        if (g.ranks.size() >= 2 && holds(g))
            notes << QObject::tr("%1 group %2: mean %3")
                         .arg(QString::fromStdString(g.kind))
                         .arg(g.index)
                         .arg(groupMean(h, g));
    return notes.join(QStringLiteral("<br>"));
}

}   // namespace

QString tooltip(const Heatmap& h, int rank) {
    const HeatCell* c = h.cell(rank);
    QString t = QStringLiteral("<b>%1</b>: ").arg(h.metric.toHtmlEscaped());
    if (!c) return t + QObject::tr("no sample");
    t += c->failed || c->has ? c->text : QObject::tr("no sample");
    const QString note = h.live && rank < static_cast<int>(h.live->ranks.size()) ? liveNote(*h.live, rank) : c->note;
    if (!note.isEmpty()) t += QStringLiteral("<br>") + note;
    return t;
}

Heatmap fromTelemetry(paraplan::runtime::HeatMap h) {
    using paraplan::runtime::HeatMetric;
    Heatmap out;
    const bool util = h.metric == HeatMetric::Utilization;
    out.metric = util ? QObject::tr("GPU utilization") : QObject::tr("GPU memory");
    out.low = util ? QStringLiteral("0 %") : QObject::tr("0");
    out.high = util ? QStringLiteral("100 %") : QObject::tr("all of the GPU's memory");
    out.cells.resize(h.ranks.size());
    for (std::size_t r = 0; r < h.ranks.size(); ++r) {
        const auto& in = h.ranks[r];
        HeatCell& c = out.cells[r];
        c.has = in.value && in.fraction;
        if (in.value) {
            c.fraction = in.fraction.value_or(0);
            c.text = fmtValue(h.metric, *in.value);
            if (!util && in.fraction) c.text += QStringLiteral(" (%1 %)").arg(std::lround(*in.fraction * 100));
        }
        c.flagged = !in.flags.empty();
        out.flagged += c.flagged ? 1 : 0;
    }
    QStringList summary;
    for (const auto& s : h.stages) {
        out.stageFraction.push_back(s.mean_fraction);
        summary << QObject::tr("stage %1: %2").arg(s.index).arg(groupMean(h, s));
    }
    if (h.missing)
        summary << QObject::tr("%1 without a sample")
                       .arg(wording::count(h.missing, QObject::tr("1 rank"), QObject::tr("%1 ranks")));
    if (out.flagged) summary << QObject::tr("%n flagged", nullptr, out.flagged);
    out.summary = QStringLiteral("<b>%1</b> (live)%2")
                      .arg(out.metric,
                           summary.isEmpty() ? QString() : QStringLiteral(" · ") + summary.join(QStringLiteral(" · ")));
    out.live = std::make_shared<const paraplan::runtime::HeatMap>(std::move(h));
    return out;
}

Heatmap fromProbe(const std::vector<paraplan::runtime::ProbeGroupCheck>& checks, const QString& kind, int world) {
    Heatmap out;
    out.metric = QObject::tr("probe bandwidth (%1 groups, measured / assumed)").arg(kind);
    out.low = QStringLiteral("0 ×");
    out.high = QStringLiteral("≥ 1 ×");
    out.cells.resize(static_cast<std::size_t>(std::max(0, world)));
    for (auto& c : out.cells) c.note = QObject::tr("<i>no sample</i>: in no probed %1 group").arg(kind);
    int groups = 0, slow = 0, failed = 0;
    for (const auto& g : checks) {
        if (QString::fromStdString(g.kind) != kind) continue;
        ++groups;
        slow += g.slow ? 1 : 0;
        failed += g.membership_ok ? 0 : 1;
        HeatCell c;
        c.failed = !g.membership_ok;
        c.flagged = g.slow;
        if (g.measured_gbps && g.assumed_gbps > 0) {
            c.has = true;
            c.fraction = std::min(1.0, *g.measured_gbps / g.assumed_gbps);
            c.text = QObject::tr("%1 of %2 assumed").arg(gbps(*g.measured_gbps), gbps(g.assumed_gbps));
        } else {
            c.text = c.failed ? QObject::tr("membership check failed") : QObject::tr("not measured");
        }
        c.note = QString::fromStdString(g.message).toHtmlEscaped();
        if (!c.has && !c.failed) c.note = QObject::tr("<i>no sample</i>: ") + c.note;
        for (int r : g.ranks)
            if (r >= 0 && r < world) out.cells[static_cast<std::size_t>(r)] = c;
    }
    for (const auto& c : out.cells) out.flagged += c.flagged || c.failed ? 1 : 0;
    out.summary = QObject::tr("<b>Probe</b>: %1 %2 groups · %3 slow · %4 failed the membership check")
                      .arg(groups)
                      .arg(kind)
                      .arg(slow)
                      .arg(failed);
    return out;
}

}   // namespace heat

HeatLegend::HeatLegend(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("heatLegend"));
    setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
}

void HeatLegend::setHeatmap(const Heatmap& h) {
    metric_ = h.metric;
    low_ = h.low;
    high_ = h.high;
    probe_ = h.metric.startsWith(QStringLiteral("probe"));
    setToolTip(QObject::tr("%1: the colour runs from %2 (dark) to %3 (yellow). Hatched grey: no sample (never "
                           "drawn as 0). Orange outline: flagged%4.")
                   .arg(metric_, low_, high_,
                        probe_ ? QObject::tr(" (slow); red: membership check failed")
                               : QObject::tr(" (memory above the estimate, idle while its group works)")));
    updateGeometry();
    update();
}

QSize HeatLegend::sizeHint() const {
    const QFontMetrics fm(font());
    return {fm.horizontalAdvance(low_ + high_) + fm.horizontalAdvance(QObject::tr("no sample flagged failed")) + 200,
            fm.height() + 8};
}

void HeatLegend::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const QFontMetrics fm(font());
    const int h = height() - 6, y = 3;
    int x = 2;
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(x, 0, fm.horizontalAdvance(low_) + 2, height()), Qt::AlignVCenter, low_);
    x += fm.horizontalAdvance(low_) + 4;
    QLinearGradient g(x, 0, x + 90, 0);
    for (int i = 0; i <= 4; ++i) g.setColorAt(i / 4.0, heat::colour(i / 4.0));
    p.fillRect(QRect(x, y, 90, h), g);
    x += 94;
    p.drawText(QRect(x, 0, fm.horizontalAdvance(high_) + 2, height()), Qt::AlignVCenter, high_);
    x += fm.horizontalAdvance(high_) + 12;
    auto swatch = [&](const HeatCell* c, const QString& label) {
        heat::paintCell(p, QRectF(x, y, h, h), c, palette());
        x += h + 4;
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(x, 0, fm.horizontalAdvance(label) + 2, height()), Qt::AlignVCenter, label);
        x += fm.horizontalAdvance(label) + 10;
    };
    swatch(nullptr, QObject::tr("no sample"));
    HeatCell flagged;
    flagged.has = true;
    flagged.fraction = 0.5;
    flagged.flagged = true;
    swatch(&flagged, QObject::tr("flagged"));
    if (probe_) {
        HeatCell failed;
        failed.failed = true;
        swatch(&failed, QObject::tr("failed"));
    }
}
