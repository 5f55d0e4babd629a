// Mixture-of-experts terms of the estimate (core/estimate/moe.h) against worked figures
// from their sources: tokens per expert, capacity and imbalance, DeepEP's per-node
// dispatch, FP8 dispatch bytes, MLA and MTP FLOPs as Megatron counts them, overlap, and
// the dropless vs forced-balance pairs of the Megatron-MoE-ModelZoo.
#include "estimate/comm.h"
#include "estimate/estimate.h"
#include "estimate/moe.h"
#include "estimate/simulated_pipeline.h"
#include "project/project.h"
#include "project_builder.h"
#include "util/input_error.h"

#include <QtTest>

#include <cmath>

using namespace paraplan;
using namespace paraplan::estimate;
using paraplan::test::ProjectBuilder;

namespace {

// deepseek-ai/DeepSeek-V3 config.json (catalog "deepseek-v3").
ModelSpec deepseek_v3() {
    ModelSpec m = family_defaults("deepseek_v3");
    m.layers = 61;
    m.hidden = 7168;
    m.heads = 128;
    m.kv_heads = 128;
    m.ffn_hidden = 18432;
    m.vocab = 129280;
    m.experts = 256;
    m.top_k = 8;
    m.expert_ffn_hidden = 2048;
    m.shared_experts = 1;
    m.dense_layers = {0, 1, 2};
    m.q_lora_rank = 1536;
    m.kv_lora_rank = 512;
    m.qk_nope_head_dim = 128;
    m.qk_rope_head_dim = 64;
    m.v_head_dim = 128;
    m.mtp_layers = 1;
    return m;
}

// Qwen/Qwen3-30B-A3B config.json.
ModelSpec qwen3_30b() {
    ModelSpec m = family_defaults("llama");
    m.family = "qwen3_moe";
    m.layers = 48;
    m.hidden = 2048;
    m.heads = 32;
    m.kv_heads = 4;
    m.head_dim = 128;
    m.ffn_hidden = 6144;
    m.vocab = 151936;
    m.experts = 128;
    m.top_k = 8;
    m.expert_ffn_hidden = 768;
    return m;
}

// DGX H100: 8 GPUs on NVLink 4 (450 GB/s per direction), 8 x 400 Gb/s InfiniBand per node.
Hardware h100() {
    Hardware hw;
    hw.peak_tflops = 989;
    hw.hbm_gbps = 3352;
    hw.intra_node_gbps = 450;
    hw.inter_node_gbits = 3200;
    hw.gpus_per_node = 8;
    hw.arch = "hopper";
    return hw;
}

// A Megatron project at micro-batch 1; the caller adds the layout and passes hardware and world
// size to make_config.
ProjectBuilder megatron_project(const ModelSpec& m, int global_batch_size, int seq_len) {
    return ProjectBuilder()
        .model(m)
        .global_batch_size(global_batch_size)
        .micro_batch_size(1)
        .seq_len(seq_len)
        .framework("megatron");
}

Config moe_config(int tp, int ep, int etp, int mb, int seq) {
    Config c;
    c.tp = tp;
    c.ep = ep;
    c.etp = etp;
    c.micro_batch = mb;
    c.seq_len = seq;
    c.sequence_parallel = tp > 1;
    return c;
}

bool near(double a, double b, double rel = 1e-12) {
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

}   // namespace

class TestEstimateMoe : public QObject {
    Q_OBJECT
private slots:
    // Rows of one local expert's GEMM: T x k x ep x etp / (E x tp), not the microbatch's tokens.
    void tokens_per_expert_at_real_rows() {
        const LayerShapes q = layer_shapes(qwen3_30b());
        // One GPU, 4096 tokens, top-8 of 128 experts: 256 rows per expert (a few hundred, as the issue says).
        QCOMPARE(tokens_per_expert(q, moe_config(1, 1, 1, 1, 4096)), 256.0);
        // EP8: each local expert gathers from 8 ranks: 2048 rows.
        QCOMPARE(tokens_per_expert(q, moe_config(1, 8, 1, 1, 4096)), 2048.0);
        // Megatron TP2 with SP and ETP1 (Qwen3-235B ModelZoo layout): T/2 tokens enter the layer.
        QCOMPARE(tokens_per_expert(q, moe_config(2, 8, 1, 1, 4096)), 1024.0);
        // ETP = TP: the tokens are all-gathered over the expert-TP group again.
        QCOMPARE(tokens_per_expert(q, moe_config(2, 8, 2, 1, 4096)), 2048.0);
        // Summed over the E/ep local experts of every rank, the rows are the routed copies of the
        // ep ranks' tokens (DeepEP README setting: 4096 tokens per rank, top-8, EP64 over 256 experts).
        const LayerShapes d = layer_shapes(deepseek_v3());
        const Config c = moe_config(1, 64, 1, 1, 4096);
        QCOMPARE(tokens_per_expert(d, c) * (256 / 64) * 64, 4096.0 * 8 * 64);
    }

