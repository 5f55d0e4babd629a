// The main window's view state: docks, geometry, colours, guides and the window keys.

#include "mainwindow.h"

#include "views/answerbar.h"
#include "appsettings.h"
#include "guide_section.h"
#include "views/linktrafficview.h"
#include "projectdocument.h"
#include "views/stepplayer.h"
#include "windowfit.h"
#include "canvas/clustercanvas.h"
#include "plan/plannerpanel.h"
#include "project/project.h"

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
#include <QTimer>
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

QStringList MainWindow::viewNames() const {
    QStringList names{QStringLiteral("canvas")};
    names += docks_.keys();
    return names;
}

bool MainWindow::raiseView(const QString& name) {
    if (name == QLatin1String("canvas")) {
        canvas_->setFocus();
        return true;
    }
    QDockWidget* d = docks_.value(name);
    if (!d) return false;
    if (name == QLatin1String("playback")) {
        d->show();
        showPlayerWithTimeline();
        return true;
    }
    d->show();
    d->raise();
    // A view brought forward in the bottom area gets room to be read.
    if (dockWidgetArea(d) == Qt::BottomDockWidgetArea && !d->isFloating() && d->height() < height() * 0.35)
        resizeDocks({d}, {int(height() * 0.42)}, Qt::Vertical);
    // Show results, not an empty table: the search runs in the background (PlannerPanel::finished).
    if (name == QLatin1String("planner") && !planner_->hasRun()) planner_->run();
    return true;
}

void MainWindow::showPlayerWithTimeline() {
    QDockWidget* player = docks_.value(QStringLiteral("playback"));
    QDockWidget* timeline = docks_.value(QStringLiteral("timeline"));
    if (!player || !timeline || player->isFloating() || dockWidgetArea(player) != Qt::BottomDockWidgetArea) return;
    if (tabifiedDockWidgets(player).contains(timeline)) {
        // Added again in the bottom area, vertically: a row of its own under the tab group.
        addDockWidget(Qt::BottomDockWidgetArea, player, Qt::Vertical);
        player->show();
    }
    if (tabifiedDockWidgets(player).contains(timeline)) return;   // not moved: leave the tabs alone
    timeline->show();
    timeline->raise();
    // The timeline gets the room a raised bottom view gets (raiseView), the player a short row:
    // its controls and a few lines naming the collectives at the playhead. Sized once the dock
    // layout has taken the move in (before, resizeDocks works on the tab group's old height).
    QTimer::singleShot(0, this, [this, player, timeline] {
        const int row = std::max(player->minimumSizeHint().height(), fontMetrics().height() * 5);
        if (timeline->height() < height() * 0.34)
            resizeDocks({timeline, player}, {int(height() * 0.36), row}, Qt::Vertical);
        else if (player->height() > row) resizeDocks({player}, {row}, Qt::Vertical);
    });
}

void MainWindow::restoreWindowState() {
    auto s = AppSettings::open();
    restoreGeometry(s->value(AppSettings::Key::kGeometry).toByteArray());
    restoredState_ = restoreState(s->value(AppSettings::Key::kState).toByteArray(), AppSettings::kWindowStateVersion);
    const QString scheme = s->value(AppSettings::Key::kColourScheme).toString();
    if (!scheme.isEmpty() && scheme != QLatin1String("system")) setColourScheme(scheme);
    for (QAction* a : schemeActions_) a->setChecked(a->data().toString() == colourScheme_);
}

