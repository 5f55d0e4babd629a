#include "teach/lessonpanel.h"

#include "lessons/own_project.h"

#include "document/projecteditor.h"
#include "common/theme.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

using namespace paraplan::lessons;

namespace {

// The wait cursor while it lives.
struct WaitCursor {
    WaitCursor() { QGuiApplication::setOverrideCursor(Qt::WaitCursor); }
    ~WaitCursor() { QGuiApplication::restoreOverrideCursor(); }
    WaitCursor(const WaitCursor&) = delete;
    WaitCursor& operator=(const WaitCursor&) = delete;
};

QString value(const std::optional<double>& v) {
    if (!v) return QStringLiteral("–");
    const double a = std::abs(*v);
    if (a < 1e6 && *v == std::round(*v)) return QString::number(*v, 'f', 0);   // counts, yes/no
    return QString::number(*v, 'f', a >= 1000 ? 0 : a >= 10 ? 2 : 3);
}

QLabel* wrapped(QWidget* parent, const char* name) {
    auto* l = new QLabel(parent);
    l->setWordWrap(true);
    l->setObjectName(QLatin1String(name));
    l->setTextFormat(Qt::PlainText);
    return l;
}

}   // namespace

LessonPanel::LessonPanel(ProjectEditor* editor, QWidget* parent)
    : QWidget(parent),
      editor_(editor),
      combo_(new QComboBox(this)),
      start_(new QPushButton(tr("Start"), this)),
      own_(new QPushButton(tr("On My Project"), this)),
      title_(new QLabel(this)),
      progress_(new QLabel(this)),
      question_(new QWidget(this)),
      look_(wrapped(question_, "lessonLook")),
      predict_(wrapped(question_, "lessonPredict")),
      guesses_(new QButtonGroup(this)),
      guessRows_(new QVBoxLayout),
      apply_(new QPushButton(question_)),
      figures_(new QTableWidget(this)),
      result_(wrapped(this, "lessonResult")),
      source_(wrapped(this, "lessonSource")),
      summary_(wrapped(this, "lessonSummary")),
      back_(new QPushButton(tr("Back"), this)),
      next_(new QPushButton(tr("Next"), this)),
      nextLesson_(new QPushButton(tr("Next lesson"), this)) {
    setObjectName(QStringLiteral("lessonPanel"));
    combo_->setObjectName(QStringLiteral("lessonCombo"));
    start_->setObjectName(QStringLiteral("lessonStart"));
    own_->setObjectName(QStringLiteral("lessonOwnProject"));
    own_->setToolTip(
        tr("A lesson written for the open project: its rank map, its framework's rules and its estimate, "
           "on a copy (your project stays as it is)"));
    apply_->setObjectName(QStringLiteral("lessonApply"));
    figures_->setObjectName(QStringLiteral("lessonFigures"));
    back_->setObjectName(QStringLiteral("lessonBack"));
    next_->setObjectName(QStringLiteral("lessonNext"));
    nextLesson_->setObjectName(QStringLiteral("lessonNextLesson"));
    question_->setObjectName(QStringLiteral("lessonQuestion"));
    title_->setWordWrap(true);
    // The end of a lesson: its summary, and a link the main window opens in the concepts guide.
    summary_->setTextFormat(Qt::RichText);
    summary_->setTextInteractionFlags(Qt::TextBrowserInteraction);
    summary_->setOpenExternalLinks(false);
    connect(summary_, &QLabel::linkActivated, this, [this](const QString& link) {
        if (link.startsWith(QLatin1String("concepts:"))) emit conceptsRequested(link.mid(9));
    });
    // Long lesson titles and change labels must not widen the dock (and so the window) past a
    // small screen: the combo elides, the change button may clip (its tooltip has the whole text).
    combo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo_->setMinimumContentsLength(12);
    apply_->setMinimumWidth(120);
    for (const auto& id : lesson_ids()) {
        try {
            combo_->addItem(QString::fromStdString(load_lesson(id).title), QString::fromStdString(id));
        } catch (const std::exception& e) {
            combo_->addItem(tr("%1 (broken: %2)").arg(QString::fromStdString(id), QString::fromStdString(e.what())),
                            QString::fromStdString(id));
        }
    }
    figures_->setColumnCount(4);
    figures_->setHorizontalHeaderLabels({tr("Figure"), tr("Before"), tr("After"), tr("Change")});
    figures_->verticalHeader()->hide();
    figures_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    figures_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    // As tall as its rows: the text after it follows at once, the spare room goes below.
    figures_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    figures_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);

    auto* top = new QHBoxLayout;
    top->addWidget(combo_, 1);
    top->addWidget(start_);
    // On a line of its own: beside the list it would widen the dock on a small screen.
    auto* ownRow = new QHBoxLayout;
    ownRow->addWidget(own_);
    ownRow->addStretch(1);
    auto* nav = new QHBoxLayout;
    nav->addWidget(back_);
    nav->addStretch(1);
    nav->addWidget(progress_);
    nav->addStretch(1);
    nav->addWidget(next_);
    nav->addWidget(nextLesson_);
    auto* q = new QVBoxLayout(question_);
    q->setContentsMargins(0, 0, 0, 0);
    q->addWidget(look_);
    q->addWidget(predict_);
    q->addLayout(guessRows_);
    q->addWidget(apply_);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    lay->addLayout(top);
    lay->addLayout(ownRow);
    lay->addWidget(title_);
    lay->addWidget(question_);   // placeAnswer() moves the explanation and figures above it once answered
    lay->addWidget(result_);
    lay->addWidget(figures_);
    lay->addWidget(source_);
    lay->addWidget(summary_);
    // The spare room: below everything (the summary at a lesson's end), not between the parts.
    lay->addItem(new QSpacerItem(0, 0, QSizePolicy::Minimum, QSizePolicy::Expanding));
    lay->addLayout(nav);

    connect(start_, &QPushButton::clicked, this, &LessonPanel::startSelected);
    connect(own_, &QPushButton::clicked, this, &LessonPanel::startOwnProject);
    connect(guesses_, &QButtonGroup::idClicked, this, &LessonPanel::choose);
    connect(apply_, &QPushButton::clicked, this, &LessonPanel::makeChange);
    connect(back_, &QPushButton::clicked, this, &LessonPanel::back);
    connect(next_, &QPushButton::clicked, this, &LessonPanel::next);
    connect(nextLesson_, &QPushButton::clicked, this, &LessonPanel::nextLesson);
    showStep();
}

