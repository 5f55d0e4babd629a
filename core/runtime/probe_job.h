#pragma once
// Running the probe (resources/probe/paraplan_probe.py) as a job: the script and the
// layout JSON (`paraplan-cli groups --json` shape) are uploaded to every node over ssh,
// then launched like any training script; rank 0 prints the result line.
#include "project/cluster.h"
#include "probe/probe_result.h"
#include "launch/runtime_config.h"
#include "runtime/ssh_node.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan::runtime {

// Remote folder for one probe run: /tmp/paraplan-probe-<job id>.
std::string probe_remote_dir(const std::string& job_id);

// The embedded probe script (throws std::runtime_error if the build lacks it).
std::string probe_script_text();

// Writes the probe script and layout.json into remote_dir on the node. Returns "" on
// success, else the error.
std::string upload_probe(const SshNode& node, const std::string& remote_dir, const std::string& layout_json,
                         int timeout_ms = 60000);

// The runtime settings that launch the uploaded probe (mode forced to "direct" unless
// "torchrun"; script/args replaced; the rest of `base` kept).
RuntimeConfig probe_runtime(const RuntimeConfig& base, const std::string& remote_dir,
                            const std::vector<std::string>& extra_args = {});

// The probe result printed in a log (rank-0.log), or nullopt. Throws InputError if the
// line is there but malformed.
std::optional<ProbeResult> probe_result_from_log(const std::string& log_path);

}   // namespace paraplan::runtime
