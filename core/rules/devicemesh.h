#pragma once
// The rules of a plain PyTorch DeviceMesh, in the order it checks them.
#include "rules/rule_kit.h"

namespace paraplan::rules {

const std::vector<RuleFn>& devicemesh_rules();

}   // namespace paraplan::rules
