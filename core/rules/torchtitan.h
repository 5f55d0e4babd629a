#pragma once
// The rules of torchtitan, in the order it checks them.
#include "rules/rule_kit.h"

namespace paraplan::rules {

const std::vector<RuleFn>& torchtitan_rules();

}   // namespace paraplan::rules
