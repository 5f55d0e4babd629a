// The step playback (estimate/step_playback.h) against the things it must not
// disagree with: the ops active at sampled instants equal those of the schedule
// simulator run directly on the estimate's per-stage costs (several schedules); the
// step ends at the estimate's step time; each op's communication adds up to the
// estimate's per-stage terms and its bytes to the volumes of Narayanan et al. 2021
// (Sec. 3.2: two all-reduces of b*s*h activations per layer each way); the link
// traffic adds up to the collectives' bytes times their ring factors, and lands on
// NVLink or the network where the rank map puts the groups.
#include "estimate/comm.h"
#include "estimate/estimate.h"
#include "estimate/layers.h"
#include "estimate/lora.h"
#include "estimate/moe.h"
#include "estimate/step_flushes.h"
#include "estimate/step_playback.h"
#include "project/project.h"
#include "schedule/generate.h"
#include "schedule/simulate.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <QtTest>

#include <atomic>
#include <set>
#include <tuple>

using namespace paraplan;
using namespace paraplan::estimate;

namespace {

Project variant(const std::string& schedule, int chunks, const std::string& framework = "colossalai") {
    Project p = load_example("llama3.1-8b-pp4-1node");
    p.layout.framework = framework;
    p.layout.schedule = *parse_schedule(schedule);
    p.layout.chunks = chunks;
    return p;
}

using OpKey = std::tuple<int, int, int, int>;   // stage, kind, microbatch, chunk

}   // namespace

class TestStepPlayback : public QObject {
    Q_OBJECT
private slots:
    void activeOpsMatchSimulator_data();
    void activeOpsMatchSimulator();
    void commMatchesEstimateTerms();
    void linkTrafficAddsUp();
    void expertAndContextTraffic();
    void expertBytesFromMoeModel_data();
    void expertBytesFromMoeModel();
    void events();
    void tpInsideEachLayer_data();
    void tpInsideEachLayer();
    void tpEventsBounded();
    void stepFlushesMatchPlayback_data();
    void stepFlushesMatchPlayback();
    void syncSegmentIsTheExposedReduction_data();
    void syncSegmentIsTheExposedReduction();
    void zero3SingleStage();
    void zero3WithLora();
    void cancelStopsTheBuild();
};

void TestStepPlayback::activeOpsMatchSimulator_data() {
    QTest::addColumn<QString>("schedule");
    QTest::addColumn<int>("chunks");
    QTest::addColumn<QString>("simName");
    QTest::newRow("gpipe") << "gpipe" << 1 << "gpipe";
    QTest::newRow("1f1b") << "1f1b" << 1 << "1f1b";
    QTest::newRow("interleaved") << "interleaved" << 2 << "interleaved";   // ColossalAI InterleavedSchedule
    QTest::newRow("zbh1") << "zb1p" << 1 << "zbh1";
    QTest::newRow("zbv") << "zbv" << 2 << "zbv";
}

void TestStepPlayback::activeOpsMatchSimulator() {
    QFETCH(QString, schedule);
    QFETCH(int, chunks);
    QFETCH(QString, simName);
    const Project p = variant(schedule.toStdString(), chunks);
    const StepPlayback pb = step_playback(p);
    const Estimate& e = pb.estimate;
    QCOMPARE(QString::fromStdString(pb.timeline.schedule), simName);

    // The reference: generate + simulate directly.
    schedule::ScheduleRequest req;
    req.schedule = simName.toStdString();
    req.pp = e.config.pp;
    req.microbatches = e.config.num_microbatches;
    req.chunks = chunks;
    const auto g = schedule::generate(req);
    QVERIFY(g.schedule);
    schedule::SimConfig cfg;
    cfg.comm = e.config.link[kPp].latency_s;
    const int v = g.schedule->chunks;
    for (int vs = 0; vs < g.schedule->virtual_stages(); ++vs) {
        const StageCost sc = e.time.stages[std::size_t(g.schedule->stage_of(vs))].cost();
        cfg.virtual_stage_cost.push_back({sc.f / v, (sc.b - sc.w) / v, sc.w / v});
    }
    const auto sim = schedule::simulate(*g.schedule, cfg);
    QVERIFY(sim.ok());
    const schedule::Timeline& ref = sim.timeline;
    QVERIFY(!ref.ops.empty());
    QCOMPARE(pb.timeline.ops.size(), ref.ops.size());

    // The step: the simulated makespan, then the gradient reduction, optimizer and offload,
    // ending at the estimate's step time.
    QVERIFY(std::abs(pb.makespan_s - ref.makespan) <= 1e-12 * ref.makespan);
    QVERIFY(std::abs(pb.makespan_s - e.time.pipeline.makespan_s) <= 1e-12 * ref.makespan);
    QVERIFY(std::abs(pb.step_s - e.time.step_s) <= 1e-9 * e.time.step_s);
    QVERIFY(pb.step_s >= pb.makespan_s);

    // Sampled instants (off the op boundaries: 0.37 of the way into each of 257 slices).
    int busy = 0, idle = 0;
    for (int i = 0; i < 257; ++i) {
        const double t = (i + 0.37) / 257.0 * ref.makespan;
        std::set<OpKey> want, got;
        for (const auto& op : ref.ops)
            if (op.start <= t && t < op.end) want.insert({op.stage, int(op.kind), op.microbatch, op.chunk});
        const ActiveSet a = active_at(pb, t);
        std::set<int> stages_seen;
        for (const auto& s : a.stages) {
            stages_seen.insert(s.stage);
            if (s.op_index < 0) {
                QCOMPARE(s.activity, Activity::idle);
                ++idle;
                continue;
            }
            const auto& op = pb.timeline.ops[std::size_t(s.op_index)];
            QCOMPARE(op.stage, s.stage);
            QCOMPARE(op.microbatch, s.microbatch);
            QCOMPARE(op.chunk, s.chunk);
            got.insert({op.stage, int(op.kind), op.microbatch, op.chunk});
            ++busy;
        }
        QCOMPARE(int(stages_seen.size()), e.config.pp);
        if (got != want) QFAIL(qPrintable(QStringLiteral("active ops differ at t=%1").arg(t)));
        // Every active collective belongs to an active op or the gradient reduction and spans t.
        for (int k : a.comms) {
            const auto& c = pb.comms[std::size_t(k)];
            QVERIFY(c.start <= t && t < c.end);
        }
    }
    QVERIFY(busy > 0);
    if (schedule != "zbv") QVERIFY(idle > 0);   // the bubble shows as idle stages
}