void MainWindow::defaultProportions() {
    // On a narrow screen (a 1280 px laptop) the side and bottom docks leave the cluster
    // canvas more room.
    const bool narrow = width() < 1400;
    resizeDocks({docks_.value(QStringLiteral("layout")), docks_.value(QStringLiteral("grid"))},
                {320, narrow ? 280 : 410}, Qt::Horizontal);
    // On a short screen (an 800 px laptop) the left column runs down to the status bar, beside
    // the bottom docks rather than above them, so the Layout fields keep their height; Explain
    // (a few lines about the field in focus) takes less of it.
    const bool shortScreen = height() < 900;
    setCorner(Qt::BottomLeftCorner, shortScreen ? Qt::LeftDockWidgetArea : Qt::BottomDockWidgetArea);
    resizeDocks({docks_.value(QStringLiteral("layout")), docks_.value(QStringLiteral("explain"))},
                {600, shortScreen ? 150 : 260}, Qt::Vertical);
    // The bottom docks get a fifth of the height: the estimate's figures are in the status bar,
    // and Diagnostics in front needs a few rows (the views behind it scroll when raised).
    resizeDocks({docks_.value(QStringLiteral("diagnostics"))}, {height() / 5}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    // Rendered off screen (--screenshot) at a size of its own: no screen to fit.
    if (!shownOnce_ && !testAttribute(Qt::WA_DontShowOnScreen)) {
        shownOnce_ = true;
        // Now on its real screen, with its frame; and again once the dock layout is settled
        // (until then the minimum width counts tabbed docks side by side and widens the window).
        windowfit::fitToScreen(this);
        QMetaObject::invokeMethod(
            this,
            [this] {
                windowfit::fitToScreen(this);
                if (!restoredState_) defaultProportions();   // for the size it has now
            },
            Qt::QueuedConnection);
    }
}

bool MainWindow::eventFilter(QObject* watched, QEvent* e) {
    // A line edit or spin box claims Ctrl+Z (its own text undo), Ctrl+E (end of line) and
    // others before the window's shortcuts see them. For the window's keys the project
    // wins: the field's value is already in the project, and undo should undo that edit.
    if (e->type() == QEvent::ShortcutOverride) {
        auto* w = qobject_cast<QWidget*>(watched);
        if (w && w != this && w->window() == this) {
            auto* ke = static_cast<QKeyEvent*>(e);
            const QKeySequence pressed(ke->keyCombination());
            for (QAction* a : std::as_const(windowKeys_)) {
                if (!a->isEnabled() || !a->shortcuts().contains(pressed)) continue;
                ke->ignore();   // not the field's: the shortcut map gets it
                return true;
            }
        }
    }
    return QMainWindow::eventFilter(watched, e);
}

void MainWindow::setColourScheme(const QString& scheme) {
    static const QPalette systemPalette = QApplication::palette();   // as the desktop gave it at first use
    QPalette pal = systemPalette;
    if (scheme == QLatin1String("light")) {
        pal = QApplication::style()->standardPalette();
    } else if (scheme == QLatin1String("dark")) {
        const QColor window(0x2b, 0x2b, 0x2b), base(0x1e, 0x1e, 0x1e), text(0xe8, 0xe8, 0xe8);
        pal = QPalette(text, window, window.lighter(150), window.darker(150), window.lighter(120), text, text, base,
                       window);
        pal.setColor(QPalette::Button, QColor(0x35, 0x35, 0x35));
        pal.setColor(QPalette::ButtonText, text);
        pal.setColor(QPalette::AlternateBase, QColor(0x26, 0x26, 0x26));
        pal.setColor(QPalette::Highlight, QColor(0x3d, 0x7a, 0xd6));
        pal.setColor(QPalette::HighlightedText, Qt::white);
        pal.setColor(QPalette::Link, QColor(0x6c, 0xb4, 0xff));
        pal.setColor(QPalette::ToolTipBase, window);
        pal.setColor(QPalette::ToolTipText, text);
        pal.setColor(QPalette::PlaceholderText, QColor(0x9a, 0x9a, 0x9a));
        for (auto role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
            pal.setColor(QPalette::Disabled, role, QColor(0x80, 0x80, 0x80));
    } else if (scheme != QLatin1String("system")) {
        return;
    }
    colourScheme_ = scheme;
    QApplication::setPalette(pal);   // every view follows (see changeEvent)
    for (QAction* a : schemeActions_) a->setChecked(a->data().toString() == scheme);
    AppSettings::open()->setValue(AppSettings::Key::kColourScheme, scheme);
}

QString MainWindow::guidePath(const QString& name) {
    const QString file = name + QStringLiteral(".md");
    QStringList dirs{QCoreApplication::applicationDirPath() + QStringLiteral("/../share/doc/paraplan"),
                     QStringLiteral("/usr/share/doc/paraplan")};
#ifdef PARAPLAN_SOURCE_DIR
    dirs << QStringLiteral(PARAPLAN_SOURCE_DIR "/docs");
#endif
    for (const QString& d : dirs) {
        const QFileInfo f(QDir(d).filePath(file));
        if (f.isFile()) return f.canonicalFilePath();
    }
    return {};
}

QWidget* MainWindow::showGuide(const QString& name, const QString& section) {
    const QString path = guidePath(name);
    if (path.isEmpty()) {
        showError(tr("No guide"),
                  tr("The %1 guide is not installed (looked for %1.md under share/doc/paraplan).").arg(name));
        return nullptr;
    }
    auto* win = new QDialog(this);
    win->setObjectName(QStringLiteral("guide-") + name);
    win->setAttribute(Qt::WA_DeleteOnClose);
    win->setWindowTitle(name == QLatin1String("concepts") ? tr("Paraplan concepts") : tr("Paraplan user guide"));
    auto* lay = new QVBoxLayout(win);
    lay->setContentsMargins(0, 0, 0, 0);
    auto* browser = new QTextBrowser(win);
    browser->setObjectName(QStringLiteral("guideBrowser"));
    browser->setOpenExternalLinks(true);
    browser->setSource(QUrl::fromLocalFile(path), QTextDocument::MarkdownResource);   // pictures load relative to it
    lay->addWidget(browser);
    const QSize room = screen() ? screen()->availableGeometry().size() : QSize(900, 800);
    win->resize(QSize(900, 900).boundedTo(room * 0.9));
    win->show();
    // Laid out at its size first, so the heading's place is where it is shown.
    if (!section.isEmpty() && !scrollToHeading(browser, section))
        statusBar()->showMessage(tr("The %1 guide has no section \"%2\"").arg(name, section), 6000);
    return win;
}

void MainWindow::noteEditPending() {
    if (!doc_->analysisCurrent()) markUpdating(true);
    // The link traffic follows its own playback build (when the view is looked at).
    if (!player_->current()) links_->setUpdating(true);
}

void MainWindow::markUpdating(bool on) {
    if (!on) updatingTimer_->stop();
    if (on == updating_) return;
    updating_ = on;
    answer_->setUpdating(on);
    // One mark in the status bar for the docked views, of a fixed size: a dock's title or a
    // widget shown would lay the window out again and, at 16k GPUs, replot the timeline for nothing.
    updatingMark_->setText(on ? tr("Updating…") : QString());
    updatingMark_->setToolTip(on ? tr("The views show the project before your last edit until its analysis is ready")
                                 : QString());
}
