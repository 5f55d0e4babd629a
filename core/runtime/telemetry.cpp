#include "runtime/telemetry.h"

#include "runtime/process_closer.h"

namespace paraplan::runtime {

TelemetryMonitor::TelemetryMonitor(const Cluster& cluster, SshOptions ssh, int interval_ms,
                                   std::vector<std::string> path_prepend, QObject* parent)
    : QObject(parent),
      cluster_(cluster),
      ssh_(std::move(ssh)),
      interval_ms_(interval_ms),
      path_prepend_(std::move(path_prepend)),
      store_(cluster) {
    clock_.start();
}

TelemetryMonitor::~TelemetryMonitor() { stop(); }

double TelemetryMonitor::now_s() const { return static_cast<double>(clock_.elapsed()) / 1000.0; }

void TelemetryMonitor::start() {
    const std::size_t n = cluster_.nodes.size();
    status_.assign(n, {});
    buffers_.assign(n, {});
    procs_.assign(n, nullptr);
    parsers_.clear();
    for (const auto& node : cluster_.nodes) parsers_.emplace_back(smi_tool_for(cluster_, node));
    nodes_.clear();
    for (std::size_t i = 0; i < n; ++i) {
        nodes_.push_back(std::make_unique<SshNode>(ssh_target(cluster_.nodes[i]), ssh_));
        SshNode* node = nodes_.back().get();
        const int idx = static_cast<int>(i);
        connect(node, &SshNode::failed, this, [this, idx, node] {
            status_[static_cast<std::size_t>(idx)] = {NodeState::Failed, node->error().message, -1};
            emit nodeStateChanged(idx);
        });
        connect(node, &SshNode::connected, this, [this, idx, node] {
            const SmiTool tool = smi_tool_for(cluster_, cluster_.nodes[static_cast<std::size_t>(idx)]);
            QProcess* p = node->start(telemetry_command(interval_ms_, path_prepend_, false, tool), this);
            procs_[static_cast<std::size_t>(idx)] = p;
            status_[static_cast<std::size_t>(idx)].state = NodeState::Streaming;
            emit nodeStateChanged(idx);
            connect(p, &QProcess::readyReadStandardOutput, this, [this, idx, p] {
                const QByteArray d = p->readAllStandardOutput();
                for (const auto& l : buffers_[static_cast<std::size_t>(idx)].append(
                         std::string_view(d.constData(), static_cast<std::size_t>(d.size()))))
                    on_line(idx, l);
                emit sampled(idx);
            });
            connect(p, &QProcess::finished, this, [this, idx, p](int code, QProcess::ExitStatus) {
                const std::string err = p->readAllStandardError().toStdString();
                auto& st = status_[static_cast<std::size_t>(idx)];
                st.state = code == 0 ? NodeState::Ended : NodeState::Failed;
                const auto& nd = cluster_.nodes[static_cast<std::size_t>(idx)];
                st.message = code == 127
                                 ? std::string(smi_tool_name(smi_tool_for(cluster_, nd))) + " not found on " + nd.name
                                 : classify_ssh_failure(nd.name, code, err, {nd.port, ssh_.known_hosts_file}).message;
                emit nodeStateChanged(idx);
            });
        });
        node->connectToHost();
    }
}

void TelemetryMonitor::on_line(int node, const std::string& line) {
    parsers_[static_cast<std::size_t>(node)].line(store_, node, line, now_s());
    status_[static_cast<std::size_t>(node)].last_sample_s = now_s();
}

void TelemetryMonitor::stop() {
    for (QProcess* p : procs_) {
        if (!p) continue;
        p->disconnect(this);
        p->closeWriteChannel();
        // TERM now, KILL after 3 s, on the event loop: a monitor of many nodes stops at once.
        CloseLater how;
        if (close_later(p, how)) continue;
        p->terminate();
        if (!p->waitForFinished(3000)) {
            p->kill();
            p->waitForFinished(2000);
        }
    }
    procs_.clear();
    for (auto& n : nodes_) n->disconnectFromHost();
    nodes_.clear();
}

}   // namespace paraplan::runtime
