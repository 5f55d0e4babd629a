#pragma once
// File > New: a short form for a new project. The cluster (GPU type, nodes, GPUs per
// node), the model (a catalog preset or a Hugging Face config.json) and the framework;
// the layout starts as plain data parallelism, which every framework accepts, with the lowest
// ZeRO stage that fits in memory (search/starting_layout.h), for the planner or the Layout
// panel to refine.
#include "search/starting_layout.h"
#include "project/project.h"

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QSpinBox;

class NewProjectDialog : public QDialog {
    Q_OBJECT
public:
    explicit NewProjectDialog(QWidget* parent = nullptr);

    QLineEdit* nameEdit() const { return name_; }
    QComboBox* gpuCombo() const { return gpu_; }
    QSpinBox* nodesSpin() const { return nodes_; }
    QSpinBox* gpusPerNodeSpin() const { return gpusPerNode_; }
    QComboBox* modelCombo() const { return model_; }
    QComboBox* frameworkCombo() const { return framework_; }

    // Uses the model a Hugging Face config.json describes instead of a preset; false (and
    // *error) if the file cannot be read.
    bool setHfConfig(const QString& path, QString* error = nullptr);
    // The project the form describes; throws paraplan::InputError if it is not valid.
    paraplan::Project project() const;
    QString summaryText() const;   // the line under the fields: what Create will make

private:
    void chooseHfConfig();
    void updateSummary();

    QLineEdit* name_;
    QComboBox* gpu_;
    QSpinBox* nodes_;
    QSpinBox* gpusPerNode_;
    QComboBox* model_;
    QComboBox* framework_;
    QLabel* summary_;
    paraplan::ModelSpec hfModel_;                      // when the model combo shows "From config.json"
    mutable paraplan::search::StartingLayout start_;   // what project() chose last
};
