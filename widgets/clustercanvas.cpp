#include "clustercanvas.h"
#include "wording.h"

#include "catalog/catalog.h"
#include "project/reorder_nodes.h"
#include "canvasminimap.h"
#include "canvastiles.h"
#include "clustermime.h"
#include "clusteroverviewitem.h"
#include "clusterpalette.h"
#include "domainsitem.h"
#include "network/fabric.h"
#include "network/group.h"
#include "network/rack.h"
#include "network/systems.h"
#include "gotobar.h"
#include "grouplinksitem.h"
#include "nodeitem.h"
#include "projecteditor.h"
#include "theme.h"

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

namespace {
QJsonObject payload(const QMimeData* m, const QString& fmt) { return QJsonDocument::fromJson(m->data(fmt)).object(); }
// A GPU type as people name it ("NVIDIA H100 SXM5 80GB"), not its catalog id.
QString gpuName(const std::string& id) {
    const paraplan::GpuSpec* spec = paraplan::catalog::find_gpu(id);
    return QString::fromStdString(spec ? spec->name : id);
}
std::string uniqueName(const Project& p, const std::string& base) {
    std::set<std::string> used;
    for (const auto& n : p.cluster.nodes) used.insert(n.name);
    for (int i = static_cast<int>(p.cluster.nodes.size());; ++i) {
        const std::string s = base + std::to_string(i);
        if (!used.count(s)) return s;
    }
}
}   // namespace

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
    connect(delete_, &QAction::triggered, this, [this] { deleteNodes(selectedNodes()); });
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

bool ClusterCanvas::addNodeFromPalette() {
    if (const QString sys = palette_->currentSystem(); !sys.isEmpty()) return addSystem(sys);
    if (const auto t = palette_->currentTemplate()) return addNode(t->first, t->second);
    const auto& nodes = editor_->project().cluster.nodes;
    if (!nodes.empty()) return addNode(QString::fromStdString(nodes.back().gpu), nodes.back().gpus);
    for (int i = 0; i < palette_->count(); ++i) {
        palette_->setCurrentRow(i);
        if (const auto t = palette_->currentTemplate()) return addNode(t->first, t->second);
    }
    return false;
}

std::vector<int> ClusterCanvas::selectedNodes() const {
    std::vector<int> out;
    for (NodeItem* n : nodes_)
        if (n->isSelected()) out.push_back(n->index());
    return out;
}

bool ClusterCanvas::run(const QString& label, const std::function<void(Project&)>& fn) {
    QString err;
    if (!editor_->edit(label, fn, &err)) {
        emit message(tr("%1 refused: %2").arg(label, err));
        return false;
    }
    emit message(label);
    return true;
}

bool ClusterCanvas::addNode(const QString& gpu, int gpus) {
    return run(tr("Add node (%1 × %2)").arg(gpus).arg(gpu), [&](Project& p) {
        paraplan::Node n;
        n.name = uniqueName(p, "node");
        n.gpu = gpu.toStdString();
        n.gpus = gpus;
        p.cluster.nodes.push_back(n);
        p.cluster.rank_order.clear();   // explicit rank order no longer covers every GPU
    });
}

bool ClusterCanvas::addSystem(const QString& id) {
    const paraplan::network::System* s = paraplan::network::find_system(id.toStdString());
    if (!s) {
        emit message(tr("There is no system %1 in the systems catalog.").arg(id));
        return false;
    }
    const auto shape = paraplan::network::rack_shape(*s);
    const QString what =
        shape.nodes > 1
            ? tr("%1 rack (%2 × %3 GPUs)").arg(QString::fromStdString(s->id)).arg(shape.nodes).arg(shape.gpus_per_node)
            : tr("%1 node (%2 GPUs)").arg(QString::fromStdString(s->id)).arg(shape.gpus());
    const QString label = paraplan::network::rack_replaces(editor_->project().cluster, *s)
                              ? tr("Replace the cluster with a %1").arg(what)
                              : tr("Add a %1").arg(what);
    fitPending_ = true;
    return run(label, [s](Project& p) { paraplan::network::add_rack(p.cluster, *s); });
}

