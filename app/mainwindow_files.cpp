// The main window's documents: new, open, save, recent files, import, export, recovery.

#include "mainwindow.h"

#include "util/read_file.h"

#include "appsettings.h"
#include "dialogfocus.h"
#include "messagefit.h"
#include "catalog/hf_import.h"
#include "export/import.h"
#include "canvas/clustercanvas.h"
#include "teach/explainpanel.h"
#include "exportdialog.h"
#include "newprojectdialog.h"
#include "views/rankgrid.h"
#include "views/timelineview.h"
#include "views/memoryview.h"
#include "common/picture_export.h"
#include "plan/plannerpanel.h"
#include "project/project.h"
#include "canvas/nodeitem.h"
#include "document/project_load.h"
#include "projectdocument.h"
#include "recovery.h"

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
#include <QElapsedTimer>
#include <QEventLoop>
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
const QString kFileFilter = QObject::tr("Paraplan projects (*.paraplan.json *.json);;All files (*)");

// A project file shipped with Paraplan (the installed examples, or the source tree's).
bool isBundledExample(const QString& path) {
    const QString dir = QFileInfo(QFileInfo(path).canonicalPath()).canonicalFilePath();
    if (dir.endsWith(QLatin1String("/share/paraplan/examples"))) return true;
#ifdef PARAPLAN_SOURCE_DIR
    if (dir == QFileInfo(QStringLiteral(PARAPLAN_SOURCE_DIR "/resources/examples")).canonicalFilePath()) return true;
#endif
    return false;
}
}   // namespace

void MainWindow::setProject(const paraplan::Project& project, const QString& path) {
    doc_->reset(project, path);
    doc_->deliverNow();
}

void MainWindow::openProject(const paraplan::Project& project, const QString& path) {
    doc_->reset(project, isBundledExample(path) ? QString() : path);
}

bool MainWindow::openFile(const QString& path) {
    if (load_) {
        statusBar()->showMessage(tr("Still opening %1: wait for it or cancel it first").arg(load_->path()), 6000);
        return false;
    }
    const bool bundled = isBundledExample(path);
    const std::uint64_t revisionAtStart = doc_->revision();
    load_ = new ProjectLoad(path, this, this);
    lastOpenOk_ = false;
    statusBar()->showMessage(tr("Opening %1…").arg(path));
    connect(load_, &ProjectLoad::loaded, this, [this, path, bundled, revisionAtStart](const paraplan::Project& p) {
        // Edited while the file was read: ask before the edits give way to the file.
        if (doc_->revision() != revisionAtStart && !maybeSave()) {
            statusBar()->showMessage(tr("Did not open %1: the current project is unchanged").arg(path), 6000);
            return;
        }
        // A bundled example opens as an untitled copy, so Save never overwrites it.
        doc_->reset(p, bundled ? QString() : QFileInfo(path).absoluteFilePath());
        lastOpenOk_ = true;
        if (bundled) {
            statusBar()->showMessage(tr("Opened the example %1 as an untitled copy.").arg(QFileInfo(path).fileName()),
                                     6000);
            return;
        }
        AppSettings::addRecentFile(path);
        updateRecentMenu();
        statusBar()->showMessage(tr("Opened %1").arg(path), 4000);
    });
    connect(load_, &ProjectLoad::failed, this, [this, path](const QString& what) {
        statusBar()->clearMessage();
        // A file's own errors name it ("FILE: line 3, column 12: …"); other failures get it here.
        showError(tr("Cannot open %1").arg(QFileInfo(path).fileName()),
                  tr("%1\n\nThe current project is unchanged.")
                      .arg(what.startsWith(path) ? what : QStringLiteral("%1\n\n%2").arg(path, what)));
    });
    connect(load_, &ProjectLoad::cancelled, this, [this, path] {
        statusBar()->showMessage(tr("Cancelled opening %1: the current project is unchanged").arg(path), 6000);
    });
    connect(load_, &ProjectLoad::finished, this, [this] {
        load_->deleteLater();
        load_ = nullptr;
    });
    return true;
}

