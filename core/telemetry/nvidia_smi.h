#pragma once
// Parsing of `nvidia-smi --query-gpu=<kNvidiaSmiFields> --format=csv,noheader,nounits`
// lines (fields as `nvidia-smi --help-query-gpu` lists them; nvidia-smi(1)). "[N/A]",
// "[Not Supported]" and other bracketed tokens are unknown values, never 0; a malformed
// line is a diagnostic, never a crash.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::runtime {

inline constexpr const char* kNvidiaSmiFields =
    "index,uuid,name,utilization.gpu,memory.used,memory.total,temperature.gpu,power.draw";

struct GpuSample {
    int index = -1;
    std::string uuid;
    std::string name;
    std::optional<double> utilization_gpu;    // %
    std::optional<double> memory_used_mib;    // MiB
    std::optional<double> memory_total_mib;   // MiB
    std::optional<double> temperature_gpu;    // degrees C
    std::optional<double> power_draw_w;       // W
};

struct NvidiaSmiLine {
    std::optional<GpuSample> sample;   // set when the line parsed
    std::string error;                 // why not (empty for blank lines, which are skipped)
};

NvidiaSmiLine parse_nvidia_smi_line(std::string_view line);

// The streaming command: nvidia-smi --query-gpu=... --format=csv,noheader,nounits -lms <ms>.
std::vector<std::string> nvidia_smi_argv(int interval_ms);

}   // namespace paraplan::runtime
