#include "catalog/gpu.h"

#include "util/input_error.h"
#include "util/json_read.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace paraplan {

namespace {

using json_read::Obj;

constexpr std::array<std::string_view, 6> kNvidiaArchs = {"volta", "turing", "ampere", "ada", "hopper", "blackwell"};
constexpr std::array<std::string_view, 4> kAmdArchs = {"cdna", "cdna2", "cdna3", "cdna4"};

constexpr std::array<std::string_view, 17> kGpuKeys = {
    "id",          "name",          "vendor",     "arch",       "memory_gib", "tflops_fp32",     "tflops_tf32",
    "tflops_bf16", "tflops_fp16",   "tflops_fp8", "tflops_fp4", "hbm_gbps",   "intra_node_link", "intra_node_gbps",
    "tdp_w",       "power_limit_w", "source"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& a, std::string_view s) {
    return std::find(a.begin(), a.end(), s) != a.end();
}

template <std::size_t N>
std::string join(const std::array<std::string_view, N>& a) {
    std::string out;
    for (auto s : a) {
        if (!out.empty()) out += ", ";
        out += "\"" + std::string(s) + "\"";
    }
    return out;
}

std::string non_empty_string(const Obj& o, std::string_view key) {
    std::string s = o.string(key);
    if (s.empty()) json_read::fail(o.at(key), "a non-empty string", *o.get(key));
    return s;
}

}   // namespace

GpuSpec gpu_from_json(const nlohmann::json& j, const std::string& pointer) {
    const Obj o(j, pointer);
    GpuSpec g;
    g.id = non_empty_string(o, "id");
    g.name = non_empty_string(o, "name");
    if (!o.has("vendor"))
        throw InputError(o.at("vendor"), "required field is missing (expected one of \"nvidia\", \"amd\")");
    g.vendor = o.one_of("vendor", {"nvidia", "amd"}, "");
    g.arch = non_empty_string(o, "arch");
    if (g.vendor == "nvidia" && !contains(kNvidiaArchs, g.arch))
        json_read::fail(o.at("arch"), "an NVIDIA architecture (one of " + join(kNvidiaArchs) + ")", *o.get("arch"));
    if (g.vendor == "amd" && !contains(kAmdArchs, g.arch))
        json_read::fail(o.at("arch"), "an AMD architecture (one of " + join(kAmdArchs) + ")", *o.get("arch"));
    g.memory_gib = o.positive_number("memory_gib");
    g.tflops_fp32 = o.positive_number("tflops_fp32");
    g.tflops_tf32 = o.non_negative_number("tflops_tf32", 0);
    g.tflops_bf16 = o.non_negative_number("tflops_bf16", 0);
    g.tflops_fp16 = o.non_negative_number("tflops_fp16", 0);
    g.tflops_fp8 = o.non_negative_number("tflops_fp8", 0);
    g.tflops_fp4 = o.non_negative_number("tflops_fp4", 0);
    g.hbm_gbps = o.positive_number("hbm_gbps");
    g.intra_node_link = non_empty_string(o, "intra_node_link");
    g.intra_node_gbps = o.positive_number("intra_node_gbps");
    // 0 where the vendor publishes no per-GPU figure (HGX B300); required, so that it is said.
    if (!o.has("tdp_w"))
        throw InputError(o.at("tdp_w"), "required field is missing (expected a number >= 0; 0 when not published)");
    g.tdp_w = o.non_negative_number("tdp_w", 0);
    g.power_limit_w = o.non_negative_number("power_limit_w", 0);
    if (g.power_limit_w > 0 && g.tdp_w <= 0)
        json_read::fail(o.at("power_limit_w"), "no power limit while tdp_w is 0 (not published)",
                        *o.get("power_limit_w"));
    if (g.power_limit_w > g.tdp_w)
        json_read::fail(o.at("power_limit_w"), "a power limit no higher than tdp_w (" + std::to_string(g.tdp_w) + " W)",
                        *o.get("power_limit_w"));
    g.source = non_empty_string(o, "source");
    for (auto it = j.begin(); it != j.end(); ++it)
        if (std::find(kGpuKeys.begin(), kGpuKeys.end(), it.key()) == kGpuKeys.end()) g.extra[it.key()] = it.value();
    return g;
}

