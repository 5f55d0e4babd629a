#pragma once
// Parsing of `rocm-smi --showuse --showmeminfo vram --showtemp --showpower --showproductname
// --showuniqueid --json` (AMD GPUs): one JSON object with a "cardN" object per GPU whose keys
// are rocm-smi's own labels ("GPU use (%)", "VRAM Total Used Memory (B)", "Temperature
// (Sensor edge) (C)", "Average Graphics Package Power (W)" or, on MI300, "Current Socket
// Graphics Package Power (W)", ...). Values are strings; "N/A" and missing keys are unknown,
// never 0. Source of the labels: ROCm SMI's rocm_smi.py (showUse, showMemInfo, showTemp,
// showPower, showProductName, showUniqueId).
#include "telemetry/nvidia_smi.h"

#include <string>
#include <string_view>
#include <vector>

namespace paraplan::runtime {

struct RocmSmiParse {
    std::vector<GpuSample> samples;    // by card index, memory in MiB like nvidia-smi's
    std::vector<std::string> errors;   // what could not be read (the rest is kept)
};

RocmSmiParse parse_rocm_smi_json(std::string_view text);

// The rocm-smi arguments (without the program name).
std::vector<std::string> rocm_smi_args();

// A line the streaming loop prints after each JSON document.
inline constexpr const char* kRocmSmiEndMarker = "__PARAPLAN_ROCM_SMI_END__";

}   // namespace paraplan::runtime
