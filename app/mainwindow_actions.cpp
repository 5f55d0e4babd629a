// The main window's actions: menus, tool bar, keys, and the Keyboard Shortcuts window.

#include "mainwindow.h"

#include "sshprofilesdialog.h"
#include "canvas/clustercanvas.h"
#include "common/picture_export.h"
#include "plan/plannerpanel.h"
#include "project/project.h"
#include "projectdocument.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDialog>
#include <QDir>
#include <QHeaderView>
#include <QKeyEvent>
#include <QScreen>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QPainter>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QScopedValueRollback>
#include <QUndoView>

#include <algorithm>

namespace {
// The platform's keys for a standard action, plus the common ones it lacks (e.g. Ctrl+Y
// for redo and Ctrl+Shift+S for save as on desktops whose binding has none), each once:
// a key listed twice on one action is an "ambiguous shortcut" and does nothing.
QList<QKeySequence> standardKeys(QKeySequence::StandardKey key, const QList<QKeySequence>& common) {
    QList<QKeySequence> keys = QKeySequence::keyBindings(key);
    for (const QKeySequence& k : common)
        if (!keys.contains(k)) keys << k;
    return keys;
}

QString keysText(const QList<QKeySequence>& keys) {
    QStringList t;
    for (const auto& k : keys) t << k.toString(QKeySequence::NativeText);
    return t.join(QStringLiteral(", "));
}

// Plan Layouts' "run" triangle in the palette's button text colour: the style's media icon
// is a black glyph, lost on the dark scheme's toolbar.
QIcon playIcon(const QPalette& pal) {
    QPixmap pm(32, 32);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(pal.color(QPalette::ButtonText));
    p.drawPolygon(QPolygonF{QPointF(8, 5), QPointF(27, 16), QPointF(8, 27)});
    return QIcon(pm);
}

QAction* makeAction(QObject* parent, const QString& text, const QKeySequence& key, const QString& tip) {
    auto* a = new QAction(text, parent);
    a->setShortcut(key);
    QString t = tip;
    if (!key.isEmpty()) t += QStringLiteral(" (%1)").arg(key.toString(QKeySequence::NativeText));
    a->setToolTip(t);
    a->setStatusTip(tip);
    return a;
}
}   // namespace

