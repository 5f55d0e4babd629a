#pragma once
// The answer in view: the figures a designer edits for (memory per GPU against the GPU's
// capacity, step time, MFU, tokens/s) in one strip of the main window that follows every edit,
// whichever dock tab is in front. The figures are the estimate's (core/estimate, the same
// Estimate the Memory and time view draws); a click on one brings that view to the front.
#include <QWidget>

class ProjectEditor;
class QToolButton;
namespace paraplan::estimate {
struct Estimate;
}

class AnswerBar : public QWidget {
    Q_OBJECT
public:
    explicit AnswerBar(ProjectEditor* editor, QWidget* parent = nullptr);

    // Reads the latest analysis (cheap: no estimate is worked out here).
    void refresh();
    // What each figure says now (tests, screenshots): "memory", "step", "mfu", "tokens", or
    // "problem" when there is no estimate.
    QString text(const QString& figure) const;
    QToolButton* button(const QString& figure) const;
    // The figures are of the project before the last edit (its estimate is being worked out):
    // greyed, and their tooltips say so, until setUpdating(false).
    void setUpdating(bool on);
    bool updating() const { return updating_; }

signals:
    // A figure was clicked: bring the view that breaks it down to the front.
    void viewRequested(const QString& view);

private:
    void applyLook();   // colours and tooltips for the state shown (fits, updating)
    static QString stepToolTip(const paraplan::estimate::Estimate& e);

    ProjectEditor* editor_;
    bool updating_ = false;
    bool fits_ = true;
    QToolButton* memory_;
    QToolButton* step_;
    QToolButton* mfu_;
    QToolButton* tokens_;
    QToolButton* problem_;
};