bool MainWindow::waitForOpen(int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (load_) {
        const qint64 left = timeoutMs - t.elapsed();
        if (left <= 0) return false;
        QEventLoop loop;
        connect(load_, &ProjectLoad::finished, &loop, &QEventLoop::quit, Qt::QueuedConnection);
        QTimer::singleShot(static_cast<int>(std::min<qint64>(left, 50)), &loop, &QEventLoop::quit);
        loop.exec();
    }
    return lastOpenOk_;
}

bool MainWindow::saveFile(const QString& path) {
    try {
        doc_->saveAs(path);
    } catch (const std::exception& e) {
        showError(tr("Cannot save"), QString::fromStdString(e.what()));
        return false;
    }
    AppSettings::addRecentFile(path);
    updateRecentMenu();
    statusBar()->showMessage(tr("Saved %1").arg(path), 4000);
    return true;
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    const QStringList files = AppSettings::recentFiles();
    int i = 1;
    for (const QString& f : files) {
        QAction* a = recentMenu_->addAction(QStringLiteral("&%1 %2").arg(i).arg(QFileInfo(f).fileName()));
        if (i <= 9) a->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | static_cast<Qt::Key>(Qt::Key_0 + i)));
        a->setToolTip(f);
        connect(a, &QAction::triggered, this, [this, f] {
            if (maybeSave()) openFile(f);
        });
        ++i;
    }
    recentMenu_->setEnabled(!files.isEmpty());
}

bool MainWindow::maybeSave() {
    if (!doc_->isModified()) return true;
    // A file name of 255 characters is elided in its middle: the window's title has it whole.
    const auto r = QMessageBox::warning(
        this, tr("Unsaved changes"),
        messagefit::shortText(tr("%1 has unsaved changes. Save them first?").arg(doc_->displayName())),
        QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
    if (r == QMessageBox::Save) return save();
    return r == QMessageBox::Discard;
}

void MainWindow::newProject() {
    if (maybeSave()) newProjectDialog();
}

NewProjectDialog* MainWindow::newProjectDialog() {
    auto* d = new NewProjectDialog(this);
    d->setAttribute(Qt::WA_DeleteOnClose);
    connect(d, &QDialog::accepted, this, [this, d] {
        paraplan::Project p;
        try {
            p = d->project();
        } catch (const std::exception& e) {
            showError(tr("Cannot create the project"), QString::fromStdString(e.what()));
            return;
        }
        doc_->reset(p, QString());
        statusBar()->showMessage(tr("New project: %1 (untitled until saved)").arg(QString::fromStdString(p.name)),
                                 6000);
    });
    d->open();
    return d;
}

bool MainWindow::openExample(const QString& name) {
    try {
        doc_->reset(paraplan::load_example(name.toStdString()), QString());
    } catch (const std::exception& e) {
        showError(tr("Cannot open the example %1").arg(name), QString::fromStdString(e.what()));
        return false;
    }
    statusBar()->showMessage(tr("Opened the example %1 as an untitled copy: Save asks where to keep it.").arg(name),
                             6000);
    return true;
}

bool MainWindow::renameProject(const QString& name) {
    const std::string n = name.trimmed().toStdString();
    QString err;
    if (!doc_->edit(
            tr("Rename project to \"%1\"").arg(name.trimmed()), [&n](paraplan::Project& p) { p.name = n; }, &err)) {
        showError(tr("Cannot rename the project"), err);
        return false;
    }
    updateTitle();
    return true;
}

void MainWindow::openDialog() {
    if (!maybeSave()) return;
    auto s = AppSettings::open();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"),
                                                      s->value(AppSettings::Key::kLastDir).toString(), kFileFilter);
    if (path.isEmpty()) return;
    s->setValue(AppSettings::Key::kLastDir, QFileInfo(path).absolutePath());
    openFile(path);
}

