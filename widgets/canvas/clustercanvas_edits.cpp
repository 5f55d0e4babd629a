// The cluster canvas's edits: nodes and GPUs added, moved, renamed and deleted, and what a drop does.
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
#include <QLocale>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
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

bool ClusterCanvas::deleteSelectedNodes() {
    std::vector<int> sel = selectedNodes();
    if (sel.empty()) return false;
    // Nodes the user cannot see now: outside the view, or the view so far out that blocks of
    // many nodes stand for them (the overview's Groups level).
    const QRectF seen = view_->mapToScene(view_->viewport()->rect()).boundingRect();
    long long hidden = 0;
    for (int i : sel)
        if (detail_ == static_cast<int>(ClusterOverviewItem::Detail::Groups) ||
            !nodes_[static_cast<std::size_t>(i)]->sceneBoundingRect().intersects(seen))
            ++hidden;
    if (static_cast<int>(sel.size()) <= kDeleteWithoutAsking && hidden == 0) return deleteNodes(std::move(sel));

    const long long n = static_cast<long long>(sel.size());
    auto* box = new QMessageBox(
        QMessageBox::Question, tr("Delete Nodes"),
        n == 1 ? tr("Delete %1?")
                     .arg(QString::fromStdString(
                         editor_->project().cluster.nodes[static_cast<std::size_t>(sel.front())].name))
               : tr("Delete %1 nodes?").arg(QLocale().toString(n)),
        QMessageBox::Cancel, this);
    box->setObjectName(QStringLiteral("confirmDelete"));
    QString why = hidden == 0   ? QString()
                  : hidden == n ? (n == 1 ? tr("It is not in view.") : tr("None of them is in view."))
                  : hidden == 1 ? tr("1 of them is not in view.")
                                : tr("%1 of them are not in view.").arg(QLocale().toString(hidden));
    box->setInformativeText((why.isEmpty() ? QString() : why + QLatin1Char(' ')) + tr("Edit > Undo restores them."));
    QPushButton* del = box->addButton(n == 1 ? tr("Delete") : tr("Delete %1 Nodes").arg(QLocale().toString(n)),
                                      QMessageBox::DestructiveRole);
    box->setDefaultButton(QMessageBox::Cancel);
    box->setAttribute(Qt::WA_DeleteOnClose);
    // The nodes the question names, whatever the selection becomes while it is open.
    connect(box, &QMessageBox::finished, this, [this, box, del, sel] {
        if (box->clickedButton() == del) deleteNodes(sel);
    });
    box->open();
    return false;
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
