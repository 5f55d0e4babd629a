#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)
#include "project/project_gpu.h"

#include "plan/plannerpanel.h"

#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "estimate/profile.h"
#include "plan/planmodel.h"
#include "common/plotpalette.h"
#include "document/projecteditor.h"
#include "search/apply_plan.h"
#include "common/theme.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPromise>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

using paraplan::search::Objective;
using paraplan::search::PlanEntry;
using paraplan::search::PlanRequest;
using paraplan::search::PlanResult;

namespace {
constexpr int kProgressSteps = 1000;
}

PlannerPanel::PlannerPanel(ProjectEditor* editor, QWidget* parent)
    : QWidget(parent), editor_(editor), model_(new PlanModel(this)), proxy_(new QSortFilterProxyModel(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setSortRole(PlanModel::SortRole);

    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);

    // --- What to search -------------------------------------------------------------
    auto* controls = new QHBoxLayout;
    framework_ = new QComboBox(this);
    framework_->setObjectName(QStringLiteral("plannerFramework"));
    framework_->addItem(tr("This project's framework"), QString());
    framework_->addItem(tr("All frameworks"), QStringLiteral("*"));
    for (const auto& f : paraplan::kFrameworks)
        framework_->addItem(QString::fromStdString(f), QString::fromStdString(f));
    framework_->setToolTip(tr("Which frameworks' rules and rank orders to search"));
    objective_ = new QComboBox(this);
    objective_->setObjectName(QStringLiteral("plannerObjective"));
    objective_->addItem(tr("Fastest step"), int(Objective::time));
    objective_->addItem(tr("Least memory"), int(Objective::memory));
    objective_->addItem(tr("Most tokens/s"), int(Objective::throughput));
    objective_->setToolTip(tr("How results are ranked"));
    constraints_ = new QLineEdit(this);
    constraints_->setObjectName(QStringLiteral("plannerConstraints"));
    constraints_->setPlaceholderText(tr("constraints, e.g. tp=8,pp=2..16,mbs=..4,recompute=none"));
    constraints_->setClearButtonEnabled(true);
    constraints_->setMinimumWidth(120);
    constraints_->setToolTip(
        tr("Bounds and fixed values, comma separated: a knob (tp pp cp sp ep dp zero_stage mbs chunks "
           "num_microbatches) = a value or a range lo..hi (either end may be left out); or framework, "
           "schedule, recompute, offload, sp_mode = a value. The same syntax as paraplan-cli plan --fix."));
    top_ = new QSpinBox(this);
    top_->setObjectName(QStringLiteral("plannerTop"));
    top_->setRange(1, 1000);
    top_->setValue(50);
    top_->setPrefix(tr("best "));
    top_->setToolTip(tr("How many of the best layouts to keep"));
    show_ = new QComboBox(this);
    show_->setObjectName(QStringLiteral("plannerShow"));
    show_->addItem(tr("Ranked results"));
    show_->addItem(tr("Pareto front"));
    show_->setToolTip(
        tr("Ranked: the best layouts by the objective. Pareto front: each layout that no other "
           "beats on both step time and memory."));
    run_ = new QPushButton(tr("Plan"), this);
    run_->setObjectName(QStringLiteral("plannerRun"));
    run_->setToolTip(tr("Search every valid layout of this model on this cluster (F5)"));
    cancel_ = new QPushButton(tr("Cancel"), this);
    cancel_->setObjectName(QStringLiteral("plannerCancel"));
    cancel_->setToolTip(tr("Stop the search (Esc)"));
    apply_ = new QPushButton(tr("Apply"), this);
    apply_->setObjectName(QStringLiteral("plannerApply"));
    apply_->setToolTip(tr("Use the selected layout in the project (one undoable step; also double-click a row)"));
    // Two rows, so the dock (tabbed with the others along the bottom) stays narrow enough
    // for a laptop screen: what to search, then the constraints and the buttons.
    for (QComboBox* c : {framework_, objective_, show_}) {
        c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        c->setMinimumContentsLength(12);
    }
    controls->addWidget(framework_, 1);
    controls->addWidget(objective_, 1);
    controls->addWidget(top_);
    controls->addWidget(show_, 1);
    outer->addLayout(controls);
    auto* actions = new QHBoxLayout;
    actions->addWidget(constraints_, 1);
    actions->addWidget(run_);
    actions->addWidget(cancel_);
    actions->addWidget(apply_);
    outer->addLayout(actions);

    auto* status = new QHBoxLayout;
    progress_ = new QProgressBar(this);
    progress_->setObjectName(QStringLiteral("plannerProgress"));
    progress_->setRange(0, kProgressSteps);
    progress_->setMaximumWidth(200);
    progress_->setTextVisible(true);
    summary_ = new QLabel(tr("Press Plan (F5) to search every valid layout of this model on this cluster."), this);
    summary_->setObjectName(QStringLiteral("plannerSummary"));
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);   // never widens the window
    stale_ = new QLabel(this);
    stale_->setObjectName(QStringLiteral("plannerStale"));
    stale_->setText(tr("The model, cluster or batch changed since this search: plan again."));
    QPalette sp = stale_->palette();
    sp.setColor(QPalette::WindowText, theme::warningColor(palette()));
    stale_->setPalette(sp);
    stale_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    stale_->hide();
    status->addWidget(progress_);
    status->addWidget(summary_, 1);
    status->addWidget(stale_);
    outer->addLayout(status);

    // --- Results ----------------------------------------------------------------------
    auto* split = new QSplitter(Qt::Horizontal, this);
    table_ = new QTableView(split);
    table_->setObjectName(QStringLiteral("plannerTable"));
    table_->setModel(proxy_);
    table_->setSortingEnabled(true);
    table_->sortByColumn(PlanModel::Rank, Qt::AscendingOrder);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setAlternatingRowColors(true);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setStretchLastSection(false);
    plot_ = new QCustomPlot(split);
    plot_->setObjectName(QStringLiteral("plannerPlot"));
    plot_->setMinimumSize(220, 160);
    plot_->xAxis->setLabel(tr("peak GiB per GPU"));
    plot_->yAxis->setLabel(tr("seconds per step"));
    // The legend sits in a row under the axes, so it never hides a point.
    plot_->legend->setVisible(true);
    QFont small = font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    plot_->legend->setFont(small);
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setWrap(2);
    plot_->plotLayout()->addElement(1, 0, plot_->legend);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    plot_->legend->setMargins(QMargins(4, 2, 4, 2));
    plot_->setToolTip(tr("Each dot a layout; the line joins the Pareto front; the ring marks the selected row"));
    // Without results the chart says so in the middle of its axes instead of plotting nothing.
    plotEmpty_ = new QCPItemText(plot_);
    plotEmpty_->position->setType(QCPItemPosition::ptAxisRectRatio);
    plotEmpty_->position->setCoords(0.5, 0.5);
    plotEmpty_->setPositionAlignment(Qt::AlignCenter);
    plotEmpty_->setTextAlignment(Qt::AlignCenter);
    plotEmpty_->setClipToAxisRect(false);
    split->addWidget(table_);
    split->addWidget(plot_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    outer->addWidget(split, 1);

    connect(run_, &QPushButton::clicked, this, &PlannerPanel::run);
    connect(cancel_, &QPushButton::clicked, this, &PlannerPanel::cancel);
    connect(apply_, &QPushButton::clicked, this, &PlannerPanel::applySelected);
    connect(constraints_, &QLineEdit::returnPressed, this, &PlannerPanel::run);
    connect(show_, &QComboBox::currentIndexChanged, this, [this] { showResults(); });
    connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) { applyRow(i.row()); });
    connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
        updateButtons();
        updatePlot();
    });
    connect(&watcher_, &QFutureWatcher<PlanResult>::progressValueChanged, progress_, &QProgressBar::setValue);
    connect(&watcher_, &QFutureWatcher<PlanResult>::finished, this, &PlannerPanel::onFinished);
    auto* esc = new QAction(this);
    esc->setShortcut(QKeySequence(Qt::Key_Escape));
    esc->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(esc, &QAction::triggered, this, &PlannerPanel::cancel);
    addAction(esc);
    updateButtons();
    updatePlot();   // the empty state, until there are results
}

