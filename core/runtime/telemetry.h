#pragma once
// Live GPU telemetry: one long-lived `nvidia-smi ... -lms <ms>` per node (for AMD GPUs a
// `rocm-smi --json` loop) over the node's shared ssh connection, parsed into a TelemetryStore.
#include "project/cluster.h"
#include "joblog/line_buffer.h"
#include "runtime/ssh_node.h"
#include "runtime/telemetry_store.h"

#include <QElapsedTimer>
#include <QObject>
#include <QProcess>

#include <memory>
#include <string>
#include <vector>

namespace paraplan::runtime {

// Which tool reads a node's GPUs: nvidia-smi, or rocm-smi for AMD GPUs (the catalog's vendor).
enum class SmiTool { Nvidia, Rocm };
SmiTool smi_tool_for(const Node& node);
const char* smi_tool_name(SmiTool tool);

// The remote text that streams the node's tool (PATH prefixes first): `nvidia-smi ... -lms`,
// or a loop of `rocm-smi ... --json` each followed by kRocmSmiEndMarker. `once`: one reading.
std::string telemetry_command(int interval_ms, const std::vector<std::string>& path_prepend, bool once = false,
                              SmiTool tool = SmiTool::Nvidia);

// Turns one node's output lines into samples: nvidia-smi lines one by one, rocm-smi JSON
// documents whole (at their end marker). Unreadable output becomes a note in the store.
class SmiStreamParser {
public:
    explicit SmiStreamParser(SmiTool tool = SmiTool::Nvidia) : tool_(tool) {}
    void line(TelemetryStore& store, int node, const std::string& line, double t);

private:
    SmiTool tool_;
    std::string doc_;
};

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
