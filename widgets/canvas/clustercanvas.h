#pragma once
// The cluster canvas: nodes and their GPUs on a zoomable scene, with a palette to
// drag new nodes and GPUs from. Edits (add, move, delete, duplicate, rename, set
// host) go to the ProjectEditor as named undo steps.
#include "canvas/canvasview.h"
#include "common/heatmap.h"
#include "network/domains.h"
#include "network/system.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace paraplan {
struct Project;
}

class ProjectEditor;
class CanvasMinimap;
struct CanvasTiles;
class ClusterOverviewItem;
class ClusterPalette;
class DomainsItem;
class NodeLayerItem;
class GoToBar;
class GroupLinksItem;
class NodeItem;
class QAction;
class QComboBox;
class QGraphicsScene;
class QLabel;
class QMimeData;

class ClusterCanvas : public QWidget {
    Q_OBJECT
public:
    explicit ClusterCanvas(ProjectEditor* editor, QWidget* parent = nullptr);
    ~ClusterCanvas() override;

    void refresh();   // rebuild from the project (on ProjectDocument::changed)
    CanvasView* view() const { return view_; }
    ClusterPalette* paletteList() const { return palette_; }
    QGraphicsScene* scene() const { return scene_; }
    const std::vector<NodeItem*>& nodeItems() const { return nodes_; }
    std::vector<int> selectedNodes() const;
    QList<QAction*> editActions() const;

    // Edits (also reached by drag and drop and the actions).
    bool addNode(const QString& gpu, int gpus);
    // Edit > Add Node (Insert), or Enter on a palette template: a node of the palette's current
    // template, else like the last node, else the palette's first template. The path to a first
    // node for people who do not drag.
    bool addNodeFromPalette();
    // One rack (scale-up domain) of a systems-catalog system (network::add_rack): appended to a
    // cluster of that system, else replacing the cluster; one undo step either way.
    bool addSystem(const QString& id);
    bool addGpu(int node, const QString& gpu);
    bool moveGpu(int fromNode, int toNode);
    // Moves node `from` to place `to` in the node order (which is the order ranks fill nodes in).
    bool moveNode(int from, int to);
    bool deleteNodes(std::vector<int> nodes);
    // Edit > Delete: the selected nodes; more than kDeleteWithoutAsking of them, or any not in
    // view, are deleted only after a question (objectName "confirmDelete") that says how many
    // and how many cannot be seen. True when deleted at once, false when asked or none selected.
    static constexpr int kDeleteWithoutAsking = 200;
    bool deleteSelectedNodes();
    bool duplicateNodes(const std::vector<int>& nodes);
    bool renameNode(int node, const QString& name);
    bool setHost(int node, const QString& host);
    // Handles a drop of palette or canvas data onto `target` (nullptr: empty space).
    bool handleDrop(const QMimeData* mime, NodeItem* target);

    // Colour tiles by a group kind or coordinate of the rank map ("node", "gpu", "tp", ...).
    void setColourAxis(const QString& axis);
    QString colourAxis() const;
    // Highlights the group (of the colour axis, or tp) that holds `rank`, and draws its links.
    void selectGroupOf(int rank);
    void clearGroupSelection();
    const std::vector<int>& selectedGroup() const { return groupMembers_; }
    // Links of the selected group that leave their scale-up domain: their node, or the domain
    // outlined around several nodes (an NVL72 rack) where the system's domain spans nodes.
    int crossingLinks() const;

    // The outlines of the scale-up domains (drawn when one holds more than one node).
    DomainsItem* domainsItem() const { return domainsItem_; }
    // The system the cluster runs on (network::system_of); nullopt when it has none (no nodes).
    const std::optional<paraplan::network::System>& system() const { return system_; }

    // Live overlay of a running job (GPU utilization and memory per rank). The first one
    // switches "Colour by" to utilization; clearing it returns to the layout axis.
    void setLiveOverlay(const LiveOverlay& overlay);
    void clearLiveOverlay();
    // New values of the overlay already shown (same ranks), without rebuilding the scene: the
    // step playback calls this every frame. Falls back to setLiveOverlay() otherwise.
    void updateLiveOverlay(const LiveOverlay& overlay);
    const LiveOverlay& liveOverlay() const { return live_; }
    // The heatmap the tiles show now (null when coloured by a layout axis).
    const Heatmap* shownHeatmap() const;
    // What tile (node, GPU) shows of the heatmap; nullopt when not coloured by one.
    std::optional<HeatCell> tileHeat(int node, int local) const;
    QString tileToolTip(int node, int local) const;
    HeatLegend* legend() const { return legend_; }

