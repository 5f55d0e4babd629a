// libFuzzer target: the calibrate runs table (CSV or JSON, calibrate/runs_table.h) and the
// training logs it names (calibrate/log_parse.h) may come from anyone: the readers must
// never crash, stay within their row and column bounds, and give rows that say where they
// came from.
#include "calibrate/log_parse.h"
#include "calibrate/runs_table.h"
#include "util/input_error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan;
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const auto rows = calibrate::read_runs_table(text, "runs");
        if (rows.empty() || rows.size() > calibrate::kMaxRuns) std::abort();
        for (const auto& r : rows)
            if (r.where.rfind("runs", 0) != 0 || !(r.step_s >= 0) || !(r.peak_gib >= 0)) std::abort();
    } catch (const InputError&) {}
    const auto log = calibrate::parse_log(text);
    for (const auto& s : log.samples)
        if (s.line < 1 || !(s.step_s >= 0)) std::abort();
    return 0;
}
