#pragma once
// GPU catalog entries (resources/catalog/gpus.json). Units are in the names:
// GiB for memory, TFLOP/s dense (no sparsity) for peaks, GB/s for bandwidths.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace paraplan {

struct GpuSpec {
    std::string id;       // "h100-sxm"
    std::string name;     // "NVIDIA H100 SXM5 80GB"
    std::string vendor;   // "nvidia" | "amd"
    std::string arch;     // "volta" | "ampere" | "ada" | "hopper" | "blackwell" | "cdna2" | "cdna3"
    double memory_gib = 0;
    // Dense peak TFLOP/s; 0 where the part lacks the format.
    double tflops_fp32 = 0, tflops_tf32 = 0, tflops_bf16 = 0, tflops_fp16 = 0, tflops_fp8 = 0;
    double tflops_fp4 = 0;                             // dense FP4 (NVFP4 / MXFP4) peak; 0 where the part lacks it
    double hbm_gbps = 0;                               // memory bandwidth, GB/s
    std::string intra_node_link;                       // "nvlink4" | "pcie5" | "infinity-fabric" ...
    double intra_node_gbps = 0;                        // per-GPU unidirectional bandwidth to peers in the node, GB/s
    double tdp_w = 0;                                  // 0: the vendor publishes no per-GPU power for the part
    double power_limit_w = 0;                          // board power limit the part runs at (0: the TDP)
    std::string source;                                // vendor datasheet named
    nlohmann::json extra = nlohmann::json::object();   // unknown keys, kept on save

    bool operator==(const GpuSpec&) const = default;

    // Peak for a precision name: "fp32" "tf32" "bf16" "fp16" "fp8" "fp4".
    double peak_tflops(const std::string& precision) const;
    bool supports_fp8() const { return tflops_fp8 > 0; }
    // Flash attention kernels need Ampere or newer (NVIDIA) or CDNA2+ (AMD, ROCm port).
    bool supports_flash_attention() const;
    bool supports_bf16() const { return tflops_bf16 > 0; }
    // power_limit_w / tdp_w (1 without a limit).
    double power_ratio() const;
    // Share of the tensor-core peaks sustained at the power limit: linear in power between
    // the TDP (1.0) and NVIDIA's own lower-power part of the same die, H100 NVL at 400 W of the
    // SXM's 700 W with 835 of 989 dense bf16 TFLOP/s (H100 datasheet), i.e. 1 - 0.363 (1 - P/TDP).
    double power_derate() const;
};

void from_json(const nlohmann::json& j, GpuSpec& g);   // throws InputError naming the field
// As from_json, with errors named under `pointer` ("/gpus/3" -> "/gpus/3/tflops_bf16").
GpuSpec gpu_from_json(const nlohmann::json& j, const std::string& pointer);
nlohmann::json to_json(const GpuSpec& g);
// A GPU defined inside a project (cluster.gpu_specs[id]): the same fields and checks as a catalog
// entry; "id" may be left out (it is the key) and must equal the key when given, "name" defaults
// to the id and "source" to "defined in the project". Errors are named under `pointer`.
GpuSpec project_gpu_from_json(const nlohmann::json& j, const std::string& id, const std::string& pointer);

}   // namespace paraplan
