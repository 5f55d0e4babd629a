#pragma once
// Chrome / Perfetto trace of a simulated timeline ({"traceEvents": [...]}; Trace
// Event Format, as Perfetto's docs/getting-started/other-formats.md reads it): one
// "X" event per op with ts/dur in microseconds, a process per pipeline stage and a
// thread per model chunk (named with "M" process_name / thread_name events), the
// microbatch in args. Ops on one thread never overlap, as Perfetto requires.
#include "schedule/timeline.h"

#include <nlohmann/json.hpp>

namespace paraplan::schedule {

// `us_per_unit`: microseconds per time unit of the timeline (1000 when the unit is ms).
nlohmann::ordered_json to_chrome_trace(const Timeline& timeline, double us_per_unit = 1000.0);

}   // namespace paraplan::schedule
