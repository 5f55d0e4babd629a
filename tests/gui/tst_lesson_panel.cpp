// The lesson panel on the real main window at its default size (1600 x 1000 on a 1920 x 1200
// screen), driven with the mouse as a learner would: a step's view never covers the lesson,
// the explanation comes before the figures, each lesson ends with its summary and a link to its
// section of the concepts guide, lessons set the colouring they talk about, and moving between
// lessons asks to save only the user's own work.
#include "canvas/clustercanvas.h"
#include "guide_section.h"
#include "guitest.h"
#include "lessons/lesson.h"
#include "lessons/own_project.h"
#include "lessons/question.h"
#include "mainwindow.h"
#include "projectdocument.h"
#include "teach/lessonpanel.h"
#include "views/rankgrid.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QTableWidget>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTimer>
#include <QUndoStack>

namespace {

// Answers every modal message box that opens while it lives with `answer`, and keeps their texts.
class BoxAnswerer : public QObject {
public:
    explicit BoxAnswerer(QMessageBox::StandardButton answer) : answer_(answer) {
        connect(&timer_, &QTimer::timeout, this, [this] {
            auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (!box) return;
            texts << box->text();
            if (QAbstractButton* b = box->button(answer_)) b->click();
            else box->reject();
        });
        timer_.start(20);
    }
    QStringList texts;

private:
    QMessageBox::StandardButton answer_;
    QTimer timer_;
};

template <class T>
T* child(QObject* parent, const char* name) {
    return parent->findChild<T*>(QLatin1String(name));
}

// Why the lessons dock is not in full view: hidden, nothing of it exposed, or another shown dock over it.
QString lessonCovered(MainWindow* w) {
    auto* lessons = w->findChild<QDockWidget*>(QStringLiteral("lessonsDock"));
    if (!lessons->isVisible()) return QStringLiteral("lessons dock hidden");
    if (w->lessonPanel()->visibleRegion().isEmpty()) return QStringLiteral("lesson panel not exposed");
    const QRect mine(lessons->mapTo(w, QPoint(0, 0)), lessons->size());
    for (auto* d : w->findChildren<QDockWidget*>()) {
        if (d == lessons || !d->isVisible() || d->isFloating()) continue;
        const QRect theirs(d->mapTo(w, QPoint(0, 0)), d->size());
        if (theirs.intersects(mine)) return d->objectName() + QStringLiteral(" over the lessons dock");
    }
    return {};
}

void click(QWidget* w) {
    QVERIFY2(w->isEnabled(), qPrintable(w->objectName()));
    QTest::mouseClick(w, Qt::LeftButton);
}

}   // namespace

