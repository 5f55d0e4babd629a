#pragma once
// The framework's config files (ds_config.json, the ColossalAI plugin code, the Megatron
// arguments, the torchtitan TOML, hostfiles), exported from the project as File > Export
// writes them, become uploads of a launch plan: each node that runs a process (for Slurm,
// the node that submits) gets them before anything starts.
#include "project/project.h"
#include "launch/launch_plan.h"
#include "launch/runtime_config.h"

#include <string>

namespace paraplan::runtime {

// The export format whose files a launch needs: the launcher's own (deepspeed, colossalai)
// or else the framework's (megatron, torchtitan, colossalai, deepspeed; torchrun otherwise).
std::string config_export_format(const Project& p, const RuntimeConfig& rc);

// Adds the uploads (nothing when rc.upload_configs is false). Throws InputError naming the
// layout field when the export refuses the layout (it would not run as planned).
void add_config_uploads(LaunchPlan& plan, const Project& p, const RuntimeConfig& rc);

}   // namespace paraplan::runtime
