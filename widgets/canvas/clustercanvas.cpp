#include "canvas/clustercanvas.h"
#include "common/wording.h"

#include "catalog/catalog.h"
#include "project/reorder_nodes.h"
#include "canvas/canvasminimap.h"
#include "canvas/canvastiles.h"
#include "canvas/clustermime.h"
#include "canvas/clusteroverviewitem.h"
#include "canvas/clusterpalette.h"
#include "canvas/domainsitem.h"
#include "network/fabric.h"
#include "network/group.h"
#include "network/rack.h"
#include "network/systems.h"
#include "canvas/gotobar.h"
#include "canvas/grouplinksitem.h"
#include "canvas/nodeitem.h"
#include "document/projecteditor.h"
#include "common/theme.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSplitter>
#include <QToolBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

using paraplan::Project;

ClusterCanvas::ClusterCanvas(ProjectEditor* editor, QWidget* parent)
    : QWidget(parent), editor_(editor), tiles_(std::make_unique<CanvasTiles>()) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(0);

    auto* bar = new QToolBar(this);
    bar->setIconSize(QSize(16, 16));
    bar->addWidget(new QLabel(tr(" Colour by "), bar));
    colourBy_ = new QComboBox(bar);
    colourBy_->setObjectName(QStringLiteral("colourBy"));
    colourBy_->setToolTip(tr("Colour each GPU tile by the group it belongs to along this axis."));
    bar->addWidget(colourBy_);
    connect(colourBy_, &QComboBox::activated, this, [this] {
        preferredAxis_ = colourBy_->currentData().toString();
        if (!preferredAxis_.startsWith(QStringLiteral("live:"))) layoutAxis_ = preferredAxis_;
        clearGroupSelection();
        refresh();
    });
    bar->addSeparator();

    auto mk = [this](const QString& text, const QKeySequence& key, const QString& tip) {
        auto* a = new QAction(text, this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
        addAction(a);
        return a;
    };
    zoomIn_ = mk(tr("Zoom in"), QKeySequence::ZoomIn, tr("Zoom in on the canvas"));
    zoomOut_ = mk(tr("Zoom out"), QKeySequence::ZoomOut, tr("Zoom out"));
    fit_ = mk(tr("Fit"), QKeySequence(Qt::CTRL | Qt::Key_0), tr("Show the whole cluster"));
    bar->addActions({zoomIn_, zoomOut_, fit_});
    bar->addSeparator();
    addNode_ = mk(tr("Add Node"), QKeySequence(Qt::Key_Insert),
                  tr("Add a node of the palette's selected template (or like the last node)"));
    addNode_->setObjectName(QStringLiteral("addNodeAction"));
    duplicate_ = mk(tr("Duplicate"), QKeySequence(Qt::CTRL | Qt::Key_D), tr("Duplicate the selected nodes"));
    rename_ = mk(tr("Rename…"), QKeySequence(Qt::Key_F2), tr("Rename the selected node"));
    host_ = mk(tr("Set host…"), QKeySequence(Qt::CTRL | Qt::Key_H), tr("Set the SSH host of the selected node"));
    delete_ = mk(tr("Delete"), QKeySequence::Delete, tr("Delete the selected nodes"));
    goToA_ = mk(tr("&Go to Rank or Node…"), QKeySequence(Qt::CTRL | Qt::Key_G),
                tr("Centre the canvas on a rank or a node and select it"));
    goToA_->setObjectName(QStringLiteral("goToAction"));
    goToA_->setShortcutContext(Qt::WindowShortcut);   // from any view of the window
    minimapA_ = new QAction(tr("&Minimap"), this);
    minimapA_->setObjectName(QStringLiteral("minimapAction"));
    minimapA_->setCheckable(true);
    minimapA_->setChecked(true);
    minimapA_->setToolTip(tr("Show the whole cluster in small in the canvas's corner while zoomed in"));
    // The node edits share one menu button, so the bar fits a narrow canvas (also in Edit).
    auto* nodeMenu = new QMenu(this);
    nodeMenu->addActions({addNode_, duplicate_, rename_, host_, delete_});
    auto* nodeButton = new QToolButton(bar);
    nodeButton->setObjectName(QStringLiteral("nodeEdits"));
    nodeButton->setText(tr("Node"));
    nodeButton->setToolTip(tr("Duplicate, rename, set the host of or delete the selected nodes"));
    nodeButton->setMenu(nodeMenu);
    nodeButton->setPopupMode(QToolButton::InstantPopup);
    bar->addWidget(nodeButton);
    outer->addWidget(bar);

    auto* split = new QSplitter(this);
    palette_ = new ClusterPalette(split);
    palette_->setMinimumWidth(120);
    scene_ = new QGraphicsScene(this);
    // No spatial index: the node items live under one layer item, which the view walks child
    // by child when near (culling each by its rectangle) and skips whole when far; a BSP tree
    // would only add a walk over every node's leaf entries to each far repaint.
    scene_->setItemIndexMethod(QGraphicsScene::NoIndex);
    domainsItem_ = new DomainsItem;
    domainsItem_->setZValue(-1);   // behind the nodes
    scene_->addItem(domainsItem_);
    links_ = new GroupLinksItem;
    links_->setZValue(10);
    scene_->addItem(links_);
    nodeLayer_ = new NodeLayerItem;
    scene_->addItem(nodeLayer_);
    overview_ = new ClusterOverviewItem(tiles_.get());
    scene_->addItem(overview_);
    view_ = new CanvasView(scene_, split);
    view_->setOverview(overview_);
    minimap_ = new CanvasMinimap(view_, overview_);
    goTo_ = new GoToBar(view_);
    split->addWidget(palette_);
    split->addWidget(view_);
    split->setStretchFactor(1, 1);
    split_ = split;
    sizePalette();
    connect(split, &QSplitter::splitterMoved, this, [this] { paletteMoved_ = true; });
    outer->addWidget(split, 1);
    info_ = new QLabel(this);
    info_->setObjectName(QStringLiteral("canvasInfo"));
    info_->setContentsMargins(8, 3, 8, 3);
    info_->setWordWrap(true);   // a long line wraps instead of widening the window
    auto* infoRow = new QHBoxLayout;
    infoRow->addWidget(info_, 1);
    legend_ = new HeatLegend(this);   // shown while the tiles show a live metric
    legend_->hide();
    infoRow->addWidget(legend_);
    outer->addLayout(infoRow);

    connect(view_, &CanvasView::dropped, this, [this](const QMimeData* m, NodeItem* n) { handleDrop(m, n); });
    connect(view_, &CanvasView::hoverTile, this, &ClusterCanvas::showTileTip);
    connect(view_, &CanvasView::userZoomed, this, [this] { autoFit_ = false; });
    connect(view_, &CanvasView::resized, this, [this] {
        // While the user has not zoomed, the cluster stays fitted to the view.
        if (!fitPending_ && !autoFit_) return;
        layoutNodes();
        zoomToFit();
    });
    connect(view_, &CanvasView::zoomed, minimap_, &CanvasMinimap::sync);
    connect(view_, &CanvasView::aboutToPaint, this, &ClusterCanvas::syncDetail);
    // At far zoom the node items are not hit, so the rubber band selects the nodes whose
    // blocks it covers when it ends.
    connect(view_, &CanvasView::rubberBandReleased, this, [this](const QRectF& band) {
        if (detail_ == static_cast<int>(ClusterOverviewItem::Detail::Tiles)) return;
        for (const auto& b : overview_->nodeBlocks())
            if (b.rect.intersects(band)) nodes_[static_cast<std::size_t>(b.firstNode)]->setSelected(true);
    });
    connect(view_, &CanvasView::resized, goTo_, &GoToBar::place);
    // Selection is drawn on the blocks too (a selected node at far zoom).
    connect(scene_, &QGraphicsScene::selectionChanged, this, [this] {
        if (!refreshing_) {
            const auto& nodes = editor_->project().cluster.nodes;
            selectedNames_.clear();
            for (NodeItem* n : nodes_)
                if (n->isSelected() && n->index() < static_cast<int>(nodes.size()))
                    selectedNames_.insert(nodes[static_cast<std::size_t>(n->index())].name);
        }
        overview_->invalidate();
        minimap_->update();
    });
    connect(minimapA_, &QAction::toggled, minimap_, &CanvasMinimap::setOn);
    connect(goToA_, &QAction::triggered, this, &ClusterCanvas::openGoTo);
    connect(goTo_, &GoToBar::submitted, this, [this](const QString& text) {
        if (goTo(text)) goTo_->hide();
    });
    connect(zoomIn_, &QAction::triggered, this, [this] { view_->zoomBy(1.25); });
    connect(zoomOut_, &QAction::triggered, this, [this] { view_->zoomBy(0.8); });
    connect(fit_, &QAction::triggered, this, &ClusterCanvas::zoomToFit);
    connect(delete_, &QAction::triggered, this, &ClusterCanvas::deleteSelectedNodes);
    connect(addNode_, &QAction::triggered, this, [this] { addNodeFromPalette(); });
    // Enter (or a double click) on a node template adds it: the palette works from the keyboard.
    connect(palette_, &QListWidget::itemActivated, this, [this] {
        if (palette_->currentTemplate() || !palette_->currentSystem().isEmpty()) addNodeFromPalette();
    });
    connect(duplicate_, &QAction::triggered, this, [this] { duplicateNodes(selectedNodes()); });
    connect(rename_, &QAction::triggered, this, [this] {
        const auto sel = selectedNodes();
        if (sel.size() != 1) return emit message(tr("Select one node to rename."));
        const auto& n = editor_->project().cluster.nodes[static_cast<std::size_t>(sel[0])];
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Rename node"), tr("Node name:"), QLineEdit::Normal,
                                                   QString::fromStdString(n.name), &ok);
        if (ok) renameNode(sel[0], name);
    });
    connect(host_, &QAction::triggered, this, [this] {
        const auto sel = selectedNodes();
        if (sel.size() != 1) return emit message(tr("Select one node to set its host."));
        const auto& n = editor_->project().cluster.nodes[static_cast<std::size_t>(sel[0])];
        bool ok = false;
        const QString host = QInputDialog::getText(this, tr("Set host"), tr("SSH host or ~/.ssh/config alias:"),
                                                   QLineEdit::Normal, QString::fromStdString(n.host), &ok);
        if (ok) setHost(sel[0], host);
    });
    refresh();
}

