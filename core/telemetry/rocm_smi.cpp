#include "telemetry/rocm_smi.h"

#include "util/json_read.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace paraplan::runtime {
namespace {

// A value as rocm-smi prints it: a string holding a number ("35.0", "0x1a2b" ids aside), or
// a number; "N/A" and anything else unreadable is unknown.
std::optional<double> number(const nlohmann::json& v) {
    if (v.is_number()) return v.get<double>();
    if (!v.is_string()) return std::nullopt;
    const std::string s = v.get<std::string>();
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || errno == ERANGE || !std::isfinite(d)) return std::nullopt;
    while (*end == ' ' || *end == '%') ++end;
    return *end == '\0' ? std::optional<double>(d) : std::nullopt;
}

// The first key (in this order) present with a number.
std::optional<double> first(const nlohmann::json& card, std::initializer_list<const char*> keys) {
    for (const char* k : keys)
        if (card.contains(k))
            if (auto v = number(card.at(k))) return v;
    return std::nullopt;
}

// The first key containing `part` that holds a number (labels differ between ROCm releases).
std::optional<double> containing(const nlohmann::json& card, std::string_view part) {
    for (const auto& [k, v] : card.items())
        if (k.find(part) != std::string::npos)
            if (auto d = number(v)) return d;
    return std::nullopt;
}

std::string text(const nlohmann::json& card, std::initializer_list<const char*> keys) {
    for (const char* k : keys)
        if (card.contains(k) && card.at(k).is_string() && card.at(k).get<std::string>() != "N/A")
            return card.at(k).get<std::string>();
    return {};
}

}   // namespace

std::vector<std::string> rocm_smi_args() {
    return {"--showuse",   "--showmeminfo",     "vram",           "--showtemp",
            "--showpower", "--showproductname", "--showuniqueid", "--json"};
}

RocmSmiParse parse_rocm_smi_json(std::string_view text_in) {
    RocmSmiParse out;
    std::string why;
    const auto parsed = json_read::try_parse(text_in, &why);   // nesting bounded
    if (!parsed) {
        out.errors.push_back("rocm-smi printed something that is not JSON (" + why + ")");
        return out;
    }
    const nlohmann::json& doc = *parsed;
    if (!doc.is_object()) {
        out.errors.push_back("rocm-smi printed JSON that is not an object of cards");
        return out;
    }
    for (const auto& [key, card] : doc.items()) {
        if (key.rfind("card", 0) != 0) continue;   // "system" and other summaries
        char* end = nullptr;
        const long idx = std::strtol(key.c_str() + 4, &end, 10);
        if (end == key.c_str() + 4 || *end != '\0' || idx < 0 || idx > 4096 || !card.is_object()) {
            out.errors.push_back("rocm-smi: unexpected entry \"" + key + "\"");
            continue;
        }
        GpuSample s;
        s.index = static_cast<int>(idx);
        s.uuid = text(card, {"Unique ID", "Unique ID (GPU)"});
        s.name = text(card, {"Card series", "Card SKU", "Card model", "Device Name"});
        s.utilization_gpu = first(card, {"GPU use (%)"});
        const auto used = first(card, {"VRAM Total Used Memory (B)"});
        const auto total = first(card, {"VRAM Total Memory (B)"});
        if (used) s.memory_used_mib = *used / (1024.0 * 1024.0);
        if (total) s.memory_total_mib = *total / (1024.0 * 1024.0);
        s.temperature_gpu = first(card, {"Temperature (Sensor edge) (C)", "Temperature (Sensor junction) (C)"});
        if (!s.temperature_gpu) s.temperature_gpu = containing(card, "Temperature");
        s.power_draw_w = first(card,
                               {"Average Graphics Package Power (W)", "Current Socket Graphics Package Power (W)"});
        if (!s.power_draw_w) s.power_draw_w = containing(card, "Power (W)");
        out.samples.push_back(std::move(s));
    }
    if (out.samples.empty() && out.errors.empty()) out.errors.push_back("rocm-smi reported no GPU");
    return out;
}

}   // namespace paraplan::runtime
