#pragma once
// Running the probe (resources/probe/paraplan_probe.py) as a job: the script and the
// layout JSON (`paraplan-cli groups --json` shape) are uploaded to every node over ssh into a
// private folder made for the run (probe/probe_launch.h), then launched like any training
// script; rank 0 prints the result line. The CLI and the Run panel both go through here.
#include "probe/probe_launch.h"
#include "project/cluster.h"
#include "runtime/ssh_node.h"

#include <string>

namespace paraplan::runtime {

// Writes the probe script and layout.json into remote_dir (a folder of the user's own, made by
// prepare_probe) on the node. Returns "" on success, else the error.
std::string upload_probe(const SshNode& node, const std::string& remote_dir, const std::string& layout_json,
                         int timeout_ms = 60000);

struct ProbeFolder {
    std::string dir;            // the remote folder, the same path on every node
    std::string error;          // "" when every node holds the files
    bool unreachable = false;   // a node could not be reached (ssh_error.h is_unreachable)
};

// Blocking: connects to each node in turn (bounded by connect_timeout_ms), makes the private
// folder (mktemp on the first node, an exclusive claim of the same name on the others) and
// uploads the files. On an error the folders already made are removed.
ProbeFolder prepare_probe(const Cluster& cluster, const SshOptions& ssh, const std::string& layout_json,
                          int connect_timeout_ms);

// Removes the run's folder from every node (best effort, bounded by timeout_ms per node).
void remove_probe_folder(const Cluster& cluster, const SshOptions& ssh, const std::string& dir, int timeout_ms = 20000);

// The same without waiting (for the GUI thread): one detached ssh per node, bounded by ssh's
// own ConnectTimeout and BatchMode; nothing is left for the caller to wait on.
void remove_probe_folder_detached(const Cluster& cluster, const SshOptions& ssh, const std::string& dir);

}   // namespace paraplan::runtime
