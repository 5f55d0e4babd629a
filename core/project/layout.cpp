#include "project/layout.h"

namespace paraplan {

const std::vector<std::string> kFrameworks = {"colossalai", "colossalai-moe", "colossalai-gemini", "colossalai-zero",
                                              "megatron",   "torchtitan",     "deepspeed",         "devicemesh"};
const std::vector<std::string> kSpModes = {"none", "split_gather", "ring", "all_to_all", "ring_attn"};
const std::vector<std::string> kRecompute = {"none", "selective", "full"};
const std::vector<std::string> kOffload = {"none", "cpu", "nvme"};
const std::vector<std::string> kPrecisions = {"fp32", "tf32", "fp16", "bf16", "fp8"};
const std::vector<std::string> kOptimizers = {"adamw", "adam", "sgd", "lion", "adafactor"};

}  // namespace paraplan
