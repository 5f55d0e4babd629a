#include "views/rankgrid.h"

#include "document/projecteditor.h"
#include "common/theme.h"
#include "topology/rank_map.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPaintEvent>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>

using paraplan::topology::RankMap;

// Paints the grid. Rows and columns come from the axes, outer -> inner: axis 0 is
// the outermost row block, axis 1 the outermost column block, axis 2 rows inside
// those, and so on, so each axis stays a contiguous band like the framework's mesh.
class RankGridCanvas : public QWidget {
public:
    explicit RankGridCanvas(QWidget* parent) : QWidget(parent) {
        setMouseTracking(true);
        setObjectName(QStringLiteral("rankGridCanvas"));
    }

    const RankMap* map = nullptr;
    QString colourAxis, groupKind;
    std::vector<int> highlighted;
    std::vector<int> rowAxes, colAxes;   // indices into map->axes
    int rows = 0, cols = 0;
    std::vector<QPoint> cellOfRank;   // x = column, y = row
    std::vector<int> rankOfCell;      // row * cols + column -> rank (-1: empty)
    int paintedCells = 0;             // cells the last paint drew (the exposed ones)
    int cell = 34;
    int headerW = 0, headerH = 0;
    std::vector<int> rowBandX, rowBandW;   // left edge and width of each row axis's header band
    std::function<void(int)> clicked;
    const Heatmap* heat = nullptr;   // when set, cells show it instead of the axis colours

