#pragma once
// Rules of Megatron-LM, torchtitan, DeepSpeed and a plain PyTorch DeviceMesh.
#include "rules/rule_kit.h"

namespace paraplan::rules {

const std::vector<RuleFn>& megatron_rules();
const std::vector<RuleFn>& torchtitan_rules();
const std::vector<RuleFn>& deepspeed_rules();
const std::vector<RuleFn>& devicemesh_rules();

}  // namespace paraplan::rules
