#include "telemetry/nvidia_smi.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace paraplan::runtime {

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n'))
        s.remove_suffix(1);
    return s;
}

// nullopt for unknown ("[N/A]", "[Not Supported]", "N/A", ""); error for garbage.
bool number(std::string_view field, std::optional<double>& out, std::string& error, const char* what) {
    out.reset();
    if (field.empty() || field.front() == '[' || field == "N/A") return true;
    const std::string s(field);
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
        error = std::string(what) + " is not a number: \"" + s + "\"";
        return false;
    }
    out = v;
    return true;
}

}   // namespace

NvidiaSmiLine parse_nvidia_smi_line(std::string_view line) {
    NvidiaSmiLine r;
    line = trim(line);
    if (line.empty()) return r;
    std::vector<std::string_view> f;
    std::size_t start = 0;
    while (true) {
        const std::size_t comma = line.find(',', start);
        f.push_back(trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    if (f.size() != 8) {
        r.error = "expected 8 comma-separated fields (" + std::string(kNvidiaSmiFields) + "), got " +
                  std::to_string(f.size()) + ": \"" + std::string(line.substr(0, 200)) + "\"";
        return r;
    }
    GpuSample s;
    std::optional<double> idx;
    if (!number(f[0], idx, r.error, "index")) return r;
    if (!idx || *idx < 0 || *idx != std::floor(*idx) || *idx > 1024) {
        r.error = "the GPU index is not a small non-negative integer: \"" + std::string(f[0]) + "\"";
        return r;
    }
    s.index = static_cast<int>(*idx);
    s.uuid = std::string(f[1]);
    s.name = std::string(f[2]);
    if (!number(f[3], s.utilization_gpu, r.error, "utilization.gpu") ||
        !number(f[4], s.memory_used_mib, r.error, "memory.used") ||
        !number(f[5], s.memory_total_mib, r.error, "memory.total") ||
        !number(f[6], s.temperature_gpu, r.error, "temperature.gpu") ||
        !number(f[7], s.power_draw_w, r.error, "power.draw"))
        return r;
    r.sample = std::move(s);
    return r;
}

std::vector<std::string> nvidia_smi_argv(int interval_ms) {
    std::string query = "--query-gpu=";
    query += kNvidiaSmiFields;
    return {"nvidia-smi", query, "--format=csv,noheader,nounits", "-lms",
            std::to_string(interval_ms < 250 ? 250 : interval_ms)};
}

}   // namespace paraplan::runtime