    void rebuild() {
        rowAxes.clear();
        colAxes.clear();
        cellOfRank.clear();
        rankOfCell.clear();
        rows = cols = 0;
        if (!map || !map->valid() || map->axes.empty()) {
            setMinimumSize(0, 0);
            update();
            return;
        }
        // Axes of size 1 add nothing to see; the rest alternate rows, columns, rows, ...
        std::vector<int> shown;
        for (std::size_t i = 0; i < map->axes.size(); ++i)
            if (map->axes[i].size > 1) shown.push_back(static_cast<int>(i));
        for (std::size_t i = 0; i < shown.size(); ++i) (i % 2 == 0 ? rowAxes : colAxes).push_back(shown[i]);
        rows = cols = 1;
        for (int a : rowAxes) rows *= map->axes[static_cast<std::size_t>(a)].size;
        for (int a : colAxes) cols *= map->axes[static_cast<std::size_t>(a)].size;
        cellOfRank.assign(static_cast<std::size_t>(map->world_size), QPoint(-1, -1));
        rankOfCell.assign(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), -1);
        // Each axis's coordinate column, looked up once (not by name per rank).
        auto coordIndices = [&](const std::vector<int>& axes) {
            std::vector<std::pair<int, int>> idx;   // (coordinate index, axis size)
            for (int a : axes) {
                const auto& ax = map->axes[static_cast<std::size_t>(a)];
                idx.push_back({map->coord_index(ax.name), ax.size});
            }
            return idx;
        };
        const auto rowIdx = coordIndices(rowAxes), colIdx = coordIndices(colAxes);
        for (int r = 0; r < map->world_size; ++r) {
            const auto& co = map->coords(r);
            int row = 0, col = 0;
            for (const auto& [i, size] : rowIdx) row = row * size + (i >= 0 ? std::max(0, co[std::size_t(i)]) : 0);
            for (const auto& [i, size] : colIdx) col = col * size + (i >= 0 ? std::max(0, co[std::size_t(i)]) : 0);
            cellOfRank[static_cast<std::size_t>(r)] = QPoint(col, row);
            if (row < rows && col < cols)
                rankOfCell[static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) +
                           static_cast<std::size_t>(col)] = r;
        }
        cell = map->world_size > 1024 ? 16 : map->world_size > 256 ? 24 : 42;
        // Each row band is as wide as its longest label ("output 3"), so axis names never clip.
        QFont small = font();
        small.setPointSizeF(8);
        const QFontMetrics fm(small);
        rowBandX.clear();
        rowBandW.clear();
        int x = 2;
        for (int a : rowAxes) {
            const auto& ax = map->axes[static_cast<std::size_t>(a)];
            const int w = std::max(
                32,
                fm.horizontalAdvance(QStringLiteral("%1 %2").arg(QString::fromStdString(ax.name)).arg(ax.size - 1)) +
                    8);
            rowBandX.push_back(x);
            rowBandW.push_back(w);
            x += w + 2;
        }
        headerW = x + 4;
        headerH = 20 * static_cast<int>(colAxes.size()) + 6;
        setMinimumSize(headerW + cols * cell + 8, headerH + rows * cell + 8);
        update();
    }

    int rankAt(const QPoint& pos) const {
        if (!map || rows == 0) return -1;
        const int c = (pos.x() - headerW) / cell, r = (pos.y() - headerH) / cell;
        if (pos.x() < headerW || pos.y() < headerH || c >= cols || r >= rows) return -1;
        return rankOfCell[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
    }

protected:
    void paintEvent(QPaintEvent* e) override {
        QPainter p(this);
        const QPalette& pal = palette();
        const QRect exposed = e->rect();
        p.fillRect(exposed, pal.color(QPalette::Base));
        paintedCells = 0;
        if (!map || rows == 0) return;
        QFont small = font();
        small.setPointSizeF(8);
        p.setFont(small);
        // Header bands: one per axis, labelled with the axis name and index.
        auto band = [&](const std::vector<int>& axes, bool isRow) {
            int span = isRow ? rows : cols;
            for (std::size_t level = 0; level < axes.size(); ++level) {
                const auto& ax = map->axes[static_cast<std::size_t>(axes[level])];
                span /= ax.size;
                const int repeats = (isRow ? rows : cols) / (span * ax.size);
                for (int rep = 0; rep < repeats; ++rep)
                    for (int i = 0; i < ax.size; ++i) {
                        const int start = (rep * ax.size + i) * span;
                        QRect r = isRow ? QRect(rowBandX[level], headerH + start * cell, rowBandW[level], span * cell)
                                        : QRect(headerW + start * cell, static_cast<int>(level) * 20 + 2, span * cell,
                                                18);
                        if (!r.intersects(exposed)) continue;
                        QColor bg = theme::groupColor(static_cast<int>(level), pal);
                        bg.setAlphaF(0.18f + 0.12f * (i % 2));
                        p.setPen(pal.color(QPalette::WindowText));
                        if (heat && ax.name == "pp" && i < static_cast<int>(heat->stageFraction.size())) {
                            // Pipeline stage band: the stage's mean on the same scale.
                            HeatCell c;
                            c.has = heat->stageFraction[static_cast<std::size_t>(i)].has_value();
                            c.fraction = heat->stageFraction[static_cast<std::size_t>(i)].value_or(0);
                            bg = heat::paintCell(p, r.adjusted(1, 1, -1, -1), &c, pal);
                            p.setPen(theme::textOn(bg));
                        } else {
                            p.fillRect(r.adjusted(1, 1, -1, -1), bg);
                        }
                        const QString label = span * cell >= 26 || !isRow
                                                  ? QStringLiteral("%1 %2").arg(QString::fromStdString(ax.name)).arg(i)
                                                  : QString::number(i);
                        if ((isRow && span * cell >= 12) || (!isRow && span * cell >= 26))
                            p.drawText(r, Qt::AlignCenter, label);
                    }
            }
        };
        band(rowAxes, true);
        band(colAxes, false);

        const paraplan::topology::GroupSet* colourSet = nullptr;
        const int colourCoord = map->coord_index(colourAxis.toStdString());
        if (colourCoord < 0) colourSet = map->group_set(colourAxis.toStdString());
        std::vector<char> hi(static_cast<std::size_t>(map->world_size), 0);
        for (int r : highlighted)
            if (r >= 0 && r < map->world_size) hi[static_cast<std::size_t>(r)] = 1;
        QFont rankFont = font();
        rankFont.setPointSizeF(cell >= 30 ? 8.5 : 7);
        p.setFont(rankFont);
        const bool labels = cell >= 24;
        // Only the cells in the exposed rectangle: the scroll area shows a few hundred of a
        // 131,072-rank grid, and a repaint draws those.
        const int col0 = std::clamp((exposed.left() - headerW) / cell, 0, cols - 1);
        const int col1 = std::clamp((exposed.right() - headerW) / cell, 0, cols - 1);
        const int row0 = std::clamp((exposed.top() - headerH) / cell, 0, rows - 1);
        const int row1 = std::clamp((exposed.bottom() - headerH) / cell, 0, rows - 1);
        std::vector<int> shown;
        if (exposed.right() >= headerW && exposed.bottom() >= headerH)
            for (int row = row0; row <= row1; ++row)
                for (int col = col0; col <= col1; ++col) {
                    const int r = rankOfCell[static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) +
                                             static_cast<std::size_t>(col)];
                    if (r >= 0) shown.push_back(r);
                }
        paintedCells = static_cast<int>(shown.size());
        for (int r : shown) {
            const QPoint c = cellOfRank[static_cast<std::size_t>(r)];
            const QRect box(headerW + c.x() * cell + 1, headerH + c.y() * cell + 1, cell - 2, cell - 2);
            int g = 0;
            if (colourCoord >= 0) g = map->coords(r)[static_cast<std::size_t>(colourCoord)];
            else if (colourSet) g = colourSet->group_index[static_cast<std::size_t>(r)];
            else g = map->placement.empty() ? 0 : map->placement[static_cast<std::size_t>(r)].node;   // by node
            QColor fill = theme::groupColor(std::max(0, g), pal);
            if (heat) {
                fill = heat::paintCell(p, box, heat->cell(r), pal);
            } else {
                if (!highlighted.empty() && !hi[static_cast<std::size_t>(r)]) fill.setAlphaF(0.3f);
                p.fillRect(box, fill);
            }
            if (hi[static_cast<std::size_t>(r)]) {
                p.setPen(QPen(pal.color(QPalette::Highlight), 2.5));
                p.drawRect(box.adjusted(1, 1, -1, -1));
            }
            if (labels) {
                p.setPen(theme::textOn(fill));
                p.drawText(box, Qt::AlignCenter, QString::number(r));
            }
        }
        // Node boundaries: a thin frame around ranks of the same node would cross
        // cells; instead mark the first rank of each node with a corner tick.
        p.setPen(QPen(pal.color(QPalette::WindowText), 1));
        for (int r : shown) {
            if (cell < 16) break;
            if (map->placement.empty() || map->placement[static_cast<std::size_t>(r)].local_rank != 0) continue;
            const QPoint c = cellOfRank[static_cast<std::size_t>(r)];
            const int x = headerW + c.x() * cell + 1, y = headerH + c.y() * cell + 1;
            p.drawLine(x, y, x + 5, y);
            p.drawLine(x, y, x, y + 5);
        }
    }
    void mousePressEvent(QMouseEvent* e) override {
        const int r = rankAt(e->pos());
        if (r >= 0 && clicked) clicked(r);
    }
    bool event(QEvent* e) override {
        if (e->type() == QEvent::ToolTip && map) {
            auto* he = static_cast<QHelpEvent*>(e);
            const int r = rankAt(he->pos());
            if (r < 0) {
                QToolTip::hideText();
                return true;
            }
            QToolTip::showText(he->globalPos(), toolTipFor(r), this);
            return true;
        }
        return QWidget::event(e);
    }