void MainWindow::createActions() {
    QStyle* st = style();
    // --- File -------------------------------------------------------------------------
    QMenu* file = menuBar()->addMenu(tr("&File"));
    auto* newA = makeAction(this, tr("&New…"), QKeySequence::New,
                            tr("Start a new project: GPUs, nodes, model and framework"));
    newA->setObjectName(QStringLiteral("newAction"));
    newA->setIcon(st->standardIcon(QStyle::SP_FileIcon));
    connect(newA, &QAction::triggered, this, &MainWindow::newProject);
    QMenu* examplesMenu = new QMenu(tr("Open E&xample"), this);
    examplesMenu->setObjectName(QStringLiteral("examplesMenu"));
    examplesMenu->setToolTipsVisible(true);
    for (const auto& ex : paraplan::example_names()) {
        const QString name = QString::fromStdString(ex);
        QAction* a = examplesMenu->addAction(name);
        a->setToolTip(tr("Open the built-in example as an untitled copy"));
        connect(a, &QAction::triggered, this, [this, name] {
            if (maybeSave()) openExample(name);
        });
    }
    auto* openA = makeAction(this, tr("&Open…"), QKeySequence::Open, tr("Open a project file"));
    openA->setIcon(st->standardIcon(QStyle::SP_DialogOpenButton));
    connect(openA, &QAction::triggered, this, &MainWindow::openDialog);
    recentMenu_ = new QMenu(tr("Open &Recent"), this);
    recentMenu_->setToolTipsVisible(true);
    auto* saveA = makeAction(this, tr("&Save"), QKeySequence::Save, tr("Save the project"));
    saveA->setIcon(st->standardIcon(QStyle::SP_DialogSaveButton));
    connect(saveA, &QAction::triggered, this, &MainWindow::save);
    auto* saveAsA = makeAction(this, tr("Save &As…"), QKeySequence(), tr("Save the project under a new name"));
    saveAsA->setShortcuts(standardKeys(QKeySequence::SaveAs, {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)}));
    saveAsA->setToolTip(tr("Save the project under a new name (%1)").arg(keysText(saveAsA->shortcuts())));
    connect(saveAsA, &QAction::triggered, this, &MainWindow::saveAsDialog);
    auto* importA = makeAction(this, tr("&Import Hugging Face config.json…"), QKeySequence(Qt::CTRL | Qt::Key_I),
                               tr("Use the model described by a Hugging Face config.json"));
    connect(importA, &QAction::triggered, this, &MainWindow::importHfDialog);
    auto* importCfgA = makeAction(this, tr("Import &Framework Config…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I),
                                  tr("Read the layout from a DeepSpeed JSON, Megatron-LM arguments, a torchtitan "
                                     "TOML or a ColossalAI script"));
    connect(importCfgA, &QAction::triggered, this, &MainWindow::importConfigDialog);
    auto* exportA = makeAction(this, tr("&Export…"), QKeySequence(Qt::CTRL | Qt::Key_E),
                               tr("Preview and save the framework configs and launch scripts for this layout"));
    connect(exportA, &QAction::triggered, this, &MainWindow::exportDialog);
    QMenu* pictureMenu = new QMenu(tr("Export &Picture"), this);
    pictureMenu->setToolTipsVisible(true);
    const QList<QPair<QString, QString>> pictures = {
        {QStringLiteral("canvas"), tr("&Cluster Canvas…")},      {QStringLiteral("grid"), tr("&Rank Grid…")},
        {QStringLiteral("timeline"), tr("Pipeline &Timeline…")}, {QStringLiteral("memory"), tr("&Memory and Time…")},
        {QStringLiteral("planner"), tr("&Planner Chart…")},      {QStringLiteral("explain"), tr("&Explain Panel…")}};
    for (const auto& [view, text] : pictures) {
        QAction* a = pictureMenu->addAction(text);
        if (view == QLatin1String("canvas")) a->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
        a->setToolTip(tr("Save this view as a PNG, SVG or PDF picture"));
        connect(a, &QAction::triggered, this, [this, view = view] {
            const QString path = QFileDialog::getSaveFileName(this, tr("Export picture"), view + QStringLiteral(".png"),
                                                              picture::dialogFilter());
            if (path.isEmpty()) return;
            QString err;
            if (exportPicture(view, path, &err)) statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
            else showError(tr("Cannot export the picture"), err);
        });
    }
    auto* quitA = makeAction(this, tr("&Quit"), QKeySequence::Quit, tr("Quit Paraplan"));
    connect(quitA, &QAction::triggered, this, &QWidget::close);
    file->addActions({newA, openA});
    file->addMenu(recentMenu_);
    file->addMenu(examplesMenu);
    file->addSeparator();
    file->addActions({saveA, saveAsA});
    file->addSeparator();
    file->addAction(importA);
    file->addAction(importCfgA);
    file->addAction(exportA);
    file->addMenu(pictureMenu);
    file->addSeparator();
    file->addAction(quitA);
    updateRecentMenu();

    // --- Edit -------------------------------------------------------------------------
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = doc_->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setObjectName(QStringLiteral("undoAction"));
    undo->setShortcuts(standardKeys(QKeySequence::Undo, {QKeySequence(Qt::CTRL | Qt::Key_Z)}));
    undo->setToolTip(tr("Undo the last change (%1)").arg(keysText(undo->shortcuts())));
    undo->setIcon(st->standardIcon(QStyle::SP_ArrowBack));
    QAction* redo = doc_->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setObjectName(QStringLiteral("redoAction"));
    redo->setShortcuts(standardKeys(
        QKeySequence::Redo, {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)}));
    redo->setToolTip(tr("Redo the undone change (%1)").arg(keysText(redo->shortcuts())));
    redo->setIcon(st->standardIcon(QStyle::SP_ArrowForward));
    // The menu says what is undone ("Undo Rename project to …"); the tool bar, short, says
    // "Undo" with that text in its tooltip (the whole command text widened the tool bar).
    for (QAction* a : {undo, redo}) a->setIconText(a == undo ? tr("Undo") : tr("Redo"));
    const QString undoKeys = keysText(undo->shortcuts()), redoKeys = keysText(redo->shortcuts());
    connect(doc_->undoStack(), &QUndoStack::undoTextChanged, undo, [undo, undoKeys](const QString& t) {
        undo->setToolTip(t.isEmpty() ? tr("Undo the last change (%1)").arg(undoKeys)
                                     : tr("Undo %1 (%2)").arg(t, undoKeys));
    });
    connect(doc_->undoStack(), &QUndoStack::redoTextChanged, redo, [redo, redoKeys](const QString& t) {
        redo->setToolTip(t.isEmpty() ? tr("Redo the undone change (%1)").arg(redoKeys)
                                     : tr("Redo %1 (%2)").arg(t, redoKeys));
    });
    edit->addActions({undo, redo});
    edit->addSeparator();
    auto* renameA = makeAction(this, tr("Rena&me Project…"), QKeySequence(), tr("Change the project's name"));
    renameA->setObjectName(QStringLiteral("renameProjectAction"));
    connect(renameA, &QAction::triggered, this, [this] {
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Rename project"), tr("Project name:"), QLineEdit::Normal,
                                                   QString::fromStdString(doc_->project().name), &ok);
        if (ok) renameProject(name);
    });
    edit->addAction(renameA);
    edit->addSeparator();
    edit->addActions(canvas_->editActions());
    edit->addSeparator();
    edit->addAction(canvas_->goToAction());
    // These keys act on the project even while a Layout field (which has its own text
    // undo) has focus: Ctrl+Z right after editing a field undoes that edit.
    exportA->setObjectName(QStringLiteral("exportAction"));
    saveAsA->setObjectName(QStringLiteral("saveAsAction"));
    windowKeys_ = {undo, redo, exportA, saveA, saveAsA, newA, openA};

    // --- View -------------------------------------------------------------------------
    viewMenu_ = menuBar()->addMenu(tr("&View"));
    int n = 1;
    for (const QString& id :
         {QStringLiteral("layout"), QStringLiteral("diagnostics"), QStringLiteral("grid"), QStringLiteral("timeline"),
          QStringLiteral("explain"), QStringLiteral("history"), QStringLiteral("memory"), QStringLiteral("planner"),
          QStringLiteral("run"), QStringLiteral("gpus")}) {
        QAction* t = docks_.value(id)->toggleViewAction();
        if (n <= 9) t->setShortcut(QKeySequence(Qt::ALT | static_cast<Qt::Key>(Qt::Key_0 + n)));
        else if (n == 10) t->setShortcut(QKeySequence(Qt::ALT | Qt::Key_0));
        ++n;
        t->setToolTip(tr("Show or hide the %1 panel (%2)")
                          .arg(docks_.value(id)->windowTitle(), t->shortcut().toString(QKeySequence::NativeText)));
        viewMenu_->addAction(t);
    }
    viewMenu_->addSeparator();
    viewMenu_->addAction(canvas_->minimapAction());
    QMenu* colours = viewMenu_->addMenu(tr("&Colours"));
    colours->setObjectName(QStringLiteral("coloursMenu"));
    auto* schemes = new QActionGroup(this);
    for (const auto& [id, text] : QList<QPair<QString, QString>>{{QStringLiteral("system"), tr("&System")},
                                                                 {QStringLiteral("light"), tr("&Light")},
                                                                 {QStringLiteral("dark"), tr("&Dark")}}) {
        QAction* a = colours->addAction(text);
        a->setCheckable(true);
        a->setData(id);
        a->setObjectName(id + QStringLiteral("SchemeAction"));
        schemes->addAction(a);
        connect(a, &QAction::triggered, this, [this, id = id] { setColourScheme(id); });
        schemeActions_ << a;
    }

    // --- Tools ------------------------------------------------------------------------
    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    auto* planA = makeAction(this, tr("&Plan Layouts"), QKeySequence(Qt::Key_F5),
                             tr("Search every valid layout of this model on this cluster and rank them"));
    planA->setObjectName(QStringLiteral("planAction"));
    planA->setIcon(playIcon(palette()));
    connect(planA, &QAction::triggered, this, [this] {
        raiseView(QStringLiteral("planner"));
        planner_->run();
    });
    tools->addAction(planA);
    tools->addAction(exportA);
    windowKeys_ << planA;
    tools->addSeparator();
    auto* sshA = makeAction(
        this, tr("&SSH Profiles…"), QKeySequence(),
        tr("Your local ssh settings (identity, known hosts, config file) that projects name by id"));
    sshA->setObjectName(QStringLiteral("sshProfilesAction"));
    connect(sshA, &QAction::triggered, this, [this] {
        SshProfilesDialog d(this);
        d.exec();
    });
    tools->addAction(sshA);

    // --- Help -------------------------------------------------------------------------
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    auto* about = makeAction(this, tr("&About Paraplan"), QKeySequence(), tr("About this program"));
    connect(about, &QAction::triggered, this, [this] {
        QMessageBox::about(this, tr("About Paraplan"),
                           tr("<h3>Paraplan %1</h3><p>A topology designer for distributed training: lay out "
                              "tensor, pipeline, sequence, context, expert and data parallelism over your GPUs "
                              "and see what the framework will do with it.</p>")
                               .arg(QApplication::applicationVersion()));
    });
    auto* guideA = makeAction(this, tr("&User Guide"), QKeySequence::HelpContents, tr("Read the user guide"));
    guideA->setObjectName(QStringLiteral("userGuideAction"));
    connect(guideA, &QAction::triggered, this, [this] { showGuide(QStringLiteral("user-guide")); });
    auto* conceptsA = makeAction(this, tr("&Concepts Guide"), QKeySequence(),
                                 tr("Read what tp, pp, dp, sp, cp and ep do and how frameworks order ranks"));
    conceptsA->setObjectName(QStringLiteral("conceptsGuideAction"));
    connect(conceptsA, &QAction::triggered, this, [this] { showGuide(QStringLiteral("concepts")); });
    auto* keysA = makeAction(this, tr("&Keyboard Shortcuts"), QKeySequence(Qt::CTRL | Qt::Key_Slash),
                             tr("List every keyboard shortcut"));
    keysA->setObjectName(QStringLiteral("shortcutsAction"));
    connect(keysA, &QAction::triggered, this, &MainWindow::showShortcuts);
    help->addActions({guideA, conceptsA, keysA});
    help->addSeparator();
    help->addAction(about);

    // --- Tool bar ---------------------------------------------------------------------
    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    tb->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    tb->addActions({newA, openA, saveA});
    tb->addSeparator();
    tb->addActions({undo, redo});
    tb->addSeparator();
    tb->addAction(planA);
}