bool ClusterCanvas::addGpu(int node, const QString& gpu) {
    const Project& cur = editor_->project();
    if (node < 0 || node >= static_cast<int>(cur.cluster.nodes.size())) return false;
    const auto& n = cur.cluster.nodes[static_cast<std::size_t>(node)];
    if (n.gpu != gpu.toStdString()) {
        emit message(tr("%1 holds %2 GPUs; a node has one GPU type.")
                         .arg(QString::fromStdString(n.name), QString::fromStdString(n.gpu)));
        return false;
    }
    return run(tr("Add GPU to %1").arg(QString::fromStdString(n.name)), [node](Project& p) {
        p.cluster.nodes[static_cast<std::size_t>(node)].gpus += 1;
        p.cluster.rank_order.clear();
    });
}

bool ClusterCanvas::moveGpu(int from, int to) {
    const Project& cur = editor_->project();
    const int count = static_cast<int>(cur.cluster.nodes.size());
    if (from == to || from < 0 || to < 0 || from >= count || to >= count) return false;
    const auto& a = cur.cluster.nodes[static_cast<std::size_t>(from)];
    const auto& b = cur.cluster.nodes[static_cast<std::size_t>(to)];
    if (a.gpu != b.gpu) {
        emit message(tr("Cannot move a GPU of type %1 into %2, which holds %3 GPUs.")
                         .arg(gpuName(a.gpu), QString::fromStdString(b.name), gpuName(b.gpu)));
        return false;
    }
    const bool empties = a.gpus == 1;
    QString label = tr("Move GPU from %1 to %2").arg(QString::fromStdString(a.name), QString::fromStdString(b.name));
    if (empties) label += tr(" (removes the empty %1)").arg(QString::fromStdString(a.name));
    return run(label, [from, to, empties](Project& p) {
        auto& nodes = p.cluster.nodes;
        nodes[static_cast<std::size_t>(to)].gpus += 1;
        nodes[static_cast<std::size_t>(from)].gpus -= 1;
        if (empties) nodes.erase(nodes.begin() + from);
        p.cluster.rank_order.clear();
    });
}

bool ClusterCanvas::moveNode(int from, int to) {
    const Project& cur = editor_->project();
    const int count = static_cast<int>(cur.cluster.nodes.size());
    if (from == to) return false;
    // Out-of-range indices are refused by the operation itself (its message names them).
    const QString name = from >= 0 && from < count
                             ? QString::fromStdString(cur.cluster.nodes[static_cast<std::size_t>(from)].name)
                             : tr("node %1").arg(from);
    const QString label =
        tr("Move %1 to place %2 of %3 (the rank order changes; Ctrl+Z undoes it)").arg(name).arg(to + 1).arg(count);
    return run(label, [from, to](Project& p) { paraplan::reorder_nodes(p.cluster, from, to); });
}

bool ClusterCanvas::deleteNodes(std::vector<int> sel) {
    if (sel.empty()) return false;
    const Project& cur = editor_->project();
    if (sel.size() >= cur.cluster.nodes.size()) {
        emit message(tr("A cluster needs at least one node."));
        return false;
    }
    std::sort(sel.rbegin(), sel.rend());
    const QString label =
        sel.size() == 1
            ? tr("Delete %1").arg(QString::fromStdString(cur.cluster.nodes[static_cast<std::size_t>(sel[0])].name))
            : tr("Delete %n nodes", nullptr, static_cast<int>(sel.size()));
    return run(label, [sel](Project& p) {
        for (int i : sel) p.cluster.nodes.erase(p.cluster.nodes.begin() + i);
        p.cluster.rank_order.clear();
    });
}

bool ClusterCanvas::duplicateNodes(const std::vector<int>& sel) {
    if (sel.empty()) return false;
    return run(tr("Duplicate %1").arg(wording::count(static_cast<int>(sel.size()), tr("1 node"), tr("%1 nodes"))),
               [sel](Project& p) {
                   for (int i : sel) {
                       paraplan::Node n = p.cluster.nodes[static_cast<std::size_t>(i)];
                       n.name = uniqueName(p, "node");
                       n.host.clear();
                       p.cluster.nodes.push_back(n);
                   }
                   p.cluster.rank_order.clear();
               });
}