public:
    QString toolTipFor(int r) const {
        if (!map || r < 0 || r >= map->world_size) return {};
        QString text = QStringLiteral("<b>rank %1</b>").arg(r);
        if (!map->placement.empty()) {
            const auto& s = map->placement[static_cast<std::size_t>(r)];
            text += tr(" · node %1, GPU %2").arg(s.node).arg(s.local_rank);
        }
        QStringList coords;
        for (std::size_t i = 0; i < map->coord_names.size(); ++i)
            coords << QStringLiteral("%1=%2").arg(QString::fromStdString(map->coord_names[i])).arg(map->coords(r)[i]);
        text += QStringLiteral("<br>") + coords.join(QStringLiteral(" "));
        for (const auto& [kind, set] : map->groups) {
            const auto members = map->group_of(kind, r);
            if (members.empty()) continue;
            QStringList ms;
            for (std::size_t i = 0; i < members.size() && i < 12; ++i) ms << QString::number(members[i]);
            if (members.size() > 12) ms << QStringLiteral("…");
            text +=
                QStringLiteral("<br>%1 group: [%2]").arg(QString::fromStdString(kind), ms.join(QStringLiteral(", ")));
        }
        if (heat) text += QStringLiteral("<br>") + heat::tooltip(*heat, r);
        return text;
    }
};

