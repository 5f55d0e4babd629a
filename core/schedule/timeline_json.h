#pragma once
// JSON form of a simulated timeline (the `paraplan-cli timeline --json` contract):
// {"schedule", "pp", "microbatches", "chunks", "makespan", "bubble_fraction",
//  "stages": [{"stage", "busy", "peak_inflight", "ops": [{"kind", "microbatch",
//  "chunk", "start", "end"}]}]}; more fields may be added, none renamed.
#include "schedule/timeline.h"

#include <nlohmann/json.hpp>

namespace paraplan::schedule {

nlohmann::ordered_json to_json(const Timeline& timeline);

}   // namespace paraplan::schedule
