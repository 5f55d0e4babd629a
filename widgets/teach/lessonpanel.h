#pragma once
// The lesson panel: runs a guided lesson (core/lessons, resources/lessons/*.json) over the
// open document. For each step it brings the step's view forward, says what to look at,
// asks for a prediction (up, down or the same), makes the step's change as one undoable
// edit and shows the figures before and after with the estimate's real numbers.
#include "lessons/lesson.h"

#include <QWidget>

#include <functional>
#include <optional>

class ProjectEditor;
class QButtonGroup;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

class LessonPanel : public QWidget {
    Q_OBJECT
public:
    explicit LessonPanel(ProjectEditor* editor, QWidget* parent = nullptr);

    QStringList lessonIds() const;
    // Loads a built-in lesson (asks for its project through projectRequested) at step 0.
    bool startLesson(const QString& id, QString* error = nullptr);
    bool startLesson(const paraplan::lessons::Lesson& lesson);
    const std::optional<paraplan::lessons::Lesson>& lesson() const { return lesson_; }
    int stepIndex() const { return step_; }
    int stepCount() const { return lesson_ ? int(lesson_->steps.size()) : 0; }
    bool applied() const { return applied_; }

    // The learner's guess for the step's first expectation.
    void predict(paraplan::lessons::Trend t);
    // Makes the step's change (one undo step) and shows the numbers; false if refused or done.
    bool applyStep(QString* error = nullptr);
    bool next();
    bool back();

    const paraplan::lessons::StepOutcome& outcome() const { return outcome_; }
    QTableWidget* figuresTable() const { return figures_; }
    QString lookText() const;
    QString predictText() const;
    QString resultText() const;   // the explanation and how the prediction went (after applying)

public slots:
    void startSelected();   // the Start button: the lesson picked in the list
    void makeChange();      // the change button: applyStep(), any refusal shown in the panel

public:
    // Opens a lesson's project in the document (a fresh history); false when the user keeps
    // theirs. `fresh`: a lesson starts (ask to save); otherwise a step back within the lesson.
    using ProjectOpener = std::function<bool(const paraplan::Project& project, bool fresh)>;
    void setProjectOpener(ProjectOpener f) { opener_ = std::move(f); }

signals:
    // The step's view: the main window brings it forward.
    void viewRequested(const QString& view);

private:
    void showStep();      // a step's text, waiting for its change
    void showOutcome();   // the numbers before and after, and the explanation

    ProjectEditor* editor_;
    ProjectOpener opener_;
    std::optional<paraplan::lessons::Lesson> lesson_;
    int step_ = 0;
    bool applied_ = false;
    std::optional<paraplan::lessons::Trend> prediction_;
    paraplan::lessons::StepOutcome outcome_;
    QComboBox* combo_;
    QPushButton* start_;
    QLabel* title_;
    QLabel* progress_;
    QLabel* look_;
    QLabel* predict_;
    QButtonGroup* guesses_;
    QPushButton* apply_;
    QTableWidget* figures_;
    QLabel* result_;
    QPushButton* back_;
    QPushButton* next_;
};