void TestStepPlayback::commMatchesEstimateTerms() {
    // Llama 3.1 8B, tp 2 (no sequence parallelism), pp 4, 1F1B, 8 microbatches.
    const Project p = variant("1f1b", 1);
    const StepPlayback pb = step_playback(p);
    const Estimate& e = pb.estimate;
    const Config& c = e.config;
    QCOMPARE(c.tp, 2);
    QVERIFY(!c.sequence_parallel);
    const int m = c.num_microbatches;
    // Exposed communication per stage over the step = m x the estimate's per-microbatch term.
    for (int s = 0; s < c.pp; ++s) {
        std::array<double, kGroupKinds> exposed{};
        for (std::size_t i = 0; i < pb.timeline.ops.size(); ++i) {
            if (pb.timeline.ops[i].stage != s) continue;
            for (std::size_t k = pb.op_comm_begin[i]; k < pb.op_comm_begin[i + 1]; ++k) {
                const auto& x = pb.comms[k];
                if (x.end > x.start && !x.hidden) exposed[std::size_t(x.group)] += x.end - x.start;
            }
        }
        const StageTimes& st = e.time.stages[std::size_t(s)];
        QVERIFY(st.tp > 0);
        QVERIFY(std::abs(exposed[kTp] - m * st.tp) <= 1e-9 * m * st.tp);
        QVERIFY(std::abs(exposed[kPp] - m * st.pp) <= 1e-9 * std::max(1e-12, m * st.pp));
    }
    // Bytes of one forward's TP all-reduces: 2 per layer of b*s*h bf16 values (Narayanan Sec. 3.2).
    const double bsh2 = 1.0 * 1 * 4096 * 4096 * 2;   // micro batch 1, seq 4096, hidden 4096, 2 bytes
    const int layers0 = c.layers_per_stage[0];
    bool checked = false;
    for (std::size_t i = 0; i < pb.timeline.ops.size(); ++i) {
        const auto& op = pb.timeline.ops[i];
        if (op.stage != 0 || op.kind != schedule::OpKind::Forward) continue;
        double tp_bytes = 0;
        for (std::size_t k = pb.op_comm_begin[i]; k < pb.op_comm_begin[i + 1]; ++k) {
            const auto& x = pb.comms[k];
            if (x.group == kTp) {
                QCOMPARE(x.op, CollectiveOp::all_reduce);
                tp_bytes += x.bytes;
                checked = true;
            }
            if (x.group == kPp) {
                QCOMPARE(x.peer_stage, 1);
                QCOMPARE(x.bytes, bsh2);   // the activation of one microbatch to stage 1
            }
        }
        QVERIFY(std::abs(tp_bytes - 2.0 * layers0 * bsh2) <= 1e-12 * tp_bytes);
    }
    QVERIFY(checked);
    // The gradient all-reduce of each stage: its dense parameters x 2 bytes (bf16 gradients,
    // ZeRO 0), over dp = 2 once tp is 1.
    Project q = variant("1f1b", 1);
    q.layout.tp = 1;
    q.training.global_batch_size = 16;
    const StepPlayback qb = step_playback(q);
    QCOMPARE(qb.estimate.config.dp, 2);
    const auto params = stage_params(layer_shapes(q.model), qb.estimate.config);
    for (int s = 0; s < qb.pp; ++s) {
        double dp_bytes = 0;
        for (std::size_t k = qb.op_comm_begin.back(); k < qb.comms.size(); ++k)
            if (qb.comms[k].stage == s && qb.comms[k].group == kDp) {
                QCOMPARE(qb.comms[k].op, CollectiveOp::all_reduce);
                dp_bytes += qb.comms[k].bytes;
            }
        QCOMPARE(dp_bytes, params[std::size_t(s)].dense * 2);
    }
    // Without a data-parallel group there is nothing to reduce.
    for (std::size_t k = pb.op_comm_begin.back(); k < pb.comms.size(); ++k) QVERIFY(pb.comms[k].group != kDp);
}

