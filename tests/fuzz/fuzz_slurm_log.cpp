// libFuzzer target: what a job's ssh channels and the Slurm tools print (split into lines,
// srun --label lines, sbatch ids, scontrol/sacct final states) must never crash the parsers.
#include "joblog/line_buffer.h"
#include "slurm/slurm.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::runtime;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // Lines are the same whichever way the stream is cut into chunks.
    LineBuffer whole, split;
    auto a = whole.append(text);
    a.push_back(whole.take_rest());
    auto b = split.append(text.substr(0, size / 2));
    for (auto& l : split.append(text.substr(size / 2))) b.push_back(std::move(l));
    b.push_back(split.take_rest());
    if (a != b) std::abort();
    for (const auto& l : a)
        if (const auto labelled = parse_srun_label(l); labelled && labelled->task < 0) std::abort();
    (void)parse_sbatch_job_id(text);
    (void)parse_sacct(text);
    (void)parse_scontrol_job(text);
    (void)parse_final_state(text);
    return 0;
}
