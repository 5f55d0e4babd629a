// libFuzzer target: the nccl-tests output reader (core/calibrate/nccl_tests_output.h) must never
// crash; what it accepts has rows within the limits, finite non-negative figures, and a rank
// count no larger than its limit; a refusal names a line.
#include "calibrate/nccl_tests_output.h"
#include "util/input_error.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::calibrate;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto o = parse_nccl_tests_output(text);
        if (o.rows.empty() || o.rows.size() > kMaxNcclTestsRows) std::abort();
        if (o.ranks < 0 || o.ranks > kMaxNcclTestsRanks) std::abort();
        if (o.max_ranks_per_host > o.ranks && !o.devices_cut) std::abort();
        for (const auto& r : o.rows)
            for (const auto* t : {&r.out_of_place, &r.in_place})
                if (!std::isfinite(t->time_us) || t->time_us < 0 || !std::isfinite(t->busbw_gbs) || t->busbw_gbs < 0 ||
                    !std::isfinite(t->algbw_gbs) || t->algbw_gbs < 0 || r.line < 1)
                    std::abort();
        if (o.op && op_of_collective(o.collective) != o.op) std::abort();
    } catch (const paraplan::InputError& e) {
        if (e.line() < 1) std::abort();   // every input here is under the size limit
    }
    return 0;
}