    // The expert GEMMs run at the efficiency of the rows each expert really gets.
    void expert_gemm_efficiency() {
        const LayerShapes q = layer_shapes(qwen3_30b());
        Config c = moe_config(1, 1, 1, 1, 4096);
        c.moe.imbalance = 1;
        const Hardware hw = h100();
        const Efficiency eff = efficiency_for("hopper");
        const double flops = 4096.0 * 8 * 2 * (3.0 * 2048 * 768);
        const double expect = flops / (989e12 * eff.gemm_max * 256 / (256 + kGroupedGemmHalfRows));
        QVERIFY(near(expert_gemm_fwd_s(q, c, hw, eff), expect));
        // A busier rank does more work at slightly better efficiency: load 1.5 -> 384 rows.
        c.moe.imbalance = 1.5;
        const double busy = 1.5 * flops / (989e12 * eff.gemm_max * 384 / (384 + kGroupedGemmHalfRows));
        QVERIFY(near(expert_gemm_fwd_s(q, c, hw, eff), busy));
        // EP8 gathers 8x the rows per expert: same FLOPs per GPU, better efficiency, faster.
        c.ep = 8;
        QVERIFY(expert_gemm_fwd_s(q, c, hw, eff) < busy);
        QVERIFY(near(grouped_gemm_efficiency(eff, kGroupedGemmHalfRows), eff.gemm_max / 2));
    }

    // Switch Transformer Sec. 2.2 / GShard: capacity = C x tokens / experts; tokens beyond it drop,
    // so the busiest expert does at most C x its share.
    void capacity_and_imbalance() {
        MoeOptions o;
        QCOMPARE(moe_load_factor(o), kDefaultMoeImbalance);   // dropless, default imbalance
        o.imbalance = 1.6;
        QCOMPARE(moe_load_factor(o), 1.6);
        o.capacity_factor = 1.25;
        QCOMPARE(moe_load_factor(o), 1.25);
        o.capacity_factor = 2.0;
        QCOMPARE(moe_load_factor(o), 1.6);
        o.imbalance = 1;   // forced balance (Megatron --moe-router-force-load-balancing)
        QCOMPARE(moe_load_factor(o), 1.0);
    }

    // Expected nodes a token's top-k experts reach: N (1 - C(E - E/N, k) / C(E, k)).
    void nodes_reached_closed_form() {
        // E = 4 on 2 nodes, k = 2: P(miss a node) = C(2,2)/C(4,2) = 1/6 -> 2 x 5/6.
        QVERIFY(near(nodes_reached(4, 2, 2), 5.0 / 3));
        QCOMPARE(nodes_reached(256, 1, 8), 1.0);
        QCOMPARE(nodes_reached(256, 8, 1), 1.0);
        // More picks than experts per node guarantee every node when k > E - E/N.
        QCOMPARE(nodes_reached(8, 7, 2), 2.0);
        // DeepSeek-V3 over EP64 = 8 nodes: 8 (1 - prod_{i<8} (224 - i)/(256 - i)).
        double miss = 1;
        for (int i = 0; i < 8; ++i) miss *= (224.0 - i) / (256.0 - i);
        QVERIFY(near(nodes_reached(256, 8, 8), 8 * (1 - miss)));
        QVERIFY(nodes_reached(256, 8, 8) > 5.2 && nodes_reached(256, 8, 8) < 5.4);
    }

