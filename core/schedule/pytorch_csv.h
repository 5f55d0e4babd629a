#pragma once
// PyTorch pipelining's schedule CSV ("compute_only" format of
// PipelineScheduleMulti._dump_csv / _load_csv in torch/distributed/pipelining/
// schedules.py): one row per rank, one cell per action, written as
// [stage][type][microbatch] with the global (virtual) stage index, e.g. 0F0, 1B3,
// 2I1, 2W1; an overlapped pair is "(0F1;7B2)OVERLAP_F_B"; an empty cell is idle.
// torchtitan runs such a file as a custom schedule (pipeline_parallel_schedule_csv).
#include "schedule/schedule.h"
#include "util/diagnostic.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan::schedule {

// The action string PyTorch's _Action.__repr__ prints, e.g. "5I3".
std::string pytorch_action(const Schedule& schedule, int stage, const Action& a);
std::string to_pytorch_csv(const Schedule& schedule);

struct CsvImport {
    std::optional<Schedule> schedule;
    std::vector<paraplan::Diagnostic> diagnostics;   // where (row, column) and why
};

// Reads a compute-only CSV. The rank count is the row count; the chunk count and the
// placement (loop or V) follow from the stage indices each row uses. Communication
// and FSDP actions (SEND_F, RECV_B, UNSHARD, ...) are skipped.
CsvImport from_pytorch_csv(const std::string& text);

}   // namespace paraplan::schedule