    // The fallback note when "Colour by" cannot show the chosen axis (empty when it can).
    QString colourFallbackNote() const { return fallbackNote_; }
    // True while the cluster is kept fitted to the view (until the user zooms).
    bool autoFit() const { return autoFit_; }
    // The group kind the selection shows (the colour axis when it is a group, else tp).
    QString selectedGroupKind() const { return groupKind(); }

    // Level of detail: far out, nodes (and blocks of nodes) are drawn as single blocks.
    ClusterOverviewItem* overview() const { return overview_; }
    // The minimap in the view's corner and its View menu toggle (objectName "minimapAction").
    CanvasMinimap* minimap() const { return minimap_; }
    QAction* minimapAction() const { return minimapA_; }
    // "Go to rank N / node X" (Ctrl+G, objectName "goToAction"): opens the go-to field.
    QAction* goToAction() const { return goToA_; }
    GoToBar* goToBar() const { return goTo_; }
    // Centres the view on a rank ("1234", "r1234", "rank 1234") or a node (name or host),
    // zoomed in so its tiles can be read, and selects it: the node, and for a rank its group
    // (which the rank grid follows). False with the reason in the go-to field and the status
    // bar when there is no such rank or node.
    bool goTo(const QString& text);
    // The level of detail the node items are set up for (the view's scale decides it before
    // each paint): at Nodes and Groups the node items are not drawn, the overview draws blocks.
    int detailLevel() const { return detail_; }

public slots:
    void zoomToFit();
    // Fits the whole cluster now, or as soon as the view has its size (a new project).
    void requestFit();
    void openGoTo();

signals:
    void message(const QString& text);
    // The user clicked a tile: the group of `kind` holding `rank` is now selected.
    void groupSelected(int rank, const QString& kind);

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void sizePalette();
    bool run(const QString& label, const std::function<void(paraplan::Project&)>& fn);
    void layoutNodes();
    void layoutDomains(const QSizeF& cell, double gap);
    void updateDomainItem();
    // Where the members of a group lie on the system's tiers: "inside one NVLink domain", or the
    // domains and tiers it crosses (from network::group_shape); empty without domains drawn.
    QString tierCrossing(const std::vector<int>& members, bool* leaves = nullptr) const;
    void centreOn(const QPointF& scenePos);
    void syncDetail();
    void showTileTip(NodeItem* node, int local, const QPoint& globalPos);
    void updateAxes();
    void updateLinks();
    QString groupKind() const;
    int rankAt(int node, int local) const;

    ProjectEditor* editor_;
    std::unique_ptr<CanvasTiles> tiles_;   // what every tile shows (the node items read it)
    bool laidOut_ = false;                 // the node items have their places
    ClusterPalette* palette_;
    class QSplitter* split_ = nullptr;
    bool paletteMoved_ = false;   // the user dragged the palette's edge: its width is theirs
    QGraphicsScene* scene_;
    CanvasView* view_;
    QComboBox* colourBy_;
    QLabel* info_;
    std::vector<NodeItem*> nodes_;
    // The nodes the user selected, by name (names are unique): node items are reused by index,
    // so after an edit that removes or moves nodes the selection is put back on these names,
    // never left on whatever node slid into a selected item's place.
    std::set<std::string> selectedNames_;
    bool refreshing_ = false;
    QAction *delete_, *duplicate_, *rename_, *host_, *fit_, *zoomIn_, *zoomOut_, *addNode_;
    bool fitPending_ = true;
    bool autoFit_ = true;
    QString fallbackNote_;
    QString preferredAxis_ = QStringLiteral("tp");   // the user's choice, kept across edits
    GroupLinksItem* links_ = nullptr;
    DomainsItem* domainsItem_ = nullptr;
    std::optional<paraplan::network::System> system_;
    std::vector<paraplan::network::NodeBlock> domains_;   // empty: a domain is a node, none drawn
    std::vector<int> offsets_;                            // network::node_offsets of the cluster
    int groupRank_ = -1;                                  // rank whose group is selected (-1: none)
    std::vector<int> groupMembers_;
    LiveOverlay live_;
    QString layoutAxis_ = QStringLiteral("tp");   // the last layout axis chosen (restored after a job)
    HeatLegend* legend_ = nullptr;
    ClusterOverviewItem* overview_ = nullptr;
    NodeLayerItem* nodeLayer_ = nullptr;   // parent of the node items
    CanvasMinimap* minimap_ = nullptr;
    GoToBar* goTo_ = nullptr;
    QAction* goToA_ = nullptr;
    QAction* minimapA_ = nullptr;
    int detail_ = 0;   // ClusterOverviewItem::Detail the node items are set up for
};
