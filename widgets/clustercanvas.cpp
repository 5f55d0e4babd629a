#include "clustercanvas.h"

#include "catalog/catalog.h"
#include "clustermime.h"
#include "clusterpalette.h"
#include "nodeitem.h"
#include "projecteditor.h"
#include "theme.h"

#include <QAction>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMimeData>
#include <QScrollBar>
#include <QSplitter>
#include <QToolBar>
#include <QToolTip>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <set>

using paraplan::Project;

namespace {
QJsonObject payload(const QMimeData* m, const QString& fmt) { return QJsonDocument::fromJson(m->data(fmt)).object(); }
bool ours(const QMimeData* m) {
    return m->hasFormat(clustermime::kNodeTemplate) || m->hasFormat(clustermime::kGpuType) ||
           m->hasFormat(clustermime::kGpu);
}
std::string uniqueName(const Project& p, const std::string& base) {
    std::set<std::string> used;
    for (const auto& n : p.cluster.nodes) used.insert(n.name);
    for (int i = static_cast<int>(p.cluster.nodes.size());; ++i) {
        const std::string s = base + std::to_string(i);
        if (!used.count(s)) return s;
    }
}
}  // namespace

// --- CanvasView -----------------------------------------------------------------------

CanvasView::CanvasView(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
    setObjectName(QStringLiteral("canvasView"));
    setAcceptDrops(true);
    setDragMode(QGraphicsView::RubberBandDrag);
    setRubberBandSelectionMode(Qt::IntersectsItemShape);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setViewportUpdateMode(QGraphicsView::MinimalViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState);
    setRenderHint(QPainter::TextAntialiasing);
    setToolTip(tr("Drag nodes and GPUs here from the palette; drag a GPU tile onto another node to move it. "
                  "Wheel zooms, middle button pans, drag on empty space selects."));
}

NodeItem* CanvasView::nodeAt(const QPoint& pos) const {
    for (QGraphicsItem* it : items(pos))
        if (it->type() == NodeItem::Type) return static_cast<NodeItem*>(it);
    return nullptr;
}

void CanvasView::setDropTarget(NodeItem* n) {
    if (dropTarget_ == n) return;
    if (dropTarget_) dropTarget_->setDropHighlight(false);
    dropTarget_ = n;
    if (dropTarget_) dropTarget_->setDropHighlight(true);
}

void CanvasView::dragEnterEvent(QDragEnterEvent* e) {
    if (ours(e->mimeData())) {
        e->acceptProposedAction();
        return;
    }
    e->ignore();
}

void CanvasView::dragMoveEvent(QDragMoveEvent* e) {
    if (!ours(e->mimeData())) {
        e->ignore();
        return;
    }
    const bool needsNode = !e->mimeData()->hasFormat(clustermime::kNodeTemplate);
    NodeItem* n = nodeAt(e->position().toPoint());
    setDropTarget(needsNode ? n : nullptr);
    if (needsNode && !n)
        e->ignore();
    else
        e->acceptProposedAction();
}

void CanvasView::dragLeaveEvent(QDragLeaveEvent* e) {
    setDropTarget(nullptr);
    QGraphicsView::dragLeaveEvent(e);
}

void CanvasView::dropEvent(QDropEvent* e) {
    setDropTarget(nullptr);
    if (!ours(e->mimeData())) {
        e->ignore();
        return;
    }
    emit dropped(e->mimeData(), nodeAt(e->position().toPoint()));
    e->acceptProposedAction();
}

void CanvasView::zoomBy(double factor) {
    const double current = transform().m11();
    const double target = std::clamp(current * factor, 0.02, 4.0);
    scale(target / current, target / current);
}

void CanvasView::wheelEvent(QWheelEvent* e) {
    const double steps = e->angleDelta().y() / 120.0;
    if (steps == 0) return;
    zoomBy(std::pow(1.15, steps));
}

