#pragma once
// ColossalAI plugins: HybridParallelPlugin ("colossalai"), MoeHybridParallelPlugin
// ("colossalai-moe"), GeminiPlugin ("colossalai-gemini"), LowLevelZeroPlugin
// ("colossalai-zero"). Rules in the order the plugins check them
// (colossalai/booster/plugin/*.py, ColossalAI v0.5.1).
#include "rules/rule_kit.h"

namespace paraplan::rules {

const std::vector<RuleFn>& colossalai_rules();
const std::vector<RuleFn>& colossalai_moe_rules();
const std::vector<RuleFn>& colossalai_gemini_rules();
const std::vector<RuleFn>& colossalai_zero_rules();

// ShardFormer policy class name for a model family ("" when ColossalAI has none).
std::string shardformer_model_name(const std::string& family);

}   // namespace paraplan::rules