class TestLessonPanel : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    std::unique_ptr<MainWindow> shownWindow(const char* example) { return shownExampleWindow(tmp_, example); }

    // Help > Guided Lessons, then picks lesson `id` in the panel's list and presses Start.
    static void startByMouse(MainWindow* w, LessonPanel* panel, const QString& id) {
        auto* learn = w->findChild<QAction*>(QStringLiteral("lessonsAction"));
        QVERIFY(learn);
        learn->trigger();
        QVERIFY(!panel->visibleRegion().isEmpty());
        auto* combo = child<QComboBox>(panel, "lessonCombo");
        combo->setCurrentIndex(combo->findData(id));
        click(child<QPushButton>(panel, "lessonStart"));
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    // Every step of every lesson, by mouse: the step's view comes forward beside the lesson, never
    // over it; once answered, the verdict and the why are at the top of the panel, in view, and the
    // graded figures follow.
    void stepViewsNeverCoverTheLesson() {
        for (const auto& id : paraplan::lessons::lesson_ids()) {
            auto w = shownWindow("gpt2-1node");
            QVERIFY(w);
            QCOMPARE(w->size(), QSize(1600, 1000));   // the default size
            LessonPanel* panel = w->lessonPanel();
            startByMouse(w.get(), panel, QString::fromStdString(id));
            QVERIFY2(panel->lesson() && panel->lesson()->id == id, id.c_str());
            auto* scroll = qobject_cast<QScrollArea*>(
                w->findChild<QDockWidget*>(QStringLiteral("lessonsDock"))->widget());
            QVERIFY(scroll);
            for (int i = 0; i < panel->stepCount(); ++i) {
                const auto& step = panel->lesson()->steps[std::size_t(i)];
                const std::string where = id + " step " + std::to_string(i) + " (" + step.view + ")";
                QVERIFY(w->document()->waitForAnalysis());
                QApplication::processEvents();
                if (step.view != "canvas") {
                    auto* dock = w->findChild<QDockWidget*>(QString::fromStdString(step.view) + QStringLiteral("Dock"));
                    QVERIFY2(dock && dock->isVisible() && !dock->visibleRegion().isEmpty(), where.c_str());
                }
                QVERIFY2(lessonCovered(w.get()).isEmpty(),
                         qPrintable(QString::fromStdString(where) + ": " + lessonCovered(w.get())));
                // Answer with the mouse: the right guess (core's grade on the project), then the change button.
                const int right = paraplan::lessons::grade(step, paraplan::lessons::question(step, w->project()),
                                                           paraplan::lessons::run_step(w->project(), step));
                QVERIFY2(right >= 0, where.c_str());
                click(child<QRadioButton>(panel, qPrintable(QStringLiteral("lessonGuess%1").arg(right))));
                click(child<QPushButton>(panel, "lessonApply"));
                QVERIFY2(panel->applied(), where.c_str());
                QVERIFY(w->document()->waitForAnalysis());
                QApplication::processEvents();
                QVERIFY2(lessonCovered(w.get()).isEmpty(), qPrintable(lessonCovered(w.get())));
                // The why first: the result is above the figures and the question, and in view.
                QLabel* result = panel->resultLabel();
                QVERIFY2(result->text().startsWith(QStringLiteral("Right:")), qPrintable(result->text()));
                QVERIFY(result->text().contains(QString::fromStdString(step.explain)));
                auto* question = child<QWidget>(panel, "lessonQuestion");
                QVERIFY2(result->y() < panel->figuresTable()->y() && panel->figuresTable()->y() < question->y(),
                         where.c_str());
                const int top = result->mapTo(scroll->viewport(), QPoint(0, 0)).y();
                QVERIFY2(top >= 0 && top < scroll->viewport()->height() / 3,
                         qPrintable(QStringLiteral("%1: result at %2 in a %3 px viewport")
                                        .arg(QString::fromStdString(where))
                                        .arg(top)
                                        .arg(scroll->viewport()->height())));
                QVERIFY2(!result->visibleRegion().isEmpty(), where.c_str());
                // The sources after the figures.
                if (!step.source.empty()) {
                    QVERIFY(panel->sourceText().contains(QString::fromStdString(step.source)));
                    QVERIFY(child<QLabel>(panel, "lessonSource")->y() > panel->figuresTable()->y());
                }
                click(child<QPushButton>(panel, "lessonNext"));
            }
            QVERIFY2(panel->finished(), id.c_str());
            QVERIFY2(lessonCovered(w.get()).isEmpty(), qPrintable(lessonCovered(w.get())));
        }
    }

    // "On My Project": a lesson written for the open project runs on a copy of it, by mouse; each
    // step's choices are the question core asks, and the verdict is core's grade on the project
    // (the rank map, the validator, the estimate). The user's file is never touched.
    void ownProjectLessonByMouse() {
        auto w = shownWindow("llama3.1-70b-4nodes");
        QVERIFY(w);
        const QString file = tmp_.filePath(QStringLiteral("mine.paraplan.json"));
        paraplan::save_project(w->project(), file.toStdString());
        w->setProject(paraplan::load_project(file.toStdString()), file);
        const auto mine = paraplan::project_to_json(w->project());
        QFile f(file);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray onDisk = f.readAll();
        f.close();
        LessonPanel* panel = w->lessonPanel();
        w->findChild<QAction*>(QStringLiteral("lessonsAction"))->trigger();
        click(child<QPushButton>(panel, "lessonOwnProject"));
        QVERIFY(panel->lesson() && panel->lesson()->id == paraplan::lessons::kOwnProjectLessonId);
        QVERIFY(paraplan::project_to_json(w->project()) == mine);   // the same project, as a copy
        QVERIFY(w->document()->path().isEmpty());
        const auto& lesson = *panel->lesson();
        QVERIFY(lesson.steps.size() >= 3);
        for (int i = 0; i < panel->stepCount(); ++i) {
            const auto& step = lesson.steps[std::size_t(i)];
            const std::string where = "step " + std::to_string(i) + " (" + step.title + ")";
            QVERIFY(w->document()->waitForAnalysis());
            QApplication::processEvents();
            QVERIFY2(lessonCovered(w.get()).isEmpty(), qPrintable(lessonCovered(w.get())));
            const paraplan::lessons::Question q = paraplan::lessons::question(step, w->project());
            QCOMPARE(panel->question().choices, q.choices);
            for (int c = 0; c < int(q.choices.size()); ++c)
                QCOMPARE(child<QRadioButton>(panel, qPrintable(QStringLiteral("lessonGuess%1").arg(c)))->text(),
                         QString::fromStdString(q.choices[std::size_t(c)]));
            QVERIFY(!child<QRadioButton>(panel, qPrintable(QStringLiteral("lessonGuess%1").arg(q.choices.size()))));
            const int right = paraplan::lessons::grade(step, q, paraplan::lessons::run_step(w->project(), step));
            QVERIFY2(right >= 0, where.c_str());
            // The first step answered wrong, the others right.
            const int pick = i == 0 ? (right + 1) % int(q.choices.size()) : right;
            click(child<QRadioButton>(panel, qPrintable(QStringLiteral("lessonGuess%1").arg(pick))));
            auto* apply = child<QPushButton>(panel, "lessonApply");
            if (step.change.empty()) QCOMPARE(apply->text(), QStringLiteral("Check My Answer"));
            click(apply);
            QVERIFY2(panel->applied(), where.c_str());
            QVERIFY(w->document()->waitForAnalysis());
            const QString verdict = i == 0 ? QStringLiteral("Not quite:") : QStringLiteral("Right:");
            QVERIFY2(panel->resultText().startsWith(verdict), qPrintable(panel->resultText()));
            QVERIFY2(panel->resultText().contains(QString::fromStdString(q.choices[std::size_t(right)])),
                     qPrintable(panel->resultText()));
            click(child<QPushButton>(panel, "lessonNext"));
        }
        QVERIFY(panel->finished());
        QVERIFY(panel->summaryText().contains(QStringLiteral("your own project")));
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), onDisk);
    }

    // After the last step: the summary, a link to the lesson's section of the concepts guide
    // (opened there), and the next lesson.
    void lessonEndsWithSummaryAndConceptsLink() {
        auto w = shownWindow("gpt2-1node");
        QVERIFY(w);
        LessonPanel* panel = w->lessonPanel();
        startByMouse(w.get(), panel, QStringLiteral("1-data-parallel-zero"));
        auto* next = child<QPushButton>(panel, "lessonNext");
        for (int i = 0; i < panel->stepCount(); ++i) {
            QVERIFY(!panel->finished());
            QVERIFY(panel->summaryText().isEmpty());
            if (i + 1 == panel->stepCount()) QCOMPARE(next->text(), QStringLiteral("Finish"));
            click(next);   // skipping a step makes its change
        }
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(panel->finished());
        QCOMPARE(panel->stepIndex(), panel->stepCount());
        const auto& lesson = *panel->lesson();
        QLabel* summary = panel->summaryLabel();
        QVERIFY(summary->isVisible() && !summary->visibleRegion().isEmpty());
        QVERIFY2(summary->text().contains(QString::fromStdString(lesson.summary).toHtmlEscaped()),
                 qPrintable(summary->text()));
        QVERIFY(summary->text().contains(QStringLiteral("href=\"concepts:zero\"")));
        QVERIFY(!child<QTableWidget>(panel, "lessonFigures")->isVisible());
        QVERIFY(!next->isVisible());
        // The link opens the concepts guide with the ZeRO section at the top.
        emit summary->linkActivated(QStringLiteral("concepts:zero"));
        auto* guide = w->findChild<QWidget*>(QStringLiteral("guide-concepts"));
        QVERIFY(guide && guide->isVisible());
        auto* browser = guide->findChild<QTextBrowser*>(QStringLiteral("guideBrowser"));
        QVERIFY(browser->verticalScrollBar()->value() > 0);
        QCOMPARE(browser->cursorForPosition(QPoint(10, 10)).block().text(), QStringLiteral("ZeRO"));
        guide->close();
        // Back returns to the last step, before its change.
        QVERIFY(panel->back());
        QCOMPARE(panel->stepIndex(), panel->stepCount() - 1);
        QVERIFY(summary->isHidden());
        QVERIFY(panel->next());
        // Next lesson: the second in the list, from its start.
        auto* nextLesson = child<QPushButton>(panel, "lessonNextLesson");
        QVERIFY(nextLesson->isVisible());
        click(nextLesson);
        QCOMPARE(panel->lesson()->id, std::string("2-tensor-parallel"));
        QCOMPARE(panel->stepIndex(), 0);
        QVERIFY(!nextLesson->isVisible());
    }

    // Every lesson's topic is a heading of the concepts guide, found by its GitHub anchor.
    void everyTopicOpensItsSection() {
        QCOMPARE(headingAnchor(QStringLiteral("Tensor parallelism (1D, 2D, 2.5D, 3D)")),
                 QStringLiteral("tensor-parallelism-1d-2d-25d-3d"));
        QCOMPARE(headingAnchor(QStringLiteral("Pipeline schedules and their bubbles")),
                 QStringLiteral("pipeline-schedules-and-their-bubbles"));
        auto w = shownWindow("gpt2-1node");
        QVERIFY(w);
        for (const auto& id : paraplan::lessons::lesson_ids()) {
            const auto l = paraplan::lessons::load_lesson(id);
            QWidget* guide = w->showGuide(QStringLiteral("concepts"), QString::fromStdString(l.topic));
            QVERIFY(guide);
            auto* browser = guide->findChild<QTextBrowser*>(QStringLiteral("guideBrowser"));
            const QTextBlock top = browser->cursorForPosition(QPoint(10, 10)).block();
            QVERIFY2(top.blockFormat().headingLevel() > 0, qPrintable(top.text()));
            QCOMPARE(headingAnchor(top.text()), QString::fromStdString(l.topic));
            delete guide;
        }
        QWidget* none = w->showGuide(QStringLiteral("concepts"), QStringLiteral("no-such-section"));
        QVERIFY(none);   // the guide opens at its start
        QCOMPARE(none->findChild<QTextBrowser*>()->verticalScrollBar()->value(), 0);
        delete none;
    }

    // A step's "colour_by" colours the canvas and the rank grid and picks the grid's groups.
    void lessonsSetTheColouring() {
        auto w = shownWindow("gpt2-1node");
        QVERIFY(w);
        LessonPanel* panel = w->lessonPanel();
        for (const auto& [id, step, axis] :
             {std::tuple{"2-tensor-parallel", 1, "tp"}, std::tuple{"6-expert-parallel", 1, "moe_dp"}}) {
            QVERIFY(panel->startLesson(QLatin1String(id)));
            for (int i = 0; i < step; ++i) QVERIFY(panel->next());
            QVERIFY(w->document()->waitForAnalysis());
            QApplication::processEvents();
            // Another colouring on the step before: the step's own must replace it.
            QVERIFY(panel->back());
            QVERIFY(w->document()->waitForAnalysis());
            QApplication::processEvents();
            w->rankGrid()->setColourAxis(QStringLiteral("node"));
            w->rankGrid()->setGroupKind(QStringLiteral("pp"));
            w->canvas()->setColourAxis(QStringLiteral("node"));
            QCOMPARE(w->canvas()->colourAxis(), QStringLiteral("node"));
            QVERIFY(panel->next());
            QVERIFY(w->document()->waitForAnalysis());
            QApplication::processEvents();
            QCOMPARE(panel->lesson()->steps[std::size_t(step)].colour_by, std::string(axis));
            QCOMPARE(w->rankGrid()->colourCombo()->currentData().toString(), QLatin1String(axis));
            QCOMPARE(w->rankGrid()->groupCombo()->currentData().toString(), QLatin1String(axis));
            QCOMPARE(w->canvas()->colourAxis(), QLatin1String(axis));
        }
    }

    // Starting a lesson, or the next one, never asks about the lesson's own untitled project; the
    // user's own project with unsaved edits is asked about once, and kept when they cancel.
    void saveIsAskedOnlyForTheUsersWork() {
        auto w = shownWindow("gpt2-1node");
        QVERIFY(w);
        LessonPanel* panel = w->lessonPanel();
        {
            BoxAnswerer cancel(QMessageBox::Cancel);
            QVERIFY(panel->startLesson(QStringLiteral("1-data-parallel-zero")));   // unmodified: no question
            QVERIFY(panel->applyStep());
            QVERIFY(w->document()->isModified());   // the lesson's change is one undoable edit
            QVERIFY(panel->next());
            QVERIFY(panel->startLesson(QStringLiteral("3-pipeline-bubble")));   // Start on another lesson
            QVERIFY(panel->applyStep());
            while (!panel->finished()) QVERIFY(panel->next());
            click(child<QPushButton>(panel, "lessonNextLesson"));
            QCOMPARE(panel->lesson()->id, std::string("4-pipeline-schedules"));
            QVERIFY2(cancel.texts.isEmpty(), qPrintable(cancel.texts.join(QLatin1Char('\n'))));
        }
        // The user's own project, edited: asked once; Cancel keeps it and its edit.
        w->setProject(paraplan::load_example("gpt2-1node"), QString());
        QVERIFY(w->document()->edit(QStringLiteral("mine"), [](paraplan::Project& p) { p.name = "mine"; }));
        {
            BoxAnswerer cancel(QMessageBox::Cancel);
            QVERIFY(!panel->startLesson(QStringLiteral("2-tensor-parallel")));
            QCOMPARE(cancel.texts.size(), 1);
            QVERIFY(cancel.texts.front().contains(QStringLiteral("unsaved changes")));
        }
        QCOMPARE(w->project().name, std::string("mine"));
        QVERIFY(w->document()->isModified());
        QCOMPARE(panel->lesson()->id, std::string("4-pipeline-schedules"));   // the panel did not move on
        {
            BoxAnswerer discard(QMessageBox::Discard);
            QVERIFY(panel->startLesson(QStringLiteral("2-tensor-parallel")));
            QCOMPARE(discard.texts.size(), 1);
        }
        // A lesson's project saved under a name is the user's from then on: asked again.
        QVERIFY(panel->applyStep());
        QVERIFY(w->saveFile(tmp_.filePath(QStringLiteral("kept.paraplan.json"))));
        QVERIFY(w->document()->edit(QStringLiteral("mine"), [](paraplan::Project& p) { p.name = "mine again"; }));
        {
            BoxAnswerer cancel(QMessageBox::Cancel);
            QVERIFY(!panel->startLesson(QStringLiteral("1-data-parallel-zero")));
            QCOMPARE(cancel.texts.size(), 1);
        }
        QCOMPARE(w->project().name, std::string("mine again"));
    }
};

PARAPLAN_SCREEN_TEST_MAIN(TestLessonPanel, "desktop", 1920, 1200)
#include "tst_lesson_panel.moc"