bool ClusterCanvas::renameNode(int node, const QString& name) {
    const Project& cur = editor_->project();
    if (node < 0 || node >= static_cast<int>(cur.cluster.nodes.size()) || name.trimmed().isEmpty()) return false;
    for (const auto& n : cur.cluster.nodes)
        if (n.name == name.trimmed().toStdString()) {
            emit message(tr("A node named %1 already exists.").arg(name.trimmed()));
            return false;
        }
    return run(tr("Rename %1 to %2")
                   .arg(QString::fromStdString(cur.cluster.nodes[static_cast<std::size_t>(node)].name), name.trimmed()),
               [node, n = name.trimmed().toStdString()](Project& p) {
                   p.cluster.nodes[static_cast<std::size_t>(node)].name = n;
               });
}

bool ClusterCanvas::setHost(int node, const QString& host) {
    const Project& cur = editor_->project();
    if (node < 0 || node >= static_cast<int>(cur.cluster.nodes.size())) return false;
    return run(tr("Set host of %1 to %2")
                   .arg(QString::fromStdString(cur.cluster.nodes[static_cast<std::size_t>(node)].name), host.trimmed()),
               [node, h = host.trimmed().toStdString()](Project& p) {
                   p.cluster.nodes[static_cast<std::size_t>(node)].host = h;
               });
}

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

void ClusterCanvas::setColourAxis(const QString& axis) {
    preferredAxis_ = axis;
    if (!axis.startsWith(QStringLiteral("live:"))) layoutAxis_ = axis;
    clearGroupSelection();
    refresh();
}

QString ClusterCanvas::colourAxis() const { return colourBy_->currentData().toString(); }

void ClusterCanvas::setLiveOverlay(const LiveOverlay& overlay) {
    // The first overlay, or one from the other source (playback <-> live job), is shown.
    const bool first = live_.empty() || live_.playback != overlay.playback;
    live_ = overlay;
    if (first && !live_.empty()) preferredAxis_ = heat::kUtilization;
    refresh();
}

void ClusterCanvas::updateLiveOverlay(const LiveOverlay& overlay) {
    if (live_.empty() || live_.playback != overlay.playback || colourAxis() != heat::kUtilization ||
        overlay.utilization.cells.size() != live_.utilization.cells.size())
        return setLiveOverlay(overlay);
    live_ = overlay;   // the tiles read it in place (CanvasTiles::heat): no node item is touched
    tiles_->touch();
    overview_->invalidate();
    minimap_->update();
    view_->viewport()->update();   // one rectangle, not one per node
    legend_->setHeatmap(live_.utilization);
    if (info_->text() != live_.utilization.summary) info_->setText(live_.utilization.summary);
}

void ClusterCanvas::clearLiveOverlay() {
    live_ = {};
    if (preferredAxis_.startsWith(QStringLiteral("live:"))) preferredAxis_ = layoutAxis_;
    refresh();
}

const Heatmap* ClusterCanvas::shownHeatmap() const {
    const QString axis = colourAxis();
    if (axis == heat::kUtilization) return &live_.utilization;
    if (axis == heat::kMemory) return &live_.memory;
    return nullptr;
}

std::optional<HeatCell> ClusterCanvas::tileHeat(int node, int local) const {
    if (node < 0 || node >= static_cast<int>(nodes_.size())) return std::nullopt;
    const auto& tiles = nodes_[static_cast<std::size_t>(node)]->tiles();
    if (local < 0 || local >= tiles.size()) return std::nullopt;
    return tiles[local].heat;
}

QString ClusterCanvas::groupKind() const {
    const auto& m = editor_->rankMap();
    const std::string axis = colourAxis().toStdString();
    if (m.has_group(axis)) return colourAxis();
    return m.has_group("tp") ? QStringLiteral("tp") : QString();
}

int ClusterCanvas::rankAt(int node, int local) const {
    if (node < 0 || node >= static_cast<int>(nodes_.size())) return -1;
    const auto& tiles = nodes_[static_cast<std::size_t>(node)]->tiles();
    return local >= 0 && local < tiles.size() ? tiles[local].rank : -1;
}

void ClusterCanvas::selectGroupOf(int rank) {
    groupRank_ = rank;
    refresh();
}

void ClusterCanvas::clearGroupSelection() {
    groupRank_ = -1;
    groupMembers_.clear();
}

int ClusterCanvas::crossingLinks() const {
    int n = 0;
    for (const auto& l : links_->links()) n += l.leavesDomain;
    return n;
}