RankGrid::RankGrid(ProjectEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    choices_ = new QGridLayout;
    choices_->setContentsMargins(6, 4, 6, 0);
    choices_->setVerticalSpacing(4);
    colourLabel_ = new QLabel(tr("Colour by"), this);
    colourBy_ = new QComboBox(this);
    colourBy_->setObjectName(QStringLiteral("gridColourBy"));
    colourBy_->setToolTip(tr("Colour each rank by its coordinate along this axis (or by node)."));
    groupLabel_ = new QLabel(tr("Groups of"), this);
    groupKind_ = new QComboBox(this);
    groupKind_->setObjectName(QStringLiteral("gridGroups"));
    groupKind_->setToolTip(tr("The process groups to show: click a rank to highlight the group it belongs to."));
    // Both follow their entries, which change with the project ("tp (4 × 8)"): never cut off.
    colourBy_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    groupKind_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    placeChoices();
    outer->addLayout(choices_);
    // The heatmap legend gets its own row (the grid's dock is often narrow).
    auto* legendRow = new QHBoxLayout;
    legendRow->setContentsMargins(6, 0, 6, 0);
    legend_ = new HeatLegend(this);
    legend_->hide();
    legendRow->addWidget(legend_);
    legendRow->addStretch(1);
    outer->addLayout(legendRow);
    // The header lines wrap at the view's width (the dock is often narrow): never cut off at
    // the right edge, never widening the dock.
    header_ = new QLabel(this);
    header_->setObjectName(QStringLiteral("gridHeader"));
    header_->setTextFormat(Qt::RichText);
    header_->setWordWrap(true);
    header_->setContentsMargins(8, 2, 8, 2);
    QSizePolicy hp(QSizePolicy::Ignored, QSizePolicy::Preferred);
    hp.setHeightForWidth(true);
    header_->setSizePolicy(hp);
    outer->addWidget(header_);
    info_ = new QLabel(this);
    info_->setObjectName(QStringLiteral("gridInfo"));
    info_->setWordWrap(false);   // a table: wider than the view, it scrolls sideways
    info_->setContentsMargins(8, 2, 8, 2);
    info_->setTextFormat(Qt::RichText);
    info_->setAlignment(Qt::AlignLeft | Qt::AlignTop);   // room for the scroll bar stays below
    // The weight-split table scrolls sideways rather than widening the dock (a wide table
    // would squeeze the cluster canvas).
    infoScroll_ = new QScrollArea(this);
    infoScroll_->setObjectName(QStringLiteral("gridInfoScroll"));
    infoScroll_->setWidget(info_);
    infoScroll_->setWidgetResizable(true);
    infoScroll_->setFrameShape(QFrame::NoFrame);
    infoScroll_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    infoScroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    infoScroll_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    outer->addWidget(infoScroll_);
    scroll_ = new QScrollArea(this);
    scroll_->setWidgetResizable(true);
    canvas_ = new RankGridCanvas(scroll_);
    scroll_->setWidget(canvas_);
    outer->addWidget(scroll_, 1);
    canvas_->clicked = [this](int r) { selectRank(r); };
    connect(colourBy_, &QComboBox::activated, this, [this] {
        preferredColour_ = colourBy_->currentData().toString();
        if (!preferredColour_.contains(QLatin1Char(':'))) layoutAxis_ = preferredColour_;
    });
    connect(groupKind_, &QComboBox::activated, this,
            [this] { preferredGroup_ = groupKind_->currentData().toString(); });
    connect(colourBy_, &QComboBox::currentIndexChanged, this, &RankGrid::applyColour);
    connect(groupKind_, &QComboBox::currentIndexChanged, this, [this] {
        canvas_->groupKind = groupKind_->currentData().toString();
        canvas_->highlighted.clear();
        applyColour();
    });
    refresh();
}