ClusterCanvas::~ClusterCanvas() {
    // The scene deletes its items after this object's members: no selection signal may reach
    // the overview item then.
    scene_->disconnect(this);
}

QList<QAction*> ClusterCanvas::editActions() const { return {addNode_, duplicate_, rename_, host_, delete_}; }

void ClusterCanvas::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    if (!paletteMoved_) sizePalette();
}

// The palette shows its names whole ("8 × h100-96g-500w") where the canvas can spare the room;
// on a small screen the cluster keeps 500 px to work in (the names then scroll).
void ClusterCanvas::sizePalette() {
    const int total = split_->width() > 0 ? split_->width() : 1030;
    const int want = std::min(palette_->sizeHint().width(), std::max(palette_->minimumWidth(), total - 500));
    if (split_->sizes().value(0) != want) split_->setSizes({want, std::max(1, total - want)});
}

void ClusterCanvas::updateAxes() {
    const auto& m = editor_->rankMap();
    const QString keep = preferredAxis_;
    const QSignalBlocker block(colourBy_);
    colourBy_->clear();
    if (m.valid()) {
        // Group kinds first (the framework's process groups), then the other coordinates.
        for (const auto& [kind, set] : m.groups)
            colourBy_->addItem(tr("%1 group").arg(QString::fromStdString(kind)), QString::fromStdString(kind));
        for (const auto& c : m.coord_names)
            if (!m.has_group(c)) colourBy_->addItem(QString::fromStdString(c), QString::fromStdString(c));
    }
    colourBy_->addItem(tr("node"), QStringLiteral("node"));
    colourBy_->addItem(tr("GPU type"), QStringLiteral("gpu"));
    if (live_.playback) {
        colourBy_->addItem(tr("Step playback"), heat::kUtilization);
    } else if (!live_.empty()) {
        colourBy_->addItem(tr("GPU utilization (live)"), heat::kUtilization);
        colourBy_->addItem(tr("GPU memory (live)"), heat::kMemory);
    }
    int i = colourBy_->findData(keep);
    if (i < 0) i = colourBy_->findData(layoutAxis_);
    colourBy_->setCurrentIndex(i >= 0 ? i : std::max(0, colourBy_->findData(QStringLiteral("node"))));
    // Say so when the chosen colouring cannot be shown (no rank map while the layout is invalid).
    fallbackNote_.clear();
    if (colourBy_->currentData().toString() != keep) {
        fallbackNote_ =
            m.valid() ? tr("\"%1\" is not an axis of this layout: coloured by %2").arg(keep, colourBy_->currentText())
                      : tr("The layout is invalid (see Diagnostics), so there are no %1 groups: coloured by %2")
                            .arg(keep, colourBy_->currentText());
    }
    colourBy_->setToolTip(fallbackNote_.isEmpty()
                              ? tr("Colour each GPU tile by the group it belongs to along this axis.")
                              : fallbackNote_);
}

