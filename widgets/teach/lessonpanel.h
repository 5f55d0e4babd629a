#pragma once
// The lesson panel: runs a guided lesson (core/lessons, resources/lessons/*.json) over the
// open document. For each step it brings the step's view forward, says what to look at,
// asks its one question (lessons/question.h: a trend, a group of the rank map, or whether the framework accepts the
// layout), makes the step's change as one undoable edit and shows the explanation first, then the figures before and
// after with the estimate's real numbers. After the last step: the lesson's summary and a link to its section of the
// concepts guide.
#include "lessons/lesson.h"
#include "lessons/question.h"

#include <QWidget>

#include <functional>
#include <optional>

class ProjectEditor;
class QButtonGroup;
class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;
class QVBoxLayout;

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
    // Past the last step: the summary is shown (stepIndex() == stepCount()).
    bool finished() const { return lesson_ && step_ >= stepCount(); }

    // A lesson written for the open project (lessons/own_project.h), on a copy of it.
    bool startOnProject(QString* error = nullptr);
    // The step's question and its choices (lessons/question.h), and the learner's choice.
    const paraplan::lessons::Question& question() const { return asked_; }
    void choose(int i);
    // A trend step's guess (its choices are goes up, goes down, stays the same).
    void predict(paraplan::lessons::Trend t);
    // Makes the step's change (one undo step) and shows the numbers; false if refused or done.
    bool applyStep(QString* error = nullptr);
    // The next step; from the last one, the lesson's end (its summary). False at the end.
    Q_INVOKABLE bool next();   // invokable: paraplan --screenshot --view lessons --invoke next
    Q_INVOKABLE bool back();
    // The lesson after this one in the list (from its start); false after the last lesson.
    Q_INVOKABLE bool nextLesson();

    const paraplan::lessons::StepOutcome& outcome() const { return outcome_; }
    QTableWidget* figuresTable() const { return figures_; }
    QString lookText() const;
    QString predictText() const;
    QString resultText() const;    // the explanation and how the prediction went (after applying)
    QString sourceText() const;    // the step's sources, below its figures (after applying)
    QString summaryText() const;   // the end of the lesson: its summary and the concepts link (rich text)
    QLabel* resultLabel() const { return result_; }
    QLabel* summaryLabel() const { return summary_; }

public slots:
    void startSelected();   // the Start button: the lesson picked in the list
    void
    startOwnProject();   // the On My Project button (paraplan --screenshot --view lessons --invoke startOwnProject)
    void makeChange();   // the change button: applyStep(), any refusal shown in the panel

public:
    // Opens a lesson's project in the document (a fresh history); false when the user keeps
    // theirs. `fresh`: a lesson starts (the opener asks to save the user's own unsaved work, never a
    // lesson's own project); otherwise a step back within the lesson.
    using ProjectOpener = std::function<bool(const paraplan::Project& project, bool fresh)>;
    void setProjectOpener(ProjectOpener f) { opener_ = std::move(f); }

signals:
    // The step's view: the main window brings it forward.
    void viewRequested(const QString& view);
    // The step's colouring ("colour_by": tp, pp, dp, node, ...) for the canvas and the rank grid.
    void colourRequested(const QString& axis);
    // The summary's link: the concepts guide at the lesson's section (its "topic" anchor).
    void conceptsRequested(const QString& topic);

private:
    void showStep();                                      // a step's text, waiting for its change
    void showChoices(const paraplan::lessons::Step& s);   // the step's question as radio buttons
    void showOutcome();                                   // the explanation, then the numbers before and after
    void showEnd();                                       // the lesson's summary and the concepts link
    // The explanation (and figures) above the question once answered, below it before.
    void placeAnswer(bool answered);
    void scrollToTop();

    ProjectEditor* editor_;
    ProjectOpener opener_;
    std::optional<paraplan::lessons::Lesson> lesson_;
    int step_ = 0;
    bool applied_ = false;
    paraplan::lessons::Question asked_;
    std::optional<int> choice_;
    paraplan::lessons::StepOutcome outcome_;
    QComboBox* combo_;
    QPushButton* start_;
    QPushButton* own_;
    QLabel* title_;
    QLabel* progress_;
    QWidget* question_;   // look, predict, the guesses and the change button
    QLabel* look_;
    QLabel* predict_;
    QButtonGroup* guesses_;
    QVBoxLayout* guessRows_;
    QPushButton* apply_;
    QTableWidget* figures_;
    QLabel* result_;
    QLabel* source_;
    QLabel* summary_;
    QPushButton* back_;
    QPushButton* next_;
    QPushButton* nextLesson_;
};