    // Dispatch + combine bytes: T x k x h per direction, BF16, or FP8 + 1 fp32 scale per 128
    // (DeepEP README: "FP8 dispatching and BF16 combining").
    void dispatch_bytes_single_node() {
        const LayerShapes d = layer_shapes(deepseek_v3());
        Config c = moe_config(1, 8, 1, 1, 4096);
        c.moe.imbalance = 1;
        const Hardware hw = h100();
        c.link[kEp] = make_link(hw, 8, 1, 8);
        const double bytes = 4096.0 * 8 * 7168 * 2;
        const double a2a = 7.0 / 8 * bytes / 450e9 + c.link[kEp].latency_s;
        MoeComm r = moe_comm(d, c, hw);
        QVERIFY(near(r.fwd_s, 2 * a2a));
        QVERIFY(near(r.bwd_s, 2 * a2a));
        // FP8 dispatch halves the dispatch (plus scales), combine and backward stay BF16.
        c.moe.dispatcher = MoeDispatcher::deepep;
        c.moe.fp8_dispatch = true;
        r = moe_comm(d, c, hw);
        const double fp8 = 7.0 / 8 * bytes * (1 + 4.0 / 128) / 2 / 450e9 + c.link[kEp].latency_s;
        QVERIFY(near(r.fwd_s, fp8 + a2a));
        QVERIFY(near(r.bwd_s, 2 * a2a));
        // Load 1.3: the busiest rank moves 1.3x the bytes.
        c.moe.fp8_dispatch = false;
        c.moe.imbalance = 1.3;
        r = moe_comm(d, c, hw);
        QVERIFY(near(r.fwd_s - 2 * c.link[kEp].latency_s, 1.3 * 2 * (a2a - c.link[kEp].latency_s)));
    }

    // Across nodes a plain all-to-all sends every (token, expert) copy bound for another node over
    // the network; DeepEP sends one copy per destination node (nodes_reached) and forwards over NVLink.
    void deepep_dedups_network_bytes() {
        const LayerShapes d = layer_shapes(deepseek_v3());
        const Hardware hw = h100();
        Config c = moe_config(1, 16, 1, 1, 4096);   // EP16 over 2 nodes
        c.moe.imbalance = 1;
        c.link[kEp] = make_link(hw, 16, 2, 8);
        const double lat = c.link[kEp].latency_s;
        const double nic = 3200.0 / 8 / 8 * 1e9;   // 50 GB/s per GPU
        c.moe.dispatcher = MoeDispatcher::deepep;
        const MoeComm deep = moe_comm(d, c, hw);
        const double remote = nodes_reached(256, 8, 2) / 2;   // the other node, when reached
        const double rdma = 4096.0 * 7168 * 2 * remote / nic;
        const double nvl = 4096.0 * 8 * 7168 * 2 * 7 / 8 / 450e9;
        QVERIFY(rdma > nvl);
        QVERIFY(near(deep.fwd_s, 2 * (rdma + lat)));
        c.moe.dispatcher = MoeDispatcher::alltoall;
        const MoeComm plain = moe_comm(d, c, hw);
        QVERIFY(near(plain.fwd_s, 2 * all_to_all_s(c.link[kEp], hw, 4096.0 * 8 * 7168 * 2)));
        // About top_k / 2 = 4x fewer bytes on the network.
        QVERIFY(plain.fwd_s / deep.fwd_s > 3.5 && plain.fwd_s / deep.fwd_s < 4.5);
    }