bool MainWindow::save() {
    if (doc_->path().isEmpty()) return saveAsDialog();
    return saveFile(doc_->path());
}

bool MainWindow::saveAsDialog() {
    QString path = QFileDialog::getSaveFileName(this, tr("Save project"), doc_->path(), kFileFilter);
    if (path.isEmpty()) return false;
    if (!path.endsWith(QLatin1String(".json"))) path += QStringLiteral(".paraplan.json");
    return saveFile(path);
}

void MainWindow::importHfDialog() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Import Hugging Face config.json"), QString(),
                                                      tr("config.json (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    try {
        // Only a regular file of bounded size: /dev/zero or a FIFO is refused at once, naming it.
        const std::string text = paraplan::read_input_file(path.toStdString(), "Hugging Face config");
        const paraplan::ModelSpec spec = paraplan::import_hf_config(std::string_view(text));
        const QString name = QString::fromStdString(spec.name.empty() ? spec.family : spec.name);
        QString err;
        if (!doc_->edit(
                tr("Import model %1").arg(name),
                [&spec](paraplan::Project& p) {
                    p.model = spec;
                    p.model_preset.clear();
                },
                &err))
            showError(tr("Cannot import"), err);
    } catch (const std::exception& e) {
        showError(tr("Cannot import %1").arg(QFileInfo(path).fileName()), QString::fromStdString(e.what()));
    }
}

bool MainWindow::importConfigFile(const QString& path, const QString& formatHint) {
    std::string text;
    try {
        // Only a regular file of bounded size: /dev/zero or a FIFO is refused at once, naming it.
        text = paraplan::read_input_file(path.toStdString(), "config");
    } catch (const std::exception& e) {
        showError(tr("Cannot import"), QString::fromStdString(e.what()));
        return false;
    }
    std::string format = formatHint.toStdString();
    if (format.empty()) format = paraplan::detect_import_format(path.toStdString(), text);
    if (format.empty()) {
        QStringList formats;
        for (const auto& x : paraplan::import_formats()) formats << QString::fromStdString(x);
        bool ok = false;
        const QString pick = QInputDialog::getItem(
            this, tr("Import framework config"),
            messagefit::shortText(tr("Which framework's config is %1?").arg(QFileInfo(path).fileName())), formats, 0,
            false, &ok);
        if (!ok) return false;
        format = pick.toStdString();
    }
    paraplan::ImportResult r;
    try {
        // Over the open project: what the config does not say (cluster, model, batch) stays.
        r = paraplan::import_config(text, format, doc_->project());
    } catch (const std::exception& e) {
        showError(tr("Cannot import %1").arg(QFileInfo(path).fileName()),
                  tr("%1\n\nThe current project is unchanged.").arg(QString::fromStdString(e.what())));
        return false;
    }
    QString err;
    const paraplan::Project imported = r.project;
    if (!doc_->edit(
            tr("Import %1 config %2").arg(QString::fromStdString(r.format), QFileInfo(path).fileName()),
            [&imported](paraplan::Project& p) { p = imported; }, &err)) {
        showError(tr("Cannot import %1").arg(QFileInfo(path).fileName()), err);
        return false;
    }
    QStringList lines;
    if (r.implied_world > 0 && r.implied_world != doc_->project().world_size())
        lines << tr("The config implies %1 GPUs; the cluster has %2.")
                     .arg(r.implied_world)
                     .arg(doc_->project().world_size());
    for (const auto& w : r.warnings) lines << tr("Not imported: %1").arg(QString::fromStdString(w));
    lastImportMessages_ = lines;
    if (!lines.isEmpty()) {
        // The first notes shown, each shortened (a setting's name can be hundreds of characters);
        // every note whole in Details.
        auto* box = new QMessageBox(
            QMessageBox::Information, tr("Imported with notes"),
            messagefit::shortText(tr("Imported %1. Check these items:").arg(QFileInfo(path).fileName())),
            QMessageBox::Ok, this);
        box->setObjectName(QStringLiteral("importNotes"));
        box->setTextFormat(Qt::PlainText);
        box->setDetailedText(lines.join(QLatin1Char('\n')));
        QStringList first = lines.mid(0, 5);
        if (lines.size() > first.size())
            first << tr("… and %n more in Details", nullptr, int(lines.size() - first.size()));
        box->setInformativeText(messagefit::shortText(first.join(QLatin1Char('\n')), 60, 8));
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    statusBar()->showMessage(tr("Imported %1 (Ctrl+Z undoes it)").arg(path), 6000);
    return true;
}

void MainWindow::importConfigDialog() {
    auto s = AppSettings::open();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Import framework config"), s->value(AppSettings::Key::kLastDir).toString(),
        tr("Training configs (*.json *.toml *.sh *.py *.txt *.args);;All files (*)"));
    if (path.isEmpty()) return;
    importConfigFile(path);
}