void TestStepPlayback::linkTrafficAddsUp() {
    // Llama 3.1 70B on 4 nodes: tp 8 inside each node (sequence parallel), pp 4 across nodes.
    const Project p = load_example("llama3.1-70b-4nodes");
    const StepPlayback pb = step_playback(p);
    const Config& c = pb.estimate.config;
    QCOMPARE(c.tp, 8);
    QCOMPARE(c.pp, 4);
    QVERIFY(std::abs(pb.step_s - pb.estimate.time.step_s) <= 1e-9 * pb.estimate.time.step_s);
    // ColossalAI, global 256 / (micro 1 x dp 1 x num_microbatches 32): eight flushes of 32 per
    // step, played back to back (OneForwardOneBackwardSchedule: F and B per microbatch and stage).
    QCOMPARE(c.num_microbatches, 32);
    QCOMPARE(c.grad_accum_steps, 8);
    QCOMPARE(int(pb.timeline.ops.size()), 8 * 2 * 32 * c.pp);
    QCOMPARE(pb.timeline.microbatches, 256);
    QVERIFY(std::abs(pb.makespan_s - 8 * pb.estimate.time.pipeline.makespan_s) <= 1e-9 * pb.makespan_s);
    for (const auto& n : pb.estimate.notes) QVERIFY2(n.find("using the latter") == std::string::npos, n.c_str());
    const int world = p.world_size();
    QCOMPARE(int(pb.stage_of_rank.size()), world);
    // Expected per kind: every GPU of stage s sends wire_factor x its per-step buffer bytes.
    std::array<double, kGroupKinds> want{};
    for (const auto& x : pb.comms) {
        if (x.group == kPp) continue;
        const double gpus_on_stage = double(world) / c.pp;
        want[std::size_t(x.group)] += gpus_on_stage * wire_factor(x.op, c.link[x.group].size) * x.bytes;
    }
    double pp_want = 0;
    for (const auto& x : pb.comms)
        if (x.group == kPp && x.peer_stage >= 0) pp_want += double(world) / c.pp * x.bytes;
    std::array<double, kGroupKinds> got{};
    double intra_tp = 0, cross_pp = 0, total = 0;
    for (const auto& l : pb.links) {
        for (int k = 0; k < kGroupKinds; ++k) got[std::size_t(k)] += l.by_group[std::size_t(k)];
        if (!l.cross_node) intra_tp += l.by_group[kTp];
        else cross_pp += l.by_group[kPp];
        total += l.bytes;
    }
    QVERIFY(want[kTp] > 0);
    QVERIFY(std::abs(got[kTp] - want[kTp]) <= 1e-9 * want[kTp]);
    QVERIFY(std::abs(got[kPp] - pp_want) <= 1e-9 * pp_want);
    QVERIFY(std::abs(intra_tp - want[kTp]) <= 1e-9 * want[kTp]);   // tp stays inside the nodes
    QVERIFY(std::abs(cross_pp - pp_want) <= 1e-9 * pp_want);       // one stage per node: pp crosses
    // Worked by hand: per GPU and microbatch, each layer of its stage runs (2 fwd + 2 bwd) x
    // (AG + RS) over b*s*h*2 = 4096 x 8192 x 2 bytes, each moving 7/8 of its buffer;
    // 8 GPUs per stage, every microbatch of the step.
    const double bsh2 = 4096.0 * 8192 * 2;
    double hand = 0;
    for (int s = 0; s < c.pp; ++s)
        hand += 8.0 * c.num_microbatches * c.grad_accum_steps * c.layers_per_stage[std::size_t(s)] * 4 * 2 * bsh2 *
                7.0 / 8.0;
    QVERIFY(std::abs(got[kTp] - hand) <= 1e-9 * got[kTp]);
    // Sorted, largest first; the sum over links is the sum over kinds.
    for (std::size_t i = 1; i < pb.links.size(); ++i) QVERIFY(pb.links[i - 1].bytes >= pb.links[i].bytes);
    double kinds = 0;
    for (double x : got) kinds += x;
    QVERIFY(std::abs(total - kinds) <= 1e-9 * total);
    const auto j = to_json(pb);
    QCOMPARE(j["links"].size(), pb.links.size());
}

void TestStepPlayback::expertAndContextTraffic() {
    // Mixtral 8x7B with ep 8: dispatch/combine all-to-alls only on MoE-layer ops, spread
    // 1/n of the buffer to every peer.
    const Project p = load_example("mixtral-8x7b-2nodes-ep");
    const StepPlayback pb = step_playback(p);
    QVERIFY(std::abs(pb.step_s - pb.estimate.time.step_s) <= 1e-9 * pb.estimate.time.step_s);
    double ep_events = 0, ep_links = 0;
    const int world = p.world_size();
    for (const auto& x : pb.comms)
        if (x.group == kEp) {
            QCOMPARE(x.op, CollectiveOp::all_to_all);
            ep_events += double(world) / pb.pp * wire_factor(x.op, pb.estimate.config.link[kEp].size) * x.bytes;
        }
    for (const auto& l : pb.links) ep_links += l.by_group[kEp];
    QVERIFY(ep_events > 0);
    QVERIFY(std::abs(ep_links - ep_events) <= 1e-9 * ep_events);

    // Megatron with ring context parallelism: K/V exchanges inside the cp group.
    Project q = load_example("llama3.1-8b-pp4-1node");
    q.layout.framework = "megatron";
    q.layout.tp = 2;
    q.layout.pp = 2;
    q.layout.cp = 2;
    q.training.global_batch_size = 8;
    const StepPlayback pc = step_playback(q);
    QCOMPARE(pc.estimate.config.cp, 2);
    bool ring = false;
    for (const auto& x : pc.comms)
        if (x.group == kCp) {
            QCOMPARE(x.op, CollectiveOp::send_recv);
            ring = true;
        }
    QVERIFY(ring);
    QVERIFY(std::abs(pc.step_s - pc.estimate.time.step_s) <= 1e-9 * pc.estimate.time.step_s);
}

