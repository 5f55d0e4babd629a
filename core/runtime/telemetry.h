#pragma once
// Live GPU telemetry: one long-lived `nvidia-smi ... -lms <ms>` per node (for AMD GPUs a
// `rocm-smi --json` loop) over the node's shared ssh connection, parsed into a TelemetryStore
// (the command and the parser are Qt-free: telemetry/smi_tool.h, telemetry/smi_stream.h).
#include "project/cluster.h"
#include "joblog/line_buffer.h"
#include "runtime/ssh_node.h"
#include "telemetry/smi_stream.h"
#include "telemetry/smi_tool.h"
#include "telemetry/telemetry_store.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>

#include <memory>
#include <string>
#include <vector>

namespace paraplan::runtime {

class TelemetryMonitor : public QObject {
    Q_OBJECT
public:
    enum class NodeState { Connecting, Streaming, Failed, Ended };
    struct NodeStatus {
        NodeState state = NodeState::Connecting;
        std::string message;   // why failed/ended
        double last_sample_s = -1;
    };

    TelemetryMonitor(const Cluster& cluster, SshOptions ssh, int interval_ms,
                     std::vector<std::string> path_prepend = {}, QObject* parent = nullptr);
    ~TelemetryMonitor() override;

    void start();
    void stop();

    const TelemetryStore& store() const { return store_; }
    const std::vector<NodeStatus>& status() const { return status_; }
    double now_s() const;

signals:
    void sampled(int node);   // new lines parsed for node
    void nodeStateChanged(int node);

private:
    void on_line(int node, const std::string& line);

    Cluster cluster_;
    SshOptions ssh_;
    int interval_ms_;
    std::vector<std::string> path_prepend_;
    TelemetryStore store_;
    std::vector<std::unique_ptr<SshNode>> nodes_;
    std::vector<QProcess*> procs_;
    std::vector<LineBuffer> buffers_;
    std::vector<SmiStreamParser> parsers_;
    std::vector<NodeStatus> status_;
    QElapsedTimer clock_;
};

}   // namespace paraplan::runtime
