#include "screenshot_harness.h"

#include "canvas/clustercanvas.h"
#include "canvas/clusterpalette.h"
#include "plan/compareview.h"
#include "exportdialog.h"
#include "mainwindow.h"
#include "newprojectdialog.h"
#include "plan/plannerpanel.h"
#include "projectdocument.h"

#include <QAction>
#include <QCoreApplication>
#include <QDockWidget>
#include <QImage>
#include <QMetaObject>
#include <QScrollArea>
#include <QTimer>

#include <cstdio>

namespace {
// The longest wait for a planner search that bringing the planner view forward starts.
constexpr int kPlannerWaitMs = 60'000;
}   // namespace

QSize screenshotSize(const QString& wxh) {
    const QStringList wh = wxh.split(QLatin1Char('x'));
    if (wh.size() != 2) return {1600, 1000};
    return {qBound(320, wh[0].toInt(), 8000), qBound(240, wh[1].toInt(), 8000)};
}

ScreenshotHarness::ScreenshotHarness(MainWindow* window, ScreenshotRequest request, QObject* parent)
    : QObject(parent), window_(window), req_(std::move(request)) {}

ScreenshotHarness::~ScreenshotHarness() { delete alone_; }

// Runs `step` once the events queued so far (show, resize, layout) are handled.
void ScreenshotHarness::next(void (ScreenshotHarness::*step)()) { QTimer::singleShot(0, this, step); }

void ScreenshotHarness::fail(const QString& message) {
    std::fprintf(stderr, "paraplan: %s\n", qPrintable(message));
    emit finished(2);
}

void ScreenshotHarness::start() {
    // Shown (off screen) before sizing: until the dock layout exists, the window's minimum
    // width counts every tabbed dock side by side.
    window_->setAttribute(Qt::WA_DontShowOnScreen);
    window_->show();
    window_->resize(req_.size);
    next(&ScreenshotHarness::sized);
}

// --add-node: each template chosen in the canvas's palette, then Edit > Add Node, as a person
// adds a node without dragging; the views then show the analysis of the cluster built.
bool ScreenshotHarness::addNodes() {
    if (req_.addNodes.isEmpty()) return true;
    ClusterPalette* palette = window_->canvas()->paletteList();
    auto* add = window_->findChild<QAction*>(QStringLiteral("addNodeAction"));
    for (const QString& name : std::as_const(req_.addNodes)) {
        const QList<QListWidgetItem*> found = palette->findItems(name, Qt::MatchExactly);
        if (found.isEmpty() || !add) {
            fail(
                QStringLiteral("--add-node: no node template \"%1\" in the palette (e.g. \"8 × h100-sxm\")").arg(name));
            return false;
        }
        palette->setCurrentItem(found.constFirst());
        if (palette->currentItem() != found.constFirst() || !palette->currentTemplate()) {
            fail(QStringLiteral("--add-node: \"%1\" is not a node template").arg(name));
            return false;
        }
        const std::size_t before = window_->project().cluster.nodes.size();
        add->trigger();
        if (window_->project().cluster.nodes.size() != before + 1) {
            fail(QStringLiteral("--add-node %1: no node was added").arg(name));
            return false;
        }
    }
    window_->document()->waitForAnalysis();
    return true;
}

void ScreenshotHarness::sized() {
    window_->resize(req_.size);   // again, now that the docks are tabbed (the first can be widened)
    if (!addNodes()) return;
    if (!req_.compare.isEmpty()) {
        window_->compareView()->addCurrentProject();
        for (const QString& f : std::as_const(req_.compare)) {
            QString err;
            if (!window_->compareView()->addFile(f, &err)) {
                fail(QStringLiteral("--compare %1: %2").arg(f, err));
                return;
            }
        }
    }
    if (!req_.view.isEmpty() && !window_->raiseView(req_.view)) {
        fail(QStringLiteral("unknown view \"%1\" (known: %2)")
                 .arg(req_.view, window_->viewNames().join(QStringLiteral(", "))));
        return;
    }
    // The planner view starts its search when brought forward: render its results.
    PlannerPanel* planner = window_->plannerPanel();
    if (planner && planner->isRunning()) {
        waitingForPlanner_ = true;
        auto proceed = [this] {
            if (!waitingForPlanner_) return;
            waitingForPlanner_ = false;
            next(&ScreenshotHarness::viewRaised);
        };
        connect(planner, &PlannerPanel::finished, this, proceed, Qt::SingleShotConnection);
        QTimer::singleShot(kPlannerWaitMs, this, proceed);
        return;
    }
    next(&ScreenshotHarness::viewRaised);
}

