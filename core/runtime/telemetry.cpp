#include "runtime/telemetry.h"

#include "catalog/catalog.h"
#include "telemetry/rocm_smi.h"
#include "shell/shell_quote.h"

#include <cstdio>

namespace paraplan::runtime {

SmiTool smi_tool_for(const Node& node) {
    const GpuSpec* g = catalog::find_gpu(node.gpu);
    return g && g->vendor == "amd" ? SmiTool::Rocm : SmiTool::Nvidia;
}

const char* smi_tool_name(SmiTool tool) { return tool == SmiTool::Rocm ? "rocm-smi" : "nvidia-smi"; }

std::string telemetry_command(int interval_ms, const std::vector<std::string>& path_prepend, bool once, SmiTool tool) {
    std::string s;
    if (!path_prepend.empty()) {
        std::string path;
        for (const auto& d : path_prepend) path += sh_quote(d) + ":";
        s += "PATH=" + path + "\"$PATH\"; export PATH\n";
    }
    if (once) {
        // One reading, in its own process group, under a watchdog on the channel's stdin:
        // closing it (a timeout here) ends the tool on the node, so a hung nvidia-smi is
        // never left behind. The status is the tool's (127 when it is missing).
        std::string one;
        if (tool == SmiTool::Rocm) {
            std::vector<std::string> argv{"rocm-smi"};
            for (auto& a : rocm_smi_args()) argv.push_back(a);
            one = sh_join(argv) + " || exit $?; echo; echo " + kRocmSmiEndMarker;
        } else {
            auto argv = nvidia_smi_argv(interval_ms);
            argv.resize(3);
            one = "exec " + sh_join(argv);
        }
        s += "command -v " + std::string(smi_tool_name(tool)) + " >/dev/null 2>&1 || exit 127\n";
        s += "exec 3<&0\n";
        s += "setsid /bin/sh -c " + sh_quote(one) + " </dev/null 3<&- &\n";
        s += "p=$!\n";
        s += "{ cat >/dev/null; kill -TERM -$p; sleep 1; kill -KILL -$p; } <&3 3<&- >/dev/null 2>&1 &\n";
        s += "w=$!\n";
        s += "exec 3<&-\n";
        s += "wait $p; rc=$?\n";
        s += "kill $w 2>/dev/null\n";
        s += "exit $rc\n";
        return remote_sh(s);
    }
    if (tool == SmiTool::Rocm) {
        // rocm-smi has no streaming mode: a loop, each reading ended by the marker; a missing
        // tool ends the loop with its status (127). The loop ends with the channel (SIGPIPE/HUP).
        std::vector<std::string> argv{"rocm-smi"};
        for (auto& a : rocm_smi_args()) argv.push_back(a);
        const std::string one = sh_join(argv) + " || exit $?; echo; echo " + kRocmSmiEndMarker;
        char sleep_s[32];
        std::snprintf(sleep_s, sizeof sleep_s, "%.3f", interval_ms / 1000.0);
        return remote_sh(s + "while :; do " + one + "; sleep " + sleep_s + " || exit 0; done\n");
    }
    auto argv = nvidia_smi_argv(interval_ms);
    // exec: closing the channel ends nvidia-smi with it.
    s += "exec " + sh_join(argv) + "\n";
    return remote_sh(s);
}

void SmiStreamParser::line(TelemetryStore& store, int node, const std::string& line, double t) {
    if (tool_ == SmiTool::Nvidia) {
        store.ingest(node, line, t);
        return;
    }
    if (line != kRocmSmiEndMarker) {
        if (doc_.size() < (1u << 20)) doc_ += line + "\n";   // a reading is a few KiB
        return;
    }
    const RocmSmiParse r = parse_rocm_smi_json(doc_);
    doc_.clear();
    for (const auto& s : r.samples) store.ingest_sample(node, s, t);
    for (const auto& e : r.errors) store.note(node, e);
}

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
    for (const auto& node : cluster_.nodes) parsers_.emplace_back(smi_tool_for(node));
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
            const SmiTool tool = smi_tool_for(cluster_.nodes[static_cast<std::size_t>(idx)]);
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
                                 ? std::string(smi_tool_name(smi_tool_for(nd))) + " not found on " + nd.name
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