    // With dropless routing the busiest rank's load applies to what it receives over NVLink; the
    // network leg delivers to a whole node, whose excess averages over its members.
    void deepep_network_leg_at_node_load() {
        const LayerShapes d = layer_shapes(deepseek_v3());
        const Hardware hw = h100();
        Config c = moe_config(1, 32, 1, 1, 4096);   // EP32 over 4 nodes, 8 ranks each
        c.moe.dispatcher = MoeDispatcher::deepep;
        c.moe.imbalance = 1.5;
        c.link[kEp] = make_link(hw, 32, 4, 8);
        const double lat = c.link[kEp].latency_s;
        const double nic = 3200.0 / 8 / 8 * 1e9;
        const double remote = nodes_reached(256, 8, 4) * 3 / 4;
        const double rdma = 4096.0 * 7168 * 2 * remote * (1 + 0.5 / std::sqrt(8.0)) / nic;
        const double nvl = 1.5 * 4096.0 * 8 * 7168 * 2 * 7 / 8 / 450e9;
        QVERIFY(near(moe_comm(d, c, hw).fwd_s, 2 * (std::max(rdma, nvl) + lat)));
        // Balanced routing: the node's load is the rank's.
        c.moe.imbalance = 1;
        const double rdma1 = 4096.0 * 7168 * 2 * remote / nic;
        const double nvl1 = 4096.0 * 8 * 7168 * 2 * 7 / 8 / 450e9;
        QVERIFY(near(moe_comm(d, c, hw).fwd_s, 2 * (std::max(rdma1, nvl1) + lat)));
    }

    // One GEMM per local expert for fc1 and fc2 (forward, dgrad, wgrad) and, with FP8, one
    // quantization per expert operand (3 kernels under current scaling, 1 for MXFP8, fused over
    // the experts for delayed scaling), each costing kMoeKernelS on the step (moe.h).
    void expert_kernels_per_local_expert() {
        const LayerShapes q = layer_shapes(qwen3_30b());
        Config c = moe_config(1, 16, 1, 1, 4096);   // 128 / 16 = 8 local experts
        c.framework = "megatron";
        MoeKernels k = moe_expert_kernels(c, q);
        QCOMPARE(k.fwd, 8.0 * 2);
        QCOMPARE(k.bwd, 8.0 * 4);
        QVERIFY(near(k.fwd_s, 16 * kMoeKernelS) && near(k.bwd_s, 32 * kMoeKernelS));
        c.fp8 = Fp8Recipe::tensorwise;
        k = moe_expert_kernels(c, q);
        QCOMPARE(k.fwd, 8.0 * (2 + 2 * 3));
        QCOMPARE(k.bwd, 8.0 * (4 + 2 * 3));
        c.fp8 = Fp8Recipe::mxfp8;
        k = moe_expert_kernels(c, q);
        QCOMPARE(k.fwd, 8.0 * (2 + 2));
        QCOMPARE(k.bwd, 8.0 * (4 + 2));
        c.fp8 = Fp8Recipe::delayed;
        QCOMPARE(moe_expert_kernels(c, q).fwd, 8.0 * 2);
        c.ep = 8;   // 16 local experts
        QCOMPARE(moe_expert_kernels(c, q).bwd, 16.0 * 4);
        // Only Megatron-Core's MoE layer was read; dense models have none.
        c.framework = "torchtitan";
        QCOMPARE(moe_expert_kernels(c, q).fwd, 0.0);
        c.framework = "megatron";
        ModelSpec dense = qwen3_30b();
        dense.experts = 0;
        QCOMPARE(moe_expert_kernels(c, layer_shapes(dense)).fwd, 0.0);

        // The step carries them: 48 MoE layers x microbatches x (fwd + bwd) kernels x kMoeKernelS
        // over the same configuration without them.
        ModelSpec m = qwen3_30b();
        const Project p = megatron_project(m, 64, 4096).ep(8).etp(1).build();
        const Hardware hw = h100();
        const Config cm = make_config(m, p.training, p.layout, hw, 8);
        const Estimate e = evaluate(m, layer_shapes(m), cm, hw);
        QCOMPARE(e.moe.expert_kernels, 16.0 * 6);
        QVERIFY(near(e.moe.expert_kernel_s, 16 * 6 * kMoeKernelS));
        Config without = cm;
        without.framework = "torchtitan";
        const double mb = cm.num_microbatches;
        QVERIFY(mb >= 1);
        QVERIFY(near(e.time.compute_s - evaluate(m, layer_shapes(m), without, hw).time.compute_s,
                     48 * mb * 16 * 6 * kMoeKernelS, 1e-9));
    }