PlannerPanel::~PlannerPanel() {
    if (cancelFlag_) cancelFlag_->store(true);
    watcher_.waitForFinished();   // the worker holds no pointer to this panel, but end it cleanly
}

bool PlannerPanel::isRunning() const { return running_; }

QString PlannerPanel::summaryText() const { return summary_->text(); }

QString PlannerPanel::plotEmptyText() const { return plotEmpty_->visible() ? plotEmpty_->text() : QString(); }

bool PlannerPanel::isStale() const { return hasRun_ && !resultsFitProject(); }

bool PlannerPanel::resultsFitProject() const {
    return hasRun_ && runProjectId_ == editor_->projectId() &&
           (runRevision_ == editor_->revision() || runKey_ == baseKey().toStdString());
}

void PlannerPanel::setConstraints(const QString& text) { constraints_->setText(text); }
void PlannerPanel::setObjective(Objective o) { objective_->setCurrentIndex(objective_->findData(int(o))); }
void PlannerPanel::setTop(int n) { top_->setValue(n); }
void PlannerPanel::setShowPareto(bool pareto) { show_->setCurrentIndex(pareto ? 1 : 0); }
void PlannerPanel::setFrameworks(const QStringList& ids) {
    if (ids.isEmpty()) framework_->setCurrentIndex(0);
    else if (ids.size() > 1) framework_->setCurrentIndex(1);
    else framework_->setCurrentIndex(std::max(0, framework_->findData(ids.first())));
}

