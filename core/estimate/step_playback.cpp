#include "estimate/step_playback.h"

#include "estimate/lora.h"
#include "estimate/moe.h"
#include "estimate/placement.h"

#include "estimate/comm.h"
#include "estimate/simulated_pipeline.h"
#include "estimate/step_flushes.h"
#include "estimate/tier_traffic.h"
#include "estimate/tp_in_layers.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

namespace paraplan::estimate {

const char* group_label(GroupKind g) {
    switch (g) {
    case kTp: return "TP";
    case kCp: return "CP";
    case kEp: return "EP";
    case kPp: return "PP";
    case kDp: return "DP";
    case kEdp: return "EDP";
    default: break;
    }
    return "?";
}

const char* to_string(Activity a) {
    switch (a) {
    case Activity::idle: return "idle";
    case Activity::forward: return "F";
    case Activity::backward_input: return "B";
    case Activity::backward_weight: return "W";
    case Activity::full_backward: return "B";
    case Activity::grad_sync: return "grad sync";
    case Activity::optimizer: return "optimizer";
    case Activity::offload: return "offload";
    }
    return "idle";
}

GroupKind LinkTraffic::top_group() const {
    int best = 0;
    for (int k = 1; k < kGroupKinds; ++k)
        if (by_group[std::size_t(k)] > by_group[std::size_t(best)]) best = k;
    return GroupKind(best);
}

double StepPlayback::next_event(double t) const {
    auto it = std::upper_bound(event_times.begin(), event_times.end(), t + 1e-15);
    return it == event_times.end() ? step_s : *it;
}

double StepPlayback::prev_event(double t) const {
    auto it = std::lower_bound(event_times.begin(), event_times.end(), t - 1e-15);
    return it == event_times.begin() ? 0.0 : *(it - 1);
}

namespace {

const topology::GroupSet* resolve(const topology::RankMap& rm, GroupKind k, int size) {
    if (size <= 1) return nullptr;
    for (const char* n : rank_map_kinds(k)) {
        const topology::GroupSet* g = rm.group_set(n);
        if (g && g->group_size == size) return g;
    }
    return nullptr;
}

Activity activity_of(schedule::OpKind k) {
    switch (k) {
    case schedule::OpKind::Forward: return Activity::forward;
    case schedule::OpKind::BackwardInput: return Activity::backward_input;
    case schedule::OpKind::BackwardWeight: return Activity::backward_weight;
    case schedule::OpKind::FullBackward: return Activity::full_backward;
    }
    return Activity::idle;
}

// A pipeline of one stage: the microbatches one after the other (what the closed form counts).
schedule::Timeline single_stage(int m, const StageCost& c) {
    schedule::Timeline tl;
    tl.schedule = "single stage";
    tl.pp = 1;
    tl.microbatches = m;
    double t = 0;
    for (int i = 0; i < m; ++i) {
        tl.ops.push_back({0, schedule::OpKind::Forward, i, 0, t, t + c.f, false});
        t += c.f;
        tl.ops.push_back({0, schedule::OpKind::FullBackward, i, 0, t, t + c.b, false});
        t += c.b;
    }
    tl.makespan = t;
    tl.stage_begin = {0, tl.ops.size()};
    schedule::StageStats st;
    st.busy = t;
    st.last_end = t;
    tl.stages.push_back(st);
    return tl;
}

}   // namespace

StepPlayback step_playback(const Project& p) {
    const Estimate e = estimate_project(p);
    return step_playback(p, e.hardware);
}

StepPlayback step_playback(const Project& p, const topology::RankMap& map, const std::atomic<bool>* cancel) {
    return step_playback(p, estimate_project(p, map).hardware, &map, cancel);
}

StepPlayback step_playback(const Project& p, const Hardware& hw, const topology::RankMap* map,
                           const std::atomic<bool>* cancel) {
    StepPlayback pb;
    // Checked between the steps below and every few thousand items inside the long loops.
    const auto stop = [&] {
        if (!cancel || !cancel->load(std::memory_order_relaxed)) return false;
        pb.cancelled = true;
        return true;
    };
    if (stop()) return pb;
    pb.estimate = estimate_project(p, hw, map);
    if (stop()) return pb;
    const Estimate& e = pb.estimate;
    const Config& c = e.config;
    const int pp = std::max(1, c.pp);
    const int m = std::max(1, c.num_microbatches);
    pb.pp = pp;

    // The same simulation the estimate ran: the estimate's stage costs, the pp link's latency.
    std::vector<StageCost> costs;
    for (const auto& st : e.time.stages) costs.push_back(st.cost());
    schedule::Timeline tl;
    std::string why;
    if (pp == 1) {
        tl = single_stage(m, costs[0]);
    } else if (auto sim = pipeline_timeline(c.schedule, pp, m, std::max(1, c.chunks), costs, c.link[kPp].latency_s,
                                            &why)) {
        tl = std::move(*sim);
    } else {
        pb.notes.push_back("no simulated ops (the estimate used the closed form): " + why);
    }
    const LayerShapes shapes = layer_shapes(p.model);
    const auto params = stage_params(shapes, c);
    // The gradient reduction moves what the stage trains (the adapters alone with LoRA, lora.h).
    const auto trained = stage_trained_params(shapes, c);
    const auto fp8_weights = stage_trained_fp8_weights(shapes, c);
    const auto base_linears = stage_base_linear_params(shapes, c);   // LoRA's frozen linears, ZeRO-3 gathers
    // The exposed gradient reductions as estimate_time() charged them: grad_syncs of
    // grad_sync_exposed_s each, after every flush where the framework reduces then, else one
    // after the last (TimeResult, the one source the step's length and step_flushes() read too).
    const double sync_exposed = e.time.grad_sync_exposed_s;
    const int syncs = e.time.grad_syncs;
    const int flushes = std::max(1, c.grad_accum_steps);
    const double gap = c.grad_sync_each_flush ? sync_exposed : 0;   // between flushes
    if (flushes > 1 && !tl.ops.empty()) tl = repeat_flushes(tl, flushes, gap);
    pb.timeline = tl;
    const int chunks = std::max(1, tl.chunks);
    const bool v_shape = c.schedule == Schedule::zbv || c.schedule == Schedule::dualpipev;
    const int vstages = pp * chunks;
    auto vstage = [&](int stage, int chunk) {
        if (v_shape && chunks == 2) return chunk == 0 ? stage : 2 * pp - 1 - stage;
        return chunk * pp + stage;
    };
    auto stage_of_v = [&](int vs) {
        if (v_shape && chunks == 2) return vs < pp ? vs : 2 * pp - 1 - vs;
        return vs % pp;
    };

    const LayerComm lc = layer_comm(shapes, c, hw, 0);
    // Dispatch/combine bytes and times of one MoE layer: the estimate's own MoE model (moe.h).
    const MoeBytes ep_bytes = moe_bytes(shapes, c);
    const MoeComm ep_time = shapes.experts > 0 ? moe_comm(shapes, c, hw) : MoeComm{};
    const bool ep_gather = c.moe.dispatcher == MoeDispatcher::allgather;
    const double ep_layer_calls = (c.ep > 1 ? 2 : 0) + (ep_bytes.etp_gathered > 0 ? 2 : 0);
    // Multi-token prediction modules run on the head stage, one layer each like the model's last
    // (MoE when it is), and the estimate charges their dispatch too (time.cpp, stage_times).
    const int head_stage = c.head_stage >= 0 ? c.head_stage : pp - 1;
    const double mtp_moe_layers = c.moe.mtp_layers > 0 && p.model.layers > 0 && shapes.experts > 0 &&
                                          p.model.is_moe_layer(p.model.layers - 1)
                                      ? c.moe.mtp_layers
                                      : 0;

    // TP per pass (tp_in_layers.h): the exposed share the estimate charges the op (half the stage's
    // per-microbatch term, StageTimes::cost()), over the layers of the chunk. A MoE layer without a
    // shared expert keeps the attention block's collectives only (time.cpp, moe_layer_tp). The
    // layer groups are bounded so that a step has at most about kTpEventBudget TP events.
    constexpr double kTpEventBudget = 131072;
    const int tp_per_layer = (lc.tp_sequence_parallel ? 4 : 2) * (lc.tp_bwd_count > 2 ? 2 : 1) +
                             std::max(0, lc.tp_bwd_regathers);
    const int tp_groups = int(
        std::clamp(kTpEventBudget / (std::max<std::size_t>(1, tl.ops.size()) * tp_per_layer), 1.0, 1e6));
    auto tp_pass = [&](const schedule::TimelineOp& op, int s, double layers, bool fwd, double compute_end) {
        const double moe_s = s < int(c.moe_layers_per_stage.size()) ? c.moe_layers_per_stage[std::size_t(s)] : 0;
        TpPass tpp;
        tpp.forward = fwd;
        tpp.start = op.start;
        tpp.exposed_s = c.tp > 1 ? 0.5 * e.time.stages[std::size_t(s)].tp / chunks : 0;
        tpp.compute_s = std::max(0.0, compute_end - op.start - tpp.exposed_s);
        tpp.wire_s = layers * ((fwd ? lc.tp_fwd_s : lc.tp_bwd_s) + 0.5 * lc.tp_hidden_s);
        tpp.attention_only_layers = shapes.shared_ffn > 0 ? 0 : moe_s / chunks;
        tpp.full_layers = std::max(0.0, layers - tpp.attention_only_layers) +
                          (s == head_stage && p.model.layers > 0 ? c.moe.mtp_layers / double(chunks) : 0);
        tpp.max_groups = tp_groups;
        return tp_pass_layout(tpp, lc);
    };
    auto add_tp_events = [&](const TpPassLayout& lay, int s, int op_index) {
        for (const TpEvent& ev : lay.events) {
            PlaybackComm k;
            k.group = kTp;
            k.op = ev.op;
            k.label = std::string("TP ") + to_string(ev.op);
            k.block = ev.mlp ? "MLP" : "attention";
            k.stage = s;
            k.op_index = op_index;
            k.bytes = ev.bytes;
            k.count = ev.count;
            k.start = ev.start;
            k.end = ev.end;
            k.hidden = ev.hidden;
            k.link = c.link[kTp];
            k.wire_s = ev.wire_s;
            pb.comms.push_back(std::move(k));
        }
    };

    // Per op: compute with the TP collectives inside it, then one block per other kind for the exposed share the
    // estimate charges.
    pb.op_comm_begin.reserve(tl.ops.size() + 1);
    // Room for every op's blocks at once (moving some 100,000 of them on each growth cost more
    // than filling them): its TP events at most, and one block per other kind.
    int most_layers = 0;
    for (int l : c.layers_per_stage) most_layers = std::max(most_layers, l);
    const std::size_t tp_most = c.tp > 1 ? std::size_t(tp_per_layer) *
                                               std::size_t(std::min(tp_groups, most_layers / chunks + 1))
                                         : 0;
    pb.comms.reserve(tl.ops.size() * (tp_most + 5) + std::size_t(pp) * 4);
    pb.op_compute_end.reserve(tl.ops.size());
    for (std::size_t i = 0; i < tl.ops.size(); ++i) {
        if (i % 4096 == 0 && stop()) return pb;
        const schedule::TimelineOp& op = tl.ops[i];
        pb.op_comm_begin.push_back(pb.comms.size());
        const bool fwd = op.kind == schedule::OpKind::Forward;
        const bool bwd = schedule::is_backward(op.kind);
        if (!fwd && !bwd) {
            pb.op_compute_end.push_back(op.end);
            continue;
        }
        const int s = std::clamp(op.stage, 0, pp - 1);
        const StageTimes& st = e.time.stages[std::size_t(s)];
        const double layers = (s < int(c.layers_per_stage.size()) ? c.layers_per_stage[std::size_t(s)] : 0) /
                              double(chunks);
        const double moe = ((s < int(c.moe_layers_per_stage.size()) ? c.moe_layers_per_stage[std::size_t(s)] : 0) +
                            (s == head_stage ? mtp_moe_layers : 0)) /
                           double(chunks);
        std::vector<PlaybackComm> blocks;
        auto add = [&](GroupKind g, CollectiveOp cop, std::string label, double bytes, double count, double exposed,
                       double wire, int peer = -1) {
            if (bytes <= 0 && exposed <= 0) return;
            PlaybackComm k;
            k.group = g;
            k.op = cop;
            k.label = std::move(label);
            k.stage = s;
            k.op_index = int(i);
            k.peer_stage = peer;
            k.bytes = bytes;
            k.count = count;
            k.start = exposed;   // exposed duration for now; placed below
            k.link = c.link[g];
            k.wire_s = wire;
            blocks.push_back(k);
        };
        const double cp_calls = layers * (fwd ? lc.cp_fwd_count : lc.cp_bwd_count);
        add(kCp, lc.cp_ring ? CollectiveOp::send_recv : CollectiveOp::all_to_all,
            lc.cp_ring ? "CP ring K/V exchange" : "CP (Ulysses) all-to-all", cp_calls * lc.cp_bytes, cp_calls,
            0.5 * st.cp / chunks, cp_calls * lc.cp_call_s);
        add(kEp, ep_gather ? CollectiveOp::all_gather : CollectiveOp::all_to_all,
            std::string(ep_gather ? "EP dispatch all-gather + combine reduce-scatter"
                                  : "EP dispatch + combine all-to-all") +
                (ep_bytes.etp_gathered > 0 ? " (+ expert-TP gather/scatter)" : ""),
            moe * (fwd ? ep_bytes.fwd() : ep_bytes.bwd()), moe * ep_layer_calls, 0.5 * st.ep / chunks,
            moe * (fwd ? ep_time.fwd_s : ep_time.bwd_s));
        if (c.zero_stage >= 3) {
            // Forward gathers the chunk's parameters; backward gathers them again and
            // reduce-scatters the gradients. The exposed share is split by wire time.
            const std::size_t si = std::size_t(s);
            const Zero3Comm z = zero3_comm(zero3_volume(params[si], trained[si], base_linears[si], c), c, 0);
            std::vector<CommCall> parts;
            for (const CommCall& k : z.calls) {
                if (k.op == CollectiveOp::all_gather)
                    parts.push_back({kDp, k.op, k.bytes / chunks, 1, k.seconds / k.count / chunks});
                else if (bwd) parts.push_back({kDp, k.op, k.bytes / chunks, 1, k.seconds / chunks});
            }
            double wire = 0;
            for (const auto& k : parts) wire += k.seconds;
            for (const auto& k : parts)
                add(kDp, k.op, std::string("ZeRO-3 ") + to_string(k.op), k.bytes, 1,
                    wire > 0 ? 0.5 * st.dp / chunks * k.seconds / wire : 0, k.seconds);
        }
        // PP: the activation to the next virtual stage (forward), its gradient to the previous (backward).
        const int vs = vstage(s, op.chunk);
        const int peer_vs = fwd ? vs + 1 : vs - 1;
        const int peer = peer_vs >= 0 && peer_vs < vstages ? stage_of_v(peer_vs) : -1;
        const double pp_bytes = lc.pp_bytes * lc.pp_count / chunks;
        if (pp > 1)
            add(kPp, CollectiveOp::send_recv, fwd ? "PP send activation" : "PP send gradient", peer >= 0 ? pp_bytes : 0,
                peer >= 0 ? double(lc.pp_count) / chunks : 0, 0.5 * st.pp / chunks,
                peer >= 0 ? lc.pp_wire_s / chunks : 0, peer);
        // The TP collectives inside the layers' compute (tp_in_layers.h), the other kinds' exposed
        // blocks after it; hidden ones (nothing exposed) run under the compute.
        double exposed = 0;
        for (const auto& b : blocks) exposed += b.start;
        const double compute_end = std::max(op.start, op.end - exposed);
        pb.op_compute_end.push_back(compute_end);
        add_tp_events(tp_pass(op, s, layers, fwd, compute_end), s, int(i));
        double t = compute_end;
        for (auto& b : blocks) {
            const double d = b.start;
            if (d > 0) {
                b.start = t;
                b.end = std::min(op.end, t + d);
                t = b.end;
            } else {
                b.hidden = true;
                b.start = op.start;
                b.end = std::min(compute_end, op.start + b.wire_s);
            }
            pb.comms.push_back(std::move(b));
        }
    }
    pb.op_comm_begin.push_back(pb.comms.size());
    pb.makespan_s = tl.ops.empty() ? flushes * e.time.pipeline.makespan_s + (flushes - 1) * gap : tl.makespan;

    // The gradient reduction's collectives of each stage after the last flush (after every flush
    // where the framework reduces then), one after the other from `window` (grad_sync_window_s)
    // before the flush's end: the stage that exposes the most ends sync_exposed after it.
    const double flush_s = flushes > 1 ? (pb.makespan_s - (flushes - 1) * gap) / flushes : pb.makespan_s;
    for (int j = flushes - syncs; j < flushes; ++j)
        for (int s = 0; s < pp; ++s) {
            const std::vector<CommCall> calls = grad_sync(trained[std::size_t(s)], fp8_weights[std::size_t(s)], c);
            const double window = grad_sync_window_s(c, costs[std::size_t(s)], s, e.time.stages[std::size_t(s)].nic_b);
            const double flush_end = (j + 1) * flush_s + j * gap;
            double t = std::max(0.0, flush_end - window);
            for (const auto& k : calls) {
                PlaybackComm pc;
                pc.group = k.group;
                pc.op = k.op;
                pc.label = std::string(k.group == kEdp                                ? "EDP "
                                       : c.zero_stage >= 1 || c.distributed_optimizer ? "DP/ZeRO "
                                                                                      : "DP ") +
                           to_string(k.op) + (k.op == CollectiveOp::all_gather ? " (parameters)" : " (gradients)");
                pc.stage = s;
                pc.bytes = k.bytes * k.count;
                pc.count = k.count;
                pc.start = t;
                pc.end = t + k.seconds;
                pc.link = c.link[k.group];
                pc.wire_s = k.seconds;
                t = pc.end;
                pb.comms.push_back(std::move(pc));
            }
        }
    pb.grad_sync_end_s = pb.makespan_s + sync_exposed;
    pb.optimizer_end_s = pb.grad_sync_end_s + e.time.optimizer_s;
    pb.step_s = pb.optimizer_end_s + e.time.offload_s;

    if (stop()) return pb;
    // Ops by start per stage, and every event instant.
    pb.by_start.assign(std::size_t(pp), {});
    for (std::size_t i = 0; i < tl.ops.size(); ++i)
        pb.by_start[std::size_t(std::clamp(tl.ops[i].stage, 0, pp - 1))].push_back(int(i));
    for (auto& v : pb.by_start)
        std::stable_sort(v.begin(), v.end(),
                         [&](int a, int b) { return tl.ops[std::size_t(a)].start < tl.ops[std::size_t(b)].start; });
    for (std::size_t i = 0; i < tl.ops.size(); ++i) {
        pb.event_times.push_back(tl.ops[i].start);
        pb.event_times.push_back(tl.ops[i].end);
        pb.event_times.push_back(pb.op_compute_end[i]);
    }
    for (const auto& k : pb.comms) {
        pb.event_times.push_back(k.start);
        pb.event_times.push_back(k.end);
    }
    for (double t : {0.0, pb.makespan_s, pb.grad_sync_end_s, pb.optimizer_end_s, pb.step_s})
        pb.event_times.push_back(t);
    if (stop()) return pb;   // (the sort of some 200,000 instants cannot be stopped halfway)
    std::sort(pb.event_times.begin(), pb.event_times.end());
    pb.event_times.erase(
        std::unique(pb.event_times.begin(), pb.event_times.end(),
                    [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }),
        pb.event_times.end());

    if (stop()) return pb;
    // Where the ranks are, and the bytes each link carries per step.
    std::optional<topology::RankMap> own;
    if (!map) own = topology::build_rank_map(topology::from_project(p), &p.cluster);
    const topology::RankMap& rm = map ? *map : *own;
    if (!rm.valid()) {
        pb.notes.push_back("no rank map: ranks and link traffic left out");
        return pb;
    }
    const int world = rm.world_size;
    pb.stage_of_rank.assign(std::size_t(world), 0);
    pb.node_of_rank.assign(std::size_t(world), 0);
    const int ppc = rm.coord_index("pp");
    for (int r = 0; r < world; ++r) {
        pb.stage_of_rank[std::size_t(r)] = ppc >= 0 ? rm.coords(r)[std::size_t(ppc)] : 0;
        pb.node_of_rank[std::size_t(r)] = r < int(rm.placement.size()) ? rm.placement[std::size_t(r)].node : 0;
    }
    // Per GPU buffer bytes per step by (kind, stage, op); PP by (stage, peer stage).
    std::map<std::tuple<int, int, int>, double> buffer;
    std::map<std::pair<int, int>, double> pp_sends;
    // A layer's TP events follow each other with the same key: one look-up for the run of them.
    std::tuple<int, int, int> last_key{-1, -1, -1};
    double* last = nullptr;
    for (const auto& k : pb.comms) {
        if (k.group == kPp) {
            if (k.peer_stage >= 0 && k.bytes > 0) pp_sends[{k.stage, k.peer_stage}] += k.bytes;
        } else if (k.bytes > 0) {
            const std::tuple<int, int, int> key{int(k.group), k.stage, int(k.op)};
            if (!last || key != last_key) {
                last = &buffer[key];
                last_key = key;
            }
            *last += k.bytes;
        }
    }
    std::map<std::pair<int, int>, LinkTraffic> links;
    auto put = [&](int ra, int rb, GroupKind g, double bytes) {
        int a = pb.node_of_rank[std::size_t(ra)], b = pb.node_of_rank[std::size_t(rb)];
        if (a > b) std::swap(a, b);
        LinkTraffic& l = links[{a, b}];
        l.node_a = a;
        l.node_b = b;
        l.cross_node = a != b;
        l.bytes += bytes;
        l.by_group[std::size_t(g)] += bytes;
    };
    for (const auto& [key, bytes] : buffer) {
        if (stop()) return pb;
        const auto [gi, stage, opi] = key;
        const GroupKind g = GroupKind(gi);
        const CollectiveOp op = CollectiveOp(opi);
        const topology::GroupSet* set = resolve(rm, g, c.link[g].size);
        if (!set) continue;
        const int n = set->group_size;
        for (int gidx = 0; gidx < set->num_groups(); ++gidx) {
            const auto mem = set->group(gidx);
            if (pb.stage_of_rank[std::size_t(mem[0])] != stage) continue;
            if (op == CollectiveOp::all_to_all) {
                for (int a = 0; a < n; ++a)
                    for (int b = 0; b < n; ++b)
                        if (a != b) put(mem[std::size_t(a)], mem[std::size_t(b)], g, bytes / n);
            } else {
                // Ring: each member sends the wire volume to the next.
                const double w = wire_factor(op, n) * bytes;
                for (int a = 0; a < n; ++a) put(mem[std::size_t(a)], mem[std::size_t((a + 1) % n)], g, w);
            }
        }
    }
    if (const topology::GroupSet* set = resolve(rm, kPp, pp)) {
        for (int gidx = 0; gidx < set->num_groups(); ++gidx) {
            std::vector<int> rank_of_stage(std::size_t(pp), -1);
            for (int r : set->group(gidx))
                rank_of_stage[std::size_t(std::clamp(pb.stage_of_rank[std::size_t(r)], 0, pp - 1))] = r;
            for (const auto& [sd, bytes] : pp_sends) {
                const int ra = rank_of_stage[std::size_t(sd.first)], rb = rank_of_stage[std::size_t(sd.second)];
                if (ra >= 0 && rb >= 0) put(ra, rb, kPp, bytes);
            }
        }
    }
    if (stop()) return pb;
    for (auto& [key, l] : links) pb.links.push_back(l);
    std::stable_sort(pb.links.begin(), pb.links.end(),
                     [](const LinkTraffic& a, const LinkTraffic& b) { return a.bytes > b.bytes; });
    if (e.hardware.network) pb.tiers = tier_traffic(p.cluster, *e.hardware.network, pb.step_s, pb.links);
    return pb;
}

ActiveSet active_at(const StepPlayback& pb, double t) {
    ActiveSet a;
    a.t = t;
    const auto& ops = pb.timeline.ops;
    for (int s = 0; s < pb.pp; ++s) {
        bool any = false;
        if (std::size_t(s) < pb.by_start.size()) {
            const auto& v = pb.by_start[std::size_t(s)];
            // The last op starting at or before t, and the one before it (an overlapped pair).
            auto it = std::upper_bound(v.begin(), v.end(), t,
                                       [&](double x, int i) { return x < ops[std::size_t(i)].start; });
            for (int back = 1; back <= 2 && it - back >= v.begin(); ++back) {
                const int i = *(it - back);
                const auto& op = ops[std::size_t(i)];
                if (!(op.start <= t && t < op.end)) continue;
                StageActivity sa;
                sa.stage = s;
                sa.activity = activity_of(op.kind);
                sa.op_index = i;
                sa.microbatch = op.microbatch;
                sa.chunk = op.chunk;
                sa.communicating = t >= pb.op_compute_end[std::size_t(i)];
                for (std::size_t k = pb.op_comm_begin[std::size_t(i)]; k < pb.op_comm_begin[std::size_t(i) + 1]; ++k)
                    if (pb.comms[k].start <= t && t < pb.comms[k].end) {
                        a.comms.push_back(int(k));
                        // A TP collective between two blocks of a layer: the stage waits on it.
                        sa.communicating = sa.communicating || !pb.comms[k].hidden;
                    }
                a.stages.push_back(sa);
                any = true;
            }
        }
        if (!any) {
            StageActivity sa;
            sa.stage = s;
            if (t >= pb.makespan_s && t < pb.grad_sync_end_s) sa.activity = Activity::grad_sync;
            else if (t >= pb.grad_sync_end_s && t < pb.optimizer_end_s) sa.activity = Activity::optimizer;
            else if (t >= pb.optimizer_end_s && t < pb.step_s) sa.activity = Activity::offload;
            a.stages.push_back(sa);
        }
    }
    // The gradient reduction (after the ops' communication in comms).
    for (std::size_t k = pb.op_comm_begin.empty() ? 0 : pb.op_comm_begin.back(); k < pb.comms.size(); ++k)
        if (pb.comms[k].start <= t && t < pb.comms[k].end) {
            a.comms.push_back(int(k));
            for (auto& sa : a.stages)
                if (sa.stage == pb.comms[k].stage && sa.activity == Activity::idle) sa.activity = Activity::grad_sync;
        }
    return a;
}

namespace {
std::string human_bytes(double b) {
    char buf[64];
    if (b >= 1024.0 * 1024 * 1024) std::snprintf(buf, sizeof buf, "%.2f GiB", b / (1024.0 * 1024 * 1024));
    else if (b >= 1024.0 * 1024) std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
    else std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
    return buf;
}
}   // namespace

std::string describe_comm(const PlaybackComm& c) {
    char buf[96];
    std::snprintf(buf, sizeof buf, ", %.3f ms", c.wire_s * 1e3);
    // On the cluster's tiers the boundary is the scale-up domain (an NVL72 rack's trays share it).
    const int spans = c.link.fabric ? c.link.fabric->nodes : c.link.nodes;
    const std::string unit = c.link.fabric ? " " + c.link.fabric->domain_tier + " domains" : " nodes";
    std::string where = spans > 1 ? "network, " + std::to_string(spans) + unit
                                  : (c.link.fabric ? c.link.fabric->domain_tier : std::string("NVLink"));
    std::string s = c.label + " stage " + std::to_string(c.stage);
    if (c.peer_stage >= 0) s += " -> " + std::to_string(c.peer_stage);
    if (c.block) s += std::string(" (") + c.block + ")";
    return s + ": " + human_bytes(c.bytes) + buf + " (" + where + ")";
}

nlohmann::json to_json(const StepPlayback& pb) {
    using nlohmann::json;
    json links = json::array();
    for (const auto& l : pb.links) {
        json by = json::object();
        for (int k = 0; k < kGroupKinds; ++k)
            if (l.by_group[std::size_t(k)] > 0) by[group_label(GroupKind(k))] = l.by_group[std::size_t(k)];
        links.push_back({{"node_a", l.node_a},
                         {"node_b", l.node_b},
                         {"cross_node", l.cross_node},
                         {"bytes", l.bytes},
                         {"by_group", by}});
        if (!l.tier.empty()) links.back()["tier"] = l.tier;
    }
    json tiers = json::array();
    for (const auto& t : pb.tiers)
        tiers.push_back(
            {{"name", t.name}, {"bytes", t.bytes}, {"capacity_gbs", t.capacity_gbs}, {"utilisation", t.utilisation}});
    return {{"step_s", pb.step_s},
            {"makespan_s", pb.makespan_s},
            {"grad_sync_end_s", pb.grad_sync_end_s},
            {"optimizer_end_s", pb.optimizer_end_s},
            {"ops", pb.timeline.ops.size()},
            {"comms", pb.comms.size()},
            {"links", links},
            {"tiers", tiers},
            {"notes", pb.notes}};
}

}   // namespace paraplan::estimate
