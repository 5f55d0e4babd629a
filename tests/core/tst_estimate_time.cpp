// Communication and step-time pieces against their closed forms (Narayanan et al.
// 2021 Sec. 3.2 TP volume, ZeRO Sec. 7 DP volumes, ring collectives), and the
// framework mapping of make_config().
#include "estimate/comm.h"
#include "estimate/comm_terms.h"
#include "estimate/estimate.h"
#include "estimate/step_flushes.h"
#include "estimate_test_models.h"
#include "project/tp_comm_overlap.h"
#include "util/input_error.h"

#include <QtTest>

#include <algorithm>

using namespace paraplan;
using namespace paraplan::estimate;
using paraplan::test::ProjectBuilder;

namespace {}   // namespace

class TestEstimateTime : public QObject {
    Q_OBJECT
private slots:
    void group_bandwidth() {
        const Hardware hw = paper_a100(0);
        // Inside a node: NVLink.
        QCOMPARE(strided_link(hw, 8, 1).bw_gbs, 300.0);
        QCOMPARE(strided_link(hw, 8, 1).nodes, 1);
        // One member per node (dp outside tp = 8): each ring gets 1/8 of the node's 200 GB/s.
        const GroupLink dp = strided_link(hw, 16, 8);
        QCOMPARE(dp.nodes, 16);
        QCOMPARE(dp.members_per_node, 1);
        QCOMPARE(dp.bw_gbs, 25.0);
        // Two members per node (stride 4): two rings share less.
        const GroupLink d2 = strided_link(hw, 8, 4);
        QCOMPARE(d2.nodes, 4);
        QCOMPARE(d2.bw_gbs, 50.0);
        // Ring costs: all-reduce 2(n-1)/n, all-gather (n-1)/n.
        QVERIFY(qAbs(all_reduce_s(dp, 1e9) - 2 * 15.0 / 16 * 1e9 / 25e9) < 1e-12);
        QVERIFY(qAbs(all_gather_s(dp, 1e9) - 15.0 / 16 * 1e9 / 25e9) < 1e-12);
        QCOMPARE(all_reduce_s(strided_link(hw, 1, 1), 1e9), 0.0);
    }

    // TP traffic per layer per microbatch: 4 all-reduces of bsh (2 forward, 2 backward),
    // i.e. Narayanan's 8bsh(t-1)/t elements per device; SP's all-gather + reduce-scatter pairs
    // move the same.
    void tp_volume() {
        const ModelSpec m = paper_gpt(8, 4096, 32);
        const LayerShapes s = layer_shapes(m);
        Hardware hw = paper_a100(0);
        Config c;
        c.tp = 8;
        c.micro_batch = 2;
        c.seq_len = 2048;
        c.layers_per_stage = {8};
        c.moe_layers_per_stage = {0};
        c.link[kTp] = strided_link(hw, 8, 1);
        const auto params = stage_params(s, c);
        const auto st = stage_times(m, s, c, hw, efficiency_for(hw.arch), params);
        const double bytes_per_layer = 8.0 * 2 * 2048 * 4096 * 7 / 8 * 2;   // elements x 2 bytes
        const double latency = 8 * 4 * 2 * 7 * 1e-6;                        // 1 us per ring step inside a node
        QVERIFY(qAbs(st[0].tp - 8 * bytes_per_layer / 300e9 - latency) < 1e-9);
        c.sequence_parallel = true;
        const auto sp = stage_times(m, s, c, hw, efficiency_for(hw.arch), params);
        QVERIFY(qAbs(sp[0].tp - st[0].tp) < 1e-12);
        // Full recomputation repeats the forward's two.
        c.recompute = Recompute::full;
        const auto fr = stage_times(m, s, c, hw, efficiency_for(hw.arch), params);
        QVERIFY(qAbs(fr[0].tp - 1.5 * st[0].tp) < 1e-12);
        QVERIFY(fr[0].compute_b > st[0].compute_b);
        // torchtitan's op-level selective recomputation does not save the SP all-gathers: backward
        // gathers the attention and MLP inputs again (one more pair's volume per layer: 5 of 4).
        c.recompute = Recompute::selective;
        const auto sel = stage_times(m, s, c, hw, efficiency_for(hw.arch), params);
        QVERIFY(qAbs(sel[0].tp - st[0].tp) < 1e-12);   // unchanged for Megatron
        c.framework = "torchtitan";
        const LayerComm tl = layer_comm(s, c, hw, 0);
        QCOMPARE(tl.tp_bwd_count, 2);
        QCOMPARE(tl.tp_bwd_regathers, 2);
        // ... and DTensor's Shard(1) collectives copy the whole [b, s, h] tensor once each (chunk +
        // cat, read + write): 2 x 33,554,432 B at 80% of 2,039 GB/s = 41.1408 us per collective.
        const double copy = 2 * (2.0 * 2048 * 4096 * 2) / (2039e9 * 0.8);
        QVERIFY(qAbs(copy - 41.1408e-6) < 1e-9);
        QVERIFY(qAbs(tl.tp_gather_copy_s - copy) < 1e-15);
        QVERIFY(qAbs(tl.tp_scatter_copy_s - copy) < 1e-15);
        // Per layer: 4 pairs and 2 re-gathers = 10 collectives, each one wire step plus one copy.
        const double one = st[0].tp / 8 / 8;   // one Megatron collective (8 per layer, 8 layers)
        const auto tt = stage_times(m, s, c, hw, efficiency_for(hw.arch), params);
        QVERIFY(qAbs(tt[0].tp - 8 * 10 * (one + copy)) < 1e-12);
        c.sequence_parallel = false;   // all-reduce TP: nothing gathered to recompute, nothing copied
        QCOMPARE(layer_comm(s, c, hw, 0).tp_bwd_regathers, 0);
        QCOMPARE(layer_comm(s, c, hw, 0).tp_gather_copy_s, 0.0);
    }