QString PlannerPanel::baseKey() const {
    // What the results depend on: the model, the training settings (but the micro-batch,
    // which the planner chooses), the cluster's GPUs and network, and its profile. The cluster goes in as
    // runs of (GPU type, GPUs per node), so the key stays small at any cluster size.
    const paraplan::Project& p = editor_->project();
    paraplan::Project q;
    q.model_preset = p.model_preset;
    q.model = p.model;
    q.training = p.training;
    q.model.extra.clear();   // unknown keys change no result, and can be large
    q.training.extra.clear();
    const nlohmann::json j = paraplan::project_to_json(q);
    nlohmann::json key = {{"model", j.value("model", nlohmann::json())}};
    nlohmann::json training = j.value("training", nlohmann::json::object());
    if (training.is_object()) training.erase("micro_batch_size");   // the planner chooses it
    key["training"] = training;
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& n : p.cluster.nodes) {
        if (!runs.empty() && runs.back()[0] == n.gpu && runs.back()[1] == n.gpus) {
            runs.back()[2] = runs.back()[2].get<long long>() + 1;
            continue;
        }
        runs.push_back({n.gpu, n.gpus, 1});
    }
    key["cluster"] = {{"nodes", runs}, {"network", {p.cluster.network.inter_node_gbps, p.cluster.network.latency_us}}};
    // The cluster profile scales every candidate's step time.
    key["profile"] = paraplan::estimate::project_profile(p).value_or("");
    return QString::fromStdString(key.dump());
}

