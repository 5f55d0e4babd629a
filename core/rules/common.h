#pragma once
// Rules every framework shares: cluster shape, explicit dp, and the hardware /
// kernel rules (flash attention, FP8, bf16, fused norm).
#include "rules/rule_kit.h"

namespace paraplan::rules {

void cluster_not_empty(const Project& p, Out& out);       // cluster.not_empty
void uniform_gpus(const Project& p, Out& out);            // cluster.uniform_gpus
void system_gpus(const Project& p, Out& out);             // cluster.system_gpus
void dp_matches(const Project& p, Out& out);              // layout.dp_matches
void bf16_gpu(const Project& p, Out& out);                // kernel.bf16_gpu
void flash_attention_gpu(const Project& p, Out& out);     // kernel.flash_attention_gpu
void flash_attention_dtype(const Project& p, Out& out);   // kernel.flash_attention_dtype
void fp8_gpu(const Project& p, Out& out);                 // kernel.fp8_gpu
void fp8_recipe_gpu(const Project& p, Out& out);          // kernel.fp8_recipe_gpu
void fused_norm_apex(const Project& p, Out& out);         // kernel.fused_norm_apex (info)
// layout.fp8_all_gather where the framework gathers no FP8 weights with the recipe (warning).
void fp8_all_gather_ignored(const Project& p, Out& out);   // kernel.fp8_all_gather
// The same check for a framework rule `self` that runs it as one of its cases (torchtitan's
// tt_fp8_all_gather): the fixes are checked by re-running `self`, which is in the framework's list.
void fp8_all_gather_ignored(const Project& p, Out& out, RuleFn self);
void tp_comm_overlap_unused(const Project& p, Out& out);   // kernel.tp_comm_overlap
void unknown_keys_kept(const Project& p, Out& out);        // project.unknown_key (unknown_keys.cpp)
// layout.peft where the framework cannot run it as set (peft.cpp).
void peft_framework(const Project& p, Out& out);   // peft.framework

// Shared check: tp divides the attention heads (Megatron, torchtitan, DeviceMesh name it `rule`).
// layout.fp8_recipe must be one the framework accepts (FrameworkTraits::fp8_recipes).
void fp8_recipe_accepted(const Project& p, Out& out, RuleFn self, const std::string& rule,
                         const std::string& framework_error);

void tp_divides_heads(const Project& p, Out& out, RuleFn self, const std::string& rule,
                      const std::string& framework_error);

// Shared check: global batch = micro * dp * (microbatches or accumulation steps).
// `rule` names it; `framework_error` is the framework's text for the failure.
void batch_divisible(const Project& p, Out& out, RuleFn self, const std::string& rule,
                     const std::string& framework_error);

// Shared check for frameworks without a microbatch-count knob (FrameworkTraits::num_microbatches_knob
// false: Megatron-LM, DeepSpeed): a layout.num_microbatches other than global / (micro x dp) is not
// what the framework runs (a warning with the fixes that make the project say what runs); silent
// where the framework's row has the knob. `who` names the framework.
void microbatches_not_a_knob(const Project& p, Out& out, RuleFn self, const std::string& rule, const std::string& who);

}   // namespace paraplan::rules
