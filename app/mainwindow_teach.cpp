// The main window's teaching and deciding views, kept apart from mainwindow.cpp:
// the ShardFormer checklist beside the model, the Compare view and the guided lessons.
#include "mainwindow.h"
#include "vertical_scroll.h"

#include "canvas/clustercanvas.h"
#include "plan/compareview.h"
#include "teach/lessonpanel.h"
#include "views/timelineview.h"
#include "plan/plannerpanel.h"
#include "plan/planmodel.h"
#include "projectdocument.h"
#include "search/apply_plan.h"
#include "views/rankgrid.h"
#include "plan/shardformerchecklist.h"

#include <QAction>
#include <QDockWidget>
#include <QItemSelectionModel>
#include <QMenu>
#include <QMenuBar>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QTableView>

void MainWindow::setupTeachViews() {
    shardformer_ = new ShardformerChecklist(doc_, this);
    addDock(QStringLiteral("shardformer"), tr("ShardFormer checklist"), shardformer_, Qt::LeftDockWidgetArea);
    tabifyDockWidget(docks_.value(QStringLiteral("explain")), docks_.value(QStringLiteral("shardformer")));
    docks_.value(QStringLiteral("explain"))->raise();

    compare_ = new CompareView(doc_, this);
    addDock(QStringLiteral("compare"), tr("Compare"), verticallyScrolled(compare_), Qt::BottomDockWidgetArea);
    tabifyDockWidget(docks_.value(QStringLiteral("planner")), docks_.value(QStringLiteral("compare")));
    docks_.value(QStringLiteral("diagnostics"))->raise();

    lessons_ = new LessonPanel(doc_, this);
    addDock(QStringLiteral("lessons"), tr("Lessons"), verticallyScrolled(lessons_), Qt::RightDockWidgetArea);
    tabifyDockWidget(docks_.value(QStringLiteral("history")), docks_.value(QStringLiteral("lessons")));
    docks_.value(QStringLiteral("grid"))->raise();
    // A lesson opens its own untitled project. Replacing the user's project with unsaved edits asks
    // first (maybeSave); replacing a lesson's own project (the next lesson, Start again) does not.
    lessons_->setProjectOpener([this](const paraplan::Project& p, bool fresh) {
        if (fresh && !lessonScratch_ && !maybeSave()) return false;
        setProject(p, QString());
        lessonScratch_ = true;
        return true;
    });
    // Another project replaced it, or it was saved under a name: the user's own from then on.
    connect(doc_, &ProjectDocument::replaced, this, [this] { lessonScratch_ = false; });
    connect(doc_, &ProjectDocument::pathChanged, this, [this] { lessonScratch_ = false; });
    connect(lessons_, &LessonPanel::viewRequested, this, [this](const QString& v) {
        // A step draws the timeline with its pass times (equal unless it says): the ones its figures quote.
        if (lessons_->lesson() && lessons_->stepIndex() < lessons_->stepCount())
            timeline_->setPassTimes(lessons_->lesson()->steps[std::size_t(lessons_->stepIndex())].pass_times);
        keepLessonInView(v);
        raiseView(v);
    });
    connect(lessons_, &LessonPanel::colourRequested, this, &MainWindow::colourForLesson);
    connect(lessons_, &LessonPanel::conceptsRequested, this,
            [this](const QString& topic) { showGuide(QStringLiteral("concepts"), topic); });

    auto menuNamed = [this](const QString& title) -> QMenu* {
        for (QAction* a : menuBar()->actions())
            if (a->menu() && a->text().remove(QLatin1Char('&')) == title) return a->menu();
        return nullptr;
    };
    if (QMenu* help = menuNamed(tr("Help"))) {
        auto* learn = new QAction(tr("Guided &Lessons"), this);
        learn->setObjectName(QStringLiteral("lessonsAction"));
        learn->setStatusTip(tr("Learn data, tensor, pipeline, sequence and expert parallelism step by step"));
        connect(learn, &QAction::triggered, this, [this] { raiseView(QStringLiteral("lessons")); });
        help->insertAction(help->actions().isEmpty() ? nullptr : help->actions().constFirst(), learn);
    }
    QMenu* tools = menuNamed(tr("Tools"));
    if (tools) {
        tools->addSeparator();
        auto* addOpen = tools->addAction(tr("Add Open Project to &Compare"));
        addOpen->setObjectName(QStringLiteral("compareAddOpenAction"));
        addOpen->setStatusTip(tr("Put the open project's layout side by side with others"));
        connect(addOpen, &QAction::triggered, this, [this] {
            compare_->addCurrentProject();
            raiseView(QStringLiteral("compare"));
        });
        auto* addRows = tools->addAction(tr("Compare Selected &Planner Rows"));
        addRows->setObjectName(QStringLiteral("compareRowsAction"));
        addRows->setStatusTip(
            tr("Put the planner rows you selected side by side (the first three when none is selected)"));
        connect(addRows, &QAction::triggered, this, [this] {
            compareSelectedPlannerRows(3);
            raiseView(QStringLiteral("compare"));
        });
    }
    if (viewMenu_) {
        viewMenu_->addSeparator();
        for (const QString& id :
             {QStringLiteral("shardformer"), QStringLiteral("compare"), QStringLiteral("lessons")}) {
            QAction* t = docks_.value(id)->toggleViewAction();
            t->setToolTip(tr("Show or hide the %1 panel").arg(docks_.value(id)->windowTitle()));
            viewMenu_->addAction(t);
        }
    }
}