bool MainWindow::exportPicture(const QString& view, const QString& path, QString* error) {
    refreshStaleViews();   // a picture shows the project as it is, seen or not
    const QString title = tr("Paraplan: %1 — %2").arg(view, doc_->displayName());
    if (view == QLatin1String("canvas")) {
        QRectF nodes;   // the nodes, not the scene's margins
        for (const auto* n : canvas_->nodeItems()) nodes |= n->sceneBoundingRect();
        return picture::saveScene(canvas_->scene(), path, title, error, nodes);
    }
    if (view == QLatin1String("grid")) {
        QWidget* cells = grid_->findChild<QWidget*>(QStringLiteral("rankGridCanvas"));
        return picture::saveWidget(cells, path, title, error,
                                   cells ? cells->minimumSize() : QSize());   // the cells, not the empty rest
    }
    if (view == QLatin1String("timeline")) {
        if (!picture::isPictureFormat(path)) {
            if (error) *error = tr("a picture is .png, .svg or .pdf");
            return false;
        }
        return timeline_->exportTo(path, error);
    }
    if (view == QLatin1String("memory")) return picture::saveWidget(memory_, path, title, error);
    if (view == QLatin1String("planner")) return picture::savePlot(planner_->plot(), path, title, error);
    if (view == QLatin1String("explain")) return picture::saveWidget(explain_, path, title, error);
    if (error) *error = tr("no picture of \"%1\" (canvas, grid, timeline, memory, planner, explain)").arg(view);
    return false;
}

ExportDialog* MainWindow::exportDialog() {
    auto* d = new ExportDialog(doc_, this);   // its Fix buttons edit this project
    d->setAttribute(Qt::WA_DeleteOnClose);
    d->open();   // closed, it gives this window its activation and focus back (DialogFocusReturn)
    return d;
}

void MainWindow::offerRecovery() {
    const auto pending = recovery_->pending();
    if (!pending) return;
    const QString what = pending->originalPath.isEmpty() ? tr("an untitled project") : pending->originalPath;
    QMessageBox box(QMessageBox::Question, tr("Restore unsaved work?"), QString(), QMessageBox::Yes | QMessageBox::No,
                    this);
    box.setDefaultButton(QMessageBox::Yes);
    messagefit::setText(&box, tr("Paraplan did not shut down cleanly. Unsaved changes to %1 were saved automatically "
                                 "at %2.\n\nRestore them?")
                                  .arg(what, pending->savedAt));   // a long path: whole in Details
    if (box.exec() == QMessageBox::Yes) {
        try {
            recovery_->restore();
        } catch (const std::exception& e) {
            showError(tr("Cannot restore"), QString::fromStdString(e.what()));
        }
    } else {
        recovery_->discard();
    }
}