void RankGrid::placeChoices() {
    for (QWidget* w : {static_cast<QWidget*>(colourLabel_), static_cast<QWidget*>(colourBy_),
                       static_cast<QWidget*>(groupLabel_), static_cast<QWidget*>(groupKind_)})
        choices_->removeWidget(w);
    choices_->addWidget(colourLabel_, 0, 0);
    choices_->addWidget(colourBy_, 0, 1);
    choices_->addWidget(groupLabel_, twoRows_ ? 1 : 0, twoRows_ ? 0 : 2);
    choices_->addWidget(groupKind_, twoRows_ ? 1 : 0, twoRows_ ? 1 : 3);
    for (int c = 0; c < 5; ++c) choices_->setColumnStretch(c, 0);
    choices_->setColumnStretch(twoRows_ ? 2 : 4, 1);
}

void RankGrid::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    fitChoices();
}

void RankGrid::fitChoices() {
    const int spacing = std::max(6, choices_->horizontalSpacing());
    const int oneRow = colourLabel_->sizeHint().width() + colourBy_->sizeHint().width() +
                       groupLabel_->sizeHint().width() + groupKind_->sizeHint().width() + 4 * spacing + 12;
    const bool two = width() < oneRow;
    if (two != twoRows_) {
        twoRows_ = two;
        placeChoices();
    }
}

