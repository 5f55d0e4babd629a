#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "plan/compareview.h"

#include "estimate/memory.h"
#include "views/ganttplottable.h"
#include "document/project_load.h"
#include "document/projecteditor.h"
#include "common/theme.h"
#include "util/input_error.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

using paraplan::estimate::Estimate;
using paraplan::estimate::kGiB;

namespace {

struct Figure {
    QString id, title;
    int best = 0;   // -1 lower is better, +1 higher is better, 0 neither
};

QString num(double v, int prec) { return QString::number(v, 'f', prec); }

}   // namespace

CompareView::CompareView(ProjectEditor* editor, QWidget* parent)
    : QWidget(parent),
      editor_(editor),
      hint_(new QLabel(this)),
      table_(new QTableWidget(this)),
      diffs_(new QTreeWidget(this)),
      plot_(new QCustomPlot(this)),
      addCurrent_(new QPushButton(tr("Add open project"), this)),
      addFile_(new QPushButton(tr("Add file…"), this)),
      clear_(new QPushButton(tr("Clear"), this)) {
    setObjectName(QStringLiteral("compareView"));
    table_->setObjectName(QStringLiteral("compareTable"));
    diffs_->setObjectName(QStringLiteral("compareDifferences"));
    plot_->setObjectName(QStringLiteral("compareTimelines"));
    addCurrent_->setObjectName(QStringLiteral("compareAddCurrent"));
    addFile_->setObjectName(QStringLiteral("compareAddFile"));
    clear_->setObjectName(QStringLiteral("compareClear"));
    hint_->setWordWrap(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
    diffs_->setHeaderLabels({tr("Against the first"), tr("Before"), tr("After")});
    diffs_->setRootIsDecorated(true);
    plot_->setMinimumHeight(160);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(addCurrent_);
    buttons->addWidget(addFile_);
    buttons->addWidget(clear_);
    buttons->addStretch(1);
    auto* split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(table_);
    auto* right = new QSplitter(Qt::Vertical, split);
    right->addWidget(diffs_);
    right->addWidget(plot_);
    split->addWidget(right);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(4, 4, 4, 4);
    lay->addLayout(buttons);
    lay->addWidget(hint_);
    lay->addWidget(split, 1);

    connect(addCurrent_, &QPushButton::clicked, this, &CompareView::addCurrentProject);
    connect(addFile_, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Add a project to compare"), QString(),
                                                          tr("Paraplan projects (*.paraplan.json *.json)"));
        if (!path.isEmpty()) addFileInBackground(path);
    });
    connect(clear_, &QPushButton::clicked, this, &CompareView::clear);
    recompute();
}

void CompareView::addProject(const QString& name, const paraplan::Project& p) {
    if (count() >= kMaxCandidates) {
        hint_->setText(tr("At most %1 layouts side by side.").arg(kMaxCandidates));
        return;
    }
    QString unique = name;
    for (int i = 2; std::find(names_.begin(), names_.end(), unique) != names_.end(); ++i)
        unique = QStringLiteral("%1 (%2)").arg(name).arg(i);
    names_.push_back(unique);
    projects_.push_back(p);
    recompute();
}

void CompareView::addCurrentProject() {
    const auto& p = editor_->project();
    const auto& l = p.layout;
    QString name = QStringLiteral("tp%1 pp%2").arg(l.tp).arg(l.pp);
    if (l.ep > 1) name += QStringLiteral(" ep%1").arg(l.ep);
    if (l.cp > 1) name += QStringLiteral(" cp%1").arg(l.cp);
    if (l.sp > 1) name += QStringLiteral(" sp%1").arg(l.sp);
    name += QStringLiteral(" %1").arg(QLatin1String(paraplan::to_string(l.schedule)));
    addProject(name, p);
}

