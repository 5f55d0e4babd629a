#pragma once
// One training step as events in time, for playing it back on the canvas: the
// pipeline ops of every stage from the same schedule simulation the estimate uses
// (simulated_pipeline.h, fed the estimate's per-stage costs), the communication each
// op carries from the estimate's own terms (comm_terms.h) over the group links the
// estimate uses (placement.h), then the gradient reduction, the optimizer step and
// any offload. The step ends exactly at the estimate's step time.
//
// Inside an op the estimate charges compute plus half of the stage's exposed
// communication per microbatch (StageTimes::cost()). The playback draws the TP collectives
// where tensor parallelism runs them, inside each layer between its attention and MLP blocks
// (tp_in_layers.h: 2 per layer and pass, 4 with sequence parallelism), their exposed shares
// adding up to the estimate's TP term; then one block per other kind of communication (CP,
// EP, ZeRO-3, PP) for its exposed share. Bytes are the physical volume of the op's
// collectives (per GPU).
#include "estimate/comm_terms.h"
#include "estimate/estimate.h"
#include "schedule/timeline.h"

#include <atomic>
#include <string>
#include <vector>

namespace paraplan::estimate {

const char* group_label(GroupKind g);   // "TP" "CP" "EP" "PP" "DP" "EDP"

// One block of communication in the step (all GPUs of `stage` run it at once).
struct PlaybackComm {
    GroupKind group = kTp;
    CollectiveOp op = CollectiveOp::all_reduce;
    std::string label;             // e.g. "TP all-reduce", "CP ring K/V exchange", "EP dispatch+combine"
    const char* block = nullptr;   // TP: the layer's block it follows or enters, "attention" or "MLP"
    int stage = 0;                 // pipeline stage whose GPUs run it
    int op_index = -1;             // the timeline op it belongs to, -1 for the gradient reduction
    int peer_stage = -1;           // PP: the stage it sends to
    double bytes = 0;              // per GPU, all `count` calls
    double count = 0;              // collective calls (layers x calls per layer; may be fractional per chunk)
    double start = 0, end = 0;     // seconds from the start of the step (exposed share)
    GroupLink link;                // the links the group spans (estimate's placement)
    double wire_s = 0;             // the calls' full time on that link (overlapped part included)
    // Nothing of it is exposed: start..end is where it runs under the compute, and none of it
    // counts in the step (TP: beside the GEMM the framework's overlap hides it behind).
    bool hidden = false;
};

// What one stage does at an instant.
enum class Activity { idle, forward, backward_input, backward_weight, full_backward, grad_sync, optimizer, offload };
const char* to_string(Activity a);

struct StageActivity {
    int stage = 0;
    Activity activity = Activity::idle;
    int op_index = -1;   // timeline op (compute or its communication), -1 outside ops
    int microbatch = -1, chunk = -1;
    bool communicating = false;   // in an exposed collective of the op (a layer's TP, or the blocks after)
};

struct ActiveSet {
    double t = 0;
    std::vector<StageActivity> stages;   // one per stage (an overlapped F&B unit: both ops)
    std::vector<int> comms;              // indices into StepPlayback::comms
};

// Bytes one step puts on a link. node_a == node_b: the NVLink/PCIe fabric inside node_a;
// otherwise the network between the two nodes (both directions).
struct LinkTraffic {
    int node_a = 0, node_b = 0;
    bool cross_node = false;
    double bytes = 0;
    std::array<double, kGroupKinds> by_group{};   // bytes per kind of group
    // On the cluster's tiers (Hardware::network): the outermost tier this traffic crosses, e.g.
    // "nvlink" between two trays of one NVL72 rack, "leaf" or "spine" between domains; "" on the
    // flat network.
    std::string tier;
    GroupKind top_group() const;
};

// One tier of the cluster's network in a step: the bytes that cross it and the share of its
// capacity (all GPUs' scale-up links, or all NICs, each direction; a switch tier's uplinks after
// the oversubscription below it) they keep busy over the step.
struct TierTraffic {
    std::string name;
    double bytes = 0;
    double capacity_gbs = 0;   // GB/s, one direction, whole cluster
    double utilisation = 0;    // bytes / (capacity x step time)
};

struct StepPlayback {
    Estimate estimate;
    schedule::Timeline timeline;              // seconds; ops per stage in execution order
    std::vector<std::size_t> op_comm_begin;   // comms of op i: [op_comm_begin[i], op_comm_begin[i + 1])
    // End of op i's compute, its TP collectives inside it (the other kinds' blocks follow).
    std::vector<double> op_compute_end;
    std::vector<PlaybackComm> comms;   // op communication (by op), then the gradient reduction
    double makespan_s = 0;             // end of the last pipeline op
    double grad_sync_end_s = 0;        // makespan + exposed gradient reduction
    double optimizer_end_s = 0;
    double step_s = 0;   // == estimate.time.step_s
    int pp = 1;
    std::vector<int> stage_of_rank;   // from the rank map (-1: none)
    std::vector<int> node_of_rank;
    std::vector<LinkTraffic> links;   // sorted by bytes, largest first
    std::vector<TierTraffic> tiers;   // on the cluster's tiers, GPU outwards; empty on the flat network
    std::vector<std::string> notes;

    // Ops sorted by start, per stage (indices into timeline.ops).
    std::vector<std::vector<int>> by_start;
    // Every instant where something starts or ends, sorted, unique (for "step to next event").
    std::vector<double> event_times;
    double next_event(double t) const;   // first event time > t (step_s at the end)
    double prev_event(double t) const;   // last event time < t (0 at the start)

    // The build stopped early because its cancel flag was set: everything above is
    // incomplete, use none of it.
    bool cancelled = false;
};

// Throws what estimate_project throws (InputError on a bad layout).
StepPlayback step_playback(const Project& p);
// Setting *cancel (from any thread) stops the build at its next step: it returns at once with
// cancelled = true (the GUI cancels the build of a state an edit has replaced).
StepPlayback step_playback(const Project& p, const Hardware& hw, const topology::RankMap* map = nullptr,
                           const std::atomic<bool>* cancel = nullptr);
// Over the project's rank map already built (build_rank_map(from_project(p), &p.cluster)):
// the same playback without building it again (the GUI builds it once per edit).
StepPlayback step_playback(const Project& p, const topology::RankMap& map, const std::atomic<bool>* cancel = nullptr);

ActiveSet active_at(const StepPlayback& pb, double t);

// One line per active collective: "TP all-reduce stage 1 (MLP): 64 MiB, 0.21 ms (NVLink)".
std::string describe_comm(const PlaybackComm& c);

nlohmann::json to_json(const StepPlayback& pb);   // links and per-kind totals (no ops)

}   // namespace paraplan::estimate
