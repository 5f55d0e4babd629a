#pragma once
// Which tool reads a node's GPUs (nvidia-smi, or rocm-smi for AMD GPUs) and the remote text
// that streams it over the node's ssh connection.
#include "project/cluster.h"

#include <string>
#include <vector>

namespace paraplan::runtime {

// Which tool reads a node's GPUs: nvidia-smi, or rocm-smi for AMD GPUs (the catalog's vendor).
enum class SmiTool { Nvidia, Rocm };
SmiTool smi_tool_for(const Node& node);   // a catalog GPU's vendor
// The same, with the GPUs the project defines itself (cluster.gpu_specs) too.
SmiTool smi_tool_for(const Cluster& cluster, const Node& node);
const char* smi_tool_name(SmiTool tool);

// The remote text that streams the node's tool (PATH prefixes first): `nvidia-smi ... -lms`,
// or a loop of `rocm-smi ... --json` each followed by kRocmSmiEndMarker. `once`: one reading.
std::string telemetry_command(int interval_ms, const std::vector<std::string>& path_prepend, bool once = false,
                              SmiTool tool = SmiTool::Nvidia);

}   // namespace paraplan::runtime