void ClusterCanvas::refresh() {
    // The project and the rank map of one state (the analysis the views refresh for).
    const auto analysis = editor_->analysis();
    const Project& p = *analysis->project;
    const auto& nodes = p.cluster.nodes;
    updateAxes();
    const QString axis = colourBy_->currentData().toString();
    const Heatmap* heatmap = shownHeatmap();
    const auto& m = *analysis->rank_map;
    const bool mapOk = m.valid() && m.world_size == p.world_size();
    const auto* axisGroups = mapOk ? m.group_set(axis.toStdString()) : nullptr;
    const int axisCoord = mapOk ? m.coord_index(axis.toStdString()) : -1;

    // The tiles of the whole cluster in flat arrays; the node items make theirs from them
    // when they are painted (only those on screen), the overview its blocks.
    CanvasTiles& t = *tiles_;
    t.project = analysis->project;
    t.heat = heatmap;
    t.first.assign(nodes.size() + 1, 0);
    for (std::size_t n = 0; n < nodes.size(); ++n) t.first[n + 1] = t.first[n] + std::max(0, nodes[n].gpus);
    const auto tileCount = static_cast<std::size_t>(t.first.back());
    t.rank.assign(tileCount, -1);
    const auto placement = p.cluster.placement();
    for (std::size_t r = 0; r < placement.size(); ++r) {
        const auto& s = placement[r];
        if (s.node >= 0 && s.node < static_cast<int>(nodes.size()) && s.local_rank >= 0 &&
            s.local_rank < nodes[static_cast<std::size_t>(s.node)].gpus)
            t.rank[static_cast<std::size_t>(t.first[static_cast<std::size_t>(s.node)]) +
                   static_cast<std::size_t>(s.local_rank)] = static_cast<int>(r);
    }
    // Tile captions: the mesh coordinates along axes larger than 1 (at most three), made when
    // a tile is painted from the map this refresh coloured by (kept alive by the provider).
    std::vector<std::pair<QString, int>> captionAxes;
    if (mapOk)
        for (const auto& a : m.axes)
            if (a.size > 1 && captionAxes.size() < 3)
                captionAxes.push_back({QString::fromStdString(a.name), m.coord_index(a.name)});
    t.caption.reset();
    if (mapOk && !captionAxes.empty())
        t.caption = std::make_shared<const std::function<QString(int)>>(
            [map = analysis->rank_map, captionAxes](int rank) {
                QString s;
                if (rank < 0 || rank >= map->world_size) return s;
                for (const auto& [name, idx] : captionAxes)
                    s += (s.isEmpty() ? QString() : QStringLiteral(" ")) + name +
                         QString::number(map->coords(rank)[static_cast<std::size_t>(idx)]);
                return s;
            });
    // One colour per group (a group's colour is an HSV conversion), made once; slot 0 is the
    // colour of a tile without a group.
    const QPalette pal = palette();
    t.colours.assign(1, pal.color(QPalette::Button));
    std::vector<int> slotOfGroup;
    const auto slotOf = [&](int group) {
        if (group < 0) return 0;
        if (static_cast<std::size_t>(group) >= slotOfGroup.size())
            slotOfGroup.resize(static_cast<std::size_t>(group) + 1, -1);
        int& slot = slotOfGroup[static_cast<std::size_t>(group)];
        if (slot < 0) {
            slot = static_cast<int>(t.colours.size());
            t.colours.push_back(theme::groupColor(group, pal));
        }
        return slot;
    };
    t.colour.assign(tileCount, 0);
    std::vector<std::string> gpuTypes;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        int typeIndex = 0;
        if (axis == QLatin1String("gpu")) {
            const auto it = std::find(gpuTypes.begin(), gpuTypes.end(), nodes[n].gpu);
            typeIndex = static_cast<int>(it - gpuTypes.begin());
            if (it == gpuTypes.end()) gpuTypes.push_back(nodes[n].gpu);
        }
        for (int k = t.first[n]; k < t.first[n + 1]; ++k) {
            const int rank = t.rank[static_cast<std::size_t>(k)];
            int group = static_cast<int>(n);
            if (axis == QLatin1String("gpu")) group = typeIndex;
            else if (axisGroups && rank >= 0) group = axisGroups->group_index[static_cast<std::size_t>(rank)];
            else if (axisCoord >= 0 && rank >= 0) group = m.coords(rank)[static_cast<std::size_t>(axisCoord)];
            t.colour[static_cast<std::size_t>(k)] = slotOf(group);
        }
    }
    t.highlighted.assign(tileCount, 0);   // updateLinks() below marks the selected group
    t.touch();

    // Node items: only their number and sizes are set here (no per-item tiles or text).
    bool geometry = nodes_.size() != nodes.size();
    while (nodes_.size() > nodes.size()) {
        delete nodes_.back();
        nodes_.pop_back();
    }
    while (nodes_.size() < nodes.size()) {
        auto* item = new NodeItem(static_cast<int>(nodes_.size()), tiles_.get());
        item->setParentItem(nodeLayer_);
        item->onTileClicked = [this](int node, int local) {
            const int r = rankAt(node, local);
            if (r < 0) return;
            selectGroupOf(r);
            emit groupSelected(r, groupKind());
        };
        nodes_.push_back(item);
    }
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        const QSizeF before = nodes_[n]->boundingRect().size();
        nodes_[n]->setGpuCount(nodes[n].gpus);
        geometry = geometry || nodes_[n]->boundingRect().size() != before;
    }
    // The selection stays on the nodes the user chose, wherever they are now (names of deleted
    // nodes drop out).
    refreshing_ = true;
    std::set<std::string> kept;
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        const bool sel = !selectedNames_.empty() && selectedNames_.count(nodes[n].name) > 0;
        if (sel) kept.insert(nodes[n].name);
        if (nodes_[n]->isSelected() != sel) nodes_[n]->setSelected(sel);
    }
    selectedNames_ = std::move(kept);
    refreshing_ = false;
    // The scale-up domains, outlined where one holds several nodes (an NVL72 rack of trays).
    std::vector<paraplan::network::NodeBlock> blocks;
    system_.reset();
    try {
        if (!nodes.empty()) system_ = paraplan::network::system_of(p.cluster);
    } catch (const std::exception&) {
        // An unknown GPU, or nodes of another GPU than the system's: Diagnostics says so.
    }
    if (system_ && paraplan::network::domains_span_nodes(*system_, p.cluster))
        blocks = paraplan::network::node_blocks(p.cluster, system_->domain().domain_gpus);
    offsets_ = paraplan::network::node_offsets(p.cluster);
    const auto sameBlock = [](const paraplan::network::NodeBlock& a, const paraplan::network::NodeBlock& b) {
        return a.first_node == b.first_node && a.nodes == b.nodes;
    };
    geometry = geometry || !std::equal(blocks.begin(), blocks.end(), domains_.begin(), domains_.end(), sameBlock);
    domains_ = std::move(blocks);
    if (geometry || !laidOut_) layoutNodes();
    else updateDomainItem();
    view_->viewport()->update();   // the node items on screen repaint from the new tiles
    if (nodes.empty())
        info_->setText(
            tr("No nodes yet: drag a node template from the palette onto the canvas, or press Insert "
               "(Edit > Add Node) or Enter on a template"));
    else
        info_->setText(tr("%1 · %2 · drag from the palette to add (or Insert); Delete removes the selection")
                           .arg(nodes.size() == 1 ? tr("1 node") : tr("%1 nodes").arg(nodes.size()),
                                p.world_size() == 1 ? tr("1 GPU") : tr("%1 GPUs").arg(p.world_size())));
    if (!fallbackNote_.isEmpty()) info_->setText(fallbackNote_ + QStringLiteral(" · ") + info_->text());
    if (heatmap) {
        info_->setText(heatmap->summary);
        legend_->setHeatmap(*heatmap);
    }
    legend_->setVisible(heatmap != nullptr);
    if (groupRank_ >= p.world_size()) clearGroupSelection();
    updateLinks();
    if (fitPending_ || autoFit_) zoomToFit();
}

void ClusterCanvas::layoutNodes() {
    laidOut_ = true;
    if (nodes_.empty()) {
        overview_->setNodes(&nodes_);
        return;
    }
    // Arrange nodes in a grid whose shape follows the view's aspect ratio.
    QSizeF cell(0, 0);
    for (NodeItem* n : nodes_) cell = cell.expandedTo(n->boundingRect().size());
    const double gap = 18;
    if (!domains_.empty()) return layoutDomains(cell, gap);
    updateDomainItem();
    const double aspect = view_->width() > 0 && view_->height() > 0 ? double(view_->width()) / view_->height() : 1.6;
    const int count = static_cast<int>(nodes_.size());
    int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(count * aspect * cell.height() / cell.width()))));
    cols = std::min(cols, count);
    for (int i = 0; i < count; ++i) {
        const int col = i % cols, row = i / cols;
        nodes_[static_cast<std::size_t>(i)]->setPos(col * (cell.width() + gap), row * (cell.height() + gap));
    }
    const int rows = (count + cols - 1) / cols;
    scene_->setSceneRect(-gap, -gap, cols * (cell.width() + gap) + gap, rows * (cell.height() + gap) + gap);
    overview_->setNodes(&nodes_);
}
