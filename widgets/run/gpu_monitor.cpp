#include <qcustomplot.h>   // first: it needs the signal/slot keywords

#include "run/gpu_monitor.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace paraplan::widgets {

namespace {
QString num(const std::optional<double>& v, int decimals = 0) {
    return v ? QString::number(*v, 'f', decimals) : QStringLiteral("n/a");
}
}   // namespace

GpuMonitor::GpuMonitor(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    status_ = new QLabel(tr("No job is being monitored."), this);
    status_->setWordWrap(true);
    table_ = new QTableWidget(0, 8, this);
    table_->setHorizontalHeaderLabels(
        {tr("Node"), tr("GPU"), tr("Rank"), tr("Util %"), tr("Memory MiB"), tr("Temp °C"), tr("Power W"), tr("Age s")});
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    plot_ = new QCustomPlot(this);
    plot_->setMinimumHeight(160);
    plot_->xAxis->setLabel(tr("time (s)"));
    plot_->yAxis->setLabel(tr("utilisation %"));
    plot_->yAxis->setRange(0, 100);
    plot_->setNotAntialiasedElements(QCP::aeAll);
    layout->addWidget(status_);
    layout->addWidget(table_, 1);
    layout->addWidget(plot_, 1);
    timer_ = new QTimer(this);
    timer_->setInterval(500);
    connect(timer_, &QTimer::timeout, this, &GpuMonitor::refresh);
}

void GpuMonitor::setMonitor(runtime::TelemetryMonitor* monitor, const Cluster& cluster, double window_s) {
    monitor_ = monitor;
    cluster_ = cluster;
    window_s_ = window_s;
    if (monitor_) timer_->start();
    else timer_->stop();
    refresh();
}

int GpuMonitor::rowCount() const { return table_->rowCount(); }
int GpuMonitor::graphCount() const { return plot_->graphCount(); }

void GpuMonitor::refresh() {
    if (!monitor_) {
        table_->setRowCount(0);
        plot_->clearGraphs();
        plot_->replot(QCustomPlot::rpQueuedReplot);
        status_->setText(tr("No job is being monitored."));
        return;
    }
    const auto& store = monitor_->store();
    const double now = monitor_->now_s();
    QStringList state;
    for (std::size_t n = 0; n < monitor_->status().size() && n < cluster_.nodes.size(); ++n) {
        const auto& st = monitor_->status()[n];
        QString s = QString::fromStdString(cluster_.nodes[n].name) + ": ";
        switch (st.state) {
        case runtime::TelemetryMonitor::NodeState::Connecting: s += tr("connecting…"); break;
        case runtime::TelemetryMonitor::NodeState::Streaming:
            s += st.last_sample_s >= 0 && now - st.last_sample_s > 5 ? tr("stale") : tr("streaming");
            break;
        case runtime::TelemetryMonitor::NodeState::Failed: s += QString::fromStdString(st.message); break;
        case runtime::TelemetryMonitor::NodeState::Ended: s += tr("ended"); break;
        }
        state << s;
    }
    for (const auto& f : store.flags(std::nullopt)) state << QString::fromStdString(f.message);
    status_->setText(state.join(QStringLiteral(" · ")));

    table_->setRowCount(static_cast<int>(store.series().size()));
    if (plot_->graphCount() != static_cast<int>(store.series().size())) {
        plot_->clearGraphs();
        for (int i = 0; i < static_cast<int>(store.series().size()); ++i) {
            plot_->addGraph();
            plot_->graph(i)->setPen(QPen(QColor::fromHsv((i * 47) % 360, 200, 200)));
        }
    }
    int row = 0;
    for (const auto& [key, s] : store.series()) {
        if (s.samples.empty()) continue;
        const auto& g = s.samples.back().second;
        const QStringList cells{QString::fromStdString(cluster_.nodes[static_cast<std::size_t>(s.node)].name),
                                QString::number(g.index),
                                s.rank >= 0 ? QString::number(s.rank) : QStringLiteral("-"),
                                num(g.utilization_gpu),
                                num(g.memory_used_mib) + " / " + num(g.memory_total_mib),
                                num(g.temperature_gpu),
                                num(g.power_draw_w, 1),
                                QString::number(now - s.samples.back().first, 'f', 1)};
        for (int c = 0; c < cells.size(); ++c) table_->setItem(row, c, new QTableWidgetItem(cells[c]));
        QVector<double> t, u;
        for (const auto& [ts, sample] : s.samples) {
            if (now - ts > window_s_) continue;
            t << ts;
            u << (sample.utilization_gpu ? *sample.utilization_gpu : qQNaN());
        }
        plot_->graph(row)->setData(t, u, true);
        plot_->graph(row)->setName(cells[0] + ":" + cells[1]);
        ++row;
    }
    plot_->xAxis->setRange(std::max(0.0, now - window_s_), std::max(now, 1.0));
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

}   // namespace paraplan::widgets
