#pragma once
// Schedule generators: each builds the per-stage order the way its framework does
// and reports an impossible request as Diagnostics (the framework's own wording in
// `framework_error`) instead of throwing.
#include "schedule/schedule.h"
#include "util/diagnostic.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan::schedule {

// Which rule Megatron's interleaved schedule applies to the microbatch count.
enum class MegatronRule {
    Current,   // core >= v0.10: N in [pp, m] and m % N == 0 or >= pp
    Legacy,    // core <= v0.9: m % pp == 0 (and all-warmup when m == pp)
};

struct ScheduleRequest {
    std::string schedule = "1f1b";   // see schedule_names()
    int pp = 1;
    int microbatches = 1;
    int chunks = 0;   // 0 = the schedule's default (1, or 2 for V schedules and interleaved)
    // Megatron --microbatch-group-size-per-virtual-pipeline-stage (N); 0 = pp.
    int microbatch_group_size = 0;
    MegatronRule megatron_rule = MegatronRule::Current;
};

struct ScheduleInfo {
    std::string name;        // our id ("1f1b")
    std::string title;       // "1F1B (PipeDream-flush)"
    std::string framework;   // where this exact order comes from
    bool splits_backward;    // runs B and W separately
    bool multi_chunk;        // takes --chunks
};

const std::vector<ScheduleInfo>& schedule_infos();
std::vector<std::string> schedule_names();
const ScheduleInfo* find_schedule(const std::string& name);

struct GenerateResult {
    std::optional<Schedule> schedule;   // empty when the request is impossible
    std::vector<paraplan::Diagnostic> diagnostics;
};

GenerateResult generate(const ScheduleRequest& req);

// --- the individual generators (valid input assumed; generate() checks) ---
Schedule make_gpipe(int pp, int m);
Schedule make_1f1b(int pp, int m);
// Interleaved 1F1B in groups of `group` microbatches (Megatron get_schedule_table);
// warmup[s] forwards before the steady state on stage s.
Schedule make_interleaved(const std::string& name, int pp, int m, int v, int group, const std::vector<int>& warmup);
Schedule make_looped_bfs(int pp, int m, int v);
// PyTorch ScheduleInterleavedZeroBubble (ZB1P); with v = 1 it is ZB-H1.
Schedule make_interleaved_zb(const std::string& name, int pp, int m, int v);
Schedule make_zbh2(int pp, int m);
Schedule make_zbv(int pp, int m);
Schedule make_dualpipev(int pp, int m);

// Warmup counts (forwards before the first backward), per stage, as the frameworks compute them.
std::vector<int> megatron_1f1b_warmup(int pp, int m);
std::vector<int> megatron_interleaved_warmup(int pp, int m, int v, int group, MegatronRule rule);
std::vector<int> colossalai_interleaved_warmup(int pp, int m, int v);
std::vector<int> pytorch_interleaved_warmup(int pp, int m, int v, int multiply_factor);
int pytorch_microbatches_per_round(int pp, int m);

}   // namespace paraplan::schedule