void TestStepPlayback::expertBytesFromMoeModel_data() {
    QTest::addColumn<QString>("dispatcher");
    QTest::addColumn<bool>("fp8");
    QTest::addColumn<int>("mtp");
    QTest::newRow("alltoall") << QStringLiteral("alltoall") << false << 0;
    QTest::newRow("deepep fp8") << QStringLiteral("deepep") << true << 0;
    QTest::newRow("allgather") << QStringLiteral("allgather") << false << 0;
    QTest::newRow("alltoall + 1 MTP module") << QStringLiteral("alltoall") << false << 1;
}

void TestStepPlayback::expertBytesFromMoeModel() {
    // The EP dispatch/combine the playback draws carries the bytes and wire time of the MoE
    // model the estimate charges (moe.h): per MoE layer and microbatch, routed = T_in x top_k x
    // hidden x load values each way (load = the default imbalance 1.5), dispatch in FP8 + one
    // fp32 scale per 128 values under DeepEP with FP8 (DeepEP README), everything else BF16.
    QFETCH(QString, dispatcher);
    QFETCH(bool, fp8);
    QFETCH(int, mtp);
    Project p = load_example("mixtral-8x7b-2nodes-ep");
    p.model.mtp_layers = mtp;   // Mixtral's layers are all MoE: an MTP module adds one on the last stage
    p.layout.moe_dispatcher = parse_enum<MoeDispatcher>(dispatcher.toStdString()).value();
    p.layout.fp8 = fp8;
    const StepPlayback pb = step_playback(p);
    const Config& c = pb.estimate.config;
    QVERIFY(c.ep > 1);
    QCOMPARE(c.moe.fp8_dispatch, fp8);
    QCOMPARE(c.moe.mtp_layers, mtp);
    QCOMPARE(c.head_stage, c.pp - 1);   // the MTP module sits on the last stage
    const LayerShapes shapes = layer_shapes(p.model);
    const double t_in = double(c.micro_batch) * c.seq_len / c.cp / (c.sequence_parallel ? c.tp : 1);
    const double routed = t_in * shapes.top_k * shapes.h * 1.5;
    const MoeBytes mb = moe_bytes(shapes, c);
    if (dispatcher == QLatin1String("allgather")) {
        const double gathered = t_in * shapes.h * 2 * c.ep * std::max(1, c.etp);
        QCOMPARE(mb.fwd(), 2 * gathered);
        QCOMPARE(mb.bwd(), 2 * gathered);
    } else {
        QCOMPARE(mb.dispatch_fwd, routed * (fp8 ? 1 + 4.0 / 128 : 2.0));
        QCOMPARE(mb.fwd(), mb.dispatch_fwd + routed * 2);
        QCOMPARE(mb.bwd(), routed * 4);
    }
    const MoeComm mt = moe_comm(shapes, c, pb.estimate.hardware);
    // Per stage over the step: every microbatch's forward and backward through the stage's MoE layers.
    for (int s = 0; s < pb.pp; ++s) {
        double bytes = 0, wire = 0;
        int ep_blocks = 0;
        for (const auto& x : pb.comms)
            if (x.group == kEp && x.stage == s) {
                QCOMPARE(x.op, dispatcher == QLatin1String("allgather") ? CollectiveOp::all_gather
                                                                        : CollectiveOp::all_to_all);
                bytes += x.bytes;
                wire += x.wire_s;
                ++ep_blocks;
            }
        const double layers = c.moe_layers_per_stage[std::size_t(s)] + (s == pb.pp - 1 ? mtp : 0);
        QVERIFY(layers > 0);
        QCOMPARE(ep_blocks, 2 * c.num_microbatches);
        const double want = c.num_microbatches * layers * (mb.fwd() + mb.bwd());
        QVERIFY2(std::abs(bytes - want) <= 1e-9 * want, qPrintable(QStringLiteral("%1 vs %2").arg(bytes).arg(want)));
        const double want_s = c.num_microbatches * layers * (mt.fwd_s + mt.bwd_s);
        QVERIFY2(std::abs(wire - want_s) <= 1e-9 * want_s,
                 qPrintable(QStringLiteral("%1 vs %2").arg(wire).arg(want_s)));
    }
}

void TestStepPlayback::tpInsideEachLayer_data() {
    QTest::addColumn<QString>("framework");
    QTest::addColumn<QString>("spMode");
    QTest::addColumn<bool>("overlap");
    QTest::addColumn<bool>("fullRecompute");
    QTest::newRow("all-reduce (ColossalAI tp 2)") << "colossalai"
                                                  << "none" << false << false;
    QTest::newRow("sequence parallel (Megatron)") << "megatron"
                                                  << "split_gather" << false << false;
    QTest::newRow("sequence parallel + tp_comm_overlap") << "megatron"
                                                         << "split_gather" << true << false;
    // Full recomputation runs the forward's two blocks (and their collectives) again in backward.
    QTest::newRow("all-reduce, full recomputation") << "colossalai"
                                                    << "none" << false << true;
    QTest::newRow("sequence parallel, full recomputation") << "megatron"
                                                           << "split_gather" << false << true;
}