bool CompareView::addFile(const QString& path, QString* error) {
    try {
        addProject(QFileInfo(path).fileName(), paraplan::load_project(path.toStdString()));
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

bool CompareView::addFileInBackground(const QString& path) {
    if (load_) return false;
    const QString name = QFileInfo(path).fileName();
    load_ = new ProjectLoad(path, window(), this);
    addFile_->setEnabled(false);
    hint_->setText(tr("Reading %1…").arg(name));
    connect(load_, &ProjectLoad::loaded, this, [this, name](const paraplan::Project& p) {
        hint_->clear();
        addProject(name, p);
    });
    connect(load_, &ProjectLoad::failed, hint_, &QLabel::setText);
    connect(load_, &ProjectLoad::cancelled, this,
            [this, name] { hint_->setText(tr("Did not add %1: cancelled").arg(name)); });
    connect(load_, &ProjectLoad::finished, this, [this] {
        addFile_->setEnabled(true);
        load_->deleteLater();
        load_ = nullptr;
    });
    return true;
}

QString CompareView::hint() const { return hint_->text(); }

void CompareView::removeCandidate(int index) {
    if (index < 0 || index >= count()) return;
    names_.erase(names_.begin() + index);
    projects_.erase(projects_.begin() + index);
    recompute();
}

void CompareView::clear() {
    names_.clear();
    projects_.clear();
    recompute();
}

double CompareView::stepSpan(int i) const {
    if (i < 0 || i >= int(timelines_.size()) || !timelines_[std::size_t(i)]) return 0;
    const auto& sf = steps_[std::size_t(i)];
    return sf.flushes * timelines_[std::size_t(i)]->makespan + sf.syncs * sf.sync_s;
}

double CompareView::timeAxisUpper() const {
    double upper = 0;
    for (int i = 0; i < int(timelines_.size()); ++i) upper = std::max(upper, stepSpan(i));
    return upper;
}

QString CompareView::cellText(const QString& figure, int candidate) const {
    for (int r = 0; r < table_->rowCount(); ++r)
        if (auto* h = table_->verticalHeaderItem(r); h && h->data(Qt::UserRole).toString() == figure)
            return table_->item(r, candidate) ? table_->item(r, candidate)->text() : QString();
    return {};
}

void CompareView::recompute() {
    cmp_ = {};
    timelines_.clear();
    steps_.clear();
    if (!projects_.empty()) {
        std::vector<std::pair<std::string, paraplan::Project>> in;
        for (std::size_t i = 0; i < projects_.size(); ++i) in.emplace_back(names_[i].toStdString(), projects_[i]);
        cmp_ = paraplan::compare::compare_projects(in);
        for (const auto& e : cmp_.entries) {
            timelines_.push_back(e.report.estimate ? paraplan::compare::step_timeline(*e.report.estimate)
                                                   : std::nullopt);
            // The flush simulated is the estimate's (the same schedule and costs): its step repeats it.
            steps_.push_back(e.report.estimate && timelines_.back()
                                 ? paraplan::estimate::step_flushes(*e.report.estimate)
                                 : paraplan::estimate::StepFlushes{});
        }
    }
    hint_->setText(count() < 2 ? tr("Add two or more layouts: the open project (after each change you want to keep), "
                                    "project files, or rows of the Planner (select rows, then Compare).")
                               : tr("%1 layouts; differences are against the first. Figures from the same estimate as "
                                    "the Memory and time view and paraplan-cli compare.")
                                     .arg(count()));
    clear_->setEnabled(count() > 0);
    addCurrent_->setEnabled(count() < kMaxCandidates);
    fillTable();
    fillDifferences();
    fillTimelines();
    emit changed();
}

void CompareView::fillTable() {
    std::vector<Figure> figs = {{"gpus", tr("GPUs")}, {"layout", tr("Layout")}, {"fits", tr("Fits in memory")}};
    std::size_t stages = 0;
    for (const auto& e : cmp_.entries)
        if (e.report.estimate) stages = std::max(stages, e.report.estimate->memory.stages.size());
    for (std::size_t s = 0; s < stages; ++s)
        figs.push_back({QStringLiteral("memory_stage_%1").arg(s), tr("Memory, stage %1 (GiB)").arg(s), -1});
    const std::vector<Figure> rest = {{"peak_gib", tr("Peak memory (GiB)"), -1},
                                      {"step_s", tr("Step time (s)"), -1},
                                      {"compute_s", tr("  compute (s)")},
                                      {"bubble_s", tr("  bubble (s)"), -1},
                                      {"comm_tp_s", tr("  TP comm (s)")},
                                      {"comm_cp_s", tr("  CP comm (s)")},
                                      {"comm_ep_s", tr("  EP comm (s)")},
                                      {"comm_pp_s", tr("  PP comm (s)")},
                                      {"comm_dp_s", tr("  DP comm (s)")},
                                      {"optimizer_s", tr("  optimizer (s)")},
                                      {"mfu", tr("MFU (%)"), +1},
                                      {"tokens_per_s", tr("Tokens/s"), +1},
                                      {"time_to_train_days", tr("Time to train (days)"), -1}};
    figs.insert(figs.end(), rest.begin(), rest.end());

    table_->clear();
    table_->setColumnCount(count());
    table_->setRowCount(int(figs.size()));
    QStringList headers;
    for (const auto& n : names_) headers << n;
    table_->setHorizontalHeaderLabels(headers);
    const QPalette pal = palette();
    for (int r = 0; r < int(figs.size()); ++r) {
        auto* h = new QTableWidgetItem(figs[std::size_t(r)].title);
        h->setData(Qt::UserRole, figs[std::size_t(r)].id);
        table_->setVerticalHeaderItem(r, h);
        std::vector<double> values(cmp_.entries.size(), 0);
        std::vector<bool> has(cmp_.entries.size(), false);
        for (int c = 0; c < int(cmp_.entries.size()); ++c) {
            const auto& entry = cmp_.entries[std::size_t(c)];
            const QString& id = figs[std::size_t(r)].id;
            QString text;
            const auto& p = entry.project;
            if (id == QLatin1String("gpus")) text = QString::number(p.world_size());
            else if (id == QLatin1String("layout"))
                text = QStringLiteral("%1 · tp %2 · pp %3 · dp %4%5 · ZeRO %6")
                           .arg(QString::fromStdString(p.layout.framework))
                           .arg(p.layout.tp)
                           .arg(p.layout.pp)
                           .arg(entry.report.estimate ? entry.report.estimate->config.dp : 0)
                           .arg(p.layout.ep > 1 ? QStringLiteral(" · ep %1").arg(p.layout.ep) : QString())
                           .arg(p.layout.zero_stage);
            else if (!entry.report.estimate)
                text = id == QLatin1String("fits")
                           ? tr("cannot estimate: %1")
                                 .arg(QString::fromStdString(entry.report.error ? entry.report.error->message : ""))
                           : QStringLiteral("–");
            else {
                const Estimate& e = *entry.report.estimate;
                const auto& t = e.time;
                double v = 0;
                int prec = 3;
                if (id == QLatin1String("fits")) text = e.memory.fits ? tr("yes") : tr("no");
                else if (id.startsWith(QLatin1String("memory_stage_"))) {
                    const std::size_t s = id.mid(13).toUInt();
                    if (s < e.memory.stages.size()) {
                        v = e.memory.stages[s].total() / kGiB;
                        prec = 2;
                    } else {
                        text = QStringLiteral("–");
                    }
                } else if (id == QLatin1String("peak_gib")) {
                    v = e.memory.peak_bytes / kGiB;
                    prec = 2;
                } else if (id == QLatin1String("step_s")) v = t.step_s;
                else if (id == QLatin1String("compute_s")) v = t.compute_s;
                else if (id == QLatin1String("bubble_s")) v = t.bubble_s;
                else if (id == QLatin1String("comm_tp_s")) v = t.comm_tp_s;
                else if (id == QLatin1String("comm_cp_s")) v = t.comm_cp_s;
                else if (id == QLatin1String("comm_ep_s")) v = t.comm_ep_s;
                else if (id == QLatin1String("comm_pp_s")) v = t.comm_pp_s;
                else if (id == QLatin1String("comm_dp_s")) v = t.comm_dp_s;
                else if (id == QLatin1String("optimizer_s")) v = t.optimizer_s;
                else if (id == QLatin1String("mfu")) {
                    v = 100 * t.mfu;
                    prec = 1;
                } else if (id == QLatin1String("tokens_per_s")) {
                    v = t.tokens_per_s;
                    prec = 0;
                } else if (id == QLatin1String("time_to_train_days")) {
                    if (e.time_to_train_s > 0) {
                        v = e.time_to_train_s / 86400;
                        prec = 1;
                    } else text = QStringLiteral("–");
                }
                if (text.isEmpty()) {
                    text = num(v, prec);
                    values[std::size_t(c)] = v;
                    has[std::size_t(c)] = true;
                }
            }
            auto* item = new QTableWidgetItem(text);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            if (figs[std::size_t(r)].id == QLatin1String("fits") && text != tr("yes"))
                item->setForeground(theme::errorColor(pal));
            table_->setItem(r, c, item);
        }
        // The best candidate of a figure in bold (only where two or more have a value).
        const int best = figs[std::size_t(r)].best;
        if (best != 0 && std::count(has.begin(), has.end(), true) >= 2) {
            int bi = -1;
            for (int c = 0; c < int(values.size()); ++c)
                if (has[std::size_t(c)] && (bi < 0 || (best < 0 ? values[std::size_t(c)] < values[std::size_t(bi)]
                                                                : values[std::size_t(c)] > values[std::size_t(bi)])))
                    bi = c;
            if (bi >= 0) {
                QFont f = table_->item(r, bi)->font();
                f.setBold(true);
                table_->item(r, bi)->setFont(f);
            }
        }
    }
    table_->resizeColumnsToContents();
}

void CompareView::fillDifferences() {
    diffs_->clear();
    auto groupText = [](const std::optional<paraplan::topology::GroupSummary>& s) {
        if (!s) return QStringLiteral("–");
        return QObject::tr("%1 × %2, %3 crossing nodes")
            .arg(s->num_groups)
            .arg(s->group_size)
            .arg(s->groups_crossing_nodes);
    };
    for (std::size_t i = 0; i < cmp_.differences.size(); ++i) {
        const auto& d = cmp_.differences[i];
        auto* top = new QTreeWidgetItem(diffs_, {QString::fromStdString(d.file)});
        top->setFirstColumnSpanned(true);
        for (const auto& k : d.knobs)
            new QTreeWidgetItem(top, {QString::fromStdString(k.field), QString::fromStdString(k.from.dump()),
                                      QString::fromStdString(k.to.dump())});
        const auto changed = d.changed_groups();
        if (changed.empty()) new QTreeWidgetItem(top, {tr("process groups: the same")});
        for (const auto* g : changed) {
            QString what = tr("%1 group %2").arg(QString::fromStdString(g->kind), QString::fromStdString(g->change));
            if (g->now_crosses_nodes) what += tr(" — now crosses nodes");
            if (g->no_longer_crosses_nodes) what += tr(" — no longer crosses nodes");
            auto* it = new QTreeWidgetItem(top, {what, groupText(g->before), groupText(g->after)});
            it->setData(0, Qt::UserRole, QString::fromStdString(g->kind));
            if (g->now_crosses_nodes) it->setForeground(0, theme::warningColor(palette()));
        }
        top->setExpanded(true);
    }
    diffs_->resizeColumnToContents(0);
}

void CompareView::fillTimelines() {
    plot_->clearPlottables();
    plot_->plotLayout()->clear();
    const double upper = timeAxisUpper();
    const QPalette pal = palette();
    plot_->setBackground(pal.color(QPalette::Base));
    int row = 0;
    std::vector<QCPAxisRect*> rects;
    for (std::size_t i = 0; i < timelines_.size(); ++i) {
        auto* title = new QCPTextElement(plot_, names_[i] + (timelines_[i] ? QString() : tr(" (no timeline)")));
        title->setTextColor(pal.color(QPalette::WindowText));
        plot_->plotLayout()->addElement(row++, 0, title);
        auto* rect = new QCPAxisRect(plot_);
        plot_->plotLayout()->addElement(row++, 0, rect);
        rects.push_back(rect);
        QCPAxis* x = rect->axis(QCPAxis::atBottom);
        QCPAxis* y = rect->axis(QCPAxis::atLeft);
        for (QCPAxis* a : {x, y}) {
            a->setBasePen(QPen(pal.color(QPalette::WindowText)));
            a->setTickPen(QPen(pal.color(QPalette::WindowText)));
            a->setTickLabelColor(pal.color(QPalette::WindowText));
            a->setLabelColor(pal.color(QPalette::WindowText));
        }
        x->setLabel(tr("seconds"));
        y->setLabel(tr("stage"));
        y->setRangeReversed(true);
        QSharedPointer<QCPAxisTickerFixed> stages(new QCPAxisTickerFixed);
        stages->setTickStep(1.0);
        stages->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
        y->setTicker(stages);
        if (timelines_[i]) {
            auto* g = new GanttPlottable(x, y);
            g->setTimeline(&*timelines_[i]);
            const auto& sf = steps_[i];
            GanttPlottable::Flushes fl;   // the one flush drawn k times, seconds
            fl.count = sf.flushes;
            fl.sync = sf.sync_s;
            fl.sync_each_flush = sf.sync_each_flush;
            g->setFlushes(fl);
            y->setRange(fl.count > 1 ? -1.0 : -0.5, timelines_[i]->pp - 0.5);   // room for the flush labels
        }
        // One time axis: every candidate on the same scale, 0 to the slowest step's flushes and
        // reductions (the optimizer is not drawn, as in the Timeline view).
        x->setRange(0, upper > 0 ? upper * 1.02 : 1);
    }
    for (std::size_t i = 1; i < rects.size(); ++i)
        connect(rects[0]->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
                rects[i]->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::setRange));
    if (!rects.empty()) {
        rects[0]->setRangeDrag(Qt::Horizontal);
        rects[0]->setRangeZoom(Qt::Horizontal);
        plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    }
    plot_->setMinimumHeight(std::max(160, 120 * int(rects.size())));
    plot_->replot();
}
