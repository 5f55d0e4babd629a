#pragma once
// Chrome / Perfetto trace of a simulated timeline ({"traceEvents": [...]}; Trace
// Event Format, as Perfetto's docs/getting-started/other-formats.md reads it): one
// "X" event per op with ts/dur in microseconds, a process per pipeline stage and a
// thread per model chunk (named with "M" process_name / thread_name events), the
// microbatch in args. Ops on one thread never overlap, as Perfetto requires.
// A step of several flushes (estimate/step_flushes.h lay_out_step) comes as one timeline of
// all of them; its gradient reductions, where given, are one more thread per stage
// ("gradient sync", tid = chunks) with a "grad sync" slice each.
#include "schedule/timeline.h"

#include <nlohmann/json.hpp>

#include <utility>
#include <vector>

namespace paraplan::schedule {

// `us_per_unit`: microseconds per time unit of the timeline (1000 when the unit is ms).
// `flushes`: the pipeline flushes `timeline` holds; `grad_syncs`: [start, end) of each gradient
// reduction in the timeline's unit (one after every flush, or one after the last).
nlohmann::ordered_json to_chrome_trace(const Timeline& timeline, double us_per_unit = 1000.0, int flushes = 1,
                                       const std::vector<std::pair<double, double>>& grad_syncs = {});

}   // namespace paraplan::schedule
