#pragma once
// The rules of Megatron-LM, in the order it checks them.
#include "rules/rule_kit.h"

namespace paraplan::rules {

const std::vector<RuleFn>& megatron_rules();

}   // namespace paraplan::rules
