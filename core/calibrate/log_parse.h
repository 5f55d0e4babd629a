#pragma once
// Measured step time (and peak memory where printed) from the training logs of the
// frameworks Paraplan exports to, read from the lines their own code prints:
//
//   Megatron-LM  megatron/training/training.py training_log():
//                " iteration  N/ M | consumed samples: ... | elapsed time per iteration (ms): 1234.5 |
//                  throughput per GPU (TFLOP/s/GPU): 123.4 | ... global batch size:  512 | ..."
//                report_memory(): "[Rank 0] (after N iterations) memory (MB) | allocated: ... |
//                  max allocated: ... | reserved: ... | max reserved: ..."
//   torchtitan   torchtitan/components/metrics.py MetricsProcessor.log() (ANSI colours stripped):
//                "step: 90  loss:  3.1234  grad_norm:  0.5  memory: 82.40GiB(86.61%)  tps: 5,762
//                  tflops: 333.63  mfu: 33.73%"; tps = tokens per second per GPU over the
//                non-data-parallel ranks, so step = global_batch x seq / (tps x world).
//   DeepSpeed    deepspeed/utils/timer.py ThroughputTimer.stop():
//                "epoch=0/micro_step=40/global_step=10, RunningAvgSamplesPerSec=..., CurrSamplesPerSec=...,
//                  MemAllocated=...GB, MaxMemAllocated=...GB" (samples of the global batch per s);
//                deepspeed/runtime/pipe/engine.py train_batch(): "steps: N loss: X iter time (s): T
//                  samples/sec: S"; flops profiler (profiling/flops_profiler/profiler.py):
//                "iter latency:   184.73 ms" for one micro step of each rank.
//   ColossalAI   examples/language/performance_evaluator.py on_fit_end():
//                "Throughput: X samples/sec, TFLOPS per GPU by Megatron: Y, TFLOPS per GPU: Z"
//                (global samples/s); examples/language/llama/benchmark.py:
//                "Max device memory usage: M MB".
#include "project/project.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::calibrate {

enum class LogFormat { unknown, megatron, torchtitan, deepspeed, colossalai };
const char* to_string(LogFormat f);

// One line that carries a measurement. Zero means the line does not give that figure.
struct LogSample {
    LogFormat format = LogFormat::unknown;
    int line = 0;               // 1-based line in the log
    long long step = -1;        // iteration / step number when printed
    double step_s = 0;          // step (iteration) time as printed
    double microstep_s = 0;     // one micro step (DeepSpeed flops profiler)
    double samples_per_s = 0;   // global samples per second
    double tokens_per_s_per_gpu = 0;
    double tflops_per_gpu = 0;
    double global_batch = 0;   // Megatron prints it on the same line
    double peak_allocated_gib = 0;
    double peak_reserved_gib = 0;
};

// Strips ANSI colour escapes and the trailing CR, then recognises one line.
std::optional<LogSample> parse_log_line(std::string_view line, int line_number = 0);

struct LogSummary {
    LogFormat format = LogFormat::unknown;   // of the first measurement found
    std::vector<LogSample> samples;          // step-time lines, in order
    double peak_allocated_gib = 0;           // largest printed
    double peak_reserved_gib = 0;
};

LogSummary parse_log(std::string_view text);

// The step time a log measured for the project that produced it: the median over the
// step-time lines after the first (which carries start-up and compilation) when there
// are three or more, converted with the project's global batch, sequence length and
// world size where the framework prints a throughput instead of a time.
struct Measured {
    double step_s = 0;
    double peak_gib = 0;       // reserved when printed, else allocated; 0 = none
    std::string memory_kind;   // "reserved" | "allocated" | ""
    int lines_used = 0;
    std::string how;   // e.g. "megatron: median of 9 'elapsed time per iteration' lines"
};
// nullopt with *why set when the log has no usable line.
std::optional<Measured> measured_step(const LogSummary& log, const Project& p, std::string* why = nullptr);

}   // namespace paraplan::calibrate