    // torchtitan's DTensor sequence parallelism at the shape of its 8B TP 8 runs (local batch 12 x
    // 8,192 tokens, h 4,096) on one node of H100s (NVLink 450 GB/s, HBM 2,400 GB/s): every SP
    // all-gather and reduce-scatter is on dim 1 of [b, s, h] and pays a chunk + cat copy; with
    // tensorwise FP8 the all-gathers move FP8 (torchao Float8 TP styles); with rowwise they stay
    // 16-bit and the linears cast the gathered input.
    void torchtitan_sp_collectives() {
        const ModelSpec m = paper_gpt(4, 4096, 32);
        const LayerShapes s = layer_shapes(m);
        Hardware hw;
        hw.peak_tflops = 989.4;
        hw.peak_fp8_tflops = 1978.9;
        hw.hbm_gbps = 2400;
        hw.intra_node_gbps = 450;
        hw.arch = "hopper";
        Config c;
        c.framework = "torchtitan";
        c.kernels = KernelStack::compile;
        c.tp = 8;
        c.micro_batch = 12;
        c.seq_len = 8192;
        c.sequence_parallel = true;
        c.recompute = Recompute::selective;
        c.flash_attention = true;
        c.layers_per_stage = {4};
        c.moe_layers_per_stage = {0};
        c.link[kTp] = strided_link(hw, 8, 1);
        // Buffer: 98,304 tokens x 4,096 x 2 B = 805,306,368 B. Wire: 7/8 of it at 450 GB/s plus
        // 7 ring steps of 1 us = 1.572873 ms for an all-gather or a reduce-scatter. Copy: read +
        // write at 80% of 2,400 GB/s = 0.8388608 ms.
        const LayerComm bf = layer_comm(s, c, hw, 0);
        QCOMPARE(bf.tp_bytes, 805306368.0);
        QVERIFY(qAbs(bf.tp_gather_copy_s - 0.8388608e-3) < 1e-12);
        QVERIFY(qAbs(bf.tp_scatter_copy_s - 0.8388608e-3) < 1e-12);
        // Forward: 2 x (AG + RS) = 2 x 2 x (1.5728735 + 0.8388608) ms = 9.646937 ms; backward the
        // same pairs plus the two all-gathers op-level SAC runs again: 14.470406 ms.
        QVERIFY(qAbs(bf.tp_fwd_s - 9.646937e-3) < 1e-8);
        QVERIFY(qAbs(bf.tp_bwd_s - 14.470406e-3) < 1e-8);
        // Tensorwise: each all-gather moves and copies 402,653,184 B (0.7899367 + 0.4194304 ms);
        // the reduce-scatters stay 16-bit. Forward 2 x (1.2093671 + 2.4117343) = 7.242203 ms,
        // backward that plus 2 x 1.2093671 = 9.660937 ms.
        c.fp8 = Fp8Recipe::tensorwise;
        const LayerComm tw = layer_comm(s, c, hw, 0);
        QCOMPARE(tw.tp_gather_bytes, 402653184.0);
        QVERIFY(qAbs(tw.tp_gather_copy_s - 0.4194304e-3) < 1e-12);
        QVERIFY(qAbs(tw.tp_fwd_s - 7.242203e-3) < 1e-8);
        QVERIFY(qAbs(tw.tp_bwd_s - 9.660937e-3) < 1e-8);
        // Rowwise: torchtitan's plain TP styles gather 16-bit, as bf16.
        c.fp8 = Fp8Recipe::rowwise;
        const LayerComm rw = layer_comm(s, c, hw, 0);
        QVERIFY(qAbs(rw.tp_fwd_s - bf.tp_fwd_s) < 1e-15);
        QCOMPARE(rw.tp_gather_bytes, rw.tp_bytes);
        // ... and each FP8 linear casts the gathered input: the QKV and MLP-up casts cover h, not
        // h / 8, i.e. 98,304 x 2 x 3,584 more elements per layer at 10 B (x 0.67 under compile) over
        // 1,920 GB/s: 2.4589107 ms more forward per layer than where the cast precedes the gather.
        const Efficiency eff = efficiency_for(hw.arch, c.kernels, c.fp8);
        QVERIFY(qAbs(eff.fp8_cast_bytes - 6.7) < 1e-12);
        c.recompute = Recompute::none;
        const auto params = stage_params(s, c);
        const double tt_f = stage_times(m, s, c, hw, eff, params)[0].compute_f;
        c.framework = "megatron";   // casts the shard before its FP8 all-gather (TE); same kernels here
        const double mg_f = stage_times(m, s, c, hw, eff, params)[0].compute_f;
        QVERIFY(qAbs((tt_f - mg_f) - 4 * 2.4589107e-3) < 1e-9);
        // No copies for Megatron's dim-0 collectives.
        QCOMPARE(layer_comm(s, c, hw, 0).tp_gather_copy_s, 0.0);
    }

