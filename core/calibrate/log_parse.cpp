#include "calibrate/log_parse.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace paraplan::calibrate {

const char* to_string(LogFormat f) {
    switch (f) {
    case LogFormat::megatron: return "megatron";
    case LogFormat::torchtitan: return "torchtitan";
    case LogFormat::deepspeed: return "deepspeed";
    case LogFormat::colossalai: return "colossalai";
    case LogFormat::unknown: break;
    }
    return "unknown";
}

namespace {

// ESC [ ... final byte (SGR colours as torchtitan's Color class prints them).
std::string strip_ansi(std::string_view in) {
    std::string out;
    out.reserve(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (in[i] == '\x1b' && i + 1 < in.size() && in[i + 1] == '[') {
            i += 2;
            while (i < in.size() && !(in[i] >= '@' && in[i] <= '~')) ++i;
            continue;
        }
        if (in[i] == '\r') continue;
        out += in[i];
    }
    return out;
}

// The number right after `key` (spaces skipped; thousands separators as torchtitan's
// f"{x:,}" prints them are dropped). nullopt when key or number is missing.
std::optional<double> number_after(const std::string& s, std::string_view key, std::size_t* end = nullptr) {
    const std::size_t k = s.find(key);
    if (k == std::string::npos) return std::nullopt;
    std::size_t i = k + key.size();
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::string num;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.' || s[i] == ',' ||
                            s[i] == '-' || s[i] == '+' || s[i] == 'e' || s[i] == 'E')) {
        if (s[i] != ',') num += s[i];
        ++i;
    }
    if (num.empty()) return std::nullopt;
    char* stop = nullptr;
    const double v = std::strtod(num.c_str(), &stop);
    if (stop == num.c_str()) return std::nullopt;
    if (end) *end = i;
    return v;
}

bool has(const std::string& s, std::string_view key) { return s.find(key) != std::string::npos; }

// DeepSpeed duration_to_string: number then s / ms / us (number_to_string's magnitudes).
std::optional<double> duration_after(const std::string& s, std::string_view key) {
    std::size_t end = 0;
    const auto v = number_after(s, key, &end);
    if (!v) return std::nullopt;
    while (end < s.size() && s[end] == ' ') ++end;
    const std::string unit = s.substr(end, 2);
    if (unit == "ms") return *v * 1e-3;
    if (unit == "us") return *v * 1e-6;
    if (!unit.empty() && unit[0] == 's') return *v;
    return std::nullopt;
}

}   // namespace

std::optional<LogSample> parse_log_line(std::string_view raw, int line_number) {
    const std::string s = strip_ansi(raw);
    LogSample x;
    x.line = line_number;
    constexpr double kMiB = 1024.0;   // MB in Megatron's / ColossalAI's prints are 1024^2 bytes
    // Megatron-LM training_log().
    if (auto ms = number_after(s, "elapsed time per iteration (ms):")) {
        x.format = LogFormat::megatron;
        x.step_s = *ms / 1000.0;
        if (auto it = number_after(s, " iteration")) x.step = (long long)*it;
        if (auto tf = number_after(s, "throughput per GPU (TFLOP/s/GPU):")) x.tflops_per_gpu = *tf;
        if (auto gb = number_after(s, "global batch size:")) x.global_batch = *gb;
        return x;
    }
    // Megatron-LM report_memory().
    if (has(s, "memory (MB)") && has(s, "max allocated:")) {
        x.format = LogFormat::megatron;
        if (auto a = number_after(s, "max allocated:")) x.peak_allocated_gib = *a / kMiB;
        if (auto r = number_after(s, "max reserved:")) x.peak_reserved_gib = *r / kMiB;
        return x;
    }
    // torchtitan MetricsProcessor.log() (not the "validate step:" line).
    if (has(s, "step:") && has(s, "tps:") && !has(s, "validate step:")) {
        x.format = LogFormat::torchtitan;
        if (auto st = number_after(s, "step:")) x.step = (long long)*st;
        if (auto t = number_after(s, "tps:")) x.tokens_per_s_per_gpu = *t;
        if (auto tf = number_after(s, "tflops:")) x.tflops_per_gpu = *tf;
        if (auto m = number_after(s, "memory:"); m && has(s, "GiB")) x.peak_reserved_gib = *m;
        if (x.tokens_per_s_per_gpu > 0) return x;
        return std::nullopt;
    }
    // DeepSpeed ThroughputTimer.
    if (auto sps = number_after(s, "CurrSamplesPerSec=")) {
        x.format = LogFormat::deepspeed;
        x.samples_per_s = *sps;
        if (auto g = number_after(s, "global_step=")) x.step = (long long)*g;
        if (auto m = number_after(s, "MaxMemAllocated=")) x.peak_allocated_gib = *m;   // GB = 1024^3 bytes there
        return x;
    }
    // DeepSpeed pipeline engine train_batch().
    if (auto it = number_after(s, "iter time (s):")) {
        x.format = LogFormat::deepspeed;
        x.step_s = *it;
        if (auto st = number_after(s, "steps:")) x.step = (long long)*st;
        if (auto sps = number_after(s, "samples/sec:")) x.samples_per_s = *sps;
        return x;
    }
    // DeepSpeed flops profiler summary.
    if (auto lat = duration_after(s, "iter latency:")) {
        x.format = LogFormat::deepspeed;
        x.microstep_s = *lat;
        return x;
    }
    // ColossalAI PerformanceEvaluator.on_fit_end().
    if (has(s, "Throughput:") && has(s, "samples/sec")) {
        if (auto sps = number_after(s, "Throughput:")) {
            x.format = LogFormat::colossalai;
            x.samples_per_s = *sps;
            if (auto tf = number_after(s, ", TFLOPS per GPU:")) x.tflops_per_gpu = *tf;
            return x;
        }
    }
    if (auto mb = number_after(s, "Max device memory usage:"); mb && has(s, " MB")) {
        x.format = LogFormat::colossalai;
        x.peak_allocated_gib = *mb / kMiB;
        return x;
    }
    return std::nullopt;
}

LogSummary parse_log(std::string_view text) {
    LogSummary out;
    int n = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) nl = text.size();
        ++n;
        if (auto x = parse_log_line(text.substr(pos, nl - pos), n)) {
            if (out.format == LogFormat::unknown) out.format = x->format;
            out.peak_allocated_gib = std::max(out.peak_allocated_gib, x->peak_allocated_gib);
            out.peak_reserved_gib = std::max(out.peak_reserved_gib, x->peak_reserved_gib);
            if (x->step_s > 0 || x->samples_per_s > 0 || x->tokens_per_s_per_gpu > 0 || x->microstep_s > 0)
                out.samples.push_back(*x);
        }
        if (nl == text.size()) break;
        pos = nl + 1;
    }
    return out;
}

}   // namespace paraplan::calibrate
