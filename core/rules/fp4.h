#pragma once
// Rules for layout.fp4_recipe, shared by every framework's rule list: the GPUs must have FP4 tensor
// cores for the recipe, the framework must run the recipe, and FP4 replaces FP8 rather than joining it.
#include "rules/rule_kit.h"

namespace paraplan::rules {

void fp4_gpu(const Project& p, Out& out);        // kernel.fp4_gpu
void fp4_recipe(const Project& p, Out& out);     // kernel.fp4_recipe
void fp4_with_fp8(const Project& p, Out& out);   // kernel.fp4_fp8

}   // namespace paraplan::rules