void TestStepPlayback::tpInsideEachLayer() {
    // Megatron-LM (Shoeybi et al. 2019, Sec. 3, Fig. 3): per layer and pass an all-reduce after the
    // attention block and one after the MLP; with sequence parallelism (Korthikanti et al. 2022,
    // Sec. 4.2.2) an all-gather before and a reduce-scatter after each of the two blocks.
    QFETCH(QString, framework);
    QFETCH(QString, spMode);
    QFETCH(bool, overlap);
    QFETCH(bool, fullRecompute);
    Project p = variant("1f1b", 1, framework.toStdString());
    p.layout.sp_mode = *parse_enum<SpMode>(spMode.toStdString());
    p.layout.tp_comm_overlap = overlap;
    if (fullRecompute) p.layout.recompute = Recompute::full;
    const StepPlayback pb = step_playback(p);
    const Estimate& e = pb.estimate;
    const Config& c = e.config;
    QCOMPARE(c.tp, 2);
    const bool sp = spMode != QLatin1String("none");
    QCOMPARE(c.sequence_parallel, sp);
    QCOMPARE(c.tp_comm_overlap != TpCommOverlapKind::none, overlap);
    QCOMPARE(c.recompute == Recompute::full, fullRecompute);
    const int block = sp ? 2 : 1;   // collectives per block: all-reduce, or all-gather + reduce-scatter
    std::vector<double> stage_exposed(std::size_t(c.pp), 0.0);
    int passes = 0;
    for (std::size_t i = 0; i < pb.timeline.ops.size(); ++i) {
        const auto& op = pb.timeline.ops[i];
        const bool fwd = op.kind == schedule::OpKind::Forward;
        const int layers = c.layers_per_stage[std::size_t(op.stage)];
        // The blocks of a layer in order, true for the MLP: forward attention, MLP; backward MLP,
        // attention, after the recomputed forward's attention, MLP with full recomputation.
        std::vector<bool> blocks = fwd ? std::vector<bool>{false, true} : std::vector<bool>{true, false};
        if (!fwd && fullRecompute) blocks.insert(blocks.begin(), {false, true});
        const int per_layer = block * int(blocks.size());
        std::vector<const PlaybackComm*> tp;
        for (std::size_t k = pb.op_comm_begin[i]; k < pb.op_comm_begin[i + 1]; ++k)
            if (pb.comms[k].group == kTp) tp.push_back(&pb.comms[k]);
        // Per layer and pass: 2 all-reduces, or 2 all-gathers + 2 reduce-scatters (twice that in
        // backward with full recomputation).
        QCOMPARE(int(tp.size()), per_layer * layers);
        int gathers = 0, scatters = 0, reduces = 0;
        double exposed = 0, gaps = 0, t = op.start;
        int compute_runs = 0;
        for (std::size_t j = 0; j < tp.size(); ++j) {
            const PlaybackComm& x = *tp[j];
            gathers += x.op == CollectiveOp::all_gather;
            scatters += x.op == CollectiveOp::reduce_scatter;
            reduces += x.op == CollectiveOp::all_reduce;
            QCOMPARE(x.count, 1.0);
            // Inside the pass's compute span, not after it.
            QVERIFY(x.start >= op.start - 1e-15 && x.end <= pb.op_compute_end[i] + 1e-12);
            // Forward: attention then MLP in each layer; backward: the MLP's first.
            QVERIFY(x.block);
            const bool mlp = std::string(x.block) == "MLP";
            QVERIFY(mlp || std::string(x.block) == "attention");
            QVERIFY(describe_comm(x).find(std::string(" (") + x.block + "): ") != std::string::npos);
            QCOMPARE(mlp, bool(blocks[(j % std::size_t(per_layer)) / std::size_t(block)]));
            if (x.hidden) continue;
            exposed += x.end - x.start;
            QVERIFY(x.start >= t - 1e-12);   // in time order, one after the other
            if (x.start > t + 1e-12) ++compute_runs;
            gaps += x.start - t;
            t = x.end;
        }
        gaps += pb.op_compute_end[i] - t;
        const int calls = int(blocks.size()) * layers;
        if (sp) {
            QCOMPARE(gathers, calls);
            QCOMPARE(scatters, calls);
        } else {
            QCOMPARE(reduces, calls);
        }
        stage_exposed[std::size_t(op.stage)] += exposed;
        const double tp_share = 0.5 * e.time.stages[std::size_t(op.stage)].tp;
        QVERIFY(std::abs(exposed - tp_share) <= 1e-9 * std::max(1e-12, tp_share));
        if (tp_share > 0) {
            // The compute runs between the collectives: one stretch of compute at least per
            // layer, together the whole compute of the pass.
            QVERIFY(compute_runs >= layers);
            const double compute = pb.op_compute_end[i] - op.start - tp_share;
            QVERIFY(std::abs(gaps - compute) <= 1e-9 * compute);
            // At an instant inside a collective the stage is marked as exchanging data.
            const PlaybackComm& mid = *tp[tp.size() / 2];
            const ActiveSet a = active_at(pb, 0.5 * (mid.start + mid.end));
            bool found = false;
            for (int k : a.comms) found = found || &pb.comms[std::size_t(k)] == &mid;
            QVERIFY(found);
            for (const auto& sa : a.stages)
                if (sa.op_index == int(i)) QVERIFY(sa.communicating);
        }
        ++passes;
    }
    QVERIFY(passes > 0);
    // Over the step the TP collectives add up to the estimate's TP communication: m x the stage's
    // term per stage, and the bottleneck stage's total is the step's comm_tp_s.
    const double m = double(c.num_microbatches) * std::max(1, c.grad_accum_steps);
    for (int s = 0; s < c.pp; ++s) {
        const double want = m * e.time.stages[std::size_t(s)].tp;
        QVERIFY(std::abs(stage_exposed[std::size_t(s)] - want) <= 1e-9 * std::max(1e-12, want));
    }
    const double comm_tp = stage_exposed[std::size_t(e.time.bottleneck_stage)];
    QVERIFY(std::abs(comm_tp - e.time.comm_tp_s) <= 1e-9 * std::max(1e-12, e.time.comm_tp_s));
    if (!overlap) QVERIFY(e.time.comm_tp_s > 0);
    QVERIFY(std::abs(pb.step_s - e.time.step_s) <= 1e-9 * e.time.step_s);
}