    // Expert TP: all-gather the received tokens over etp and reduce-scatter the outputs.
    void expert_tensor_parallel_gather() {
        const LayerShapes q = layer_shapes(qwen3_30b());
        const Hardware hw = h100();
        Config c = moe_config(2, 1, 2, 1, 4096);
        c.moe.imbalance = 1;
        const GroupLink etpl = strided_link(hw, 2, 1);
        const double gathered = 2048.0 * 8 * 2048 * 2 * 2;   // T/tp tokens x k x h x bf16, x etp
        const MoeComm r = moe_comm(q, c, hw);
        QVERIFY(near(r.fwd_s, all_gather_s(etpl, gathered) + reduce_scatter_s(etpl, gathered)));
        // Allgather dispatcher: gathers hidden states (not k copies) over TP x EP.
        c.ep = 4;
        c.link[kEp] = make_link(hw, 4, 1, 4);
        c.moe.dispatcher = MoeDispatcher::allgather;
        const double g2 = 2048.0 * 2048 * 2 * 4 * 2;
        QVERIFY(near(moe_comm(q, c, hw).fwd_s, all_gather_s(c.link[kEp], g2) + reduce_scatter_s(c.link[kEp], g2)));
    }

    // MLA projections count as Megatron's num_floating_point_operations (core_v0.19.0
    // training.py, multi_latent_attention branch); its core attention is counted causal (1/2),
    // ours at the full s^2 like the rest of the estimate.
    void mla_flops_match_megatron() {
        const ModelSpec m = deepseek_v3();
        const LayerShapes s = layer_shapes(m);
        const double h = 7168, H = 128, ql = 1536, kvl = 512, nope = 128, rope = 64, v = 128;
        const double q_term = ql * (h + H * (nope + rope) + 1);
        const double megatron_proj = 2 * (q_term + kvl * (h + H * (nope + v) + 1) + h * rope + H * v * h);
        const LayerFlops f = layer_flops_per_token(s, false, 4096);
        const double ours_proj = 2 * s.attn_params;
        QVERIFY(near(ours_proj, megatron_proj));
        QVERIFY(near(f.gemm - ours_proj, 2 * s.dense_mlp_params));
        const double megatron_core = 2 * 4096 * (H * (nope + rope) / 2 + H * v / 2);
        QVERIFY(near(f.attention, 2 * megatron_core));
    }

    // MTP (DeepSeek-V3 Sec. 2.2): each module adds a layer like the last (MoE), the 2h -> h
    // projection with its norms, and another output-layer pass; Megatron counts exactly this.
    void mtp_flops_match_megatron() {
        const ModelSpec m = deepseek_v3();
        const LayerShapes s = layer_shapes(m);
        const double B = 8, seq = 4096, tokens = B * seq, h = 7168, V = 129280;
        const double without = step_flops(m, s, B, seq, Recompute::none, 0).model;
        const double with = step_flops(m, s, B, seq, Recompute::none, 1).model;
        const LayerFlops moe = layer_flops_per_token(s, true, seq);
        const double megatron_extra = 3 * tokens * (moe.gemm + moe.attention + 2 * (3 * h + 2 * h * h) + 2 * h * V);
        QVERIFY(near(with - without, megatron_extra));
        // The whole-model count per token is about 6 x 37B active parameters plus attention.
        QVERIFY(without / tokens > 6 * 36e9 && without / tokens < 6 * 50e9);
    }

    // The estimate carries MTP on the last stage: more compute, parameters and activations there.
    void mtp_on_last_stage() {
        ModelSpec m = deepseek_v3();
        const Project p = megatron_project(m, 64, 4096).pp(4).ep(8).etp(1).distributed_optimizer(true).build();
        const Hardware hw = h100();
        m.mtp_layers = 0;
        const Estimate a = evaluate(m, layer_shapes(m), make_config(m, p.training, p.layout, hw, 256), hw);
        m.mtp_layers = 1;
        const Config c = make_config(m, p.training, p.layout, hw, 256);
        QCOMPARE(c.moe.mtp_layers, 1);
        const Estimate b = evaluate(m, layer_shapes(m), c, hw);
        QVERIFY(b.time.stages[3].compute_f > a.time.stages[3].compute_f);
        QCOMPARE(b.time.stages[0].compute_f, a.time.stages[0].compute_f);
        QVERIFY(b.memory.stages[3].params_count > a.memory.stages[3].params_count);
        QVERIFY(b.time.flops.model > a.time.flops.model);
    }