QWidget* MainWindow::showShortcuts() {
    auto* win = new QDialog(this);
    win->setObjectName(QStringLiteral("shortcutsWindow"));
    win->setAttribute(Qt::WA_DeleteOnClose);
    win->setWindowTitle(tr("Keyboard shortcuts"));
    auto* lay = new QVBoxLayout(win);
    auto* table = new QTableWidget(0, 2, win);
    table->setObjectName(QStringLiteral("shortcutsTable"));
    table->setHorizontalHeaderLabels({tr("Action"), tr("Keys")});
    table->verticalHeader()->hide();
    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    // Every action of the menus (and their submenus) that has keys, in menu order.
    std::function<void(QMenu*, const QString&)> walk = [&](QMenu* menu, const QString& path) {
        for (QAction* a : menu->actions()) {
            const QString text = QString(a->text()).remove(QLatin1Char('&'));
            if (a->menu()) {
                walk(a->menu(), path + text + QStringLiteral(" › "));
                continue;
            }
            if (a->shortcuts().isEmpty()) continue;
            const int row = table->rowCount();
            table->insertRow(row);
            table->setItem(row, 0, new QTableWidgetItem(path + text));
            table->setItem(row, 1, new QTableWidgetItem(keysText(a->shortcuts())));
        }
    };
    for (QAction* top : menuBar()->actions())
        if (top->menu()) walk(top->menu(), QString(top->text()).remove(QLatin1Char('&')) + QStringLiteral(" › "));
    for (QAction* a : canvas_->actions()) {   // the canvas's own (zoom, fit), active while it has focus
        if (a->shortcuts().isEmpty() || canvas_->editActions().contains(a)) continue;
        const int row = table->rowCount();
        table->insertRow(row);
        table->setItem(row, 0, new QTableWidgetItem(tr("Canvas › %1").arg(a->text())));
        table->setItem(row, 1, new QTableWidgetItem(keysText(a->shortcuts())));
    }
    lay->addWidget(table);
    auto* note = new QLabel(
        tr("Undo, redo, save, export and plan act on the project even while a Layout field has focus."), win);
    note->setWordWrap(true);
    lay->addWidget(note);
    win->resize(560, 620);
    win->show();
    return win;
}

void MainWindow::changeEvent(QEvent* e) {
    // A light/dark switch: recolour once every child has its new palette (they get theirs
    // after this window), so the refresh is queued, and several events make one refresh.
    if ((e->type() == QEvent::PaletteChange || e->type() == QEvent::ApplicationPaletteChange) && !recolourQueued_) {
        recolourQueued_ = true;
        QMetaObject::invokeMethod(
            this,
            [this] {
                recolourQueued_ = false;
                if (auto* plan = findChild<QAction*>(QStringLiteral("planAction"))) plan->setIcon(playIcon(palette()));
                refreshViews();
            },
            Qt::QueuedConnection);
    }
    QMainWindow::changeEvent(e);
}
