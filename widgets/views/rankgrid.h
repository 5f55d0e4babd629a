#pragma once
// The rank grid: every global rank placed by its mesh coordinates, the framework's
// axes nested in its own order (outer axes as the big blocks, alternately rows and
// columns). Colour by any axis; pick an axis to see its groups; click a rank to
// highlight its group. For ColossalAI's 2D/2.5D/3D tensor modes, also the split of
// one weight matrix over the tensor-parallel group.
#include "common/heatmap.h"
#include "probe/probe_compare.h"
#include "topology/rank_map.h"

#include <QWidget>

#include <memory>
#include <vector>

class ProjectEditor;
class QComboBox;
class QGridLayout;
class QLabel;
class QScrollArea;
class RankGridCanvas;

class RankGrid : public QWidget {
    Q_OBJECT
public:
    explicit RankGrid(ProjectEditor* editor, QWidget* parent = nullptr);

    void refresh();
    void setColourAxis(const QString& axis);
    void setGroupKind(const QString& kind);
    void selectRank(int rank);   // highlights its group of the chosen kind
    std::vector<int> highlightedRanks() const;
    // Where rank `r` is drawn (row, column) in the nested grid; (-1, -1) if absent.
    QPoint cellOf(int rank) const;
    // The rectangle rank `r`'s cell is painted in, in canvas() coordinates (null if absent).
    QRect cellRect(int rank) const;
    RankGridCanvas* canvas() const { return canvas_; }
    // How many rank cells the last repaint of the grid drew: those in the exposed part of the
    // scroll area, not every rank.
    int lastPaintedCells() const;
    QComboBox* colourCombo() const { return colourBy_; }
    QComboBox* groupCombo() const { return groupKind_; }

    // Live overlay of a running job; the first one switches "Colour by" to utilization,
    // clearing it returns to the layout axis.
    void setLiveOverlay(const LiveOverlay& overlay);
    void clearLiveOverlay();
    // A probe result held against the plan: ranks coloured by their group's (of the
    // "Groups of" kind) measured / assumed bandwidth, slow groups outlined, failed
    // membership checks red. Switches "Colour by" to it.
    void setProbeChecks(std::vector<paraplan::runtime::ProbeGroupCheck> checks);
    void clearProbe();
    const std::vector<paraplan::runtime::ProbeGroupCheck>& probeChecks() const { return probe_; }
    // The heatmap the cells show now (null when coloured by a layout axis).
    const Heatmap* shownHeatmap() const;
    const HeatCell* cellHeat(int rank) const;   // null when not coloured by a heatmap
    QString rankToolTip(int rank) const;
    // The header and the weight-split table below it, as one text.
    QString infoText() const;
    // The header above the grid (the mesh, the tensor mode, a heatmap's summary): wrapped to the
    // view's width, never cut off at its right edge. Its rectangle is in this widget's coordinates.
    QString headerText() const;
    QRect headerRect() const;
    HeatLegend* legend() const { return legend_; }

signals:
    void rankSelected(int rank);

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    // "Groups of" goes below "Colour by" when the two do not fit side by side (a narrow dock).
    void placeChoices();
    void fitChoices();
    ProjectEditor* editor_;
    QComboBox* colourBy_;
    QComboBox* groupKind_;
    QGridLayout* choices_;
    QLabel *colourLabel_, *groupLabel_;
    bool twoRows_ = false;
    QLabel* header_;   // the mesh line and the like, wrapped
    QLabel* info_;     // the weight-split table, scrolled sideways
    QScrollArea* scroll_;
    QScrollArea* infoScroll_ = nullptr;
    RankGridCanvas* canvas_;
    QString preferredColour_ = QStringLiteral("tp"), preferredGroup_ = QStringLiteral("tp");   // user choices
    void applyColour();   // the canvas, legend and info for the current "Colour by"
    LiveOverlay live_;
    std::vector<paraplan::runtime::ProbeGroupCheck> probe_;
    Heatmap probeHeat_;                                        // probe_ for the current group kind
    std::shared_ptr<const paraplan::topology::RankMap> map_;   // the map shown (the document's, shared)
    QString layoutAxis_ = QStringLiteral("tp");
    QString meshHeader_, meshTable_;
    HeatLegend* legend_ = nullptr;
};