void LessonPanel::startSelected() {
    QString err;
    if (!startLesson(combo_->currentData().toString(), &err) && !err.isEmpty()) result_->setText(err);
}

void LessonPanel::startOwnProject() {
    QString err;
    if (!startOnProject(&err) && !err.isEmpty()) result_->setText(err);
}

void LessonPanel::makeChange() {
    QString err;
    if (!applyStep(&err) && !err.isEmpty()) result_->setText(err);
}

QStringList LessonPanel::lessonIds() const {
    QStringList ids;
    for (int i = 0; i < combo_->count(); ++i) ids << combo_->itemData(i).toString();
    return ids;
}

bool LessonPanel::startLesson(const QString& id, QString* error) {
    try {
        return startLesson(load_lesson(id.toStdString()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

bool LessonPanel::startLesson(const Lesson& lesson) {
    paraplan::Project p;
    try {
        p = start_project(lesson);
    } catch (const std::exception& e) {
        result_->setText(QString::fromStdString(e.what()));
        return false;
    }
    if (!opener_ || !opener_(p, true)) return false;
    lesson_ = lesson;
    step_ = 0;
    applied_ = false;
    const int i = combo_->findData(QString::fromStdString(lesson.id));
    if (i >= 0) combo_->setCurrentIndex(i);
    showStep();
    return true;
}

void LessonPanel::predict(Trend t) { choose(t == Trend::Increases ? 0 : t == Trend::Decreases ? 1 : 2); }

void LessonPanel::choose(int i) {
    if (i < 0 || i >= int(asked_.choices.size())) return;
    choice_ = i;
    if (auto* b = guesses_->button(i); b && !b->isChecked()) b->setChecked(true);
}

bool LessonPanel::startOnProject(QString* error) {
    try {
        // Written from a few estimates of the project (a second or two on thousands of GPUs).
        const WaitCursor wait;
        return startLesson(lesson_on_project(editor_->project()));
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

void LessonPanel::showChoices(const Step& s) {
    try {
        asked_ = paraplan::lessons::question(s, editor_->project());
    } catch (const std::exception& e) {
        asked_ = {};
        asked_.graded_on = e.what();
    }
    for (auto* b : guesses_->buttons()) {
        guesses_->removeButton(b);
        delete b;
    }
    // One per line: a group question's choices are rank sets.
    for (int i = 0; i < int(asked_.choices.size()); ++i) {
        auto* b = new QRadioButton(QString::fromStdString(asked_.choices[std::size_t(i)]), question_);
        b->setObjectName(QStringLiteral("lessonGuess%1").arg(i));
        guesses_->addButton(b, i);
        guessRows_->addWidget(b, 0, Qt::AlignLeft);   // as wide as its text: a click beside it is no answer
        b->show();   // at once: a layout shows a new child of a shown panel only from the event loop
    }
}

bool LessonPanel::applyStep(QString* error) {
    if (!lesson_ || applied_ || step_ >= stepCount()) return false;
    const Step& s = lesson_->steps[std::size_t(step_)];
    try {
        outcome_ = run_step(editor_->project(), s);
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
    const QString label = s.change_label.empty() ? tr("Lesson: %1").arg(QString::fromStdString(s.title))
                                                 : tr("Lesson: %1").arg(QString::fromStdString(s.change_label));
    // A question on the layout as it is (a group or accepted step with no change) leaves the project alone.
    if (!s.change.empty() && !editor_->applyChanges(label, s.change, error)) return false;
    applied_ = true;
    showOutcome();
    return true;
}

bool LessonPanel::next() {
    if (!lesson_ || finished()) return false;
    if (!applied_) {   // skipping a step still makes its change: later steps build on it
        if (!applyStep()) return false;
    }
    ++step_;
    applied_ = false;
    if (finished()) showEnd();
    else showStep();
    return true;
}

bool LessonPanel::back() {
    if (!lesson_ || step_ == 0) return false;
    // The project as it was before the previous step: the start with the earlier steps' changes.
    paraplan::Project p = start_project(*lesson_);
    for (int i = 0; i + 1 < step_; ++i) p = apply_step(p, lesson_->steps[std::size_t(i)]);
    if (!opener_ || !opener_(p, false)) return false;
    --step_;
    applied_ = false;
    showStep();
    return true;
}

bool LessonPanel::nextLesson() {
    if (!lesson_) return false;
    const int i = combo_->findData(QString::fromStdString(lesson_->id));
    if (i < 0 || i + 1 >= combo_->count()) return false;
    QString err;
    if (startLesson(combo_->itemData(i + 1).toString(), &err)) return true;
    if (!err.isEmpty()) result_->setText(err);
    return false;
}

QString LessonPanel::lookText() const { return look_->text(); }
QString LessonPanel::predictText() const { return predict_->text(); }
QString LessonPanel::resultText() const { return result_->text(); }
QString LessonPanel::sourceText() const { return source_->text(); }
QString LessonPanel::summaryText() const { return summary_->text(); }

void LessonPanel::placeAnswer(bool answered) {
    auto* lay = static_cast<QVBoxLayout*>(layout());
    const QList<QWidget*> moved = answered ? QList<QWidget*>{result_, figures_, source_, question_}   // why first
                                           : QList<QWidget*>{question_, result_, figures_, source_};
    for (QWidget* w : moved) lay->removeWidget(w);
    int at = lay->indexOf(title_) + 1;
    for (QWidget* w : moved) lay->insertWidget(at++, w);
    source_->setVisible(answered && !source_->text().isEmpty());
}

// The panel sits in a scroll area in its dock (app/vertical_scroll.h): what changed is at the top.
void LessonPanel::scrollToTop() {
    for (QWidget* w = parentWidget(); w; w = w->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(w)) {
            area->verticalScrollBar()->setValue(0);
            return;
        }
}

void LessonPanel::showStep() {
    choice_.reset();
    outcome_ = {};
    figures_->setRowCount(0);
    result_->clear();
    result_->setStyleSheet(QString());
    source_->clear();
    placeAnswer(false);
    question_->show();
    figures_->show();
    summary_->clear();
    summary_->hide();
    nextLesson_->hide();
    next_->show();
    if (!lesson_) {
        title_->setText(
            tr("Pick a lesson and press Start. Each lesson opens its own project; "
               "your project stays in the recent files."));
        look_->clear();
        predict_->clear();
        progress_->clear();
        for (QWidget* w : {static_cast<QWidget*>(apply_), static_cast<QWidget*>(back_), static_cast<QWidget*>(next_)})
            w->setEnabled(false);
        apply_->setText(tr("Make the change"));
        return;
    }
    const Step& s = lesson_->steps[std::size_t(step_)];
    title_->setText(QStringLiteral("<b>%1</b> — %2")
                        .arg(QString::fromStdString(lesson_->title).toHtmlEscaped(),
                             QString::fromStdString(s.title).toHtmlEscaped()));
    progress_->setText(tr("Step %1 of %2").arg(step_ + 1).arg(stepCount()));
    look_->setText(tr("Look: %1").arg(QString::fromStdString(s.look)));
    QString predict = tr("Predict: %1").arg(QString::fromStdString(s.predict));
    // The choices are graded on one thing: name it beside them.
    showChoices(s);
    if (!asked_.graded_on.empty())
        predict += QLatin1Char('\n') + tr("Your answer is graded on: %1").arg(QString::fromStdString(asked_.graded_on));
    predict_->setText(predict);
    apply_->setText(s.change.empty()         ? tr("Check My Answer")
                    : s.change_label.empty() ? tr("Make the change")
                                             : QString::fromStdString(s.change_label));
    apply_->setToolTip(apply_->text());
    apply_->setEnabled(true);
    back_->setEnabled(step_ > 0);
    next_->setEnabled(true);   // from the last step: the lesson's end
    next_->setText(step_ + 1 < stepCount() ? tr("Next") : tr("Finish"));
    figures_->setRowCount(int(s.figures.size()));
    for (int r = 0; r < int(s.figures.size()); ++r) {
        figures_->setItem(r, 0, new QTableWidgetItem(QString::fromStdString(s.figures[std::size_t(r)].label)));
        for (int c = 1; c < 4; ++c) figures_->setItem(r, c, new QTableWidgetItem(QStringLiteral("?")));
    }
    emit viewRequested(QString::fromStdString(s.view));
    if (!s.colour_by.empty()) emit colourRequested(QString::fromStdString(s.colour_by));
    scrollToTop();
}

void LessonPanel::showOutcome() {
    if (!lesson_) return;
    const Step& s = lesson_->steps[std::size_t(step_)];
    const QPalette pal = palette();
    for (int r = 0; r < int(s.figures.size()) && r < figures_->rowCount(); ++r) {
        const auto& b = outcome_.before[std::size_t(r)];
        const auto& a = outcome_.after[std::size_t(r)];
        figures_->item(r, 1)->setText(value(b));
        figures_->item(r, 2)->setText(value(a));
        QString change = QStringLiteral("–");
        if (a && b) {
            const double d = *a - *b;
            change = (d > 0 ? QStringLiteral("+") : QString()) + value(d);
            if (*b != 0)
                change += QStringLiteral(" (%1%2%)")
                              .arg(d > 0 ? QStringLiteral("+") : QString())
                              .arg(100 * d / std::abs(*b), 0, 'f', 0);
        }
        figures_->item(r, 3)->setText(change);
    }
    QString text = QString::fromStdString(s.explain);
    // Graded on the project: the estimate's figure, the rank map or the rules (lessons/question.h).
    const int right = grade(s, asked_, outcome_);
    if (right >= 0 && right < int(asked_.choices.size())) {
        const auto said = [&](int i) {
            const QString c = QString::fromStdString(asked_.choices[std::size_t(i)]);
            switch (asked_.ask) {
            case Ask::Trend: return tr("%1 %2").arg(QString::fromStdString(asked_.graded_on), c);
            case Ask::Group:
                return tr("rank %1's %2 group is %3").arg(s.group_rank).arg(QString::fromStdString(s.group_kind), c);
            case Ask::Accepted: break;
            }
            return c;
        };
        text = (!choice_ ? tr("Answer: %1.").arg(said(right))
                : *choice_ == right
                    ? tr("Right: %1.").arg(said(right))
                    : tr("Not quite: %1 (you said: %2).")
                          .arg(said(right), QString::fromStdString(asked_.choices[std::size_t(*choice_)]))) +
               QLatin1Char(' ') + text;
    }
    if (!outcome_.error_messages_after.empty() && asked_.ask == Ask::Accepted)
        text += QLatin1Char('\n') +
                tr("The first error: %1").arg(QString::fromStdString(outcome_.error_messages_after.front()));
    if (!outcome_.failed.empty()) {
        text += QLatin1Char('\n') + tr("Note: with this project the numbers do not follow the lesson: %1")
                                        .arg(QString::fromStdString(outcome_.failed.front()));
        result_->setStyleSheet(QStringLiteral("color: %1").arg(theme::warningColor(pal).name()));
    } else {
        result_->setStyleSheet(QString());
    }
    // The sources after the figures: the reason and the numbers come first.
    source_->setText(s.source.empty() ? QString() : tr("Source: %1").arg(QString::fromStdString(s.source)));
    result_->setText(text);
    apply_->setEnabled(false);
    placeAnswer(true);
    scrollToTop();
}

void LessonPanel::showEnd() {
    title_->setText(tr("<b>%1</b> — done").arg(QString::fromStdString(lesson_->title).toHtmlEscaped()));
    progress_->setText(tr("Summary"));
    question_->hide();
    figures_->hide();
    result_->clear();
    source_->clear();
    QString text = QStringLiteral("<p>%1</p>").arg(QString::fromStdString(lesson_->summary).toHtmlEscaped());
    if (!lesson_->topic.empty())
        text += QStringLiteral("<p><a href=\"concepts:%1\">%2</a></p>")
                    .arg(QString::fromStdString(lesson_->topic).toHtmlEscaped(), tr("Read more in the concepts guide"));
    summary_->setText(text);
    summary_->show();
    back_->setEnabled(true);
    next_->hide();
    const int i = combo_->findData(QString::fromStdString(lesson_->id));
    nextLesson_->setVisible(i >= 0 && i + 1 < combo_->count());
    nextLesson_->setToolTip(nextLesson_->isVisibleTo(this) ? combo_->itemText(i + 1) : QString());
    scrollToTop();
}
