#pragma once
// Overlays drawn over the cluster canvas and the rank grid: one value per rank on a
// colour scale (live GPU utilization or memory, or a probe's measured bandwidth against
// the model's), missing ranks hatched grey ("no sample", never drawn as 0), flagged
// ranks outlined, failed ones filled red; plus the legend that explains it. The views
// only draw these; the values and verdicts come from core/runtime (telemetry_heat.h,
// probe_compare.h) through the converters below.
#include <QColor>
#include <QString>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

class QPainter;

namespace paraplan::runtime {
struct HeatMap;
struct ProbeGroupCheck;
}   // namespace paraplan::runtime

struct HeatCell {
    bool has = false;       // false: no sample (hatched, "no sample" in the tooltip)
    double fraction = 0;    // position on the colour scale, 0..1
    QString text;           // the value as shown on the tile ("97 %", "69.6 GiB")
    QString note;           // tooltip lines (HTML): why missing, group means, flags
    bool flagged = false;   // outlined
    bool failed = false;    // filled red (a failed check)
};

struct Heatmap {
    QString metric;                                     // "GPU utilization", "GPU memory", "probe bandwidth"
    QString low, high;                                  // the legend's two ends
    std::vector<HeatCell> cells;                        // index = rank
    std::vector<std::optional<double>> stageFraction;   // mean per pipeline stage (missing: nullopt)
    QString summary;                                    // one line for the view's info text
    int flagged = 0;
    // Live heat keeps core's map, and tooltip() writes a rank's lines (sample age, estimate,
    // flags, the means of its stage and groups) when asked: written for every rank at each
    // tick they cost 1.5 s at 32,768 GPUs (tests/benchmarks/bench_gui_heat).
    std::shared_ptr<const paraplan::runtime::HeatMap> live;

    bool empty() const { return cells.empty(); }
    const HeatCell* cell(int rank) const {
        return rank >= 0 && rank < static_cast<int>(cells.size()) ? &cells[static_cast<std::size_t>(rank)] : nullptr;
    }
};

// What a running job feeds the views each tick: both metrics, the toggle picks one.
struct LiveOverlay {
    Heatmap utilization, memory;
    // From the step playback (what each GPU computes at the playhead, in `utilization`),
    // not a running job's telemetry: "Colour by" then says "Step playback".
    bool playback = false;
    bool empty() const { return utilization.empty() && memory.empty(); }
};

namespace heat {

// "Colour by" values the views add next to their layout axes.
inline const QString kUtilization = QStringLiteral("live:utilization");
inline const QString kMemory = QStringLiteral("live:memory");
inline const QString kProbe = QStringLiteral("probe:bandwidth");

// A sequential, colour-blind-safe scale (viridis stops): dark purple at 0, yellow at 1.
QColor colour(double fraction);
QColor failedColour();
QColor flagColour();
// Fills r for the cell: the scale colour, the hatch when missing (c null or !has), red
// when failed; outlines flagged cells. Returns the fill (for the text colour).
QColor paintCell(QPainter& p, const QRectF& r, const HeatCell* c, const QPalette& pal, qreal radius = 0);
// Tooltip lines for a rank (HTML).
QString tooltip(const Heatmap& h, int rank);

// From core's live heat (telemetry_heat()).
Heatmap fromTelemetry(paraplan::runtime::HeatMap h);
// Every rank coloured by its `kind` group's measured / assumed bandwidth (1 = as
// assumed); slow groups flagged, failed membership checks failed (red).
Heatmap fromProbe(const std::vector<paraplan::runtime::ProbeGroupCheck>& checks, const QString& kind, int world);

}   // namespace heat

// The legend: the colour bar with its two ends, the hatched "no sample" swatch and the
// outlined "flagged" swatch.
class HeatLegend : public QWidget {
public:
    explicit HeatLegend(QWidget* parent = nullptr);
    void setHeatmap(const Heatmap& h);
    QSize sizeHint() const override;
    QString text() const { return QStringLiteral("%1: %2 … %3").arg(metric_, low_, high_); }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    QString metric_, low_, high_;
    bool probe_ = false;
};