    // TP communication overlap (comm_terms.cpp overlapped_pair): Transformer Engine userbuffers
    // (ring exchange for the all-gathers, 4-way pipelined forward reduce-scatters, bulk backward
    // reduce-scatters) and torch's micro-pipeline TP (fused all-gather / reduce-scatter matmuls,
    // backward input-gradient reduce-scatters unfused), on the torchtitan_sp_collectives shapes.
    void tp_comm_overlap() {
        const ModelSpec m = paper_gpt(4, 4096, 32);
        const LayerShapes s = layer_shapes(m);
        Hardware hw;
        hw.peak_tflops = 989.4;
        hw.hbm_gbps = 2400;
        hw.intra_node_gbps = 450;
        hw.arch = "hopper";
        Config c;
        c.framework = "megatron";
        c.tp = 8;
        c.micro_batch = 12;
        c.seq_len = 8192;
        c.sequence_parallel = true;
        c.flash_attention = true;
        c.layers_per_stage = {4};
        c.moe_layers_per_stage = {0};
        c.link[kTp] = strided_link(hw, 8, 1);
        const double coll = 1.5728735e-3;   // one all-gather or reduce-scatter (torchtitan_sp_collectives)
        const LayerComm plain = layer_comm(s, c, hw, 0);
        QVERIFY(qAbs(plain.tp_fwd_s - 4 * coll) < 1e-9);
        QVERIFY(qAbs(plain.tp_attn_s - 4 * coll) < 1e-9);   // half of fwd + bwd
        c.tp_comm_overlap = TpCommOverlapKind::userbuffers;
        // Without GEMMs to hide behind nothing is hidden.
        QVERIFY(qAbs(layer_comm(s, c, hw, 0).tp_fwd_s - plain.tp_fwd_s) < 1e-15);
        // 1 ms GEMMs: ring exchange shows AG - 7/8 ms, the pipelined RS max(RS / 4, RS - 3/4 ms), bulk
        // RS - 1 ms. Forward 2 x (0.6978735 + 0.8228735) ms, backward 2 x (0.6978735 + 0.5728735) ms.
        const TpGemms ms{1e-3, 1e-3, 1e-3, 1e-3};
        const LayerComm ub = layer_comm(s, c, hw, 0, ms);
        QVERIFY(qAbs(ub.tp_fwd_s - 3.041494e-3) < 1e-9);
        QVERIFY(qAbs(ub.tp_bwd_s - 2.541494e-3) < 1e-9);
        QVERIFY(qAbs(ub.tp_hidden_s - (8 * coll - 5.582988e-3)) < 1e-9);
        QVERIFY(qAbs(ub.tp_attn_s - 0.5 * (ub.tp_fwd_s + ub.tp_bwd_s)) < 1e-15);
        // Long GEMMs: only the last pipelined chunk of each forward reduce-scatter shows.
        const TpGemms long_gemms{1, 1, 1, 1};
        QVERIFY(qAbs(layer_comm(s, c, hw, 0, long_gemms).tp_fwd_s - 2 * coll / 4) < 1e-9);
        QCOMPARE(layer_comm(s, c, hw, 0, long_gemms).tp_bwd_s, 0.0);
        // A config that runs the forward reduce-scatters as a ring exchange (NeMo's B200 userbuffers
        // configs) hides them as the all-gathers: 2 x (0.6978735 + 0.6978735) ms with 1 ms GEMMs,
        // nothing behind long ones.
        c.tp_overlap_proj_ring = c.tp_overlap_fc2_ring = true;
        QVERIFY(qAbs(layer_comm(s, c, hw, 0, ms).tp_fwd_s - 2.791494e-3) < 1e-9);
        QCOMPARE(layer_comm(s, c, hw, 0, long_gemms).tp_fwd_s, 0.0);
        c.tp_overlap_proj_ring = c.tp_overlap_fc2_ring = false;
        // Full recomputation runs the forward's (overlapped) pairs again.
        c.recompute = Recompute::full;
        QVERIFY(qAbs(layer_comm(s, c, hw, 0, long_gemms).tp_bwd_s - 2 * coll / 4) < 1e-9);
        c.recompute = Recompute::none;
        // The GEMM shares: paper GPT, QKV 3h^2, proj h^2, fc1 = fc2 = 4h^2 of 12h^2 (+ biases).
        const TpGemms g = tp_gemms(s, 12.0);
        QVERIFY(qAbs(g.qkv - 3) < 1e-2 && qAbs(g.proj - 1) < 1e-2 && qAbs(g.fc1 - 4) < 1e-2 && qAbs(g.fc2 - 4) < 1e-2);
        // The stage charges what stays exposed: less than without the overlap.
        const auto params = stage_params(s, c);
        const Efficiency eff = efficiency_for(hw.arch);
        const double exposed = stage_times(m, s, c, hw, eff, params)[0].tp;
        c.tp_comm_overlap = TpCommOverlapKind::none;
        QVERIFY(exposed < stage_times(m, s, c, hw, eff, params)[0].tp);

        // torchtitan async TP: the fused ops drop the DTensor copies and hide the forward pairs;
        // the fused reduce-scatter sums its 8 partials (805,306,368 B x 9/8 over 1,920 GB/s =
        // 0.4718592 ms); backward's input-gradient reduce-scatters (sums of dgrads) stay exposed
        // with their copies (1.5728735 + 0.8388608 ms).
        c.framework = "torchtitan";
        c.kernels = KernelStack::compile;
        c.tp_comm_overlap = TpCommOverlapKind::micro_pipeline;
        const LayerComm mp = layer_comm(s, c, hw, 0, long_gemms);
        QVERIFY(qAbs(mp.tp_fwd_s - 2 * 0.4718592e-3) < 1e-9);
        QVERIFY(qAbs(mp.tp_bwd_s - 2 * 2.4117343e-3) < 1e-9);
    }

