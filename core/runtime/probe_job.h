#pragma once
// Running the probe (resources/probe/paraplan_probe.py) as a job: the script and the
// layout JSON (`paraplan-cli groups --json` shape) are uploaded to every node over ssh,
// then launched like any training script; rank 0 prints the result line. The Qt-free half
// (remote folder, runtime settings, reading the result from a log) is probe/probe_launch.h.
#include "probe/probe_launch.h"
#include "project/cluster.h"
#include "runtime/ssh_node.h"

#include <string>

namespace paraplan::runtime {

// Writes the probe script and layout.json into remote_dir on the node. Returns "" on
// success, else the error.
std::string upload_probe(const SshNode& node, const std::string& remote_dir, const std::string& layout_json,
                         int timeout_ms = 60000);

}   // namespace paraplan::runtime