void RankGrid::refresh() {
    map_ = editor_->sharedRankMap();   // kept: the cells draw from it until the next refresh
    const RankMap& m = *map_;
    canvas_->map = &m;
    const QString keepColour = preferredColour_;
    const QString keepGroup = preferredGroup_;
    {
        const QSignalBlocker b1(colourBy_), b2(groupKind_);
        colourBy_->clear();
        groupKind_->clear();
        colourBy_->addItem(tr("node"), QStringLiteral("node"));
        for (const auto& n : m.coord_names) colourBy_->addItem(QString::fromStdString(n), QString::fromStdString(n));
        if (live_.playback) {
            colourBy_->addItem(tr("Step playback"), heat::kUtilization);
        } else if (!live_.empty()) {
            colourBy_->addItem(tr("GPU utilization (live)"), heat::kUtilization);
            colourBy_->addItem(tr("GPU memory (live)"), heat::kMemory);
        }
        if (!probe_.empty()) colourBy_->addItem(tr("probe bandwidth"), heat::kProbe);
        for (const auto& [kind, set] : m.groups)
            groupKind_->addItem(
                tr("%1 (%2 × %3)").arg(QString::fromStdString(kind)).arg(set.num_groups()).arg(set.group_size),
                QString::fromStdString(kind));
        int ci = colourBy_->findData(keepColour);
        if (ci < 0) ci = colourBy_->findData(layoutAxis_);
        if (ci < 0) ci = colourBy_->findData(QStringLiteral("tp"));
        colourBy_->setCurrentIndex(std::max(0, ci));
        int gi = groupKind_->findData(keepGroup);
        if (gi < 0) gi = groupKind_->findData(QStringLiteral("tp"));
        groupKind_->setCurrentIndex(std::max(0, gi));
    }
    fitChoices();   // the entries changed, and with them the width the two need side by side
    canvas_->groupKind = groupKind_->currentData().toString();
    canvas_->highlighted.clear();
    canvas_->rebuild();
    meshHeader_.clear();
    meshTable_.clear();
    applyColour();
    if (!m.valid()) {
        QString why;
        for (const auto& d : m.diagnostics)
            if (d.severity == paraplan::Severity::Error) {
                why = QString::fromStdString(d.message);
                break;
            }
        meshHeader_ = tr("<b>No rank map:</b> %1").arg(why.toHtmlEscaped());
        applyColour();
        return;
    }
    QStringList axes;
    for (const auto& a : m.axes)
        axes << QStringLiteral("%1=%2").arg(QString::fromStdString(a.native.empty() ? a.name : a.native)).arg(a.size);
    QString text = tr("<b>%1</b> mesh, outer → inner: %2 · %3 ranks")
                       .arg(QString::fromStdString(m.framework), axes.join(QStringLiteral(" × ")))
                       .arg(m.world_size);
    if (m.tensor_grid) {
        const auto& tg = *m.tensor_grid;
        text += tr("<br>Tensor mode <b>%1</b>: each weight matrix is cut into %2 × %3 blocks over %4 GPUs")
                    .arg(QString::fromStdString(tg.mode))
                    .arg(tg.in_blocks)
                    .arg(tg.out_blocks)
                    .arg(tg.tp_size);
        if (tg.depth > 1) text += tr(", each block held by %1 ranks (depth)").arg(tg.depth);
        // At most 8 × 8 blocks and 4 holders per block are listed; "…" says there are more.
        constexpr int kBlocks = 8, kHolders = 4;
        const QString cell = QStringLiteral("<td style='padding:2px 6px; border:1px solid gray'>%1</td>");
        QStringList cells;
        for (int i = 0; i < tg.in_blocks && i < kBlocks; ++i) {
            QStringList row;
            for (int o = 0; o < tg.out_blocks && o < kBlocks; ++o) {
                QStringList holders;
                int more = 0;
                for (const auto& b : tg.blocks) {
                    if (b.in_block != i || b.out_block != o || b.rank >= m.world_size) continue;
                    if (holders.size() < kHolders) holders << QString::number(b.rank);
                    else ++more;
                }
                if (more > 0) holders << tr("… +%1").arg(more);
                row << cell.arg(
                    QStringLiteral("W<sub>%1,%2</sub>: r%3").arg(i).arg(o).arg(holders.join(QStringLiteral("/"))));
            }
            if (tg.out_blocks > kBlocks) row << cell.arg(tr("… +%1 columns").arg(tg.out_blocks - kBlocks));
            cells << QStringLiteral("<tr>%1</tr>").arg(row.join(QString()));
        }
        if (tg.in_blocks > kBlocks)
            cells << QStringLiteral("<tr>%1</tr>").arg(cell.arg(tr("… +%1 rows").arg(tg.in_blocks - kBlocks)));
        meshTable_ = QStringLiteral("<table cellspacing=0>%1</table>").arg(cells.join(QString()));
    }
    meshHeader_ = text;
    applyColour();
}