void ClusterCanvas::updateLinks() {
    const auto& m = editor_->rankMap();
    groupMembers_.clear();
    std::vector<GroupLinksItem::Link> links;
    const QString kind = groupKind();
    if (groupRank_ >= 0 && m.valid() && groupRank_ < m.world_size && !kind.isEmpty()) {
        const auto members = m.group_of(kind.toStdString(), groupRank_);
        groupMembers_.assign(members.begin(), members.end());
        // Tile centres of the members, in group order: a ring as collectives run it.
        std::vector<QPointF> centre(groupMembers_.size());
        std::vector<int> nodeOf(groupMembers_.size(), -1);
        for (std::size_t i = 0; i < groupMembers_.size(); ++i) {
            const auto& s = m.placement[static_cast<std::size_t>(groupMembers_[i])];
            if (s.node < 0 || s.node >= static_cast<int>(nodes_.size())) continue;
            NodeItem* n = nodes_[static_cast<std::size_t>(s.node)];
            centre[i] = n->mapToScene(n->tileRect(s.local_rank).center());
            nodeOf[i] = s.node;
        }
        const std::size_t k = groupMembers_.size();
        // Where a domain holds several nodes a link leaves it when its two ends lie in two
        // domains (group_shape of the pair), else when they lie on two nodes.
        const bool byDomain = !domains_.empty() && system_;
        for (std::size_t i = 0; k > 1 && i < k; ++i) {
            const std::size_t j = (i + 1) % k;
            if (j == 0 && k == 2) break;   // two members: one link
            bool leaves = nodeOf[i] != nodeOf[j];
            if (byDomain && nodeOf[i] >= 0 && nodeOf[j] >= 0 && nodeOf[i] < static_cast<int>(offsets_.size()) &&
                nodeOf[j] < static_cast<int>(offsets_.size())) {
                const std::vector<int> pair = {groupMembers_[i], groupMembers_[j]};
                leaves = paraplan::network::group_shape(*system_, offsets_, m.placement, pair).domains > 1;
            }
            links.push_back({QLineF(centre[i], centre[j]), leaves});
        }
        const auto span = m.group_span(
            kind.toStdString(), m.group_set(kind.toStdString())->group_index[static_cast<std::size_t>(groupRank_)]);
        QStringList ranks;
        for (std::size_t i = 0; i < groupMembers_.size() && i < 16; ++i) ranks << QString::number(groupMembers_[i]);
        if (groupMembers_.size() > 16) ranks << QStringLiteral("…");
        bool leaves = false;
        const QString tiers = tierCrossing(groupMembers_, &leaves);
        QString crossing;
        if (!tiers.isEmpty()) {
            // Domains of several nodes: what is slow is leaving the domain, not the node.
            crossing = leaves ? tr(" · <span style='color:%1'>%2 (dashed links)</span>")
                                    .arg(theme::errorColor(palette()).name(), tiers.toHtmlEscaped())
                              : QStringLiteral(" · ") + tiers.toHtmlEscaped();
        } else if (span.crosses_nodes) {
            crossing = tr(" · <span style='color:%1'>crosses nodes (dashed links)</span>")
                           .arg(theme::errorColor(palette()).name());
        }
        info_->setText(tr("<b>%1 group</b> of rank %2: [%3] · %4%5")
                           .arg(kind, QString::number(groupRank_), ranks.join(QStringLiteral(", ")),
                                span.nodes_spanned == 1 ? tr("1 node") : tr("%1 nodes").arg(span.nodes_spanned),
                                crossing));
    }
    links_->setLinks(std::move(links));
    // The members' tiles are marked in the canvas's tiles (the node items follow when painted).
    CanvasTiles& t = *tiles_;
    std::vector<char> hi(static_cast<std::size_t>(std::max(0, m.world_size)), 0);
    for (int r : groupMembers_) hi[static_cast<std::size_t>(r)] = 1;
    t.highlighted.assign(t.rank.size(), 0);
    if (!groupMembers_.empty())
        for (std::size_t k = 0; k < t.rank.size(); ++k) {
            const int r = t.rank[k];
            t.highlighted[k] = r >= 0 && r < static_cast<int>(hi.size()) && hi[static_cast<std::size_t>(r)];
        }
    t.touch();
    overview_->invalidate();
    minimap_->update();
    view_->viewport()->update();
}