void ScreenshotHarness::viewRaised() {
    if (!req_.exportFormat.isEmpty()) {
        auto exportDialog = std::make_unique<ExportDialog>(window_->project());
        if (!exportDialog->setFormat(req_.exportFormat)) {
            fail(QStringLiteral("unknown export format \"%1\"").arg(req_.exportFormat));
            return;
        }
        dialog_ = std::move(exportDialog);
    } else if (req_.newDialog) {
        dialog_ = std::make_unique<NewProjectDialog>();
    }
    if (dialog_) {
        dialog_->setAttribute(Qt::WA_DontShowOnScreen);
        dialog_->resize(req_.size);
        dialog_->show();
        next(&ScreenshotHarness::dialogShown);
        return;
    }
    if (req_.grabView && req_.view.isEmpty()) {
        fail(QStringLiteral("--grab-view needs --view"));
        return;
    }
    // The view's widget: the central canvas or the widget inside the view's dock.
    if (!req_.view.isEmpty()) {
        if (req_.view == QLatin1String("canvas")) {
            viewWidget_ = window_->canvas();
        } else if (auto* dock = window_->findChild<QDockWidget*>(req_.view + QStringLiteral("Dock"))) {
            viewWidget_ = dock->widget();
            // A view that scrolls in its dock: the view itself.
            if (auto* area = qobject_cast<QScrollArea*>(viewWidget_)) viewWidget_ = area->widget();
        }
    }
    if ((req_.grabView || !req_.invoke.isEmpty()) && !viewWidget_) {
        fail(QStringLiteral("--grab-view/--invoke: no widget for view \"%1\"").arg(req_.view));
        return;
    }
    for (const QString& slot : std::as_const(req_.invoke)) {
        if (!QMetaObject::invokeMethod(viewWidget_, qPrintable(slot), Qt::DirectConnection)) {
            fail(QStringLiteral("--invoke: view \"%1\" has no slot \"%2\"").arg(req_.view, slot));
            return;
        }
    }
    // --wait: background work (a planner run, a dry run) goes on in the event loop meanwhile.
    if (req_.waitMs > 0) {
        QTimer::singleShot(req_.waitMs, this, &ScreenshotHarness::viewReady);
        return;
    }
    viewReady();
}

void ScreenshotHarness::dialogShown() {
    if (!dialog_->grab().toImage().save(req_.out)) {
        fail(QStringLiteral("cannot write %1").arg(req_.out));
        return;
    }
    emit finished(0);
}

void ScreenshotHarness::viewReady() {
    // --grab-view: the view's widget leaves its dock (or the centre) and is rendered alone.
    if (req_.grabView) {
        alone_ = viewWidget_ == window_->canvas() ? window_->takeCentralWidget() : viewWidget_;
        // Out of the scroll area it may sit in, or the area keeps sizing it to its viewport.
        QWidget* port = alone_->parentWidget();
        if (auto* area = port ? qobject_cast<QScrollArea*>(port->parentWidget()) : nullptr;
            area && area->widget() == alone_)
            area->takeWidget();
        alone_->setParent(nullptr);
        alone_->setAttribute(Qt::WA_DontShowOnScreen);
        alone_->resize(req_.size);
        alone_->show();
        next(&ScreenshotHarness::render);
        return;
    }
    render();
}

void ScreenshotHarness::render() {
    window_->canvas()->zoomToFit();   // fit to the final size
    next(&ScreenshotHarness::grabbed);
}

void ScreenshotHarness::grabbed() {
    const QImage img = (alone_ ? alone_->grab() : window_->grab()).toImage();
    delete alone_;
    alone_ = nullptr;
    if (!img.save(req_.out)) {
        fail(QStringLiteral("cannot write %1").arg(req_.out));
        return;
    }
    emit finished(0);
}

void renderPlaybackFrames(MainWindow& window, QSize size, const QString& dir, int frames) {
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.show();
    window.resize(size);
    QTimer::singleShot(0, &window, [&window, size, dir, frames] {
        window.resize(size);   // again, once the docks are tabbed (as for --screenshot)
        QStringList files;
        QString err;
        if (!window.exportPlayback(dir, frames, &files, &err)) {
            std::fprintf(stderr, "paraplan: --playback-frames: %s\n", qPrintable(err));
            QCoreApplication::exit(2);
            return;
        }
        for (const QString& f : std::as_const(files)) std::printf("%s\n", qPrintable(f));
        QCoreApplication::exit(0);
    });
}
