#pragma once
// The ShardFormer checklist beside the model: for the project's model family, what
// ColossalAI's ShardFormer policy supports (tensor parallel, pipeline, each
// sequence-parallel mode, flash attention, fused norm, JIT, FP8), read from the same
// table the validator checks layouts against (core/rules/shardformer.h). The row of a
// feature the current layout uses is marked, so a user sees what the model allows
// before choosing a layout.
#include <QWidget>

class ProjectEditor;
class QLabel;
class QTableWidget;

class ShardformerChecklist : public QWidget {
    Q_OBJECT
public:
    explicit ShardformerChecklist(ProjectEditor* editor, QWidget* parent = nullptr);

    void refresh();
    // Shows a family regardless of the project (empty: the project's).
    void showFamily(const QString& family);
    QString family() const { return family_; }
    QTableWidget* table() const { return table_; }
    QLabel* header() const { return header_; }
    // The support word ("yes", "converted", "ignored", "no_effect", "error") of a feature id, "" if absent.
    QString supportOf(const QString& feature) const;

private:
    ProjectEditor* editor_;
    QString family_;
    QString forced_;
    QLabel* header_;
    QTableWidget* table_;
};