    // Overlap (Megatron --overlap-moe-expert-parallel-comm, DualPipeV): only the all-to-all time
    // beyond the MoE layer's compute is exposed.
    void overlap_hides_dispatch() {
        ModelSpec m = deepseek_v3();
        m.mtp_layers = 0;
        const Project p = megatron_project(m, 256, 4096)
                              .pp(4)
                              .chunks(2)
                              .schedule(Schedule::interleaved)
                              .ep(64)
                              .etp(1)
                              .distributed_optimizer(true)
                              .build();
        const Training& t = p.training;
        Layout l = p.layout;
        const Hardware hw = h100();
        const Estimate plain = evaluate(m, layer_shapes(m), make_config(m, t, l, hw, 256), hw);
        l.moe_overlap = true;
        const Config c = make_config(m, t, l, hw, 256);
        QVERIFY(c.moe.overlap);
        const Estimate over = evaluate(m, layer_shapes(m), c, hw);
        QVERIFY(plain.time.comm_ep_s > 0);
        QVERIFY(over.time.comm_ep_s < plain.time.comm_ep_s);
        QVERIFY(over.time.step_s < plain.time.step_s);
        // DualPipeV overlaps by design.
        l.moe_overlap = false;
        l.schedule = Schedule::dualpipev;
        QVERIFY(make_config(m, t, l, hw, 256).moe.overlap);
        // A dense model has no MoE options.
        ModelSpec dense = m;
        dense.experts = 0;
        l.moe_dispatcher = MoeDispatcher::deepep;
        QVERIFY(make_config(dense, t, l, hw, 256).moe.dispatcher == MoeDispatcher::alltoall);
    }

    // DeepEP FP8 dispatch follows the run's precision; the project fields reach the config.
    void layout_fields_reach_config() {
        const ModelSpec m = qwen3_30b();
        const Project p = megatron_project(m, 64, 4096)
                              .ep(8)
                              .moe_dispatcher(MoeDispatcher::deepep)
                              .moe_capacity_factor(1.25)
                              .moe_imbalance(1.5)
                              .build();
        Config c = make_config(m, p.training, p.layout, h100(), 8);
        QVERIFY(c.moe.dispatcher == MoeDispatcher::deepep);
        QVERIFY(!c.moe.fp8_dispatch);
        QCOMPARE(moe_load_factor(c.moe), 1.25);
        const Project fp8 = ProjectBuilder(p).precision(Precision::fp8).build();
        QVERIFY(make_config(m, fp8.training, fp8.layout, h100(), 8).moe.fp8_dispatch);
    }

    // The project's layout fields: read, written back only when set, checked with a pointer,
    // and used by the whole-project estimate (Mixtral 8x7B example, EP8 over 2 nodes).
    void project_fields() {
        nlohmann::json j = project_to_json(load_example("mixtral-8x7b-2nodes-ep"));
        QVERIFY(!j["layout"].contains("moe_dispatcher"));
        const Estimate plain = estimate_project(project_from_json(j));
        j["layout"]["moe_dispatcher"] = "deepep";
        j["layout"]["moe_imbalance"] = 1.0;
        j["layout"]["moe_capacity_factor"] = 1.25;
        j["layout"]["moe_overlap"] = true;
        const Project p = project_from_json(j);
        QCOMPARE(p.layout.moe_dispatcher, MoeDispatcher::deepep);
        QCOMPARE(p.layout.moe_imbalance, 1.0);
        QCOMPARE(p.layout.moe_capacity_factor, 1.25);
        QVERIFY(p.layout.moe_overlap);
        QCOMPARE(project_to_json(project_from_json(project_to_json(p))), project_to_json(p));
        const Estimate e = estimate_project(p);
        QVERIFY(e.config.moe.dispatcher == MoeDispatcher::deepep);
        QVERIFY(e.time.comm_ep_s < plain.time.comm_ep_s);
        auto pointer_of = [&](const char* key, const nlohmann::json& v) {
            nlohmann::json bad = j;
            bad["layout"][key] = v;
            try {
                project_from_json(bad);
            } catch (const InputError& err) {
                return err.pointer();
            }
            return std::string("no error");
        };
        QCOMPARE(pointer_of("moe_imbalance", 0.5), std::string("/layout/moe_imbalance"));
        QCOMPARE(pointer_of("moe_dispatcher", "flex"), std::string("/layout/moe_dispatcher"));
        QCOMPARE(pointer_of("moe_capacity_factor", -1), std::string("/layout/moe_capacity_factor"));
    }

