#pragma once
// The Explain panel: a plain-words explanation of the concept under the cursor
// (the field being edited or hovered), with how it plays out in the current
// layout and a small diagram drawn from the project's own rank map.
#include <QWidget>

class ProjectEditor;
class QLabel;
class ExplainDiagram;

class ExplainPanel : public QWidget {
    Q_OBJECT
public:
    explicit ExplainPanel(ProjectEditor* editor, QWidget* parent = nullptr);

    // Topic ids are the layout field names: tp pp sp cp ep dp zero_stage schedule ...
    void explain(const QString& topic);
    QString topic() const { return topic_; }
    QString text() const;
    void refresh();   // the project changed: redo the "in this layout" part

    // Watches focus and hover over widgets whose objectName is a topic id.
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    ProjectEditor* editor_;
    QString topic_;
    QLabel* body_;
    ExplainDiagram* diagram_;
};
