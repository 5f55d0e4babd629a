#pragma once
// The rules of DeepSpeed, in the order it checks them.
#include "rules/rule_kit.h"

namespace paraplan::rules {

const std::vector<RuleFn>& deepspeed_rules();

}   // namespace paraplan::rules
