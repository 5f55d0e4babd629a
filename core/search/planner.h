#pragma once
// The auto-planner: enumerates every layout of a model on a cluster for a batch
// under each framework's rules (tp, pp, sp/cp and mode, ep, dp, ZeRO stage,
// microbatch size and count, schedule and chunks, recomputation, offload), drops
// those the rules reject (cheap divisibility first; rules/validate on the layouts it
// would return) and those that do not fit in memory, and ranks the rest by the objective. Multi-threaded,
// cancellable, with progress.
#include "estimate/config.h"
#include "project/project.h"

#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace paraplan::search {

enum class Objective { time, memory, throughput };

// Bounds on integer knobs (tp pp cp sp ep dp zero_stage micro_batch_size chunks
// num_microbatches) and fixed values of string knobs (framework schedule recompute
// offload sp_mode). A fixed integer is a bound with min == max.
struct Constraints {
    std::map<std::string, std::pair<int, int>> bounds;
    std::map<std::string, std::string> fixed;
    // Parses "tp=8,pp=2..16,schedule=interleaved,mbs=..4"; throws std::invalid_argument naming the item.
    static Constraints parse(const std::string& text);
    bool allows(const std::string& knob, int v) const;
    bool allows(const std::string& knob, const std::string& v) const;
};

struct PlanRequest {
    Project base;                          // model, cluster, training (global batch, seq, precision, optimizer)
    estimate::Hardware hardware;           // of the cluster's GPU
    std::vector<std::string> frameworks;   // empty: the base project's framework
    Constraints constraints;
    Objective objective = Objective::time;
    int top = 10;
    int threads = 0;         // 0: std::thread::hardware_concurrency()
    bool use_rules = true;   // also filter with rules/validate()
    // Re-estimate the returned layouts as a single project is estimated (placement-aware
    // communication over the rank map, the simulated schedule), so their figures are the
    // ones the app shows once a layout is applied; the ranking is then redone on them.
    bool refine = true;
};

struct PlanEntry {
    Layout layout;   // the whole layout to apply (search/apply_plan.h)
    int micro_batch_size = 1;
    int dp = 1;   // the derived data-parallel size
    double step_s = 0, mfu = 0, hfu = 0, peak_gib = 0, tokens_per_s = 0;
};

struct PlanResult {
    long long evaluated = 0;       // layouts considered (after the cheap divisibility pruning)
    long long valid = 0;           // passed the frameworks' size rules (make_config), less those
                                   // rules/validate rejected among the ones it checked
    long long fitting = 0;         // of those, fit in GPU memory
    long long rules_checked = 0;   // layouts run through rules/validate (the returned candidates)
    double seconds = 0;
    bool cancelled = false;
    std::vector<PlanEntry> results;   // best first, at most `top`
    std::vector<PlanEntry> pareto;    // memory/time Pareto front, fastest first
};

// progress(done, total) is called from worker threads (serialised) now and then.
// Setting *cancel (the Planner view's Cancel does) stops the workers; a cancelled search skips
// the rule pass and the refinement and returns cancelled = true with its counts and no layouts.
PlanResult plan(const PlanRequest& req, const std::atomic<bool>* cancel = nullptr,
                const std::function<void(long long, long long)>& progress = {});

nlohmann::json to_json(const PlanEntry& e);
nlohmann::json to_json(const PlanResult& r);

}   // namespace paraplan::search
