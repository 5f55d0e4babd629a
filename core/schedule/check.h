#pragma once
// Structural check of a schedule, after PyTorch's _validate_schedule: every stage runs
// exactly one forward and one backward of every microbatch on each of its chunks, a
// split backward (B) is followed by exactly one W and a full backward by none, and on
// each stage F comes before B, and B before W. check_schedule() also plays the
// schedule (unit costs) to prove that its cross-stage dependencies can be met, i.e.
// that it cannot deadlock.
#include "schedule/schedule.h"
#include "util/diagnostic.h"

#include <vector>

namespace paraplan::schedule {

std::vector<paraplan::Diagnostic> check_structure(const Schedule& schedule);
std::vector<paraplan::Diagnostic> check_schedule(const Schedule& schedule);

}   // namespace paraplan::schedule
