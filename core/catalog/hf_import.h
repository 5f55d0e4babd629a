#pragma once
// Import a Hugging Face config.json into a ModelSpec.
#include "catalog/model.h"

#include <string_view>

namespace paraplan {

// Supported model_type values: llama, mistral, mixtral, qwen2, qwen2_moe, gpt2,
// gpt_neox, bert, t5, deepseek_v3. A missing or wrong-typed field throws an
// InputError naming the field ("/num_attention_heads: expected a positive integer, got ...").
ModelSpec import_hf_config(std::string_view config_json_text);
ModelSpec import_hf_config(const nlohmann::json& config);

}   // namespace paraplan
