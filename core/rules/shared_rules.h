#pragma once
// The rules every framework runs, listed once (issue 29, "every rule once"): a framework's rule
// list holds only its own rules and framework_rule_list() puts the shared ones around them, so a
// cross-framework rule is added here, in one place, for all eight lists.
#include "rules/rule_kit.h"

#include <vector>

namespace paraplan::rules {

// First in every list: cluster_not_empty, uniform_gpus, system_gpus.
const std::vector<RuleFn>& shared_head();
// After the framework's own rules: bf16_gpu, flash_attention_gpu, flash_attention_dtype, fp8_gpu,
// fp4_gpu, fp4_recipe, fp4_with_fp8.
const std::vector<RuleFn>& shared_precision();
// Last in every list: tp_comm_overlap_unused, unknown_keys_kept, peft_framework, hybrid_framework,
// mamba_without_pattern, fused_norm_apex.
const std::vector<RuleFn>& shared_tail();

// A framework's full list, in the order its checks run:
// shared_head + own + shared_precision + own_precision (the framework's FP8 recipe and kernel
// rules, which read after the shared GPU checks) + shared_tail.
std::vector<RuleFn> framework_rule_list(const std::vector<RuleFn>& own, const std::vector<RuleFn>& own_precision = {});

}   // namespace paraplan::rules
