#pragma once
// The rank grid: every global rank placed by its mesh coordinates, the framework's
// axes nested in its own order (outer axes as the big blocks, alternately rows and
// columns). Colour by any axis; pick an axis to see its groups; click a rank to
// highlight its group. For ColossalAI's 2D/2.5D/3D tensor modes, also the split of
// one weight matrix over the tensor-parallel group.
#include <QWidget>

#include <vector>

class ProjectEditor;
class QComboBox;
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
    RankGridCanvas* canvas() const { return canvas_; }
    QComboBox* colourCombo() const { return colourBy_; }
    QComboBox* groupCombo() const { return groupKind_; }

signals:
    void rankSelected(int rank);

private:
    ProjectEditor* editor_;
    QComboBox* colourBy_;
    QComboBox* groupKind_;
    QLabel* info_;
    QScrollArea* scroll_;
    RankGridCanvas* canvas_;
    QString preferredColour_ = QStringLiteral("tp"), preferredGroup_ = QStringLiteral("tp");   // user choices
};
