#pragma once
// "Test connection" for every node of a cluster: reachable over ssh (host key, key,
// network), GPUs seen by nvidia-smi -L (or none), python3 and the launcher present.
#include "project/cluster.h"
#include "launch/runtime_config.h"
#include "runtime/ssh_node.h"
#include "launch/launch_settings.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace paraplan::runtime {

struct NodeCheck {
    std::string node;
    std::string host;
    bool reachable = false;
    SshError error;         // why not reachable
    std::string hostname;   // remote `hostname`
    bool nvidia_smi = false;
    std::vector<std::string> gpus;   // nvidia-smi -L lines
    int planned_gpus = 0;
    std::string python;          // "Python 3.11.2" or "" when missing
    std::string launcher;        // program checked (python, torchrun, ...)
    std::string launcher_path;   // "" when missing
    double seconds = 0;
    std::vector<std::string> problems;   // one line each, empty when all is well

    bool ok() const { return reachable && problems.empty(); }
};

// How long the check waits for `nvidia-smi -L` on a node before it reports it hung.
inline constexpr int kSmiCheckTimeoutS = 10;

// The remote sh script of the check (prints marker lines).
std::string check_script(const RuntimeConfig& rc);
// Parses the script's output into `c`.
void parse_check_output(const std::string& out, NodeCheck& c);

// Connects to each node (in parallel) and runs the check; blocking, bounded by
// timeout_ms per node.
std::vector<NodeCheck> test_connections(const Cluster& cluster, const RuntimeConfig& rc, const SshOptions& ssh,
                                        int timeout_ms = 30000);

nlohmann::json to_json(const NodeCheck& c);
}   // namespace paraplan::runtime
