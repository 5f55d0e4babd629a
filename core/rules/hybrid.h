#pragma once
// Hybrid Mamba models (model.hybrid_override_pattern): which frameworks build them, and what
// Megatron-LM's Mamba-2 mixer needs of tp, cp and the pipeline split.
#include "rules/rule_kit.h"

namespace paraplan::rules {

void hybrid_framework(const Project& p, Out& out);        // model.hybrid_framework (shared_rules.h: every framework)
void mamba_without_pattern(const Project& p, Out& out);   // model.mamba_without_pattern (every framework)
void mg_mamba_tp(const Project& p, Out& out);          // megatron.mamba_heads_divisible_tp, mamba_groups_divisible_tp
void mg_mamba_cp(const Project& p, Out& out);          // megatron.mamba_cp
void mg_hybrid_pipeline(const Project& p, Out& out);   // megatron.hybrid_pipeline
void mg_mamba_fp8(const Project& p, Out& out);         // megatron.mamba_fp8_width

}   // namespace paraplan::rules