void PlannerPanel::run() {
    if (isRunning()) return;
    const paraplan::Project& p = editor_->project();
    PlanRequest req;
    req.base = p;
    QString problem;
    const paraplan::GpuSpec* gpu = p.cluster.nodes.empty() ? nullptr
                                                           : paraplan::find_gpu(p.cluster, p.cluster.nodes[0].gpu);
    if (p.cluster.nodes.empty()) problem = tr("The cluster has no nodes: add one on the canvas first.");
    else if (!gpu)
        problem = tr("GPU \"%1\" is not in the catalog.").arg(QString::fromStdString(p.cluster.nodes[0].gpu));
    if (problem.isEmpty()) {
        try {
            // With the project's cluster profile (estimate.profile), as the estimate uses it.
            req.hardware = paraplan::estimate::project_hardware(p, *gpu);
        } catch (const std::exception& e) {
            problem = tr("Cluster profile: %1").arg(QString::fromStdString(e.what()));
        }
    }
    if (problem.isEmpty()) {
        try {
            req.constraints = paraplan::search::Constraints::parse(constraints_->text().toStdString());
        } catch (const std::exception& e) {
            problem = tr("Constraints: %1").arg(QString::fromStdString(e.what()));
        }
    }
    if (!problem.isEmpty()) {
        summary_->setText(problem);
        return;
    }
    const QString fw = framework_->currentData().toString();
    if (fw == QLatin1String("*")) req.frameworks = paraplan::kFrameworks;
    else if (!fw.isEmpty()) req.frameworks = {fw.toStdString()};
    req.objective = Objective(objective_->currentData().toInt());
    req.top = top_->value();
    gpuMemoryGib_ = req.hardware.memory_gib;
    runKey_ = baseKey().toStdString();
    runProjectId_ = editor_->projectId();
    runRevision_ = editor_->revision();

    cancelFlag_ = std::make_shared<std::atomic<bool>>(false);
    auto flag = cancelFlag_;
    // The worker gets copies only (request, flag): it never touches the panel.
    QFuture<PlanResult> f = QtConcurrent::run([req = std::move(req), flag](QPromise<PlanResult>& promise) {
        promise.setProgressRange(0, kProgressSteps);
        PlanResult r = paraplan::search::plan(req, flag.get(), [&promise, &flag](long long done, long long total) {
            if (promise.isCanceled()) flag->store(true);
            promise.setProgressValue(total > 0 ? int(kProgressSteps * done / total) : 0);
        });
        promise.addResult(std::move(r));
    });
    progress_->setValue(0);
    summary_->setText(tr("Searching…"));
    running_ = true;   // until finished() is delivered, even if the search is already done
    watcher_.setFuture(f);
    updateButtons();
    emit started();
}

void PlannerPanel::cancel() {
    if (!isRunning()) return;
    if (cancelFlag_) cancelFlag_->store(true);
    watcher_.cancel();
    summary_->setText(tr("Cancelling…"));
}

void PlannerPanel::onFinished() {
    running_ = false;
    const bool cancelled = watcher_.isCanceled() || watcher_.future().resultCount() == 0 ||
                           watcher_.future().result().cancelled;
    if (cancelled) {
        summary_->setText(hasRun_ ? tr("Cancelled; the table shows the previous search.") : tr("Cancelled."));
        progress_->setValue(0);
        updateButtons();
        emit finished(true);
        return;
    }
    if (runProjectId_ != editor_->projectId()) {
        // Started on a project that is no longer open: its rows belong to that one.
        summary_->setText(tr("The search ended after another project was opened: press Plan (F5) for this one."));
        progress_->setValue(0);
        updateButtons();
        emit finished(true);
        return;
    }
    result_ = watcher_.future().result();
    hasRun_ = true;
    progress_->setValue(kProgressSteps);
    const QLocale loc;
    // Layouts the size rules reject are pruned before they are counted, so "valid" is worth a
    // word only when the frameworks' full rules turned some away.
    const QString rejected =
        result_.valid < result_.evaluated
            ? tr(" · %1 rejected by the rules").arg(loc.toString(result_.evaluated - result_.valid))
            : QString();
    summary_->setText(tr("%1 layouts considered%2 · %3 fit in memory · %4 s")
                          .arg(loc.toString(result_.evaluated), rejected, loc.toString(result_.fitting),
                               QString::number(result_.seconds, 'f', 2)));
    if (result_.results.empty())
        summary_->setText(summary_->text() +
                          tr(" — no layout fits: relax the constraints, add GPUs or lower the batch."));
    showResults();
    updateButtons();
    emit finished(false);
}