void TestStepPlayback::tpEventsBounded() {
    // Llama 3.1 70B on 4 nodes: 2,048 passes of 20 layers with 4 SP collectives each would be
    // 163,840 TP events; the layers are grouped so that a step keeps about 131,072, and the calls
    // a group's events stand for still add up to every layer's.
    const Project p = load_example("llama3.1-70b-4nodes");
    const StepPlayback pb = step_playback(p);
    const Config& c = pb.estimate.config;
    QVERIFY(c.sequence_parallel);
    QCOMPARE(int(pb.timeline.ops.size()), 2048);
    std::size_t events = 0;
    for (std::size_t i = 0; i < pb.timeline.ops.size(); ++i) {
        double calls = 0;
        int n = 0;
        for (std::size_t k = pb.op_comm_begin[i]; k < pb.op_comm_begin[i + 1]; ++k)
            if (pb.comms[k].group == kTp) {
                calls += pb.comms[k].count;
                ++n;
            }
        QCOMPARE(n % 4, 0);
        QVERIFY(n < 4 * c.layers_per_stage[std::size_t(pb.timeline.ops[i].stage)]);
        QVERIFY(std::abs(calls - 4.0 * c.layers_per_stage[std::size_t(pb.timeline.ops[i].stage)]) <= 1e-9 * calls);
        events += std::size_t(n);
    }
    QVERIFY(events <= 131072);
    QVERIFY(events >= 65536);
}

void TestStepPlayback::events() {
    const StepPlayback pb = step_playback(variant("1f1b", 1));
    QVERIFY(pb.event_times.size() > pb.timeline.ops.size());
    QCOMPARE(pb.event_times.front(), 0.0);
    QCOMPARE(pb.event_times.back(), pb.step_s);
    double t = 0;
    int n = 0;
    while (t < pb.step_s && n < 100000) {
        const double next = pb.next_event(t);
        QVERIFY(next > t);
        QCOMPARE(pb.prev_event(next), t);
        t = next;
        ++n;
    }
    QCOMPARE(n + 1, int(pb.event_times.size()));
    // After the pipeline: the optimizer step on every stage.
    const ActiveSet a = active_at(pb, 0.5 * (pb.grad_sync_end_s + pb.optimizer_end_s));
    for (const auto& s : a.stages) QCOMPARE(s.activity, Activity::optimizer);
}

void TestStepPlayback::stepFlushesMatchPlayback_data() {
    QTest::addColumn<std::string>("framework");
    QTest::addColumn<int>("pp");
    QTest::addColumn<int>("flushes");
    QTest::addColumn<bool>("each");
    // Llama 3.1 70B on 32 GPUs, tp 8, global 256: pp 4 leaves dp 1 (8 flushes of 32, nothing to
    // reduce); pp 2 leaves dp 2 across the nodes (8 flushes of 16, the reduction exposed).
    QTest::newRow("colossalai dp 1") << std::string("colossalai") << 4 << 8 << false;
    QTest::newRow("colossalai dp 2") << std::string("colossalai") << 2 << 8 << false;
    QTest::newRow("devicemesh dp 2") << std::string("devicemesh") << 2 << 8 << true;
}

// The step as the timeline draws it (step_flushes) is the step the estimate prices and the
// playback plays: k flushes, the exposed reduction after each (DeviceMesh) or the last
// (ColossalAI), then the optimizer.
void TestStepPlayback::stepFlushesMatchPlayback() {
    QFETCH(std::string, framework);
    QFETCH(int, pp);
    QFETCH(int, flushes);
    QFETCH(bool, each);
    Project p = load_example("llama3.1-70b-4nodes");
    p.layout.framework = framework;
    p.layout.pp = pp;
    p.layout.num_microbatches = pp == 4 ? 32 : 16;
    const StepPlayback pb = step_playback(p);
    const Estimate& e = pb.estimate;
    const StepFlushes sf = step_flushes(e);
    QCOMPARE(sf.flushes, flushes);
    QCOMPARE(sf.flushes, e.config.grad_accum_steps);
    QCOMPARE(sf.sync_each_flush, each);
    QCOMPARE(sf.syncs, each ? flushes : 1);
    QCOMPARE(sf.flush_s, e.time.pipeline.makespan_s);
    const double tol = 1e-9 * e.time.step_s;
    QVERIFY(std::abs(sf.step_s() - e.time.step_s) <= tol);
    if (pp == 4) QCOMPARE(sf.sync_s, 0.0);   // dp 1
    else QVERIFY(sf.sync_s > 0.01 * sf.flush_s);
    // The playback: the last flush ends where step_flushes puts it, the reductions after it.
    QVERIFY(std::abs(pb.makespan_s - (sf.flush_start_s(flushes - 1) + sf.flush_s)) <= tol);
    QVERIFY(std::abs(pb.grad_sync_end_s - sf.pipeline_s()) <= tol);
    QVERIFY(std::abs(pb.step_s - sf.step_s()) <= tol);
    // Its flush j starts at flush_start_s(j): stage 0's first op of each flush.
    const auto& tl = pb.timeline;
    const std::size_t per_flush = (tl.stage_begin[1] - tl.stage_begin[0]) / std::size_t(flushes);
    for (int j = 0; j < flushes; ++j) {
        const auto& first = tl.ops[tl.stage_begin[0] + std::size_t(j) * per_flush];
        QVERIFY(std::abs(first.start - sf.flush_start_s(j)) <= tol);
        QCOMPARE(sf.sync_after(j), each || j == flushes - 1);
    }
}