bool ClusterCanvas::handleDrop(const QMimeData* mime, NodeItem* target) {
    if (mime->hasFormat(clustermime::kSystem))
        return addSystem(payload(mime, clustermime::kSystem).value(QStringLiteral("system")).toString());
    if (mime->hasFormat(clustermime::kNodeTemplate)) {
        const QJsonObject o = payload(mime, clustermime::kNodeTemplate);
        fitPending_ = true;
        return addNode(o.value(QStringLiteral("gpu")).toString(), o.value(QStringLiteral("gpus")).toInt(8));
    }
    if (mime->hasFormat(clustermime::kNode)) {
        const int from = payload(mime, clustermime::kNode).value(QStringLiteral("node")).toInt(-1);
        const int last = static_cast<int>(editor_->project().cluster.nodes.size()) - 1;
        return moveNode(from, target ? target->index() : last);
    }
    if (!target) {
        emit message(tr("Drop GPUs onto a node."));
        return false;
    }
    if (mime->hasFormat(clustermime::kGpuType))
        return addGpu(target->index(), payload(mime, clustermime::kGpuType).value(QStringLiteral("gpu")).toString());
    if (mime->hasFormat(clustermime::kGpu))
        return moveGpu(payload(mime, clustermime::kGpu).value(QStringLiteral("node")).toInt(-1), target->index());
    return false;
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

// Each scale-up domain's nodes in a grid of their own inside its outline, the domains in a grid
// whose shape follows the view's aspect ratio (one domain alone takes the view's shape).
void ClusterCanvas::layoutDomains(const QSizeF& cell, double gap) {
    const double pad = DomainsItem::kPad, head = DomainsItem::kHeader, apart = 2 * gap;
    const double aspect = view_->width() > 0 && view_->height() > 0 ? double(view_->width()) / view_->height() : 1.6;
    int most = 1;
    for (const auto& b : domains_) most = std::max(most, b.nodes);
    const int count = static_cast<int>(domains_.size());
    const double inner = count == 1 ? aspect : 1.0;
    const int ic = std::clamp(static_cast<int>(std::ceil(std::sqrt(most * inner * cell.height() / cell.width()))), 1,
                              most);
    const int ir = (most + ic - 1) / ic;
    const QSizeF block(ic * (cell.width() + gap) - gap + 2 * pad, head + ir * (cell.height() + gap) - gap + 2 * pad);
    const int oc = std::clamp(static_cast<int>(std::ceil(std::sqrt(count * aspect * block.height() / block.width()))),
                              1, count);
    for (int d = 0; d < count; ++d) {
        const auto& b = domains_[static_cast<std::size_t>(d)];
        const int col = d % oc, row = d / oc;   // the domain's place in the grid of domains
        const double x0 = col * (block.width() + apart), y0 = row * (block.height() + apart);
        for (int k = 0; k < b.nodes; ++k) {
            const std::size_t n = static_cast<std::size_t>(b.first_node) + static_cast<std::size_t>(k);
            if (n >= nodes_.size()) break;
            const int kc = k % ic, kr = k / ic;   // the node's place inside its domain
            nodes_[n]->setPos(x0 + pad + kc * (cell.width() + gap), y0 + head + pad + kr * (cell.height() + gap));
        }
    }
    const int orows = (count + oc - 1) / oc;
    scene_->setSceneRect(-gap, -gap, oc * (block.width() + apart) - apart + 2 * gap,
                         orows * (block.height() + apart) - apart + 2 * gap);
    overview_->setNodes(&nodes_);
    updateDomainItem();
}

namespace {
QString tierKindName(paraplan::network::TierKind k) {
    using paraplan::network::TierKind;
    switch (k) {
    case TierKind::NvLink: return QStringLiteral("NVLink");
    case TierKind::Xgmi: return QStringLiteral("xGMI");
    case TierKind::Pcie: return QStringLiteral("PCIe");
    case TierKind::ScaleOut: return QStringLiteral("scale-out");
    case TierKind::Switch: return QStringLiteral("switch");
    }
    return {};
}
}   // namespace

void ClusterCanvas::updateDomainItem() {
    std::vector<DomainsItem::Domain> out;
    const auto& project = tiles_->project;
    if (system_ && !domains_.empty() && project) {
        using paraplan::network::TierKind;
        const auto& cluster = project->cluster;
        const auto& up = system_->domain();
        // Which group of each switch tier every node lies in (the tier's blocks of GPUs).
        QStringList outward;
        if (const auto* net = system_->scale_out())
            outward << tr("%1 %2 × %3 Gbit/s per GPU, %4 rails")
                           .arg(QString::fromStdString(net->name))
                           .arg(net->nics_per_gpu)
                           .arg(net->nic_gbit)
                           .arg(net->rails);
        std::vector<std::pair<const paraplan::network::Tier*, std::vector<int>>> switches;
        for (const auto& t : system_->tiers) {
            if (t.kind != TierKind::Switch) continue;
            std::vector<int> of(cluster.nodes.size(), 0);
            if (t.gpus > 0)
                for (const auto& b : paraplan::network::node_blocks(cluster, t.gpus))
                    for (int k = 0; k < b.nodes; ++k)
                        of[static_cast<std::size_t>(b.first_node) + static_cast<std::size_t>(k)] = b.index;
            switches.emplace_back(&t, std::move(of));
        }
        for (const auto& b : domains_) {
            if (b.first_node + b.nodes > static_cast<int>(nodes_.size())) break;
            DomainsItem::Domain d;
            d.firstNode = b.first_node;
            d.nodes = b.nodes;
            for (int k = 0; k < b.nodes; ++k)
                d.rect |=
                    nodes_[static_cast<std::size_t>(b.first_node) + static_cast<std::size_t>(k)]->sceneBoundingRect();
            d.rect.adjust(-DomainsItem::kPad, -DomainsItem::kPad - DomainsItem::kHeader, DomainsItem::kPad,
                          DomainsItem::kPad);
            const QString gpus = b.gpus == up.domain_gpus ? tr("%1 GPUs").arg(b.gpus)
                                                          : tr("%1 of %2 GPUs").arg(b.gpus).arg(up.domain_gpus);
            d.title = tr("%1 domain %2 · %3 · %4 · %5 %6 GB/s per GPU each way%7%8")
                          .arg(tierKindName(up.kind))
                          .arg(b.index)
                          .arg(gpus, wording::count(b.nodes, tr("1 node"), tr("%1 nodes")),
                               QString::fromStdString(up.generation))
                          .arg(up.gpu_gbps())
                          .arg(up.reduction == "nvls" ? tr(" · NVLink SHARP") : QString(),
                               b.straddles ? tr(" · its last node runs into the next domain") : QString());
            QStringList line = outward;
            for (const auto& [t, of] : switches)
                line << (t->gpus > 0 ? tr("%1 %2 (%3 GPUs)")
                                           .arg(QString::fromStdString(t->name))
                                           .arg(of[static_cast<std::size_t>(b.first_node)])
                                           .arg(t->gpus)
                                     : tr("%1 (all GPUs)").arg(QString::fromStdString(t->name)));
            d.tiers = tr("Outwards: %1").arg(line.join(QStringLiteral(" → ")));
            out.push_back(std::move(d));
        }
    }
    domainsItem_->setDomains(std::move(out));
}

QString ClusterCanvas::tierCrossing(const std::vector<int>& members, bool* leaves) const {
    if (leaves) *leaves = false;
    const auto& m = editor_->rankMap();
    if (!system_ || domains_.empty() || members.empty() || !m.valid()) return {};
    for (int r : members) {
        if (r < 0 || r >= static_cast<int>(m.placement.size())) return {};
        const auto& s = m.placement[static_cast<std::size_t>(r)];
        if (s.node < 0 || s.node >= static_cast<int>(offsets_.size())) return {};
    }
    const auto shape = paraplan::network::group_shape(*system_, offsets_, m.placement, members);
    const QString kind = tierKindName(system_->domain().kind);
    if (shape.domains <= 1) return tr("inside one %1 domain").arg(kind);
    if (leaves) *leaves = true;
    QStringList tiers;
    if (const auto* net = system_->scale_out()) tiers << QString::fromStdString(net->name);
    for (const auto* t : paraplan::network::switch_tiers_crossed(*system_, shape.span_gpus))
        tiers << QString::fromStdString(t->name);
    return tr("crosses %1 %2 domains over %3").arg(shape.domains).arg(kind, tiers.join(QStringLiteral(" → ")));
}

void ClusterCanvas::requestFit() {
    fitPending_ = true;
    autoFit_ = true;
    layoutNodes();
    zoomToFit();
}

void ClusterCanvas::zoomToFit() {
    autoFit_ = true;
    // Until the view is on screen with its real size a fit would be for the wrong size: the
    // view's resize does it then.
    if (!view_->isVisible() || view_->viewport()->width() < 50 || view_->viewport()->height() < 50) {
        fitPending_ = true;
        return;
    }
    fitPending_ = false;
    view_->fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
    if (view_->transform().m11() > 1.5) view_->setTransform(QTransform::fromScale(1.5, 1.5));
    // A cluster that fits only below the usual minimum zoom can still be zoomed out a bit
    // further, to the blocks of nodes.
    view_->setMinimumScale(std::min(0.02, view_->transform().m11() / 2));
    minimap_->sync();
}

void ClusterCanvas::openGoTo() { goTo_->open(); }

void ClusterCanvas::syncDetail() {
    // The node items have no transform of their own: their level of detail is the view's scale.
    const int d = static_cast<int>(ClusterOverviewItem::detailFor(view_->transform().m11()));
    if (d == detail_) return;
    detail_ = d;
    const bool tiles = d == static_cast<int>(ClusterOverviewItem::Detail::Tiles);
    nodeLayer_->setOpacity(tiles ? 1.0 : 0.0);
}

void ClusterCanvas::centreOn(const QPointF& scenePos) {
    // Close enough to read the tiles (1:1), or closer if the user already is.
    autoFit_ = false;
    fitPending_ = false;
    const double scale = std::max(1.0, view_->transform().m11());
    view_->setTransform(QTransform::fromScale(scale, scale));
    view_->centerOn(scenePos);
    minimap_->sync();
}

bool ClusterCanvas::goTo(const QString& input) {
    const QString text = input.trimmed();
    const Project& p = editor_->project();
    auto fail = [this](const QString& why) {
        goTo_->showError(why);
        emit message(why);
        return false;
    };
    if (text.isEmpty()) return fail(tr("Type a rank number or a node name."));
    static const QRegularExpression rankForm(QStringLiteral("^(?:r|rank\\s*)?(\\d+)$"),
                                             QRegularExpression::CaseInsensitiveOption);
    const auto m = rankForm.match(text);
    const int world = p.world_size();
    if (m.hasMatch()) {
        bool ok = false;
        const qlonglong rank = m.captured(1).toLongLong(&ok);
        const auto placement = p.cluster.placement();
        if (!ok || rank >= static_cast<qlonglong>(placement.size()) || rank >= world)
            return fail(world == 1
                            ? tr("No rank %1: this cluster has rank 0 only.").arg(m.captured(1))
                            : tr("No rank %1: this cluster has ranks 0 to %2.").arg(m.captured(1)).arg(world - 1));
        const auto& slot = placement[static_cast<std::size_t>(rank)];
        if (slot.node < 0 || slot.node >= static_cast<int>(nodes_.size()))
            return fail(tr("Rank %1 has no GPU.").arg(rank));
        const int r = static_cast<int>(rank);
        scene_->clearSelection();
        NodeItem* node = nodes_[static_cast<std::size_t>(slot.node)];
        autoFit_ = false;   // the group selection below redraws; it must not refit
        selectGroupOf(r);
        emit groupSelected(r, groupKind());
        node = nodes_[static_cast<std::size_t>(slot.node)];
        node->setSelected(true);
        centreOn(node->mapToScene(node->tileRect(slot.local_rank).center()));
        emit message(tr("Rank %1: GPU %2 of %3")
                         .arg(r)
                         .arg(slot.local_rank)
                         .arg(QString::fromStdString(p.cluster.nodes[static_cast<std::size_t>(slot.node)].name)));
        return true;
    }
    // A node by name, else by host; exact first, then ignoring case.
    int found = -1;
    for (Qt::CaseSensitivity cs : {Qt::CaseSensitive, Qt::CaseInsensitive}) {
        for (std::size_t i = 0; i < p.cluster.nodes.size() && found < 0; ++i)
            if (QString::fromStdString(p.cluster.nodes[i].name).compare(text, cs) == 0) found = static_cast<int>(i);
        for (std::size_t i = 0; i < p.cluster.nodes.size() && found < 0; ++i)
            if (!p.cluster.nodes[i].host.empty() &&
                QString::fromStdString(p.cluster.nodes[i].host).compare(text, cs) == 0)
                found = static_cast<int>(i);
        if (found >= 0) break;
    }
    if (found < 0 || found >= static_cast<int>(nodes_.size())) {
        const auto& nodes = p.cluster.nodes;
        const QString known = nodes.empty()       ? tr("there are no nodes")
                              : nodes.size() == 1 ? tr("the node is %1").arg(QString::fromStdString(nodes.front().name))
                                                  : tr("nodes are %1 … %2")
                                                        .arg(QString::fromStdString(nodes.front().name),
                                                             QString::fromStdString(nodes.back().name));
        return fail(tr("No rank or node \"%1\": type a rank from 0 to %2, or a node name (%3).")
                        .arg(text)
                        .arg(std::max(0, world - 1))
                        .arg(known));
    }
    scene_->clearSelection();
    NodeItem* node = nodes_[static_cast<std::size_t>(found)];
    node->setSelected(true);
    centreOn(node->sceneBoundingRect().center());
    emit message(tr("Node %1").arg(QString::fromStdString(p.cluster.nodes[static_cast<std::size_t>(found)].name)));
    return true;
}

void ClusterCanvas::showTileTip(NodeItem* node, int local, const QPoint& globalPos) {
    QToolTip::showText(globalPos, tileToolTip(node->index(), local), view_);
}

QString ClusterCanvas::tileToolTip(int nodeIndex, int local) const {
    const Project& p = editor_->project();
    if (nodeIndex < 0 || nodeIndex >= static_cast<int>(nodes_.size())) return {};
    const NodeItem* node = nodes_[static_cast<std::size_t>(nodeIndex)];
    const auto& n = p.cluster.nodes.at(static_cast<std::size_t>(node->index()));
    QString text = tr("<b>%1</b> · host %2 · %3 × %4")
                       .arg(QString::fromStdString(n.name).toHtmlEscaped(),
                            QString::fromStdString(n.host.empty() ? n.name : n.host).toHtmlEscaped())
                       .arg(n.gpus)
                       .arg(QString::fromStdString(n.gpu));
    if (local >= 0 && local < node->tiles().size()) {
        const GpuTile& t = node->tiles()[local];
        text += tr("<br>GPU %1 · global rank <b>%2</b>").arg(local).arg(t.rank);
        if (const Heatmap* hm = shownHeatmap())
            text += QStringLiteral("<br>") + (t.rank >= 0
                                                  ? heat::tooltip(*hm, t.rank)
                                                  : tr("<b>%1</b>: no sample (no rank on this GPU)").arg(hm->metric));
        const auto& m = editor_->rankMap();
        if (t.rank >= 0 && m.valid() && t.rank < m.world_size) {
            QStringList coords;
            for (std::size_t i = 0; i < m.coord_names.size(); ++i)
                coords
                    << QStringLiteral("%1=%2").arg(QString::fromStdString(m.coord_names[i])).arg(m.coords(t.rank)[i]);
            text += QStringLiteral("<br>") + coords.join(QStringLiteral(" "));
            for (const auto& [kind, set] : m.groups) {
                const auto members = m.group_of(kind, t.rank);
                if (members.empty()) continue;
                QStringList ms;
                for (std::size_t i = 0; i < members.size() && i < 12; ++i) ms << QString::number(members[i]);
                if (members.size() > 12) ms << QStringLiteral("…");
                const auto span = m.group_span(kind, set.group_index[static_cast<std::size_t>(t.rank)]);
                const QString tiers = tierCrossing(std::vector<int>(members.begin(), members.end()));
                text += tr("<br>%1 group: [%2]%3")
                            .arg(QString::fromStdString(kind), ms.join(QStringLiteral(", ")),
                                 !tiers.isEmpty()     ? QStringLiteral(" · ") + tiers.toHtmlEscaped()
                                 : span.crosses_nodes ? tr(" · crosses nodes")
                                                      : QString());
            }
        }
        text += tr("<br><i>Click to highlight its %1 group.</i>").arg(groupKind());
    }
    return text;
}