void RankGrid::applyColour() {
    const QString axis = colourBy_->currentData().toString();
    if (axis == heat::kProbe)
        probeHeat_ = heat::fromProbe(probe_, groupKind_->currentData().toString(), editor_->rankMap().world_size);
    canvas_->colourAxis = axis;
    canvas_->heat = shownHeatmap();
    legend_->setVisible(canvas_->heat != nullptr);
    if (canvas_->heat) legend_->setHeatmap(*canvas_->heat);
    header_->setText(canvas_->heat ? meshHeader_ + QStringLiteral("<br>") + canvas_->heat->summary : meshHeader_);
    info_->setText(meshTable_);
    infoScroll_->setVisible(!meshTable_.isEmpty());
    infoScroll_->setFixedHeight(info_->sizeHint().height() + infoScroll_->horizontalScrollBar()->sizeHint().height());
    canvas_->update();
}

const Heatmap* RankGrid::shownHeatmap() const {
    const QString axis = colourBy_->currentData().toString();
    if (axis == heat::kUtilization) return &live_.utilization;
    if (axis == heat::kMemory) return &live_.memory;
    if (axis == heat::kProbe) return &probeHeat_;
    return nullptr;
}

const HeatCell* RankGrid::cellHeat(int rank) const {
    const Heatmap* h = shownHeatmap();
    return h ? h->cell(rank) : nullptr;
}

QRect RankGrid::cellRect(int rank) const {
    if (rank < 0 || rank >= static_cast<int>(canvas_->cellOfRank.size())) return {};
    const QPoint c = canvas_->cellOfRank[static_cast<std::size_t>(rank)];
    const int cell = canvas_->cell;
    return {canvas_->headerW + c.x() * cell + 1, canvas_->headerH + c.y() * cell + 1, cell - 2, cell - 2};
}

QString RankGrid::rankToolTip(int rank) const { return canvas_->toolTipFor(rank); }
int RankGrid::lastPaintedCells() const { return canvas_->paintedCells; }
QString RankGrid::infoText() const { return header_->text() + info_->text(); }
QString RankGrid::headerText() const { return header_->text(); }
QRect RankGrid::headerRect() const { return header_->geometry(); }

void RankGrid::setLiveOverlay(const LiveOverlay& overlay) {
    const bool first = live_.empty() || live_.playback != overlay.playback;   // or from the other source
    live_ = overlay;
    if (first && !live_.empty()) {
        preferredColour_ = heat::kUtilization;
        refresh();
    } else {
        applyColour();
    }
}

void RankGrid::clearLiveOverlay() {
    live_ = {};
    if (preferredColour_.startsWith(QStringLiteral("live:"))) preferredColour_ = layoutAxis_;
    refresh();
}

void RankGrid::setProbeChecks(std::vector<paraplan::runtime::ProbeGroupCheck> checks) {
    probe_ = std::move(checks);
    preferredColour_ = probe_.empty() ? layoutAxis_ : heat::kProbe;
    refresh();
}

void RankGrid::clearProbe() { setProbeChecks({}); }

void RankGrid::setColourAxis(const QString& axis) {
    preferredColour_ = axis;
    if (!axis.contains(QLatin1Char(':'))) layoutAxis_ = axis;
    colourBy_->setCurrentIndex(colourBy_->findData(axis));
}
void RankGrid::setGroupKind(const QString& kind) {
    preferredGroup_ = kind;
    groupKind_->setCurrentIndex(groupKind_->findData(kind));
}

void RankGrid::selectRank(int rank) {
    const RankMap& m = editor_->rankMap();
    canvas_->highlighted.clear();
    const auto members = m.group_of(groupKind_->currentData().toString().toStdString(), rank);
    canvas_->highlighted.assign(members.begin(), members.end());
    canvas_->update();
    emit rankSelected(rank);
}

std::vector<int> RankGrid::highlightedRanks() const { return canvas_->highlighted; }

QPoint RankGrid::cellOf(int rank) const {
    if (rank < 0 || rank >= static_cast<int>(canvas_->cellOfRank.size())) return {-1, -1};
    const QPoint c = canvas_->cellOfRank[static_cast<std::size_t>(rank)];
    return {c.y(), c.x()};
}