void TestStepPlayback::syncSegmentIsTheExposedReduction_data() {
    QTest::addColumn<std::string>("framework");
    QTest::addColumn<int>("flushes");
    QTest::addColumn<bool>("each");
    // Llama 3.1 70B on 32 GPUs, tp 8, pp 2, dp 2 across the nodes: the reduction is exposed.
    // ColossalAI and DeviceMesh run global 256 as 8 flushes of 16 (reducing once after the last,
    // and after every flush); Megatron runs it as one flush of 128.
    QTest::newRow("colossalai") << std::string("colossalai") << 8 << false;
    QTest::newRow("devicemesh") << std::string("devicemesh") << 8 << true;
    QTest::newRow("megatron") << std::string("megatron") << 1 << false;
}

// The playback's gradient-sync segments are the reductions the estimate charged
// (TimeResult::grad_sync_exposed_s, grad_syncs): after the last flush from makespan_s to
// grad_sync_end_s, and between flushes where the framework reduces after each; the stage's
// reduction collectives drawn there end exactly where the segment ends.
void TestStepPlayback::syncSegmentIsTheExposedReduction() {
    QFETCH(std::string, framework);
    QFETCH(int, flushes);
    QFETCH(bool, each);
    Project p = load_example("llama3.1-70b-4nodes");
    p.layout.framework = framework;
    p.layout.pp = 2;
    p.layout.num_microbatches = 16;
    const StepPlayback pb = step_playback(p);
    const TimeResult& t = pb.estimate.time;
    QCOMPARE(pb.estimate.config.grad_accum_steps, flushes);
    QCOMPARE(t.grad_syncs, each ? flushes : 1);
    const double sync = t.grad_sync_exposed_s;
    QVERIFY2(sync > 0.01 * t.pipeline.makespan_s, qPrintable(QString::number(sync)));
    const double tol = 1e-12 * t.step_s;
    // After the last flush.
    QVERIFY2(std::abs((pb.grad_sync_end_s - pb.makespan_s) - sync) <= tol,
             qPrintable(QStringLiteral("%1 vs %2").arg(pb.grad_sync_end_s - pb.makespan_s).arg(sync)));
    const ActiveSet a = active_at(pb, 0.5 * (pb.makespan_s + pb.grad_sync_end_s));
    QCOMPARE(int(a.stages.size()), 2);
    for (const auto& s : a.stages) QCOMPARE(s.activity, Activity::grad_sync);
    // Flush j: its microbatches [j m, (j + 1) m); the segment after it runs to the next flush's start.
    const auto& tl = pb.timeline;
    const int m = pb.estimate.config.num_microbatches;
    std::vector<double> begin(std::size_t(flushes), pb.step_s), end(std::size_t(flushes), 0.0);
    for (const auto& op : tl.ops) {
        const std::size_t j = std::size_t(op.microbatch / m);
        QVERIFY(j < std::size_t(flushes));
        begin[j] = std::min(begin[j], op.start);
        end[j] = std::max(end[j], op.end);
    }
    QVERIFY(std::abs(end.back() - pb.makespan_s) <= tol);
    for (int j = 0; j + 1 < flushes; ++j)
        QVERIFY2(std::abs((begin[std::size_t(j) + 1] - end[std::size_t(j)]) - (each ? sync : 0.0)) <= tol,
                 qPrintable(QStringLiteral("flush %1: gap %2 vs %3")
                                .arg(j)
                                .arg(begin[std::size_t(j) + 1] - end[std::size_t(j)])
                                .arg(each ? sync : 0.0)));
    // The reduction collectives (after the ops' communication), the same number after each
    // flush that reduces: the last of them ends where that flush's segment ends.
    const std::size_t first = pb.op_comm_begin.back();
    const std::size_t n = pb.comms.size() - first;
    QVERIFY(n > 0);
    QCOMPARE(n % std::size_t(t.grad_syncs), std::size_t(0));
    const std::size_t per = n / std::size_t(t.grad_syncs);
    for (int i = 0; i < t.grad_syncs; ++i) {
        const int j = flushes - t.grad_syncs + i;
        double last = 0;
        for (std::size_t k = first + std::size_t(i) * per; k < first + std::size_t(i + 1) * per; ++k) {
            QCOMPARE(pb.comms[k].op_index, -1);
            QVERIFY(pb.comms[k].group == kDp || pb.comms[k].group == kEdp);
            last = std::max(last, pb.comms[k].end);
        }
        QVERIFY2(std::abs(last - (end[std::size_t(j)] + sync)) <= tol,
                 qPrintable(QStringLiteral("flush %1: reduction ends %2, segment %3")
                                .arg(j)
                                .arg(last)
                                .arg(end[std::size_t(j)] + sync)));
    }
}