void PlannerPanel::showResults() {
    const bool pareto = show_->currentIndex() == 1;
    model_->setEntries(pareto ? result_.pareto : result_.results, gpuMemoryGib_);
    model_->setCurrent(editor_->project());
    table_->sortByColumn(PlanModel::Rank, Qt::AscendingOrder);
    if (model_->rowCount() > 0) table_->selectRow(0);
    refresh();
    updatePlot();
}

void PlannerPanel::updatePlot() {
    plot_->clearGraphs();
    const QPalette pal = palette();
    auto scatter = [&](const std::vector<PlanEntry>& es, const QString& name, const QColor& c, bool line) {
        auto* g = plot_->addGraph();
        g->setName(name);
        QVector<double> x, y;
        for (const auto& e : es) {
            x << e.peak_gib;
            y << e.step_s;
        }
        g->setData(x, y, line);   // the Pareto front is sorted by step time: keep its order
        g->setLineStyle(line ? QCPGraph::lsStepRight : QCPGraph::lsNone);
        g->setPen(QPen(c, line ? 1.5 : 1));
        g->setScatterStyle(
            QCPScatterStyle(line ? QCPScatterStyle::ssDiamond : QCPScatterStyle::ssCircle, c, line ? 7 : 5));
        return g;
    };
    // Nothing to plot (not searched yet, or no layout fits): a clean empty chart that says so,
    // not an empty legend box squeezing the axes and made-up tick numbers.
    const bool empty = !hasRun_ || (result_.results.empty() && result_.pareto.empty());
    plotEmpty_->setVisible(empty);
    plotEmpty_->setText(!hasRun_ ? tr("No layouts yet:\npress Plan (F5)")
                                 : tr("No layout fits:\nsee the summary above"));
    plotEmpty_->setColor(pal.color(QPalette::PlaceholderText));
    // Out of the layout while empty: an item-less legend still caps the column's width, which
    // squeezed the axes to a sliver of crammed ticks.
    QCPLayoutGrid* layout = plot_->plotLayout();
    const bool legendIn = layout->rowCount() > 1 && layout->element(1, 0) == plot_->legend;
    if (empty && legendIn) {
        layout->take(plot_->legend);
        layout->simplify();
    } else if (!empty && !legendIn) {
        layout->addElement(1, 0, plot_->legend);
        layout->setRowStretchFactor(1, 0.001);
    }
    plot_->legend->setVisible(!empty);
    for (QCPAxis* a : {plot_->xAxis, plot_->yAxis}) a->setTickLabels(!empty);
    if (empty) {
        plot_->xAxis->setRange(0, gpuMemoryGib_ > 0 ? gpuMemoryGib_ : 1);
        plot_->yAxis->setRange(0, 1);
    } else {
        scatter(result_.results, tr("best %1").arg(result_.results.size()), theme::groupColor(1, pal), false);
        std::vector<PlanEntry> front = result_.pareto;
        std::sort(front.begin(), front.end(),
                  [](const PlanEntry& a, const PlanEntry& b) { return a.peak_gib < b.peak_gib; });
        scatter(front, tr("Pareto front"), theme::groupColor(0, pal), true);
        const QModelIndexList sel = table_->selectionModel()->selectedRows();
        if (!sel.isEmpty()) {
            const PlanEntry& e = model_->entry(proxy_->mapToSource(sel.first()).row());
            auto* g = scatter({e}, tr("selected"), pal.color(QPalette::WindowText), false);
            g->setScatterStyle(
                QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(pal.color(QPalette::WindowText), 2), Qt::NoBrush, 13));
        }
        if (gpuMemoryGib_ > 0) {
            auto* cap = plot_->addGraph();
            cap->setName(tr("GPU memory"));
            double ymax = 0;
            for (const auto& e : result_.results) ymax = std::max(ymax, e.step_s);
            for (const auto& e : result_.pareto) ymax = std::max(ymax, e.step_s);
            cap->setData({gpuMemoryGib_, gpuMemoryGib_}, {0, ymax * 1.1});
            cap->setPen(QPen(theme::errorColor(pal), 1, Qt::DashLine));
        }
        plot_->rescaleAxes();
        plot_->xAxis->setRangeLower(0);
        plot_->yAxis->setRangeLower(0);
        plot_->xAxis->scaleRange(1.08, plot_->xAxis->range().center());
        plot_->xAxis->setRangeLower(0);
    }
    applyPlotPalette(plot_, pal);
    plot_->replot();
}

