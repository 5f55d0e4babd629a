#pragma once
// layout.peft: parameter-efficient fine-tuning. Absent: full training. LoRA (Hu et al. 2021,
// arXiv 2106.09685): every base weight is frozen and each targeted linear W (in x out) gets a
// trainable low-rank update B A, A (r x in), B (out x r), scaled by alpha / r.
//   {"method": "lora", "rank": R, "alpha": A, "targets": [...], "base_dtype": "bf16" | "fp8" | "nf4"}
// Targets are named as Megatron-Bridge names the linears of a Megatron-core transformer layer
// (megatron/bridge/peft/lora.py, class LoRA, field target_modules; NVIDIA-NeMo/Megatron-Bridge
// 0191fc5): linear_qkv (fused Q, K, V), linear_proj (attention output), linear_fc1 (MLP up, gate
// and up fused when gated), linear_fc2 (MLP down). Hugging Face module names are read through
// the one table kHfTargetNames (peft.cpp) and written back in this vocabulary.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace paraplan {

enum class LoraTarget { linear_qkv, linear_proj, linear_fc1, linear_fc2 };
// The frozen base's storage: bf16 (2 B), fp8 (1 B), nf4 (QLoRA's 4-bit NormalFloat with block scales).
enum class PeftBaseDtype { bf16, fp8, nf4 };

struct Peft {
    std::string method = "lora";
    int rank = 16;
    double alpha = 32;
    std::vector<LoraTarget> targets;   // in the order of kLoraTargets, each once
    PeftBaseDtype base_dtype = PeftBaseDtype::bf16;

    bool has_target(LoraTarget t) const;
    bool operator==(const Peft&) const = default;
};

extern const std::vector<std::string> kPeftMethods;      // lora
extern const std::vector<std::string> kLoraTargets;      // linear_qkv linear_proj linear_fc1 linear_fc2
extern const std::vector<std::string> kPeftBaseDtypes;   // bf16 fp8 nf4

const char* to_string(LoraTarget t);
const char* to_string(PeftBaseDtype d);

// The LoRA a full-training layout starts from when fine-tuning is switched on: Megatron-Bridge's
// own defaults (megatron/bridge/peft/lora.py, class LoRA at 0191fc5: target_modules all four
// linears, dim 32, alpha 32) over a bf16 frozen base.
Peft default_lora();

// Hugging Face names of a target (q_proj k_proj v_proj / o_proj / gate_proj up_proj / down_proj):
// what peft.LoraConfig(target_modules=...) takes for a Llama-style model.
const std::vector<std::string>& hf_target_names(LoraTarget t);

// Bytes per frozen base weight as stored: bf16 2, fp8 1, nf4 QLoRA's 4-bit data with
// double-quantized block scales (Dettmers et al. 2023, arXiv 2305.14314, section 3 "Double
// Quantization": blocks of 64 weights with an 8-bit scale, 256 such scales with one fp32 scale,
// 4 + 8/64 + 32/(64 x 256) = 4.127 bits per weight).
double base_weight_bytes(PeftBaseDtype d);

// Reads layout.peft (`pointer` is "/layout/peft"); throws InputError naming the field and why.
// null reads as absent.
std::optional<Peft> peft_from_json(const nlohmann::json& j, const std::string& pointer);
nlohmann::json to_json(const Peft& p);

}   // namespace paraplan