void CanvasView::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::MiddleButton) {
        // Pan by dragging with the middle button (ScrollHandDrag reacts to the left button only).
        panning_ = true;
        setDragMode(QGraphicsView::ScrollHandDrag);
        QMouseEvent fake(e->type(), e->position(), e->globalPosition(), Qt::LeftButton, Qt::LeftButton, e->modifiers());
        QGraphicsView::mousePressEvent(&fake);
        return;
    }
    QGraphicsView::mousePressEvent(e);
}

void CanvasView::mouseReleaseEvent(QMouseEvent* e) {
    if (panning_ && e->button() == Qt::MiddleButton) {
        QMouseEvent fake(e->type(), e->position(), e->globalPosition(), Qt::LeftButton, Qt::NoButton, e->modifiers());
        QGraphicsView::mouseReleaseEvent(&fake);
        setDragMode(QGraphicsView::RubberBandDrag);
        panning_ = false;
        return;
    }
    QGraphicsView::mouseReleaseEvent(e);
}

bool CanvasView::viewportEvent(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        if (NodeItem* n = nodeAt(he->pos())) {
            const int local = n->tileAt(n->mapFromScene(mapToScene(he->pos())));
            emit hoverTile(n, local, he->globalPos());
            return true;
        }
    }
    return QGraphicsView::viewportEvent(e);
}

// --- ClusterCanvas --------------------------------------------------------------------