void PlannerPanel::refresh() {
    if (hasRun_ && runProjectId_ != editor_->projectId()) {
        // Another project is open (New, Open, a restore): the results were for the old one.
        result_ = {};
        hasRun_ = false;
        model_->setEntries({}, 0);
        summary_->setText(tr("A different project is open: press Plan (F5) to search its layouts."));
        updatePlot();
        updateButtons();
    }
    model_->setCurrent(editor_->project());
    if (autoRunPending_ && editor_->analysisCurrent())
        QMetaObject::invokeMethod(this, &PlannerPanel::autoRun, Qt::QueuedConnection);
    if (!isStale()) {
        stale_->hide();
        return;
    }
    stale_->setText(
        tr("The model, cluster or batch changed since this search: plan again. These rows cannot be "
           "applied."));
    stale_->setVisible(true);
}

void PlannerPanel::updateButtons() {
    const bool running = isRunning();
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
    progress_->setVisible(running || hasRun_);
    apply_->setEnabled(!running && table_->selectionModel()->hasSelection());
}

bool PlannerPanel::applyRow(int viewRow) {
    if (viewRow < 0 || viewRow >= proxy_->rowCount()) return false;
    if (!resultsFitProject()) {
        // A row is a layout for the model and cluster it was planned on: never another's.
        summary_->setText(tr("These results were planned for a different model, cluster or batch: plan again."));
        return false;
    }
    const PlanEntry e = model_->entry(proxy_->mapToSource(proxy_->index(viewRow, 0)).row());
    const QString what = QString::fromStdString(paraplan::search::describe(e));
    QString err;
    const bool ok = editor_->edit(
        tr("Apply plan: %1").arg(what), [&e](paraplan::Project& p) { paraplan::search::apply_entry(e, p); }, &err);
    if (!ok) {
        summary_->setText(err.isEmpty() ? tr("The project already has this layout.") : err);
        return false;
    }
    emit applied(what);
    return true;
}

bool PlannerPanel::applySelected() {
    const QModelIndexList sel = table_->selectionModel()->selectedRows();
    return !sel.isEmpty() && applyRow(sel.first().row());
}

void PlannerPanel::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    // The first time the view is shown, plan the open project so the table is never empty.
    QMetaObject::invokeMethod(this, &PlannerPanel::autoRun, Qt::QueuedConnection);
}

void PlannerPanel::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    // A light/dark switch: the chart keeps the colours it was drawn with until redrawn.
    if (e->type() == QEvent::PaletteChange) updatePlot();
}

void PlannerPanel::autoRun() {
    autoRunPending_ = false;
    if (hasRun_ || isRunning() || !isVisible()) return;
    const int gpus = editor_->project().world_size();
    if (gpus > kAutoRunMaxGpus) {
        summary_->setText(tr("%1 GPUs: press Plan (F5) to search this cluster's layouts.").arg(gpus));
        return;
    }
    // The open state's analysis first (its analysisReady brings refresh(), which comes back here).
    if (!editor_->analysisCurrent()) {
        autoRunPending_ = true;
        return;
    }
    run();
}
