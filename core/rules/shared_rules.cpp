#include "rules/shared_rules.h"

#include "rules/common.h"
#include "rules/fp4.h"
#include "rules/hybrid.h"

namespace paraplan::rules {

const std::vector<RuleFn>& shared_head() {
    static const std::vector<RuleFn> r = {&cluster_not_empty, &uniform_gpus, &system_gpus};
    return r;
}

const std::vector<RuleFn>& shared_precision() {
    static const std::vector<RuleFn> r = {&bf16_gpu, &flash_attention_gpu, &flash_attention_dtype, &fp8_gpu,
                                          &fp4_gpu,  &fp4_recipe,          &fp4_with_fp8};
    return r;
}

const std::vector<RuleFn>& shared_tail() {
    static const std::vector<RuleFn> r = {&tp_comm_overlap_unused, &unknown_keys_kept,     &peft_framework,
                                          &hybrid_framework,       &mamba_without_pattern, &fused_norm_apex};
    return r;
}

std::vector<RuleFn> framework_rule_list(const std::vector<RuleFn>& own, const std::vector<RuleFn>& own_precision) {
    std::vector<RuleFn> r = shared_head();
    r.insert(r.end(), own.begin(), own.end());
    r.insert(r.end(), shared_precision().begin(), shared_precision().end());
    r.insert(r.end(), own_precision.begin(), own_precision.end());
    r.insert(r.end(), shared_tail().begin(), shared_tail().end());
    return r;
}

}   // namespace paraplan::rules