    // Megatron-MoE-ModelZoo best_practice/Qwen3 (c1ad0b5c), long-context table: Qwen3-235B on 32
    // H100 nodes, TP4 PP8 VPP4 EP8, GBS 256, DeepEP, BF16: forced balance vs dropless TFLOP/s/GPU
    // 295/237 (16K, the pair kDefaultMoeImbalance is fitted to), 335/277 (32K, CP2), 368/320
    // (64K, CP4), 389/357 (128K, CP8). Same FLOPs, so the TFLOP/s ratio is the step-time ratio.
    void dropless_vs_forced_balance_data() {
        QTest::addColumn<int>("seq");
        QTest::addColumn<int>("cp");
        QTest::addColumn<double>("published");
        QTest::addColumn<bool>("fitted");
        QTest::newRow("16K (fitted)") << 16384 << 1 << 295.0 / 237 << true;
        QTest::newRow("32K") << 32768 << 2 << 335.0 / 277 << false;
        QTest::newRow("64K") << 65536 << 4 << 368.0 / 320 << false;
        QTest::newRow("128K") << 131072 << 8 << 389.0 / 357 << false;
    }
    void dropless_vs_forced_balance() {
        QFETCH(int, seq);
        QFETCH(int, cp);
        QFETCH(double, published);
        QFETCH(bool, fitted);
        ModelSpec m = qwen3_30b();   // Qwen/Qwen3-235B-A22B config.json
        m.layers = 94;
        m.hidden = 4096;
        m.heads = 64;
        m.ffn_hidden = 12288;
        m.expert_ffn_hidden = 1536;
        const Project dropless_run = megatron_project(m, 256, seq)
                                         .tp(4)
                                         .cp(cp)
                                         .pp(8)
                                         .chunks(4)
                                         .schedule(Schedule::interleaved)
                                         .sp_mode(SpMode::split_gather)
                                         .ep(8)
                                         .etp(1)
                                         .distributed_optimizer(true)
                                         .moe_dispatcher(MoeDispatcher::deepep)
                                         .moe_imbalance(0)
                                         .build();
        const Project forced_run = ProjectBuilder(dropless_run).moe_imbalance(1).build();
        const Hardware hw = h100();
        const Config cb = make_config(m, forced_run.training, forced_run.layout, hw, 256);
        const double forced =
            evaluate(m, layer_shapes(m), cb, hw, simulated_pipeline(cb.link[kPp].latency_s)).time.step_s;
        const Config cd = make_config(m, dropless_run.training, dropless_run.layout, hw, 256);
        const double dropless =
            evaluate(m, layer_shapes(m), cd, hw, simulated_pipeline(cd.link[kPp].latency_s)).time.step_s;
        const double ratio = dropless / forced;
        qInfo("seq %d cp %d: dropless / forced balance step %.3f (published %.3f)", seq, cp, ratio, published);
        QVERIFY2(std::abs(ratio / published - 1) <= (fitted ? 0.03 : 0.08),
                 qPrintable(QString("%1 vs %2").arg(ratio).arg(published)));
    }
};

QTEST_APPLESS_MAIN(TestEstimateMoe)
#include "tst_estimate_moe.moc"