void MainWindow::keepLessonInView(const QString& view) {
    QDockWidget* lessons = docks_.value(QStringLiteral("lessons"));
    const QList<QDockWidget*> tabs = tabifiedDockWidgets(lessons);
    // A tab beside the lesson may cover it (the rank grid of a "grid" step, or a tab the learner
    // clicks): a running lesson leaves its tab group (once, as it starts; again if put back).
    if (lessons->isFloating() || tabs.isEmpty() || !lessons_->lesson()) return;
    QDockWidget* grid = docks_.value(QStringLiteral("grid"));
    QDockWidget* other = tabs.contains(docks_.value(view)) ? docks_.value(view)
                         : tabs.contains(grid)             ? grid
                                                           : tabs.constFirst();
    // Below the others in the right column, which runs the window's whole height beside the
    // bottom docks (else the two would share the room above them, a few lines each).
    removeDockWidget(lessons);
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    if (dockWidgetArea(other) == Qt::RightDockWidgetArea) addDockWidget(Qt::RightDockWidgetArea, lessons, Qt::Vertical);
    else addDockWidget(Qt::RightDockWidgetArea, lessons);
    lessons->show();
    other->raise();   // the rank grid (or the step's view) above it, rather than whichever tab was behind
    // The lesson's text gets the larger share.
    resizeDocks({other, lessons}, {height() * 2 / 5, height() * 3 / 5}, Qt::Vertical);
}

void MainWindow::colourForLesson(const QString& axis) {
    // As paraplan --colour does (main.cpp): both views colour by it, the grid highlights its groups.
    grid_->setColourAxis(axis);
    canvas_->setColourAxis(axis);
    if (axis != QLatin1String("node")) grid_->setGroupKind(axis);
}

void MainWindow::refreshTeachViews() {
    if (shardformer_) shardformer_->refresh();
}

int MainWindow::compareSelectedPlannerRows(int fallback) {
    QSortFilterProxyModel* proxy = planner_->proxy();
    std::vector<int> rows;
    for (const QModelIndex& i : planner_->table()->selectionModel()->selectedRows()) rows.push_back(i.row());
    std::sort(rows.begin(), rows.end());
    if (rows.empty())
        for (int r = 0; r < std::min(fallback, proxy->rowCount()); ++r) rows.push_back(r);
    int added = 0;
    for (int viewRow : rows) {
        if (compare_->count() >= CompareView::kMaxCandidates) break;
        const auto& e = planner_->model()->entry(proxy->mapToSource(proxy->index(viewRow, 0)).row());
        paraplan::Project p = doc_->project();
        paraplan::search::apply_entry(e, p);
        compare_->addProject(QString::fromStdString(paraplan::search::describe(e)), p);
        ++added;
    }
    return added;
}