GpuSpec project_gpu_from_json(const nlohmann::json& j, const std::string& id, const std::string& pointer) {
    const Obj o(j, pointer);   // an object, or an error naming the pointer
    nlohmann::json full = j;
    if (const auto* given = o.get("id"); given && !(given->is_string() && given->get<std::string>() == id))
        json_read::fail(o.at("id"), "the entry's key \"" + id + "\" (or no id)", *given);
    full["id"] = id;
    if (!o.has("name")) full["name"] = id;
    if (!o.has("source")) full["source"] = "defined in the project";
    GpuSpec g = gpu_from_json(full, pointer);
    // A project can come from anyone: its texts may be shown or written into exported files.
    for (const char* key : {"name", "intra_node_link", "source"})
        json_read::no_control_chars(o.at(key), full[key].get<std::string>());
    return g;
}

void from_json(const nlohmann::json& j, GpuSpec& g) { g = gpu_from_json(j, ""); }

nlohmann::json to_json(const GpuSpec& g) {
    nlohmann::json j = g.extra;
    j.update(nlohmann::json{{"id", g.id},
                            {"name", g.name},
                            {"vendor", g.vendor},
                            {"arch", g.arch},
                            {"memory_gib", g.memory_gib},
                            {"tflops_fp32", g.tflops_fp32},
                            {"tflops_tf32", g.tflops_tf32},
                            {"tflops_bf16", g.tflops_bf16},
                            {"tflops_fp16", g.tflops_fp16},
                            {"tflops_fp8", g.tflops_fp8},
                            {"tflops_fp4", g.tflops_fp4},
                            {"hbm_gbps", g.hbm_gbps},
                            {"intra_node_link", g.intra_node_link},
                            {"intra_node_gbps", g.intra_node_gbps},
                            {"tdp_w", g.tdp_w},
                            {"source", g.source}});
    if (g.power_limit_w > 0) j["power_limit_w"] = g.power_limit_w;
    return j;
}

double GpuSpec::peak_tflops(const std::string& precision) const {
    if (precision == "fp32") return tflops_fp32;
    if (precision == "tf32") return tflops_tf32;
    if (precision == "bf16") return tflops_bf16;
    if (precision == "fp16") return tflops_fp16;
    if (precision == "fp8") return tflops_fp8;
    if (precision == "fp4") return tflops_fp4;
    throw InputError("", "unknown precision \"" + precision + "\" (expected fp32, tf32, bf16, fp16, fp8 or fp4)");
}

double GpuSpec::power_ratio() const {
    if (power_limit_w <= 0 || tdp_w <= 0) return 1.0;
    return std::min(1.0, power_limit_w / tdp_w);
}

double GpuSpec::power_derate() const {
    const double slope = (1.0 - 835.5 / 989.4) / (1.0 - 400.0 / 700.0);   // 0.363
    return std::clamp(1.0 - slope * (1.0 - power_ratio()), 0.3, 1.0);
}

bool GpuSpec::supports_flash_attention() const {
    // FlashAttention-2 supports Ampere, Ada and Hopper (Blackwell through FA2/cuDNN);
    // the ROCm port supports MI200 (CDNA2) and MI300 (CDNA3). Volta and Turing are not supported.
    if (vendor == "nvidia") return arch == "ampere" || arch == "ada" || arch == "hopper" || arch == "blackwell";
    if (vendor == "amd") return arch == "cdna2" || arch == "cdna3" || arch == "cdna4";
    return false;
}

}   // namespace paraplan