ClusterCanvas::ClusterCanvas(ProjectEditor* editor, QWidget* parent) : QWidget(parent), editor_(editor) {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->setSpacing(0);

    auto* bar = new QToolBar(this);
    bar->setIconSize(QSize(16, 16));
    bar->addWidget(new QLabel(tr(" Colour by "), bar));
    colourBy_ = new QComboBox(bar);
    colourBy_->setObjectName(QStringLiteral("colourBy"));
    colourBy_->setToolTip(tr("Colour each GPU tile by the group it belongs to along this axis."));
    colourBy_->addItem(tr("node"), QStringLiteral("node"));
    colourBy_->addItem(tr("GPU type"), QStringLiteral("gpu"));
    bar->addWidget(colourBy_);
    connect(colourBy_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    bar->addSeparator();

    auto mk = [this, bar](const QString& text, const QKeySequence& key, const QString& tip) {
        auto* a = new QAction(text, this);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        a->setToolTip(QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
        bar->addAction(a);
        addAction(a);
        return a;
    };
    zoomIn_ = mk(tr("Zoom in"), QKeySequence::ZoomIn, tr("Zoom in on the canvas"));
    zoomOut_ = mk(tr("Zoom out"), QKeySequence::ZoomOut, tr("Zoom out"));
    fit_ = mk(tr("Fit"), QKeySequence(Qt::CTRL | Qt::Key_0), tr("Show the whole cluster"));
    bar->addSeparator();
    duplicate_ = mk(tr("Duplicate"), QKeySequence(Qt::CTRL | Qt::Key_D), tr("Duplicate the selected nodes"));
    rename_ = mk(tr("Rename…"), QKeySequence(Qt::Key_F2), tr("Rename the selected node"));
    host_ = mk(tr("Set host…"), QKeySequence(Qt::CTRL | Qt::Key_H), tr("Set the SSH host of the selected node"));
    delete_ = mk(tr("Delete"), QKeySequence::Delete, tr("Delete the selected nodes"));
    outer->addWidget(bar);

    auto* split = new QSplitter(this);
    palette_ = new ClusterPalette(split);
    palette_->setMinimumWidth(150);
    scene_ = new QGraphicsScene(this);
    scene_->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
    view_ = new CanvasView(scene_, split);
    split->addWidget(palette_);
    split->addWidget(view_);
    split->setStretchFactor(1, 1);
    split->setSizes({180, 900});
    outer->addWidget(split, 1);
    info_ = new QLabel(this);
    info_->setObjectName(QStringLiteral("canvasInfo"));
    info_->setContentsMargins(8, 3, 8, 3);
    outer->addWidget(info_);

    connect(view_, &CanvasView::dropped, this, [this](const QMimeData* m, NodeItem* n) { handleDrop(m, n); });
    connect(view_, &CanvasView::hoverTile, this, &ClusterCanvas::showTileTip);
    connect(zoomIn_, &QAction::triggered, this, [this] { view_->zoomBy(1.25); });
    connect(zoomOut_, &QAction::triggered, this, [this] { view_->zoomBy(0.8); });
    connect(fit_, &QAction::triggered, this, &ClusterCanvas::zoomToFit);
    connect(delete_, &QAction::triggered, this, [this] { deleteNodes(selectedNodes()); });
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

QList<QAction*> ClusterCanvas::editActions() const { return {duplicate_, rename_, host_, delete_}; }

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
        emit message(tr("Cannot move a %1 into %2, which holds %3 GPUs.")
                         .arg(QString::fromStdString(a.gpu), QString::fromStdString(b.name), QString::fromStdString(b.gpu)));
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

bool ClusterCanvas::deleteNodes(std::vector<int> sel) {
    if (sel.empty()) return false;
    const Project& cur = editor_->project();
    if (sel.size() >= cur.cluster.nodes.size()) {
        emit message(tr("A cluster needs at least one node."));
        return false;
    }
    std::sort(sel.rbegin(), sel.rend());
    const QString label = sel.size() == 1
                              ? tr("Delete %1").arg(QString::fromStdString(cur.cluster.nodes[static_cast<std::size_t>(sel[0])].name))
                              : tr("Delete %n nodes", nullptr, static_cast<int>(sel.size()));
    return run(label, [sel](Project& p) {
        for (int i : sel) p.cluster.nodes.erase(p.cluster.nodes.begin() + i);
        p.cluster.rank_order.clear();
    });
}

bool ClusterCanvas::duplicateNodes(const std::vector<int>& sel) {
    if (sel.empty()) return false;
    return run(tr("Duplicate %n node(s)", nullptr, static_cast<int>(sel.size())), [sel](Project& p) {
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
    return run(tr("Rename %1 to %2").arg(QString::fromStdString(cur.cluster.nodes[static_cast<std::size_t>(node)].name),
                                         name.trimmed()),
               [node, n = name.trimmed().toStdString()](Project& p) { p.cluster.nodes[static_cast<std::size_t>(node)].name = n; });
}

bool ClusterCanvas::setHost(int node, const QString& host) {
    const Project& cur = editor_->project();
    if (node < 0 || node >= static_cast<int>(cur.cluster.nodes.size())) return false;
    return run(tr("Set host of %1 to %2")
                   .arg(QString::fromStdString(cur.cluster.nodes[static_cast<std::size_t>(node)].name), host.trimmed()),
               [node, h = host.trimmed().toStdString()](Project& p) { p.cluster.nodes[static_cast<std::size_t>(node)].host = h; });
}

bool ClusterCanvas::handleDrop(const QMimeData* mime, NodeItem* target) {
    if (mime->hasFormat(clustermime::kNodeTemplate)) {
        const QJsonObject o = payload(mime, clustermime::kNodeTemplate);
        fitPending_ = true;
        return addNode(o.value(QStringLiteral("gpu")).toString(), o.value(QStringLiteral("gpus")).toInt(8));
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
    const Project& p = editor_->project();
    const auto& nodes = p.cluster.nodes;
    // rank of each (node, local GPU), from the project's placement.
    std::vector<std::vector<int>> rankOf(nodes.size());
    for (std::size_t n = 0; n < nodes.size(); ++n) rankOf[n].assign(static_cast<std::size_t>(std::max(0, nodes[n].gpus)), -1);
    const auto placement = p.cluster.placement();
    for (std::size_t r = 0; r < placement.size(); ++r) {
        const auto& s = placement[r];
        if (s.node >= 0 && s.node < static_cast<int>(nodes.size()) && s.local_rank >= 0 &&
            s.local_rank < nodes[static_cast<std::size_t>(s.node)].gpus)
            rankOf[static_cast<std::size_t>(s.node)][static_cast<std::size_t>(s.local_rank)] = static_cast<int>(r);
    }
    const QString axis = colourBy_->currentData().toString();
    std::vector<std::string> gpuTypes;
    const QPalette pal = palette();

    while (nodes_.size() > nodes.size()) {
        delete nodes_.back();
        nodes_.pop_back();
    }
    while (nodes_.size() < nodes.size()) {
        auto* item = new NodeItem(static_cast<int>(nodes_.size()));
        scene_->addItem(item);
        nodes_.push_back(item);
    }
    for (std::size_t n = 0; n < nodes.size(); ++n) {
        const auto& node = nodes[n];
        int typeIndex = 0;
        const auto it = std::find(gpuTypes.begin(), gpuTypes.end(), node.gpu);
        if (it == gpuTypes.end()) {
            typeIndex = static_cast<int>(gpuTypes.size());
            gpuTypes.push_back(node.gpu);
        } else {
            typeIndex = static_cast<int>(it - gpuTypes.begin());
        }
        QVector<GpuTile> tiles(std::max(0, node.gpus));
        for (int g = 0; g < node.gpus; ++g) {
            GpuTile& t = tiles[g];
            t.rank = rankOf[n][static_cast<std::size_t>(g)];
            const int group = axis == QLatin1String("gpu") ? typeIndex : static_cast<int>(n);
            t.fill = theme::groupColor(group, pal);
        }
        const paraplan::GpuSpec* spec = paraplan::catalog::find_gpu(node.gpu);
        const QString host = QString::fromStdString(node.host.empty() ? node.name : node.host);
        nodes_[n]->setContent(static_cast<int>(n), QString::fromStdString(node.name),
                              QStringLiteral("%1 · %2").arg(host, spec ? QString::fromStdString(spec->name)
                                                                       : QString::fromStdString(node.gpu)),
                              std::move(tiles));
    }
    layoutNodes();
    info_->setText(tr("%1 nodes · %2 GPUs · drag from the palette to add; Delete removes the selection")
                       .arg(nodes.size())
                       .arg(p.world_size()));
    if (fitPending_) zoomToFit();
}

void ClusterCanvas::layoutNodes() {
    if (nodes_.empty()) return;
    // Arrange nodes in a grid whose shape follows the view's aspect ratio.
    QSizeF cell(0, 0);
    for (NodeItem* n : nodes_) cell = cell.expandedTo(n->boundingRect().size());
    const double gap = 18;
    const double aspect = view_->width() > 0 && view_->height() > 0 ? double(view_->width()) / view_->height() : 1.6;
    const int count = static_cast<int>(nodes_.size());
    int cols = std::max(1, static_cast<int>(std::ceil(std::sqrt(count * aspect * cell.height() / cell.width()))));
    cols = std::min(cols, count);
    for (int i = 0; i < count; ++i)
        nodes_[static_cast<std::size_t>(i)]->setPos((i % cols) * (cell.width() + gap), (i / cols) * (cell.height() + gap));
    const int rows = (count + cols - 1) / cols;
    scene_->setSceneRect(-gap, -gap, cols * (cell.width() + gap) + gap, rows * (cell.height() + gap) + gap);
}

void ClusterCanvas::zoomToFit() {
    fitPending_ = false;
    view_->fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
    if (view_->transform().m11() > 1.5) view_->setTransform(QTransform::fromScale(1.5, 1.5));
}

void ClusterCanvas::showTileTip(NodeItem* node, int local, const QPoint& globalPos) {
    const Project& p = editor_->project();
    const auto& n = p.cluster.nodes.at(static_cast<std::size_t>(node->index()));
    QString text = tr("<b>%1</b> · host %2 · %3 × %4")
                       .arg(QString::fromStdString(n.name).toHtmlEscaped(),
                            QString::fromStdString(n.host.empty() ? n.name : n.host).toHtmlEscaped())
                       .arg(n.gpus)
                       .arg(QString::fromStdString(n.gpu));
    if (local >= 0 && local < node->tiles().size()) {
        const GpuTile& t = node->tiles()[local];
        text += tr("<br>GPU %1 · global rank <b>%2</b>").arg(local).arg(t.rank);
        if (!t.coords.isEmpty()) text += QStringLiteral("<br>") + t.coords.toHtmlEscaped();
    }
    QToolTip::showText(globalPos, text, view_);
}
