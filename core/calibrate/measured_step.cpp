// measured_step() of log_parse.h: the step time a parsed log measured, for its project. Apart
// from the log reader because it prices micro steps with the estimator, which the reader (and
// its fuzz target) need not link.
#include "calibrate/log_parse.h"
#include "estimate/estimate.h"

#include <algorithm>
#include <string>
#include <vector>

namespace paraplan::calibrate {

std::optional<Measured> measured_step(const LogSummary& log, const Project& p, std::string* why) {
    auto fail = [&](const std::string& w) -> std::optional<Measured> {
        if (why) *why = w;
        return std::nullopt;
    };
    if (log.samples.empty()) return fail("no step-time line of Megatron-LM, torchtitan, DeepSpeed or ColossalAI found");
    const double gbs = p.training.global_batch_size, seq = p.training.seq_len, world = p.world_size();
    std::vector<double> steps;
    std::string what;
    for (const auto& x : log.samples) {
        double t = 0;
        if (x.step_s > 0) {
            t = x.step_s;
            what = x.format == LogFormat::megatron ? "'elapsed time per iteration'" : "'iter time (s)'";
        } else if (x.samples_per_s > 0) {
            t = gbs / x.samples_per_s;
            what = x.format == LogFormat::deepspeed ? "'CurrSamplesPerSec' (global batch / samples per s)"
                                                    : "'Throughput: samples/sec' (global batch / samples per s)";
        } else if (x.tokens_per_s_per_gpu > 0) {
            t = gbs * seq / (x.tokens_per_s_per_gpu * world);
            what = "'tps' (global batch x seq / (tps x GPUs))";
        } else if (x.microstep_s > 0) {
            // One micro step per rank: a step runs global / (micro x dp) of them (no pipeline).
            if (p.layout.pp > 1)
                return fail(
                    "the flops profiler's 'iter latency' times one micro step; with pp > 1 it is not a step time");
            std::vector<std::string> notes;
            try {
                estimate::Hardware hw;
                hw.gpus_per_node = std::max(1, p.cluster.gpus_per_node());
                const auto c = estimate::make_config(p.model, p.training, p.layout, hw, p.world_size(), &notes);
                t = x.microstep_s * c.num_microbatches;
            } catch (const std::exception& e) {
                return fail(std::string("cannot count the micro steps per step: ") + e.what());
            }
            what = "'iter latency' x micro steps per step";
        }
        if (t > 0 && world > 0) steps.push_back(t);
    }
    if (steps.empty())
        return fail("the project has no global batch, sequence length or GPUs to convert the throughput with");
    Measured m;
    std::vector<double> use(steps.begin() + (steps.size() >= 3 ? 1 : 0), steps.end());
    std::sort(use.begin(), use.end());
    const std::size_t k = use.size();
    m.step_s = k % 2 ? use[k / 2] : 0.5 * (use[k / 2 - 1] + use[k / 2]);
    m.lines_used = int(k);
    m.how = std::string(to_string(log.format)) + ": median of " + std::to_string(k) + " " + what + " line" +
            (k == 1 ? "" : "s") + (steps.size() >= 3 ? " after the first" : "");
    if (log.peak_reserved_gib > 0) {
        m.peak_gib = log.peak_reserved_gib;
        m.memory_kind = "reserved";
    } else if (log.peak_allocated_gib > 0) {
        m.peak_gib = log.peak_allocated_gib;
        m.memory_kind = "allocated";
    }
    return m;
}

}   // namespace paraplan::calibrate