void TestStepPlayback::zero3SingleStage() {
    // DeepSpeed ZeRO-3 on one pipeline stage, dp 8: every forward gathers the stage's
    // parameters (bf16), every backward gathers them again and reduce-scatters the gradients.
    Project p = variant("1f1b", 1, "deepspeed");
    p.layout.tp = 1;
    p.layout.pp = 1;
    p.layout.zero_stage = 3;
    p.training.global_batch_size = 16;
    const StepPlayback pb = step_playback(p);
    const Config& c = pb.estimate.config;
    QCOMPARE(c.dp, 8);
    QCOMPARE(c.zero_stage, 3);
    QCOMPARE(int(pb.timeline.ops.size()), 2 * c.num_microbatches);   // F, B per microbatch, one after the other
    QVERIFY(std::abs(pb.makespan_s - pb.estimate.time.pipeline.makespan_s) <= 1e-9 * pb.makespan_s);
    QVERIFY(std::abs(pb.step_s - pb.estimate.time.step_s) <= 1e-9 * pb.step_s);
    const double dense = stage_params(layer_shapes(p.model), c)[0].dense;
    int gathers = 0, scatters = 0;
    double wire = 0;
    for (const auto& x : pb.comms) {
        if (x.group != kDp) continue;
        if (x.op == CollectiveOp::all_gather) {
            QCOMPARE(x.bytes, dense * 2);
            ++gathers;
        } else {
            QCOMPARE(x.op, CollectiveOp::reduce_scatter);
            QCOMPARE(x.bytes, dense * c.grad_reduce_bytes);
            ++scatters;
        }
        wire += 8 * wire_factor(x.op, 8) * x.bytes;
    }
    QCOMPARE(gathers, 2 * c.num_microbatches);
    QCOMPARE(scatters, c.num_microbatches);
    double links = 0;
    for (const auto& l : pb.links) links += l.by_group[kDp];
    QVERIFY(std::abs(links - wire) <= 1e-9 * wire);
}

void TestStepPlayback::zero3WithLora() {
    // The same ZeRO-3 stage fine-tuned with LoRA over an NF4 base: the gathers move the base as
    // stored (4.127 bits a weight) with the 16-bit rest and adapters, the reduce-scatters only the
    // adapters' gradients, and the picture ends where the estimate's step does.
    Project p = variant("1f1b", 1, "deepspeed");
    p.layout.tp = 1;
    p.layout.pp = 1;
    p.layout.zero_stage = 3;
    p.training.global_batch_size = 16;
    Peft lora = default_lora();
    lora.base_dtype = PeftBaseDtype::nf4;
    p.layout.peft = lora;
    const StepPlayback pb = step_playback(p);
    const Config& c = pb.estimate.config;
    QVERIFY(c.lora.on());
    QVERIFY(std::abs(pb.step_s - pb.estimate.time.step_s) <= 1e-9 * pb.step_s);
    const LayerShapes s = layer_shapes(p.model);
    const double dense = stage_params(s, c)[0].dense;
    const double base = stage_base_linear_params(s, c)[0].dense;
    const double adapters = stage_adapter_params(s, c)[0].dense;
    QVERIFY(adapters > 0 && base > 0.8 * dense);   // Llama 3.1 8B: all but embedding, head and norms
    const double gathered = base_weight_bytes(PeftBaseDtype::nf4) * base + 2 * (dense - base + adapters);
    int gathers = 0, scatters = 0;
    double exposed = 0, wire = 0;
    for (const auto& x : pb.comms) {
        if (x.group != kDp || x.op_index < 0) continue;
        if (!x.hidden) exposed += x.end - x.start;
        wire += x.wire_s;
        if (x.op == CollectiveOp::all_gather) {
            QCOMPARE(x.bytes, gathered);
            ++gathers;
        } else {
            QCOMPARE(x.op, CollectiveOp::reduce_scatter);
            QCOMPARE(x.bytes, adapters * c.grad_reduce_bytes);   // not the frozen layer's
            ++scatters;
        }
    }
    QCOMPARE(gathers, 2 * c.num_microbatches);
    QCOMPARE(scatters, c.num_microbatches);
    // Per microbatch two gathers and one reduce-scatter on the dp link; the estimate exposes what
    // the prefetch leaves beyond the stage's compute, and the picture shows that much.
    const double per_mb = 2 * all_gather_s(c.link[kDp], gathered) +
                          reduce_scatter_s(c.link[kDp], adapters * c.grad_reduce_bytes);
    QVERIFY(std::abs(wire - c.num_microbatches * per_mb) <= 1e-9 * wire);
    const StageTimes& st = pb.estimate.time.stages[0];
    QVERIFY(std::abs(st.dp - std::max(0.0, per_mb - (st.compute_f + st.compute_b))) <= 1e-9 * per_mb);
    QVERIFY(std::abs(exposed - pb.estimate.time.comm_dp_s) <= 1e-9 * per_mb);
}

// A set cancel flag stops the build before any of its work and says so; a clear one changes
// nothing (the GUI sets it when an edit replaces the state being built).
void TestStepPlayback::cancelStopsTheBuild() {
    const Project p = load_example("llama3.1-70b-4nodes");
    const topology::RankMap map = topology::build_rank_map(topology::from_project(p), &p.cluster);
    const StepPlayback plain = step_playback(p, map);
    std::atomic<bool> flag{false};
    const StepPlayback kept = step_playback(p, map, &flag);
    QVERIFY(!plain.cancelled);
    QVERIFY(!kept.cancelled);
    QVERIFY(!kept.timeline.ops.empty());
    QVERIFY(!kept.links.empty());
    QCOMPARE(kept.step_s, plain.step_s);
    QCOMPARE(kept.comms.size(), plain.comms.size());
    QCOMPARE(kept.links.size(), plain.links.size());
    QCOMPARE(kept.event_times, plain.event_times);

    flag = true;
    const StepPlayback stopped = step_playback(p, map, &flag);
    QVERIFY(stopped.cancelled);
    QVERIFY(stopped.timeline.ops.empty());
    QVERIFY(stopped.comms.empty());
    QVERIFY(stopped.links.empty());
    QVERIFY(stopped.event_times.empty());
    QCOMPARE(stopped.step_s, 0.0);
}

QTEST_APPLESS_MAIN(TestStepPlayback)
#include "tst_step_playback.moc"