    // The switches under each framework's own name, and what they need.
    void tp_comm_overlap_switches() {
        const ModelSpec m = paper_gpt(16, 2048, 16);
        const Hardware hw = paper_a100(0);
        const Project base = ProjectBuilder().model(m).global_batch_size(64).seq_len(4096).build();
        Project mg = ProjectBuilder(base).framework("megatron").tp(2).sp_mode(SpMode::split_gather).build();
        mg.layout.tp_comm_overlap = true;
        QVERIFY(make_config(m, base.training, mg.layout, hw, 16).tp_comm_overlap == TpCommOverlapKind::userbuffers);
        QVERIFY(!make_config(m, base.training, mg.layout, hw, 16).tp_overlap_proj_ring);
        mg.layout.tp_comm_overlap_cfg = nlohmann::json{{"proj_fprop", {{"method", "ring_exchange"}}},
                                                       {"fc2_fprop", {{"method", "pipeline"}}}};
        const Config ub = make_config(m, base.training, mg.layout, hw, 16);
        QVERIFY(ub.tp_overlap_proj_ring && !ub.tp_overlap_fc2_ring);
        mg.layout.tp_comm_overlap_cfg = nlohmann::json{};
        // torchtitan's name does nothing in Megatron.
        mg.layout.tp_comm_overlap = false;
        mg.layout.enable_async_tensor_parallel = true;
        QVERIFY(make_config(m, base.training, mg.layout, hw, 16).tp_comm_overlap == TpCommOverlapKind::none);
        // Megatron needs sequence parallelism: a note, and the collectives stay exposed.
        Project nosp = ProjectBuilder(base).framework("megatron").tp(2).sp_mode(SpMode::none).build();
        nosp.layout.tp_comm_overlap = true;
        std::vector<std::string> notes;
        const Config c = make_config(m, base.training, nosp.layout, hw, 16, &notes);
        QVERIFY(!c.sequence_parallel);
        QVERIFY(c.tp_comm_overlap == TpCommOverlapKind::none);
        // In the words of the rule kernel.tp_comm_overlap (one reason, project/tp_comm_overlap.h).
        const std::string why = tp_overlap_block_reason(TpOverlapBlock::no_sequence_parallel);
        QVERIFY(!why.empty());
        QVERIFY(std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(why) == 0; }));
        // torchtitan: async TP with compiled blocks only.
        Project tt = ProjectBuilder(base).framework("torchtitan").tp(2).build();
        tt.layout.enable_async_tensor_parallel = true;
        tt.layout.kernels = KernelStack::compile;
        QVERIFY(make_config(m, base.training, tt.layout, hw, 16).tp_comm_overlap == TpCommOverlapKind::micro_pipeline);
        tt.layout.kernels = KernelStack::eager;
        QVERIFY(make_config(m, base.training, tt.layout, hw, 16).tp_comm_overlap == TpCommOverlapKind::none);
    }

    // PyTorch's ring attention (torchtitan CP): step 0 is the rank's own causal SDPA call at
    // the plain attention rate, the cp - 1 later steps (the rest of the rank's work) run at
    // ring_sdpa of it; Transformer Engine's CP and cp 1 pay nothing extra.
    void ring_attention_steps() {
        const ModelSpec m = paper_gpt(4, 4096, 32);
        const LayerShapes s = layer_shapes(m);
        const Hardware hw = paper_a100(0);
        Config c;
        c.framework = "torchtitan";
        c.kernels = KernelStack::compile;
        c.flash_attention = true;
        c.cp = 4;
        c.seq_split = SeqSplit::ring;
        c.micro_batch = 1;
        c.seq_len = 4 * 8192;
        c.layers_per_stage = {4};
        c.moe_layers_per_stage = {0};
        c.link[kCp] = strided_link(hw, 4, 1);
        const auto params = stage_params(s, c);
        Efficiency plain = efficiency_for(hw.arch, KernelStack::compile);
        plain.ring_sdpa = 1;
        // The attention forward time of the 4 layers: doubling the attention rate halves it.
        Efficiency fast = plain;
        fast.attention *= 2;
        const double attn = 2 * (stage_times(m, s, c, hw, plain, params)[0].compute_f -
                                 stage_times(m, s, c, hw, fast, params)[0].compute_f);
        QVERIFY(attn > 0);
        Efficiency ring = plain;
        ring.ring_sdpa = 0.5;
        const double extra = stage_times(m, s, c, hw, ring, params)[0].compute_f -
                             stage_times(m, s, c, hw, plain, params)[0].compute_f;
        // 3 of the 4 steps at half the rate: 3/4 of the attention time once more.
        QVERIFY(qAbs(extra - 0.75 * attn) < 1e-9 * attn);
        c.kernels = KernelStack::te;
        QCOMPARE(stage_times(m, s, c, hw, ring, params)[0].compute_f,
                 stage_times(m, s, c, hw, plain, params)[0].compute_f);
        c.kernels = KernelStack::compile;
        c.cp = 1;
        c.seq_len = 8192;
        QCOMPARE(stage_times(m, s, c, hw, ring, params)[0].compute_f,
                 stage_times(m, s, c, hw, plain, params)[0].compute_f);
    }

    // DP: all-reduce of the gradients (ZeRO-1/2 and plain DP move 2 Psi), hidden behind the
    // last backward when overlapped; ZeRO-3 moves 3 Psi (ZeRO Sec. 7) every microbatch.
    void dp_volume_and_overlap() {
        const ModelSpec m = paper_gpt(4, 4096, 32);
        const LayerShapes s = layer_shapes(m);
        Hardware hw = paper_a100(0);
        Config c;
        c.dp = 64;
        c.zero_group = 64;
        c.seq_len = 2048;
        c.num_microbatches = 4;
        c.layers_per_stage = {4};
        c.moe_layers_per_stage = {0};
        c.link[kDp] = strided_link(hw, 64, 8);
        c.overlap_grad_reduce = false;
        const Efficiency eff = efficiency_for(hw.arch);
        const TimeResult t = estimate_time(m, s, c, hw, eff);
        const double psi = stage_params(s, c)[0].dense;
        QVERIFY(qAbs(t.comm_dp_s - 2 * 63.0 / 64 * psi * 2 / 25e9) < 1e-9);
        c.overlap_grad_reduce = true;
        const TimeResult o = estimate_time(m, s, c, hw, eff);
        QVERIFY(o.comm_dp_s < t.comm_dp_s);
        QVERIFY(qAbs(o.step_s - (t.step_s - (t.comm_dp_s - o.comm_dp_s))) < 1e-9);
        // ZeRO-3: two parameter all-gathers + one gradient reduce-scatter per microbatch = 3 Psi.
        c.zero_stage = 3;
        c.overlap_param_gather = false;
        const auto z = stage_times(m, s, c, hw, eff, stage_params(s, c));
        QVERIFY(qAbs(z[0].dp - 3 * 63.0 / 64 * psi * 2 / 25e9) < 1e-9);
    }

    // Step-time bookkeeping adds up, and more pipeline microbatches shrink the bubble share.
    void breakdown_adds_up() {
        const ModelSpec m = paper_gpt(32, 4096, 32);
        Hardware hw = paper_a100(0);
        const Project p = paper_project(m, "megatron", 64).tp(4).pp(4).build();
        const Config c = make_config(m, p.training, p.layout, hw, 32);
        QCOMPARE(c.dp, 2);
        QCOMPARE(c.num_microbatches, 32);
        const Estimate e = evaluate(m, layer_shapes(m), c, hw);
        const auto& x = e.time;
        const double sum = x.compute_s + x.bubble_s + x.comm_tp_s + x.comm_cp_s + x.comm_ep_s + x.comm_pp_s +
                           x.comm_dp_s + x.optimizer_s + x.offload_s;
        QVERIFY(qAbs(sum - x.step_s) < 1e-9 * x.step_s);
        QVERIFY(x.bubble_s > 0 && x.comm_tp_s > 0);
        QVERIFY(qAbs(x.bubble_s / (x.compute_s + x.comm_tp_s + x.comm_pp_s) - 3.0 / 32) < 0.02);
        const Project vp = ProjectBuilder(p).schedule(Schedule::interleaved).chunks(2).build();
        const Estimate ei = evaluate(m, layer_shapes(m), make_config(m, vp.training, vp.layout, hw, 32), hw);
        QVERIFY(ei.time.bubble_s < 0.6 * x.bubble_s);
        QVERIFY(ei.memory.stages[0].activations > e.memory.stages[0].activations);   // 1 + (p-1)/(pv) > 1 ... x p
        QVERIFY(e.time.mfu > 0.2 && e.time.mfu < 0.7);
        QCOMPARE(e.time.tokens_per_s, 64 * 2048 / e.time.step_s);
    }

    // Gradient accumulation over pipeline flushes. ColossalAI reads num_microbatches as one flush
    // (OneForwardOneBackwardSchedule.load_batch splits the per-rank batch of one execute_pipeline
    // call); a global batch of k flushes is k execute_pipeline calls, the first k - 1 under
    // booster.no_sync(), so one gradient reduction and one optimizer step. Worked by hand with
    // the closed-form 1F1B: a flush of m microbatches takes m x t_max plus (f + b) of every other
    // stage, a bubble of (p - 1)/m of the busy time for equal stages -- per flush.
    void gradient_accumulation() {
        const ModelSpec m = paper_gpt(32, 4096, 32);
        Hardware hw = paper_a100(0);
        Project p =
            paper_project(m, "colossalai", 64).tp(4).pp(4).schedule(Schedule::one_f_one_b).num_microbatches(8).build();
        const Training& t = p.training;
        Layout& l = p.layout;
        std::vector<std::string> notes;
        const Config c = make_config(m, t, l, hw, 32, &notes);
        QCOMPARE(c.dp, 2);
        QCOMPARE(c.num_microbatches, 8);
        QCOMPARE(c.grad_accum_steps, 4);   // 64 / (1 x 2 x 8)
        QVERIFY(!c.grad_sync_each_flush);
        auto noted = [&](const std::string& what) {
            for (const auto& n : notes)
                if (n.find(what) != std::string::npos) return true;
            return false;
        };
        QVERIFY(noted("4 pipeline flushes of 8 microbatches"));
        QVERIFY(!noted("using the latter"));

        const Estimate e = evaluate(m, layer_shapes(m), c, hw);
        const TimeResult& x = e.time;
        double tmax = 0, all = 0;
        for (const auto& st : x.stages) {
            const StageCost k = st.cost();
            all += k.f + k.b;
            tmax = std::max(tmax, k.f + k.b);
        }
        const double other = all - tmax;   // (p - 1) x (f + b) for equal stages
        QVERIFY(qAbs(x.pipeline.makespan_s - (8 * tmax + other)) < 1e-9 * x.pipeline.makespan_s);
        QVERIFY(qAbs(x.bubble_s - 4 * other) < 1e-9 * x.bubble_s);   // four bubbles, one per flush
        // (p - 1)/m = 3/8 of the busy time, not the 3/32 of a single 32-microbatch flush.
        const double busy = x.compute_s + x.comm_tp_s + x.comm_pp_s;
        QVERIFY(qAbs(x.bubble_s / busy - 3.0 / 8) < 0.05);
        // The step: four flushes, then one gradient reduction and one optimizer step.
        Config one = c;
        one.grad_accum_steps = 1;
        const Estimate e1 = evaluate(m, layer_shapes(m), one, hw);
        const double once = e1.time.step_s - e1.time.pipeline.makespan_s;
        QVERIFY(once > 0);
        QVERIFY(qAbs(x.step_s - (4 * e1.time.pipeline.makespan_s + once)) < 1e-9 * x.step_s);
        QVERIFY(qAbs(x.comm_dp_s - e1.time.comm_dp_s) < 1e-12);
        QVERIFY(qAbs(x.optimizer_s - e1.time.optimizer_s) < 1e-12);
        const double sum = x.compute_s + x.bubble_s + x.comm_tp_s + x.comm_cp_s + x.comm_ep_s + x.comm_pp_s +
                           x.comm_dp_s + x.optimizer_s + x.offload_s;
        QVERIFY(qAbs(sum - x.step_s) < 1e-9 * x.step_s);
        QVERIFY(qAbs(x.tokens_per_s - 64 * 2048 / x.step_s) < 1e-9 * x.tokens_per_s);
        // In-flight activations are those of one flush of 8 (1F1B: min(p - s, m) on stage s).
        QCOMPARE(e.memory.peak_bytes, e1.memory.peak_bytes);
        QCOMPARE(x.pipeline.inflight[0], 4);
        const auto j = to_json(e);
        QCOMPARE(j["layout"]["grad_accum_steps"].get<int>(), 4);
        QCOMPARE(j["layout"]["num_microbatches"].get<int>(), 8);
        QCOMPARE(j["time"]["flushes"].get<int>(), 4);

        // The same single flush of 32 (k = 1) has one bubble: a quarter of the accumulated ones.
        l.num_microbatches = 32;
        const Estimate e32 = evaluate(m, layer_shapes(m), make_config(m, t, l, hw, 32), hw);
        QCOMPARE(e32.config.grad_accum_steps, 1);
        QVERIFY(qAbs(e32.time.bubble_s - other) < 1e-9 * other);
        QVERIFY(e32.time.step_s < x.step_s);

        // Megatron has no such knob: one flush of 64 / (1 x 2) = 32, the layout's 8 noted as unread
        // (the rules warn: megatron.num_microbatches).
        l.framework = "megatron";
        l.num_microbatches = 8;
        notes.clear();
        const Config mc = make_config(m, t, l, hw, 32, &notes);
        QCOMPARE(mc.num_microbatches, 32);
        QCOMPARE(mc.grad_accum_steps, 1);
        QVERIFY(noted("is not read by Megatron-LM"));

        // A DeviceMesh pipeline (torch.distributed.pipelining) reduces after every flush: with the
        // reduction not overlapped, four flushes expose four all-reduces.
        l.framework = "devicemesh";
        Config dm = make_config(m, t, l, hw, 32);
        QCOMPARE(dm.grad_accum_steps, 4);
        QVERIFY(dm.grad_sync_each_flush);
        dm.overlap_grad_reduce = false;
        Config dm1 = dm;
        dm1.grad_accum_steps = 1;
        const Estimate d4 = evaluate(m, layer_shapes(m), dm, hw), d1 = evaluate(m, layer_shapes(m), dm1, hw);
        QVERIFY(d1.time.comm_dp_s > 0);
        QVERIFY(qAbs(d4.time.comm_dp_s - 4 * d1.time.comm_dp_s) < 1e-9 * d4.time.comm_dp_s);
        QVERIFY(qAbs(d4.time.step_s - (4 * (d1.time.pipeline.makespan_s + d1.time.comm_dp_s) + d1.time.optimizer_s +
                                       d1.time.offload_s)) < 1e-9 * d4.time.step_s);
    }

    // The exposed gradient reduction is a named part of the step (TimeResult::grad_sync_exposed_s
    // x grad_syncs), the one step_flushes() and the timeline lay out. DDP / ZeRO-1 with the reduction
    // not overlapped: ColossalAI reduces once after the last of 4 flushes, a DeviceMesh pipeline
    // after every flush. One reduction exposes what the slowest stage's grad_sync() calls leave
    // past the backward the later stages still run (grad_sync_window_s); with dp 1 nothing.
    void exposed_grad_sync_is_named() {
        const ModelSpec m = paper_gpt(32, 4096, 32);
        Hardware hw = paper_a100(0);
        Training t;
        t.global_batch_size = 64;
        t.micro_batch_size = 1;
        t.seq_len = 2048;
        Layout l;
        l.tp = 4;
        l.pp = 4;
        l.schedule = Schedule::one_f_one_b;
        l.num_microbatches = 8;
        for (const char* fw : {"colossalai", "devicemesh"}) {
            for (const int zero : {0, 1}) {
                l.framework = fw;
                l.zero_stage = zero;
                Config c = make_config(m, t, l, hw, 32);
                c.overlap_grad_reduce = false;
                QCOMPARE(c.grad_accum_steps, 4);
                QCOMPARE(c.zero_stage, zero);
                const Estimate e = evaluate(m, layer_shapes(m), c, hw);
                const TimeResult& x = e.time;
                const QByteArray what = QByteArray(fw) + " zero " + QByteArray::number(zero);
                QVERIFY2(x.grad_syncs == (c.grad_sync_each_flush ? 4 : 1), what);
                // The reduction worked out again from its calls and windows.
                const auto params = stage_params(layer_shapes(m), c);
                const auto fp8 = stage_fp8_weight_params(layer_shapes(m), c);
                double exposed = 0;
                for (int i = 0; i < c.pp; ++i) {
                    double calls = 0;
                    for (const CommCall& k : grad_sync(params[std::size_t(i)], fp8[std::size_t(i)], c))
                        calls += k.seconds;
                    exposed = std::max(exposed, calls - grad_sync_window_s(c, x.stages[std::size_t(i)].cost(), i));
                }
                QVERIFY2(exposed > 0, what);   // the reduction outlasts what hides it
                QVERIFY2(x.grad_sync_exposed_s == exposed, what);
                // It is all of comm_dp_s (no ZeRO-3 traffic per microbatch), and the step decomposes
                // exactly into flushes, reductions, optimizer and offload.
                QVERIFY2(x.comm_dp_s == x.grad_syncs_s(), what);
                QVERIFY2(x.step_s == c.grad_accum_steps * x.pipeline.makespan_s + x.grad_syncs * x.grad_sync_exposed_s +
                                         x.optimizer_s + x.offload_s,
                         what);
                // step_flushes() reports the same reductions, and its step is the estimate's.
                const StepFlushes sf = step_flushes(e);
                QCOMPARE(sf.syncs, x.grad_syncs);
                QCOMPARE(sf.sync_s, x.grad_sync_exposed_s);
                QCOMPARE(sf.sync_each_flush, c.grad_sync_each_flush);
                QCOMPARE(sf.step_s(), x.step_s);
                // And estimate --json carries both (added fields; "comm_s.dp" still holds the total).
                const auto j = to_json(e);
                QCOMPARE(j["time"]["grad_sync_exposed_s"].get<double>(), x.grad_sync_exposed_s);
                QCOMPARE(j["time"]["grad_syncs"].get<int>(), x.grad_syncs);
                QCOMPARE(j["time"]["comm_s"]["dp"].get<double>(), x.comm_dp_s);
            }
        }
        // Overlapped with the last backward the reduction exposes less (ColossalAI, once per step);
        // with no data parallelism nothing.
        l.framework = "colossalai";
        l.zero_stage = 0;
        Config overlapped = make_config(m, t, l, hw, 32);
        Config exposed = overlapped;
        overlapped.overlap_grad_reduce = true;
        exposed.overlap_grad_reduce = false;
        const Estimate h = evaluate(m, layer_shapes(m), overlapped, hw);
        const Estimate x = evaluate(m, layer_shapes(m), exposed, hw);
        QVERIFY(h.time.grad_sync_exposed_s < x.time.grad_sync_exposed_s);
        QCOMPARE(h.time.grad_syncs, 1);
        QCOMPARE(step_flushes(h).sync_s, h.time.grad_sync_exposed_s);
        QCOMPARE(x.time.step_s - h.time.step_s, x.time.grad_sync_exposed_s - h.time.grad_sync_exposed_s);
        const Estimate one = evaluate(m, layer_shapes(m), make_config(m, t, l, hw, 16), hw);   // pp 4 x tp 4: dp 1
        QCOMPARE(one.config.dp, 1);
        QCOMPARE(one.time.grad_sync_exposed_s, 0.0);
        QCOMPARE(step_flushes(one).sync_s, 0.0);
    }

    // Mixtral 8x7B (Jiang et al. 2024): 46.7B parameters, 12.9B active per token; the
    // model FLOPs are about 6 x active x tokens plus attention; experts split by ep.
    void moe_counts() {
        ModelSpec m;
        m.family = "mixtral";
        m.layers = 32;
        m.hidden = 4096;
        m.heads = 32;
        m.kv_heads = 8;
        m.ffn_hidden = 14336;
        m.expert_ffn_hidden = 14336;
        m.experts = 8;
        m.top_k = 2;
        m.vocab = 32000;
        m.activation = "swiglu";
        m.norm = "rmsnorm";
        const LayerShapes s = layer_shapes(m);
        const double total = m.layers *
                                 (s.attn_params + s.experts * s.expert_params + s.router_params + s.norm_params) +
                             s.embedding_params + s.head_params + s.final_norm_params;
        const double active = m.layers * (s.attn_params + s.top_k * s.expert_params + s.router_params + s.norm_params) +
                              s.embedding_params + s.head_params + s.final_norm_params;
        QCOMPARE(qRound(total / 1e8), 467);
        QCOMPARE(qRound(active / 1e8), 129);
        const double tokens = 4096;
        const StepFlops f = step_flops(m, s, 1, tokens, Recompute::none);
        const double attn = 3 * m.layers * tokens * 4 * tokens * 4096;
        // Matrix parameters only (norms do no GEMM work; the input embedding is a lookup).
        const double matmul_active = active - s.embedding_params - m.layers * s.norm_params - s.final_norm_params;
        QVERIFY(qAbs(f.model - (6 * matmul_active * tokens + attn)) < 1e-9 * f.model);
        // Per GPU with ep = 8, pp = 2 (ColossalAI MoE, 16 GPUs): one expert per GPU per layer.
        const Project p = ProjectBuilder()
                              .model(m)
                              .global_batch_size(64)
                              .seq_len(4096)
                              .framework("colossalai-moe")
                              .ep(8)
                              .pp(2)
                              .zero_stage(1)
                              .recompute(Recompute::full)
                              .build();
        Hardware hw = paper_a100(0);
        hw.peak_tflops = 989;
        hw.arch = "hopper";
        const Config c = make_config(m, p.training, p.layout, hw, 16);
        QCOMPARE(c.expert_zero_group, 1);   // moe_dp = dp / ep = 8 / 8
        const Estimate e = evaluate(m, s, c, hw);
        QVERIFY(qAbs(e.memory.stages[0].expert_params_count - 16 * s.expert_params) < 1);
        QVERIFY(e.time.comm_ep_s > 0);
        QVERIFY(e.time.mfu > 0.1 && e.time.mfu < 0.7);
    }

    // Framework mapping: what ZeRO shards over, SP/CP, bytes per parameter, errors.
    void framework_mapping() {
        const ModelSpec m = paper_gpt(16, 2048, 16);
        const Hardware hw = paper_a100(0);
        const Project base = ProjectBuilder().model(m).global_batch_size(64).seq_len(4096).build();
        const Training& t = base.training;
        const Project ulysses =
            ProjectBuilder(base).framework("colossalai").tp(2).sp(2).sp_mode(SpMode::all_to_all).zero_stage(1).build();
        Config c = make_config(m, t, ulysses.layout, hw, 16);
        QCOMPARE(c.cp, 2);
        QCOMPARE(c.dp, 4);
        QCOMPARE(c.zero_group, 8);   // mixed_dp_group = DP x SP
        QVERIFY(c.seq_split == SeqSplit::ulysses);
        QCOMPARE(c.bytes.grad, 2.0);
        c = make_config(m, t, ProjectBuilder(ulysses).sp_mode(SpMode::split_gather).sp(1).build().layout, hw, 16);
        QVERIFY(c.sequence_parallel);
        QCOMPARE(c.cp, 1);
        QCOMPARE(c.zero_group, 8);
        const Project megatron =
            ProjectBuilder(base).framework("megatron").tp(2).cp(2).distributed_optimizer(true).build();
        c = make_config(m, t, megatron.layout, hw, 16);
        QCOMPARE(c.dp, 4);
        QCOMPARE(c.zero_group, 8);   // distributed optimizer over DP x CP
        QVERIFY(c.distributed_optimizer);
        QCOMPARE(c.bytes.grad + c.bytes.weight + c.bytes.optimizer, 18.0);
        QVERIFY(c.seq_split == SeqSplit::ring);
        // MoE: ColossalAI runs ZeRO-2 as ZeRO-1; experts shard over moe_dp = dp / ep.
        ModelSpec moe = m;
        moe.family = "mixtral";
        moe.experts = 8;
        moe.top_k = 2;
        const Project cm = ProjectBuilder(base).model(moe).framework("colossalai-moe").ep(4).zero_stage(2).build();
        std::vector<std::string> notes;
        c = make_config(moe, t, cm.layout, hw, 16, &notes);
        QCOMPARE(c.zero_stage, 1);
        QCOMPARE(c.expert_zero_group, 4);
        QVERIFY(!notes.empty());
        // Sizes that do not divide: InputError naming the field.
        try {
            make_config(m, t, ProjectBuilder(base).tp(3).build().layout, hw, 16);
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/layout"));
            QVERIFY(e.message().find("not divisible") != std::string::npos);
        }
        const Project batch10 = ProjectBuilder(base).global_batch_size(10).build();
        try {
            make_config(m, batch10.training, batch10.layout, hw, 16);
            QFAIL("expected InputError");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/training/global_batch_size"));
        }
    }
};

QTEST_APPLESS_MAIN(TestEstimateTime)
#include "tst_estimate_time.moc"
